"""vmap of a selection by a boolean mask that differs per example (`x[x < 0] *= a`,
`np.sum(x[x > 0])`): each example's selection is kept at its array's full shape with the places
it does not select filled (compiler/transforms/batch_masks.py), so the selection, what is
computed from it elementwise, its reductions and its store back all keep a stacked shape. These
helpers line a mask up with its array, check what may meet a selection, and map a selection's
axes onto the full array's; and a batched condition that must be the same for every example."""
from __future__ import annotations

import numpy as np

from ..errors import S2SValueError
from .core import to_host

__all__ = ("mask_lanes", "masked_operand", "masked_axes", "masked_count", "masked_fill", "shared_condition",
           "same_mask")

_SHAPE = ("vmap cannot batch a boolean-mask selection (`x[mask]`) here: its shape differs per example "
          "(each example selects a different number of elements)")


def _example_ndim(x, batched) -> int:
    return np.ndim(x) - (1 if batched else 0)


def mask_lanes(m, x, x_batched):
    """Batched mask `m` (batch at axis 0) with unit axes after its own, so that it lines up with
    the leading per-example axes of `x` (batched or not) as NumPy's `x[m]` reads them."""
    mnd, xnd = np.ndim(m) - 1, _example_ndim(x, x_batched)
    xshape = np.shape(x)[1:] if x_batched else np.shape(x)
    if mnd > xnd or tuple(np.shape(m)[1:]) != tuple(xshape[:mnd]):
        raise IndexError(f"boolean index of shape {tuple(np.shape(m)[1:])} does not match the indexed array of "
                         f"shape {tuple(xshape)} (per example)")
    return m.reshape(tuple(np.shape(m)) + (1,) * (xnd - mnd))


def masked_operand(v, m, like, batched):
    """`v` unchanged where it meets the selection `like` (by mask `m`) elementwise: it must
    broadcast against the selection's trailing axes only (NumPy pairs a larger one with the
    number of selected elements, which differs per example)."""
    trailing = np.ndim(like) - np.ndim(m)
    if _example_ndim(v, batched) > trailing:
        raise S2SValueError(f"{_SHAPE}: an operand of rank {_example_ndim(v, batched)} meets a selection whose "
                            f"elements have rank {trailing}; reduce the selection first or use np.where(mask, x, y)")
    return v


def masked_axes(axis, m, like, keepdims=False):
    """A selection's per-example axis (or axes) as axes of its full array `like` (batched, by
    the batched mask `m`): the selection's axis 0 is the mask's axes, the others follow them."""
    mnd = np.ndim(m) - 1
    sel = np.ndim(like) - 1 - mnd + 1
    if keepdims and mnd != 1:
        raise S2SValueError(f"{_SHAPE}: keepdims=True over a mask of {mnd} axes")
    out: list = []
    for a in (axis if isinstance(axis, (tuple, list)) else (axis,)):
        a = int(a)
        if not -sel <= a < sel:
            raise ValueError(f"axis {a} is out of bounds for a selection of dimension {sel}")
        a %= sel
        out.extend(range(mnd) if a == 0 else [a - 1 + mnd])
    return tuple(out)


def masked_count(m, like, axes, keepdims=False):
    """How many elements each example's selection (by batched mask `m`, full array `like`) has
    along `axes` (per-example axes of `like`; None: all): np.mean's divisor."""
    full = np.broadcast_to(mask_lanes(m, like, True), np.shape(like))
    ax = tuple(range(1, np.ndim(like))) if axes is None else tuple(a + 1 for a in axes)
    return full.sum(axis=ax, keepdims=keepdims)


def masked_fill(like, how, m=None):
    """The value the places a selection does not select hold before a reduction: the reduction's
    identity (`how`: "zero", "one", "low" for a maximum, "high" for a minimum, "false", "true").
    A maximum or minimum of an example that selects nothing is NumPy's error."""
    dt = np.dtype(getattr(like, "dtype", float))
    if how in ("low", "high"):
        if m is not None and not bool(np.all(np.any(np.reshape(m, (np.shape(m)[0], -1)), axis=1))):
            raise ValueError("zero-size array to reduction operation which has no identity (an example's "
                             "boolean mask selects nothing)")
        if dt.kind == "b":
            return how == "high"
        if dt.kind in "iu":
            info = np.iinfo(dt)
            return info.min if how == "low" else info.max
        return -np.inf if how == "low" else np.inf
    return {"zero": 0, "one": 1, "false": False, "true": True}[how]


def shared_condition(c, where):
    """A batched condition that must be the same for every example (a branch that pops a list
    the examples share, such as a backward sweep's tape under `if z.ndim == 1:`, which each
    example's record saved): that one truth value, or an error naming the user's line."""
    c = to_host(c)  # (one truth value for Python's `if`: read on the host, as CuPy needs explicitly)
    flat = np.reshape(np.asarray(c), (np.shape(c)[0], -1)) if np.ndim(c) else np.reshape(np.asarray(c), (1, 1))
    first = flat[:1]
    if not bool(np.all(flat == first)):
        raise S2SValueError(f"{where}: vmap cannot pop from a list under a condition that differs per example "
                            "(the examples take different branches here); make the condition the same for "
                            "every example, or write into a preallocated array instead")
    return bool(first.all()) if flat.size else False


def same_mask(m, other):
    """`m`, checked to select the same places as `other` in every example (`d[x > 0] = x[x > 0] * 2`
    computes its mask twice): selections by different masks cannot be paired per example."""
    if np.shape(m) != np.shape(other) or not bool(np.all(m == other)):
        raise S2SValueError(f"{_SHAPE}: two selections by different per-example masks meet; their numbers of "
                            "elements may differ per example")
    return m
