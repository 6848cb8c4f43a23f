"""Helpers of the vectorized loops whose trip count and window bounds a jit version knows when it
is compiled (passes/loopfold.py): the windows taken straight from the numbers, without the bound
arrays or their checks, and the per-example dots of a loop too short to vectorize written as one
call that gives each dot the bits the loop's own call gives it."""
from __future__ import annotations

import numpy as np

from ._values import read_only_view
from .batch_core import batched_array, batched_dot
from .loops import loop_windows, loop_windows_t

__all__ = ("windows_at", "windows_at_t", "windows_vecdot")

_VECDOT = getattr(np, "vecdot", None)  # (NumPy 2: real operands only, as batched_dot's)


def _bounds(axis, start, step, count, length):
    """The index `rt.loop_windows` takes for these windows: plain parts, then the bounds' slice."""
    lo = np.arange(start, start + step * count, step)
    return (slice(None),) * axis + (slice(lo, lo + length, None),), (False,) * axis + (True,)


def windows_at(x, axis, start, step, count, length, lead=0):
    """`x[..., s:s + length, ...]` along `axis` for s = start, start + step, ... (`count` windows,
    each inside `x`), stacked on a new axis after the first `lead` axes: what `rt.loop_windows`
    (lead 0) and `rt.batched_loop_windows` (lead 1, `x` batched) give for evenly spaced bounds,
    the same read-only strided view."""
    if type(x) is not np.ndarray:
        index, ib = _bounds(axis, start, step, count, length)
        out = loop_windows(x, index, ib)
        return np.swapaxes(out, 0, 1) if lead else out
    st, sh = x.strides, x.shape
    shape = sh[:lead] + (count,) + sh[lead:axis] + (length,) + sh[axis + 1:]
    strides = st[:lead] + (st[axis] * step,) + st[lead:axis] + (st[axis],) + st[axis + 1:]
    return read_only_view(x, axis, start, shape, strides)


def windows_at_t(v, x, axis, start, step, count, length, lead=0):
    """Transpose of windows_at: each window's cotangent added back at its place in zeros like `x`."""
    index, ib = _bounds(axis, start, step, count, length)
    return loop_windows_t(np.swapaxes(v, 0, 1) if lead else v, x, index, ib)


def windows_vecdot(a, b):
    """(B, k, L) windows . (B, L) vectors -> (B, k), a new array: entry [e, j] is what
    `rt.batched_dot((True, True), a[:, j], b)` gives for example e, bit for bit (one `np.vecdot`
    call runs the same dot on the same strides for every window), so a loop of k such calls
    stacked by `rt.batched_array` may be written as this one call."""
    if _VECDOT is not None and type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 3 and b.ndim == 2 \
            and a.dtype.kind in "fiu" and b.dtype.kind in "fiu":
        return _VECDOT(a, b[:, None, :])
    return batched_array((True,), [batched_dot((True, True), a[:, j], b) for j in range(np.shape(a)[1])])
