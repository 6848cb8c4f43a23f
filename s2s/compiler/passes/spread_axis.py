"""Spreads along the first axis: `a + rt.sum_vjp(g, like, 0, False)` (or `-`, `*`, either side)
with `a` of `like`'s shape and `g` of `like`'s shape without its first axis is `a + g`, since
NumPy's broadcasting lines `g` up with `like`'s last axes and repeats it along the first, as the
helper's copy does. The sum's cotangent in a softmax written `e / e.sum(axis=0)` (a column of
probabilities, the char RNN's backward step) then costs no helper call and no copy (2.2 µs a
step); the values are the same additions of the same numbers. Shape folding calls `spread` on
each operation (`shapefold._folded`), after its own rule for `keepdims=True`."""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build

__all__ = ("spread",)


def spread(v, shapes, shape_of):
    """`v` with its `rt.sum_vjp(g, like, axis, False)` operand replaced by `g`, where `axis` is
    `like`'s first and the shapes say the result is the same array; or None. Not where a float32
    may arise (`shapes.narrow`): the helper casts `g` to `like`'s dtype first."""
    if not (isinstance(v, gast.BinOp) and isinstance(v.op, (gast.Add, gast.Sub, gast.Mult))) or shapes.narrow:
        return None
    for side, other in (("right", v.left), ("left", v.right)):
        c = getattr(v, side)
        if not (isinstance(c, gast.Call) and analysis.dotted(c.func) == "rt.sum_vjp" and len(c.args) == 4
                and not c.keywords and _const(c.args[3], bool) is False and type(_const(c.args[2], int)) is int):
            continue
        like, g = shape_of(c.args[1], shapes), shape_of(c.args[0], shapes)
        if like is None or g is None or not like or _const(c.args[2], int) not in (0, -len(like)):
            continue
        if tuple(g) == tuple(like[1:]) and shape_of(other, shapes) == like:
            out = build.binop(v.left, v.op, v.right)
            setattr(out, side, c.args[0])
            return out
    return None


def _const(e, kind):
    """The value of a literal of type `kind` (bool or int, not each other), `-1` included; or None."""
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub) and kind is int:
        inner = _const(e.operand, int)
        return None if inner is None else -inner
    if isinstance(e, gast.Constant) and type(e.value) is kind:
        return e.value
    return None
