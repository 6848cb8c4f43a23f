"""New axes as NumPy's indexing makes them fastest (jit, final stage): a value certainly a NumPy
array of rank k (`analysis.array_rank`) indexed by k full slices and then `None`, `v[:, None]`
of a vector, is `v[..., None]`; one indexed by `None` and then at most k full slices,
`v[None, :]`, is `v[None]`. Each pair is the same view (the same shape and strides, `v` its
base); NumPy builds the second without reading the slices: 73 ns where `v[:, None]` takes 103
ns, `v[None]` 64 ns where `v[None, :]` takes 103 ns (CPU time, NumPy 2.4, at any length). W1's
per-example gradient `(c64_neg_2_0 * d)[:, None] * s_tm1` has one: batching's broadcast of a
number per example against a vector per example.

Before::

    return (c64_neg_2_0 * (r_t + xp.dot(s_t, theta) - xp.dot(s_tm1, theta)))[:, None] * s_tm1

After::

    return (c64_neg_2_0 * (r_t + xp.dot(s_t, theta) - xp.dot(s_tm1, theta)))[..., None] * s_tm1

Ranks are those the 0-d constants pass reads (float64 arrays: parameters of the jit signature,
and what arithmetic, the unary functions fused kernels compute and products make of them through
names bound once), with its constants as numbers; an index of any other value stays as written.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from .base import Pass, rewrite_values
from .constants import float64_ranks


def _full(e) -> bool:
    """Whether index part `e` is `:`."""
    return isinstance(e, gast.Slice) and e.lower is None and e.upper is None and e.step is None


def _none(e) -> bool:
    return isinstance(e, gast.Constant) and e.value is None


def shorter_index(parts: list, rank: int):
    """The index NumPy reads faster for index `parts` of an array of rank `rank`, the same view:
    `(..., None)` for `rank` full slices then None, `None` for None then at most `rank` full
    slices; else None."""
    if len(parts) == rank + 1 and _none(parts[-1]) and all(map(_full, parts[:-1])):
        return build.tuple_([build.const(Ellipsis), build.const(None)])
    if 2 <= len(parts) <= rank + 1 and _none(parts[0]) and all(map(_full, parts[1:])):
        return build.const(None)
    return None


def new_axes(body: list, params, facts) -> tuple[list, bool]:
    """(Final stage, jit.) New axes of arrays of known rank indexed as NumPy does it fastest."""
    known = facts["known"]
    if not known.get("arrays"):
        return body, False
    ranks = float64_ranks(body, params, known) | {n: 0 for n in known.get("constants") or ()}

    def rewrite(e):
        if not (isinstance(e, gast.Subscript) and isinstance(e.ctx, gast.Load) and isinstance(e.slice, gast.Tuple)):
            return None
        rank = analysis.array_rank(e.value, ranks)
        index = shorter_index(e.slice.elts, rank) if rank else None
        if index is None:
            return None
        e.slice = index
        return e

    changed = rewrite_values(body, rewrite)
    return body, changed


PASS = Pass("new_axes", new_axes)
