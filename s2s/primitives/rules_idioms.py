"""Primitives behind Python idioms (s2s/frontend/idioms_calls.py, s2s/frontend/sampling.py).

`ext.s2s_sample` calls a random sampler (a NumPy random function, a RandomState or Generator
method, or the constructor of one) once, where the plain function calls it. Its arguments have no
derivative rule on purpose: a sampler whose parameters depend on a differentiated argument
(`rs.normal(loc, scale)`) is reported, and the user writes `loc + scale * rs.standard_normal(...)`.
`ext.s2s_keys` (a dict's keys, in order) carries no derivative.
"""
from __future__ import annotations

from ..custom import EXT
from .registry import nondiff, prim


def s2s_sample(sampler, args, kw):
    """`sampler(*args, **kw)`; `sampler` is a callable or an (object, method name) pair."""
    if isinstance(sampler, tuple):
        sampler = getattr(*sampler)
    return sampler(*args, **(kw or {}))


def s2s_keys(d):
    """The keys of dict `d`, in insertion order, as a list."""
    return list(d)


def s2s_sorted_keys(d):
    """`sorted(d)` for a dict or a list of keys."""
    return sorted(d)


def s2s_tolist(x):
    """`x.tolist()`."""
    return x.tolist()


prim("ext.s2s_sample", "sampler, *args, **kw")
prim("ext.s2s_tolist", "*array")  # no derivative rule: reported when the array is differentiated
nondiff("ext.s2s_keys", "ext.s2s_sorted_keys", sig="d")
EXT.s2s_sample = s2s_sample
EXT.s2s_keys = s2s_keys
EXT.s2s_tolist = s2s_tolist
EXT.s2s_sorted_keys = s2s_sorted_keys
