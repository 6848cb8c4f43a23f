"""The seed of a float64 scalar output (jit): `rt.seed(out)` checks that grad's output is a real
scalar and gives the cotangent 1 in its type. Where the version knows the output is a float64
value of shape () computed by NumPy (an `xp.` function, a reduction method or an element of an
array, then arithmetic: a NumPy float64 scalar, never a Python float), the seed is NumPy's
float64 1.0, so the output is no longer computed for the check alone (softmax cross-entropy:
`rt.seed(xp.log(t2) - t4)`, a logarithm, a subtraction and the helper, about 0.8 us of 10)::

    b_t5 = rt.seed(xp.log(t2) - t4)    ->    b_t5 = seed_one64

`seed_one64` is `np.float64(1.0)` in the version's namespace, the object `rt.seed` returns.
Shape folding calls `folded` (shapefold.py) with its float64 names and shapes.
"""
from __future__ import annotations

import gast
import numpy as np

from .. import analysis
from ..ir import build
from ..primitives import registry
from .float64 import is_float64

NAME = "seed_one64"
ONE = np.float64(1.0)
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


def folded(f, v, shapes, shape_of):
    """The name of NumPy's float64 1.0 for `rt.seed(out)` (call `v`) of a NumPy float64 `out` of
    shape (); else None. `shapes.ns`: the version's namespace, which gets the constant."""
    ns = getattr(shapes, "ns", None)
    if f != "rt.seed" or ns is None or v.keywords or len(v.args) != 1:
        return None
    out = v.args[0]
    if ns.get(NAME, ONE) is not ONE or shape_of(out, shapes) != () or not is_float64(out, shapes.f64, shapes.ints) \
            or not _numpy_value(out, shapes, shape_of):
        return None
    ns[NAME] = ONE
    return build.name(NAME)
