"""A full array of one number as an operand of arithmetic: that number (shape folding, jit).

A mean or sum's cotangent spread over the array it reduces is `xp.full_like(like, c)`
(`shapefold._filled_cotangent`); the next statement multiplies it by an array of that shape
(`b_t7 = y * b_t8`, softmax cross-entropy's `y * (z - lse)`). With both operands float64 and the
other operand's shape the result's, `y * c` computes the same numbers (NumPy applies the ufunc to
each element and the one number, with the same float64 operands), and `like` (here the loss's
terms `y * (z - lse)`, computed only for their shape) is no longer read: the loss's value goes.

Before (`y`, `t8` float64 arrays of shape 128 x 10)::

    b_t8 = xp.full_like(t8, -0.0078125)
    b_t7 = y * b_t8

After::

    b_t7 = y * -0.0078125
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from . import shape_facts as sfacts
from .float64 import is_float64

_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div)


def scalar_operand(v, shapes, shape_of, filled):
    """`a op c` for `a op F` (or `c op a` for `F op a`), `F` a name bound once to a full array of
    number `c` shaped like float64 array `like`, where `a` is float64 and `a`'s shape is the
    result's; else None. `filled(call)`: the `xp.full_like` a bound helper call folds to, or None
    (a statement folded earlier in the same sweep is still its helper in `shapes.bound`)."""
    if not (isinstance(v, gast.BinOp) and isinstance(v.op, _OPS)):
        return None
    for side, other in (("right", v.left), ("left", v.right)):
        found = _fill(getattr(v, side), shapes, filled)
        if found is None:
            continue
        like, c = found
        mine, theirs = shape_of(other, shapes), shape_of(like, shapes)
        if mine is None or theirs is None or sfacts.broadcast(mine, theirs) != mine \
                or not (is_float64(other, shapes.f64, shapes.ints) and is_float64(like, shapes.f64, shapes.ints)):
            continue
        out = build.binop(v.left, v.op, v.right)
        setattr(out, side, build.const(c))
        return out
    return None


def _fill(e, shapes, filled):
    """(like, c) where `e` names an `xp.full_like(like, c)` bound once, c a float; else None."""
    if not isinstance(e, gast.Name) or shapes.counts.get(e.id) != 1:
        return None
    v = shapes.bound.get(e.id)
    if isinstance(v, gast.Call) and analysis.dotted(v.func) != "xp.full_like":
        v = filled(v)
    if not (isinstance(v, gast.Call) and analysis.dotted(v.func) == "xp.full_like" and len(v.args) == 2
            and not v.keywords and isinstance(v.args[1], gast.Constant) and type(v.args[1].value) is float):
        return None
    return v.args[0], v.args[1].value
