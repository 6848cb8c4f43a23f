"""Transposed sums in loops (jit): an accumulator that a loop adds a transposed array to,
`acc = acc + rt.transpose_vjp(v, None)`, is kept transposed (`rt.add_transposed`), so that from
its second iteration on each sum reads both operands in their memory order.

A weight used as `w.T` (`x @ w.T`, PyTorch's layout, the Elman RNN's `h @ weight_hh.T`) gets its
cotangent as the transpose of the product's, added into the weight's accumulator once per step:
a sum that reads one operand across its rows (a 128 x 128 float64 one: 55 us where the
contiguous sum takes 11 us).

Before::

    for t in r1:
        b_t9 = rt.dot_vjp_b(b_t10, h, t9)
        b_w = b_w + rt.transpose_vjp(b_t9, None)

After::

    for t in r1:
        b_t9 = rt.dot_vjp_b(b_t10, h, t9)
        b_w = rt.add_transposed(b_w, b_t9)

The values are the sum's: `rt.add_transposed(a, v)` is the transpose of `a`'s transpose plus `v`
for NumPy arrays of one rank (two or more), the same additions of the same pairs; anything else
takes `a + rt.transpose_vjp(v, None)`. Only in loops, and only where the statement rebinds its
left operand, so the transposed layout stays with the accumulator that the next iteration reads.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from .base import Pass


def _transposed_sum(s):
    """(acc, v) for `acc = acc + rt.transpose_vjp(v, None)`, else None."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)):
        return None
    e = s.value
    if not (isinstance(e, gast.BinOp) and isinstance(e.op, gast.Add) and isinstance(e.left, gast.Name)
            and e.left.id == s.targets[0].id):
        return None
    r = e.right
    if isinstance(r, gast.Call) and analysis.dotted(r.func) == "rt.transpose_vjp" and not r.keywords \
            and len(r.args) == 2 and isinstance(r.args[1], gast.Constant) and r.args[1].value is None:
        return e.left, r.args[0]
    return None


def _rewrite(block, in_loop: bool) -> bool:
    changed = False
    for s in block:
        loop = isinstance(s, (gast.For, gast.While))
        for f in ("body", "orelse"):
            if getattr(s, f, None):
                changed |= _rewrite(getattr(s, f), in_loop or loop and f == "body")
        if in_loop and (found := _transposed_sum(s)) is not None:
            s.value = build.call("rt.add_transposed", list(found))
            changed = True
    return changed


def transposed_sums(body: list, params, facts) -> tuple[list, bool]:
    return body, _rewrite(body, False)


PASS = Pass("transposed_sums", transposed_sums)
