"""softmax written out with `exp`, seen as softmax by reverse mode: `e = np.exp(x - np.max(x))`
then `e / e.sum(axis=0)` (and the forms with `axis=..., keepdims=True`), common in NumPy code
written from scratch, become one call, `rt.softmax_by_exp(x, max_axis, sum_axis)`, before
reverse mode differentiates the function.

Why: the chain rule through the written-out form keeps five values of the forward sweep (the
shifted input, the max, `e`, the sum, the result) and takes about ten operations and a helper in
the backward sweep (the division's two cotangents, the sum's, `exp`'s, and the max's cotangent,
which is zero up to rounding: softmax does not change when its input is shifted); softmax's own
derivative is `y * (g - sum(g * y))` of its result alone (what the authors' own backward passes
use), so the tape keeps the result only and the backward takes four operations. The helper
computes the author's expression as written (the same NumPy calls on the same values), so the
forward values are unchanged; the derivative equals the chain rule's up to rounding.

Before (core form)::

    t0 = xp.max(x)
    t1 = x - t0
    e_x = xp.exp(t1)
    t2 = xp.sum(e_x, axis=0)
    t3 = e_x / t2

After::

    t3 = rt.softmax_by_exp(x, None, 0)

Only where every intermediate is assigned once, in the same block as the division, and read by
the pattern alone, `x` is a name assigned nowhere between the pattern's first statement and its
division, and the result is a softmax along the summed axes (`_axes`): the max is over all
entries or along the sum's axes with `keepdims=True`, and the sum keeps its dimensions, is over
all entries, or is along axis 0 (whose result broadcasts back in place).
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from . import idiom_blocks


def rewrite(body: list, params=()) -> list:
    """`body` (core form, modified in place) with each written-out softmax replaced by one call."""
    return idiom_blocks.rewrite_each(body, params, _match)


def _match(block, k, s, temp):
    """(the call, indices of the statements it replaces, x) where statement `k` of `block` divides
    a written-out softmax's `exp` by its sum, else None."""
    if not (isinstance(s, gast.Assign) and isinstance(s.value, gast.BinOp) and isinstance(s.value.op, gast.Div)):
        return None

    def value(e):
        i = temp(e)
        return None if i is None else block[i].value

    e, z = s.value.left, s.value.right
    ev, zv = value(e), value(z)
    exp = _call(ev, lambda f: f == "xp.exp", ())
    red = _call(zv, lambda f: f == "xp.sum", ("axis", "dtype", "out", "keepdims"))
    if exp is None or red is None or not (isinstance(red[0], gast.Name) and red[0].id == e.id):
        return None
    shifted = value(exp[0])
    if not (isinstance(shifted, gast.BinOp) and isinstance(shifted.op, gast.Sub)
            and isinstance(shifted.left, gast.Name)):
        return None
    x, m = shifted.left.id, shifted.right
    mx = _call(value(m), lambda f: f == "xp.max" or f == "xp.amax", ("axis", "out", "keepdims"))
    if mx is None or not (isinstance(mx[0], gast.Name) and mx[0].id == x):
        return None
    axes = _axes(mx[1], red[1])
    if axes is None:
        return None
    used = {temp(t) for t in (e, z, exp[0], m)}
    return build.call("rt.softmax_by_exp", [build.name(x), build.clone(axes[0]), build.clone(axes[1])]), used, x


def _call(v, named, params):
    """(operand, {parameter: argument}) of `v`, a call of a function whose dotted name passes
    `named`, with one array operand and then `params` by position or keyword, else None."""
    if not (isinstance(v, gast.Call) and named(analysis.dotted(v.func)) and v.args) \
            or any(isinstance(a, gast.Starred) for a in v.args) or len(v.args) > len(params) + 1:
        return None
    given = dict(zip(params, v.args[1:]))
    for kw in v.keywords:
        if kw.arg not in params or kw.arg in given:
            return None
        given[kw.arg] = kw.value
    return v.args[0], given


def _axes(mx, red):
    """(max's axis, sum's axis) as expressions where the max and the sum make a softmax along the
    sum's axes whose derivative is `y * (g - sum(g * y))` (the max a constant along them, the sum
    broadcasting back in place), else None. Only literal axes, and no `out` or `dtype`."""
    if any(k in d for d in (mx, red) for k in ("out", "dtype")):
        return None
    m_axis, s_axis = _literal(mx.get("axis")), _literal(red.get("axis"))
    m_keep, s_keep = _literal(mx.get("keepdims")), _literal(red.get("keepdims"))
    if _BAD in (m_axis, s_axis, m_keep, s_keep) or bool in (type(m_axis), type(s_axis)) \
            or not all(k is None or type(k) is bool for k in (m_keep, s_keep)):
        return None
    if not (s_keep is True or s_axis is None or s_axis == 0):  # (a sum along 0 broadcasts back: leading axis)
        return None
    if m_axis is not None and not (m_keep is True and m_axis == s_axis):  # (the max: constant along the sum)
        return None
    return build.const(m_axis) if not isinstance(m_axis, tuple) else mx["axis"], \
        build.const(s_axis) if not isinstance(s_axis, tuple) else red["axis"]


_BAD = object()


def _literal(e):
    """The value of `e`: None where absent, a literal int, bool, None or tuple of ints, else _BAD."""
    if e is None:
        return None
    if isinstance(e, gast.Constant) and (e.value is None or type(e.value) in (int, bool)):
        return e.value
    if isinstance(e, gast.Tuple) and all(isinstance(t, gast.Constant) and type(t.value) is int for t in e.elts):
        return tuple(t.value for t in e.elts)
    return _BAD
