"""The operand layout of a fused kernel's call whose arrays do not all have one shape.

A fused kernel runs over the result's shape `full` seen as `rows` rows of `width` elements, cut
at one axis `split`: an array of shape `full` is such a matrix, a row operand (a bias `b` of shape
`full[split:]`, with leading 1s or not: `(n,)` or `(1, n)` against `(m, n)`) is one row that every
row reads, and a column operand (`full[:split]` then 1s: `(m, 1)`) one number per row. The
kernels' blocks are whole rows, so each block broadcasts as NumPy does, and every element is
computed from the same operands as NumPy's. A float64 array of one element (a 0-d constant) is
the number it holds. Anything else (two row operands cut at different axes, a result shape no
operand has, a broadcast boolean) is left to the NumPy expression.
"""
from __future__ import annotations

import math

import numpy as np


def _part(shape: tuple, full: tuple):
    """("r", split) for a row operand of `full`, ("c", split) for a column, or (None, None)."""
    k, t = len(full), shape
    while t and t[0] == 1:
        t = t[1:]
    if len(t) < k and full[k - len(t):] == t:
        return "r", k - len(t)
    if len(shape) == k:
        j = k
        while j and shape[j - 1] == 1:
            j -= 1
        if shape[:j] == full[:j]:
            return "c", j
    return None, None


def layout(args, names, conditions):
    """(mask, values, full, split) for a call of a fused kernel with arguments `args` (of its
    parameters `names`; `conditions`: those that may be boolean arrays), or None where its
    kernels do not apply. `mask` flags each value: True a float64 array of shape `full`, "b" a
    boolean one, "r" a row operand, "c" a column operand, False a number; `values` are `args`
    with one-element float64 arrays as Python floats; `split` is None where no operand
    broadcasts (the kernels' flat layout)."""
    shapes = [a.shape for a in args if type(a) is np.ndarray and a.size != 1]
    if not shapes:
        return None
    full = max(shapes, key=lambda s: (len(s), math.prod(s)))
    mask, values, split = [], [], None
    for a, name in zip(args, names):
        if type(a) is float or type(a) is int:
            mask.append(False)
            values.append(a)
            continue
        if type(a) is not np.ndarray or not a.flags.c_contiguous or len(a.shape) > len(full) \
                or not (a.dtype == np.float64 or a.dtype == np.bool_ and name in conditions):
            return None
        if a.shape == full:
            mask.append(True if a.dtype == np.float64 else "b")
        elif a.dtype != np.float64:
            return None
        elif a.size == 1:  # a number: NumPy broadcasts its one value, bitwise as the float
            mask.append(False)
            a = float(a.reshape(-1)[0])
        else:
            kind, j = _part(a.shape, full)
            if kind is None or split not in (None, j):
                return None
            mask.append(kind)
            split = j
        values.append(a)
    return tuple(mask), values, full, split


def views(mask, values, rows: int, width: int, flat: bool):
    """The kernel's arguments: each array as a matrix of `rows` by `width` (full), a row of
    `width` or a column of `rows` (`flat`: all one-dimensional, for the numba kernel)."""
    shape = {True: (rows, width), "b": (rows, width), "r": (width,), "c": (rows, 1)}
    return [v if not m else v.reshape(-1) if flat else v.reshape(shape[m]) for m, v in zip(mask, values)]
