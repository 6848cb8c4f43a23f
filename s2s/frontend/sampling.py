"""Random sampling inside a transformed function: `np.random.normal(...)`, `rs.randn(...)` on a
`np.random.RandomState`, `np.random.default_rng(0).standard_normal(...)`.

Each draw becomes one `ext.s2s_sample` call at the place the plain function draws, so the
generated code consumes a seeded stream exactly as the function itself does (the backward sweep
reuses the forward sweep's draws and never samples again). Draws are constants with respect to
the differentiated arguments; a draw whose parameters depend on them is reported (write
`loc + scale * rs.standard_normal(shape)` instead).
"""
from __future__ import annotations

import types

import gast
import numpy as np

from ..ir import build
from ..primitives import rules_idioms  # noqa: F401  (registers ext.s2s_sample)
from ..primitives.registry import EXT

GENERATORS = (np.random.RandomState, np.random.Generator)
CONSTRUCTORS = (np.random.RandomState, np.random.default_rng, np.random.Generator, np.random.SeedSequence,
                np.random.PCG64, np.random.MT19937, np.random.seed)
METHODS = {"randn", "rand", "normal", "standard_normal", "uniform", "random", "random_sample", "randint",
           "integers", "choice", "permutation", "shuffle", "binomial", "poisson", "exponential", "gamma",
           "beta", "standard_t", "laplace", "logistic", "lognormal", "multivariate_normal", "dirichlet",
           "standard_exponential", "standard_gamma", "standard_cauchy", "bernoulli", "gumbel", "seed"}


def is_sampler(obj) -> bool:
    """A NumPy random function, a method of a RandomState/Generator, or a generator constructor."""
    if any(obj is c for c in CONSTRUCTORS):
        return True
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, GENERATORS):
        return True
    return isinstance(obj, (types.BuiltinFunctionType, types.FunctionType)) \
        and (getattr(obj, "__module__", "") or "").startswith("numpy.random")


def sample_call(norm, sampler, args, kws):
    """`sampler(*args, **kws)` (atoms) as one ext.s2s_sample call."""
    norm.ns["ext"] = EXT
    pos = norm.tmp(build.tuple_(args)) if args else build.const(())
    kw = norm.tmp(_dict(kws)) if kws else build.const(None)
    return build.call("ext.s2s_sample", [sampler, pos, kw])


def method_call(norm, base, method, args, kws):
    """`base.method(...)` where `base` is a RandomState or Generator held in a variable."""
    pair = norm.tmp(build.tuple_([base, build.const(method)]))
    return sample_call(norm, pair, args, kws)


def _dict(kws):
    return gast.Dict(keys=[build.const(k) for k in kws], values=list(kws.values()))
