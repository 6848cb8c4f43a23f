"""What Python's `math`, `itertools` and `sorted` calls and NumPy's `np.unwrap` are inside a
transformed function: plain Python over NumPy calls s2s has rules for, which s2s transforms like
user code (resolve.counterpart reads them in place of the originals), so their derivatives,
batching and compiled forms are those of the code written here (issue 44: each was refused).

Each keeps Python's or NumPy's result and errors: `math.fmod(x, 0.0)` raises ValueError,
`math.dist` of points of different lengths raises ValueError, `sorted` is stable and `reverse=True`
keeps equal keys in their order. Values agree with the originals to the last bits or so:
`math.hypot` of three or more coordinates is a chain of two-coordinate `np.hypot`s."""
from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = ["accumulate", "copysign", "dist", "fmod", "hypot", "prod", "sorted_by", "sorted_values", "unwrap",
           "STAND_INS"]


def fmod(x, y):
    """`math.fmod(x, y)`: x - n*y with n = trunc(x / y), the sign of x (C's fmod; float result)."""
    if y == 0.0 or np.isinf(x):
        raise ValueError("math domain error")
    return np.fmod(np.float64(x), y)


def copysign(x, y):
    """`math.copysign(x, y)`: |x| with the sign bit of y (a float)."""
    return np.copysign(np.float64(x), y)


def hypot(*coordinates):
    """`math.hypot(*coordinates)`: the Euclidean norm of the coordinates (0.0 for none)."""
    out = np.float64(0.0)
    for c in coordinates:
        out = np.hypot(out, c)
    return out


def dist(p, q):
    """`math.dist(p, q)`: the Euclidean distance of two points of the same length."""
    if len(p) != len(q):
        raise ValueError("both points must have the same number of dimensions")
    out = np.float64(0.0)
    for a, b in zip(p, q):
        out = np.hypot(out, a - b)
    return out


def prod(iterable, start=1):
    """`math.prod(iterable, start=start)`: start times the items, in order."""
    out = start
    for v in iterable:
        out = out * v
    return out


def _add(a, b):
    return a + b


def accumulate(iterable, func=_add, initial=None):
    """`itertools.accumulate(iterable, func, initial=initial)` as a list (Python's is an iterator
    read once): the running `func(total, item)` (sums without `func`), after `initial` if given.
    (`func` defaults to a function, never tested against None: a function passed is specialized on.)"""
    items = list(iterable)
    out = []
    if initial is None:
        if len(items) == 0:
            return out
        total = items[0]
        items = items[1:]
    else:
        total = initial
    out.append(total)
    for v in items:
        total = func(total, v)
        out.append(total)
    return out


def sorted_by(iterable, key, reverse=False):
    """`sorted(iterable, key=key, reverse=reverse)` of numbers or arrays: a stable sort by the
    keys, which must be numbers (equal keys keep their order, with `reverse=True` too, as Python's);
    the derivative follows each item to its place."""
    items = list(iterable)
    if len(items) == 0:
        return []
    return _sorted(items, np.stack([key(v) for v in items]), reverse)


def sorted_values(iterable, reverse=False):
    """`sorted(iterable, reverse=reverse)` of numbers (no `key`): `sorted_by` with the items as keys."""
    items = list(iterable)
    if len(items) == 0:
        return []
    return _sorted(items, np.stack(items), reverse)


def _sorted(items, keys, reverse):
    if isinstance(items[0], (tuple, list, dict, str)):
        raise TypeError("s2s sorts numbers and arrays with `sorted(..., key=...)` in a transformed function, not "
                        "tuples, lists or strings: sort their positions, `sorted(range(len(xs)), key=...)`")
    if np.ndim(keys) != 1 or np.asarray(keys).dtype.kind not in "biuf":
        raise TypeError("s2s sorts by numeric keys: the items or keys here are arrays "
                        "(sort an array with np.sort)")
    if reverse:
        order = np.argsort(-keys, kind="stable")
    else:
        order = np.argsort(keys, kind="stable")
    return list(np.stack(items)[order])


def unwrap(p, discont=None, axis=-1, period=6.283185307179586):
    """`np.unwrap(p, discont, axis, period=period)`: each jump along `axis` larger than `discont`
    (period / 2 when None or smaller) replaced by its remainder modulo `period`; the corrections
    are constant between jumps, so the derivative is the identity."""
    p = np.asarray(p)
    if discont is None:
        discont = period / 2
    dd = np.diff(p, axis=axis)
    half = period / 2
    ddmod = np.mod(dd + half, period) - half
    ddmod = np.where((ddmod == -half) & (dd > 0), half, ddmod)
    correct = np.where(np.abs(dd) < discont, 0.0, ddmod - dd)
    first = np.take(p, [0], axis=axis)
    rest = np.delete(p, 0, axis=axis) + np.cumsum(correct, axis=axis)
    return np.concatenate([first, rest], axis=axis)


STAND_INS = {id(math.fmod): fmod, id(math.copysign): copysign, id(math.hypot): hypot, id(math.dist): dist,
             id(math.prod): prod, id(itertools.accumulate): accumulate, id(np.unwrap): unwrap}
KEEP_ALIVE = [math, itertools, np]
