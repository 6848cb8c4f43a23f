"""Primitives behind Python idioms (s2s/frontend/idioms_calls.py, s2s/frontend/sampling.py).

`ext.s2s_sample` calls a random sampler (a NumPy random function, a RandomState or Generator
method, or the constructor of one) once, where the plain function calls it. Its arguments have no
derivative rule on purpose: a sampler whose parameters depend on a differentiated argument
(`rs.normal(loc, scale)`) is reported, and the user writes `loc + scale * rs.standard_normal(...)`.
`ext.s2s_keys` (a dict's keys, in order) carries no derivative.
"""
from __future__ import annotations

import numpy as np

from .. import record
from ..errors import S2SError, S2STypeError
from .registry import EXT, RULE_NAMES, defvjp, nondiff, prim


def s2s_sample(sampler, args, kw):
    """`sampler(*args, **kw)`; `sampler` is a callable or an (object, method name) pair."""
    if isinstance(sampler, tuple):
        sampler = getattr(*sampler)
    return sampler(*args, **(kw or {}))


def s2s_keys(d):
    """The keys of dict `d`, in insertion order, as a list."""
    if not isinstance(d, dict):  # a name that held a dict elsewhere in the function holds something else
        raise S2SError(f"s2s took this value for a dict (the function builds or uses it as one elsewhere), but "
                       f"it is a {type(d).__name__} here.\nUse separate names for the dict and the other value.")
    return list(d)


def s2s_sorted_keys(d):
    """`sorted(d)` of a dict or of keys (strings, integers): sorting values has no derivative here."""
    keys = list(d)
    if not isinstance(d, dict) and not all(isinstance(k, (str, int, np.integer)) for k in keys):
        raise S2SError("s2s supports `sorted(...)` of a dict's keys (strings or integers) in a transformed "
                       "function, not of numbers or arrays, whose order would carry no derivative.\n"
                       "Sort with `np.sort(x)` (differentiable) instead.")
    return sorted(keys)


def s2s_same(given, expected, message):
    """Check that a function-valued argument is the one the code was specialized on."""
    if given is not expected:
        raise S2STypeError(message)
    return None


def s2s_dict_from(keys, values):
    """`dict(zip(keys, values))`: what a dict comprehension builds."""
    return dict(zip(keys, values))


def s2s_dict_values(d, keys):
    """`[d[k] for k in keys]`, the transpose of s2s_dict_from."""
    return [d[k] for k in keys]


RULE_NAMES.add("ext")
prim("ext.s2s_dict_from", "keys, values", zero_args=("keys",), linear_in=("values",))
defvjp("ext.s2s_dict_from", values="ext.s2s_dict_values(g, keys)")
prim("ext.s2s_dict_values", "d, keys", zero_args=("keys",), linear_in=("d",))
defvjp("ext.s2s_dict_values", d="ext.s2s_dict_from(keys, g)")
prim("ext.s2s_sample", "sampler, *args, **kw", zero_args=("sampler",), effect=True)  # two calls: two draws
nondiff("ext.s2s_keys", "ext.s2s_sorted_keys", sig="d")
nondiff("ext.s2s_same", sig="given, expected, message", effect=True)  # a check that raises
for _f in (s2s_same, s2s_sample, s2s_keys, s2s_sorted_keys, s2s_dict_from, s2s_dict_values):
    record.attach(_f, prim="ext." + _f.__name__)
EXT.s2s_sample = s2s_sample
EXT.s2s_same = s2s_same
EXT.s2s_dict_from = s2s_dict_from
EXT.s2s_dict_values = s2s_dict_values
EXT.s2s_keys = s2s_keys
EXT.s2s_sorted_keys = s2s_sorted_keys

