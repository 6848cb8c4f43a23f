"""The seed of a float64 scalar output read from a name already computed (jit): `rt.seed(out)`
checks that grad's output is a real scalar and gives the cotangent 1 in its type. Where the
version knows the output is a float64 value of shape () computed by NumPy (an `xp.` function, a
reduction method or an element of an array, then arithmetic: a NumPy float64, never a Python
float), `rt.seed` of any NumPy float64 scalar the output is computed from gives the same object,
NumPy's float64 1.0, so the seed reads such a name and the output is no longer computed for the
check alone (softmax cross-entropy: a logarithm and a subtraction of 10 us)::

    b_t5 = rt.seed(xp.log(t2) - t4)    ->    b_t5 = rt.seed(t2)

with `t2 = t1.sum()` bound once. Shape folding calls `folded` (shapefold.py) with its float64
names and shapes; a seed that reads a name already is left as it is.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry
from .float64 import is_float64

_ARITH = (gast.Add, gast.Sub, gast.Mult, gast.Div)


def _numpy_value(e, shapes, shape_of, depth: int = 16) -> bool:
    """Whether value `e` is certainly a NumPy object (not a Python number): an `xp.` function's
    result, a reduction method's, an element of an array of known rank, or arithmetic with one
    (through names bound once: `shapes.bound`)."""
    if depth <= 0:
        return False
    if isinstance(e, gast.Name):
        bound = getattr(shapes, "bound", {})
        return shapes.counts.get(e.id) == 1 and e.id in bound and _numpy_value(bound[e.id], shapes, shape_of, depth - 1)
    if isinstance(e, gast.Call):
        name = analysis.dotted(e.func) or ""
        if name.startswith("xp."):
            return True
        if isinstance(e.func, gast.Attribute) and not name.startswith(("rt.", "ext.")):
            p = registry.lookup("xp." + e.func.attr)
            s = shape_of(e.func.value, shapes)
            return p is not None and p.reduction and s is not None and len(s) >= 1
        return False
    if isinstance(e, gast.Subscript):
        s = shape_of(e.value, shapes)
        return s is not None and len(s) >= 1
    if isinstance(e, gast.BinOp) and isinstance(e.op, _ARITH):
        return _numpy_value(e.left, shapes, shape_of, depth - 1) or _numpy_value(e.right, shapes, shape_of, depth - 1)
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, (gast.USub, gast.UAdd)):
        return _numpy_value(e.operand, shapes, shape_of, depth - 1)
    return False


def _qualifies(n: str, shapes, shape_of) -> bool:
    """Whether name `n` is bound once to a NumPy float64 of shape ()."""
    return shapes.counts.get(n) == 1 and n in shapes.f64 and shape_of(build.name(n), shapes) == () \
        and _numpy_value(build.name(n), shapes, shape_of)


def _direct(e) -> list:
    """The names value `e` reads through arithmetic and NumPy calls (not through other names)."""
    if isinstance(e, gast.Name):
        return [e.id]
    kids = [e.left, e.right] if isinstance(e, gast.BinOp) else [e.operand] if isinstance(e, gast.UnaryOp) else \
        list(e.args) if isinstance(e, gast.Call) and (analysis.dotted(e.func) or "").startswith("xp.") else []
    return [n for k in kids for n in _direct(k)]


def _witness(e, shapes, shape_of):
    """A name that value `e` reads directly, bound once to a NumPy float64 of shape (), whose own
    value reads no such name directly (so the seed that reads it is not folded again), or None."""
    bound = getattr(shapes, "bound", {})
    for n in _direct(e):
        if _qualifies(n, shapes, shape_of) and n in bound \
                and not any(_qualifies(m, shapes, shape_of) for m in _direct(bound[n])):
            return n
    return None


def folded(f, v, shapes, shape_of):
    """`rt.seed(w)` for `rt.seed(out)` (call `v`) of a NumPy float64 `out` of shape () computed
    from `w` (`_witness`); else None. `out` may be a name bound once, whose value is read."""
    if f != "rt.seed" or v.keywords or len(v.args) != 1:
        return None
    out = v.args[0]
    start = out
    if isinstance(out, gast.Name):
        start = getattr(shapes, "bound", {}).get(out.id) if shapes.counts.get(out.id) == 1 else None
    if start is None or shape_of(out, shapes) != () or not is_float64(out, shapes.f64, shapes.ints) \
            or not _numpy_value(out, shapes, shape_of):
        return None
    w = _witness(start, shapes, shape_of)
    return None if w is None or isinstance(out, gast.Name) and w == out.id else build.call("rt.seed", [build.name(w)])
