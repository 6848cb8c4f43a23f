"""Selects on NumPy numbers (jit's passes/scalar_selects.py, issue 46 section 2), as a loop over
NumPy scalars makes them (a sigmoid written with `np.where`): `np.where` of numbers takes 1.7 us
to make its 0-d array, and every NumPy operation that reads one is ten times slower than on a
number. `rt.where_cotangent`: the cotangent rule `rt.unbroadcast(xp.where(c, g, 0.0), x)` where
its value goes into arithmetic, the cotangent itself or a zero as a number; `rt.where_numbers`:
any `xp.where(c, a, b)` in a loop, the same 0-d array made from the number picked (0.25 us)."""
from __future__ import annotations

import numpy as np

from .core import unbroadcast

__all__ = ("where_cotangent", "where_numbers")

_F64 = np.float64
_ZERO = np.float64(0.0)
_BOOLS = (np.bool_, bool)
_LIKES = (np.float64, float)


def where_cotangent(c, g, like, first, xp):
    """`rt.unbroadcast(xp.where(c, g, 0.0), like)` (`first`: the cotangent of where's second
    argument, else of its third, `xp.where(c, 0.0, g)`; `xp`: the version's array module). Where
    `xp` is NumPy, `c` a bool, `g` a float64 number and `like` a float, the value is the same
    number as a float64 scalar instead of a 0-d array: `g` itself where it is picked, else 0.0
    (the pass asks for it only where the value goes into arithmetic, which makes a number of
    either); anything else the long way."""
    if type(g) is _F64 and type(c) in _BOOLS and type(like) in _LIKES and xp is np:
        return g if bool(c) is first else _ZERO
    return unbroadcast(xp.where(c, g, 0.0) if first else xp.where(c, 0.0, g), like)


_PICKS = (np.float64, float)


def where_numbers(c, a, b, xp):
    """`xp.where(c, a, b)`: where `xp` is NumPy, `c` a bool and `a` and `b` float64 or Python
    floats, the 0-d float64 array of the one picked (`np.where`'s result: its type, dtype, shape
    and bits); anything else `xp.where` itself."""
    if type(c) in _BOOLS and type(a) in _PICKS and type(b) in _PICKS and xp is np:
        return np.array(a if c else b)
    return xp.where(c, a, b)
