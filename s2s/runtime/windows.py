"""np.lib.stride_tricks.sliding_window_view's transpose (rules_shape): the view is linear in its
array, each entry of a window a copy of one entry of the array, so the cotangent of the array is
the sum of the windows' cotangents scattered back to where each window starts (one shifted
slice-add per position inside the window: a conv kernel's few taps). Its own transpose is the view
again, so every order has rules.
"""
from __future__ import annotations

import itertools

import numpy as np

from ._batch_operands import one_setting
from .core import namespace

__all__ = ["sliding_window_vjp", "batched_sliding_window_vjp"]


def _axes(window_shape, axis, ndim):
    """NumPy's (window lengths, axes) of a call, the axes as non-negative numbers of an array of
    rank `ndim` (axis=None: every axis, one window length each)."""
    window = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = tuple(axis) if np.iterable(axis) else (axis,)
    return window, tuple(int(a) % ndim for a in axes)


def _scatter(g_, shape, window, axes, lead):
    """The windows' cotangent `g_` (`lead` batch axes in front of the view's shape) summed into an
    array of `shape`: for each position inside the window, g_'s slice at that position adds into
    the array shifted by its offset along each windowed axis."""
    xp = namespace(g_)
    out = xp.zeros(shape, dtype=g_.dtype if g_.dtype.kind in "fc" else np.float64)
    nwin = len(window)
    view = g_.shape[: g_.ndim - nwin]  # the window starts' shape (with the batch axes)
    for pos in itertools.product(*(range(w) for w in window)):
        offset = [0] * (len(shape) - lead)
        for a, p in zip(axes, pos):
            offset[a] += p
        index = (slice(None),) * lead + tuple(slice(o, o + view[lead + i]) for i, o in enumerate(offset))
        out[index] += g_[(Ellipsis,) + pos]
    return out


def sliding_window_vjp(g_, x, window_shape, axis=None):
    """Cotangent of `x` from the cotangent `g_` of `sliding_window_view(x, window_shape, axis)`."""
    window, axes = _axes(window_shape, axis, np.ndim(x))
    return _scatter(g_, np.shape(x), window, axes, 0)


def batched_sliding_window_vjp(flags, g_, x, window_shape, axis=None):
    """`sliding_window_vjp` on a batch of examples (the batch axis in front of g_ and of a batched
    x); an unbatched x gets one cotangent per example."""
    flags = tuple(flags) + (False,) * 4
    window_shape, axis = (one_setting(v, b, "sliding_window_view") for v, b in zip((window_shape, axis), flags[2:4]))
    example = np.shape(x)[1:] if flags[1] else np.shape(x)
    window, axes = _axes(window_shape, axis, len(example))
    if not flags[0]:  # one cotangent for every example
        one = _scatter(g_, example, window, axes, 0)
        return namespace(one).broadcast_to(one, np.shape(x)).copy() if flags[1] else one
    return _scatter(g_, (np.shape(g_)[0],) + tuple(example), window, axes, 1)
