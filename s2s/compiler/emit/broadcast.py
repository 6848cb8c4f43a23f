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


def kinds(shapes):
    """(kinds, full, split) for operands of `shapes` (None: a number): each True (shape `full`),
    "r" (a row operand), "c" (a column operand) or False (a number, or one element); `split` is
    None where no operand broadcasts. None where the kernels do not apply."""
    known = [s for s in shapes if s is not None and math.prod(s) != 1]
    if not known:
        return None
    full = max(known, key=lambda s: (len(s), math.prod(s)))
    out, split = [], None
    for s in shapes:
        if s is not None and len(s) > len(full):
            return None  # (one element of more axes: NumPy's result has them)
        if s is None or s == full or math.prod(s) == 1:
            out.append(s == full)
            continue
        kind, j = _part(s, full)
        if kind is None or split not in (None, j):
            return None
        out.append(kind)
        split = j
    return out, full, split


def layout(args, names, conditions):
    """(mask, values, full, split) for a call of a fused kernel with arguments `args` (of its
    parameters `names`; `conditions`: those that may be boolean arrays), or None where its
    kernels do not apply. `mask` flags each value as `kinds` does, "b" for a boolean array of
    shape `full`; `values` are `args` with one-element float64 arrays as Python floats."""
    for a, name in zip(args, names):
        if type(a) is np.ndarray and (not a.flags.c_contiguous or not (
                a.dtype == np.float64 or a.dtype == np.bool_ and name in conditions)):
            return None
        if type(a) is not np.ndarray and type(a) is not float and type(a) is not int:
            return None
    found = kinds([a.shape if type(a) is np.ndarray else None for a in args])
    if found is None:
        return None
    mask, full, split = found
    for i, a in enumerate(args):
        if type(a) is np.ndarray and a.dtype == np.bool_:
            if mask[i] is not True:
                return None
            mask[i] = "b"
    values = [float(a.reshape(-1)[0]) if m is False and type(a) is np.ndarray else a for a, m in zip(args, mask)]
    return tuple(mask), values, full, split


def views(mask, values, rows: int, width: int, flat: bool):
    """The kernel's arguments: each array as a matrix of `rows` by `width` (full), a row of
    `width` or a column of `rows` (`flat`: all one-dimensional, for the numba kernel)."""
    shape = {True: (rows, width), "b": (rows, width), "r": (width,), "c": (rows, 1)}
    return [v if not m else v.reshape(-1) if flat else v.reshape(shape[m]) for m, v in zip(mask, values)]
