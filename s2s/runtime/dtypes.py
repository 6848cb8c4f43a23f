"""What a result's dtype does to its derivative: an integer or bool result (a cast, a `dtype=`
keyword, a store into an integer array) truncates, so no derivative flows through it (issue 44:
`v - v.astype(int)` had the gradient 0); a complex one carries it, with JAX's convention (a real
value cast to complex: its cotangent is the real part, taken where reverse mode hands it out), and
a complex value cast to a real one keeps the real part of its derivative, as NumPy keeps the real
part of the value."""
from __future__ import annotations

import numpy as np

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
    is an integer or bool (a truncation has no derivative), `g` where it is complex, the real part
    of `g` where it is real floating."""
    kind = _kind(like)
    if kind in "biu":
        if isinstance(g, (int, float)) or np.ndim(g) == 0 and not hasattr(g, "shape"):
            return 0.0
        # (floating zeros: a tangent that went through the cast itself is bool or int, and
        # `-` of a bool array is NumPy's TypeError)
        dt = getattr(g, "dtype", None)
        return namespace(g).zeros(np.shape(g), dtype=dt if dt is not None and dt.kind == "f" else np.float64)
    if kind == "f" and (g.dtype.kind == "c" if type(g) is np.ndarray else isinstance(g, complex)):
        return g.real  # (a complex value cast to a real one: NumPy keeps the real part, and so the derivative)
    return g  # (a complex result: the derivative itself, JAX's convention; a real value's cotangent is
    #          the real part of it where reverse mode hands it out, rt.real_cotangent)
