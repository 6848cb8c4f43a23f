"""What a result's dtype does to its derivative: an integer or bool result (a cast, a `dtype=`
keyword, a store into an integer array) truncates, so no derivative flows through it; a complex
one is refused, since s2s's rules are for real arithmetic (issue 44: `v - v.astype(int)` had the
gradient 0, `v.astype(complex)` slipped past the complex refusal)."""
from __future__ import annotations

import numpy as np

from ..errors import S2STypeError
from .core import namespace

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("dtype_gate", "stored_as", "dtype_ct")


def dtype_gate(x, at):
    """The result `x` of an operation whose dtype keyword (or cast) decides its derivative: `x`
    itself; its derivative rule reads its dtype (`dtype_ct`). `at`: the user's line."""
    return x


def stored_as(v, into, at):
    """`v`, stored into the array `into` (`into[i] = v`): the value itself; its derivative is that
    of a cast to `into`'s dtype (`dtype_ct`)."""
    return v


def _kind(like) -> str:
    dt = getattr(like, "dtype", None)
    return dt.kind if dt is not None else np.asarray(like).dtype.kind


def dtype_ct(g, like, at):
    """The derivative `g` (a tangent or cotangent) through a value of `like`'s dtype: zero where it
    is an integer or bool (a truncation has no derivative), an S2SError where it is complex, `g`
    where it is floating."""
    kind = _kind(like)
    if kind in "biu":
        if isinstance(g, (int, float)) or np.ndim(g) == 0 and not hasattr(g, "shape"):
            return 0.0
        # (floating zeros: a tangent that went through the cast itself is bool or int, and
        # `-` of a bool array is NumPy's TypeError)
        dt = getattr(g, "dtype", None)
        return namespace(g).zeros(np.shape(g), dtype=dt if dt is not None and dt.kind == "f" else np.float64)
    if kind == "c":
        dt = np.dtype(getattr(like, "dtype", complex))
        raise S2STypeError(f"{at}\na derivative flows through a complex value here ({dt}); "
                           "s2s differentiates real floating-point arithmetic only, and its rules would give a "
                           "wrong number for complex values.\nCompute with real and imaginary parts as real arrays, "
                           "or stop the derivative (stop_gradient) where the complex value is made.")
    return g
