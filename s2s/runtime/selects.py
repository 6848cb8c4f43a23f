"""A select's cotangent on NumPy numbers (jit's passes/scalar_selects.py, issue 46 section 2):
`rt.unbroadcast(xp.where(c, g, 0.0), x)` where the condition, the cotangent and the operand are
numbers (a loop over NumPy scalars: a sigmoid written with `np.where`) is the cotangent itself or
a zero, without `np.where`'s 0-d array, which costs a microsecond to make and makes every NumPy
operation that reads it ten times slower than on a number."""
from __future__ import annotations

import numpy as np

from .core import unbroadcast

__all__ = ("where_cotangent",)

_F64 = np.float64
_ZERO = np.float64(0.0)
_BOOLS = (np.bool_, bool)
_LIKES = (np.float64, float)


def where_cotangent(c, g, like, first, xp):
    """`rt.unbroadcast(xp.where(c, g, 0.0), like)` (`first`: the cotangent of where's second
    argument, else of its third, `xp.where(c, 0.0, g)`; `xp`: the version's array module). Where `c` is a bool, `g` a float64
    number and `like` a float, the value is the same number as a float64 scalar instead of a 0-d
    array: `g` itself where it is picked, else 0.0 (the pass asks for it only where the value
    goes into arithmetic, which makes a number of either); anything else the long way."""
    if type(g) is _F64 and type(c) in _BOOLS and type(like) in _LIKES:
        return g if bool(c) is first else _ZERO
    return unbroadcast(xp.where(c, g, 0.0) if first else xp.where(c, 0.0, g), like)
