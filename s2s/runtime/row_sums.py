"""Row sums (jit's passes/row_sums.py, issue 46 section 2): the cotangent of a large table that a
callee reads a few rows of (`U[w]`), zeros with those rows added and then added whole into the
caller's accumulator, kept as its rows alone and added row by row into the accumulator's own
array: no zeros of the table's size and no pass over it per call.

A `_RowSums` (a table's rows) stands for the zeros of its shape with its rows added, in the order they were added,
so each value is the one the dense array would hold: `r += v` into a zero row is the dense
`acc[w] += v`, and the accumulator's `acc[w] += r` is the dense sum's `acc + x` at that row (its
other rows are `acc + 0.0`, which is `acc` where no element is -0.0: the pass takes only
accumulators that start from zeros and are only summed into, which never hold one). Anything
else (an index that is not one int, a value or accumulator of another kind) makes the dense
array first and goes the long way, so the values and errors are the dense code's.
"""
from __future__ import annotations

import numpy as np

from ..base import vspace
from .core import add_at, tree_add_into, zeros_like_tree

__all__ = ("row_zeros", "row_zeros_like", "row_add", "row_sums_into")

_INTS = frozenset({int, np.int64, np.int32, np.intp})


class _RowSums:
    """The zeros of `shape` (two axes or more) and `dtype` with rows added: `rows` maps a row's
    index (in range, not negative) to its sum so far."""

    __slots__ = ("shape", "dtype", "rows")

    def __init__(self, shape: tuple, dtype):
        self.shape, self.dtype, self.rows = shape, dtype, {}

    def dense(self) -> np.ndarray:
        """The array this stands for."""
        out = np.zeros(self.shape, self.dtype)
        for k, r in self.rows.items():
            out[k] = r
        return out


def _rows_of(shape, dtype):
    """A _RowSums of `shape` and `dtype` where it can stand for their zeros, else None."""
    if type(shape) is tuple and len(shape) >= 2 and all(type(n) is int and n >= 0 for n in shape) \
            and np.dtype(dtype).kind in "fc":
        return _RowSums(shape, np.dtype(dtype))
    return None


def row_zeros(shape, xp):
    """`xp.zeros(shape)`, as a _RowSums where `xp` is NumPy and `shape` a tuple of two ints or more."""
    rows = _rows_of(shape, np.float64) if xp is np else None
    return xp.zeros(shape) if rows is None else rows


def row_zeros_like(x):
    """`rt.zeros_like_tree(x)`, as a _RowSums where `x` is a float NumPy array of two axes or more."""
    if type(x) is np.ndarray:
        rows = _rows_of(x.shape, x.dtype)
        if rows is not None:
            return rows
    return zeros_like_tree(x)


def row_add(acc, index, v):
    """`rt.add_at(acc, index, v)`: into `acc`'s row where `acc` is a _RowSums and `index` one int in
    range (`r += v` into the row's sums, a zero row the first time); anything else on the dense
    array."""
    if type(acc) is _RowSums:
        if type(index) in _INTS:
            r = acc.rows.get(index)
            if r is not None:  # (a row added before: its sums so far)
                r += v
                return acc
            n = acc.shape[0]
            if -n <= index < 0:
                index += n
                r = acc.rows.get(index)
            if 0 <= index < n:
                if r is None:
                    r = acc.rows[index] = np.zeros(acc.shape[1:], acc.dtype)
                r += v
                return acc
        acc = acc.dense()
    return add_at(acc, index, v)


def row_sums_into(acc, x, plain=False):
    """`rt.tree_add_into(acc, x, plain)`: where `x` is a _RowSums and `acc` a writeable NumPy array
    of its shape and dtype that nothing else holds (the pass's promise), `x`'s rows added into
    `acc`'s own rows, `acc[k] += r`; anything else the long way on the dense array."""
    if type(x) is _RowSums:
        if type(acc) is np.ndarray and acc.shape == x.shape and acc.dtype == x.dtype and acc.flags.writeable \
                and not (vspace.SPACES and vspace.space_of(acc) is not None):
            for k, r in x.rows.items():
                acc[k] += r
            return acc
        x = x.dense()
    return tree_add_into(acc, x, plain)
