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
    obj = norm.ns.get(sampler.id) if isinstance(sampler, gast.Name) else None
    if getattr(obj, "__name__", None) == "shuffle" and isinstance(getattr(obj, "__self__", None), GENERATORS):
        return shuffled(norm, build.name(norm.bind("permutation", obj.__self__.permutation)), args, kws)
    norm.ns["ext"] = EXT
    pos = norm.tmp(build.tuple_(args)) if args else build.const(())
    kw = norm.tmp(_dict(kws)) if kws else build.const(None)
    return build.call("ext.s2s_sample", [sampler, pos, kw])


def method_call(norm, base, method, args, kws):
    """`base.method(...)` where `base` is a RandomState or Generator held in a variable."""
    if method == "shuffle":
        return shuffled(norm, norm.tmp(build.tuple_([base, build.const("permutation")])), args, kws)
    pair = norm.tmp(build.tuple_([base, build.const(method)]))
    return sample_call(norm, pair, args, kws)


def _dict(kws):
    return gast.Dict(keys=[build.const(k) for k in kws], values=list(kws.values()))


def shuffled(norm, permutation, args, kws):
    """`shuffle(x)`, which permutes the rows of `x` in place, as `x[:] = x[perm]` with `perm` drawn by
    the same generator's `permutation(len(x))` (the same numbers from the stream: NumPy's
    permutation shuffles an arange), so the derivative follows the rows and an update in place
    is checked against the other names of `x`."""
    axis = kws.get("axis")
    if len(args) != 1 or not isinstance(args[0], gast.Name) or set(kws) - {"axis"} \
            or axis is not None and not (isinstance(axis, gast.Constant) and axis.value == 0):
        norm.fail(norm.current, "s2s supports `shuffle(x)` of an array named by a local variable, along its first axis.",
                  "Write `x = x[rng.permutation(len(x))]`, which draws the same numbers.")
    x = args[0]
    perm = norm.tmp(sample_call(norm, permutation, [norm.tmp(build.call("len", [x]))], {}))
    rows = norm.tmp(build.subscript(x, perm))
    target = gast.Subscript(value=build.name(x.id), slice=gast.Slice(lower=None, upper=None, step=None),
                            ctx=gast.Store())
    norm.assign_to(gast.copy_location(target, norm.current), rows)
    return build.const(None)
