"""NumPy's views inside a tuple assignment: `A[0], A[1] = A[1], A[0]` of a matrix reads two rows,
which are views, so the second store writes the row the first store changed (both rows become
row 1), while the elements of a vector are copies (a swap). The right side's reads are taken
before the stores, and read again before each later store; `after_stores` picks the one NumPy's
value is, and its derivative follows that one (issue 44: s2s differentiated a swap)."""
from __future__ import annotations

import numpy as np

from .core import namespace

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("after_stores", "after_stores_t", "batched_after_stores", "batched_after_stores_t")


def _is_view(early, whole, batched=False) -> bool:
    """Whether the read `early` of array `whole` is a view of it (NumPy's basic indexing of more
    than one element), not a copy (an element, or an advanced index); `batched`: `early` has a
    batch axis in front (each example's read is an element when that is its only axis)."""
    if np.ndim(early) == int(batched):
        return False
    if isinstance(early, np.ndarray) and isinstance(whole, np.ndarray):
        return bool(np.may_share_memory(early, whole))
    return True  # (another array library: a view, as NumPy's basic indexing gives)


def after_stores(early, late, whole):
    """The value a right side's read `early` of `whole` has when it is stored: `late` (the same
    read after the earlier stores) where it is a view, else `early`."""
    return late if _is_view(early, whole) else early


def after_stores_t(g, early, whole, which):
    """The derivative `g` of `after_stores(early, late, whole)` routed to `early` (which=0) or to
    `late` (which=1): `g` for the one it picked, zero for the other."""
    if int(_is_view(early, whole)) == which:
        return g
    return namespace(g).zeros_like(g) if hasattr(g, "shape") else 0.0 * g


def batched_after_stores(flags, early, late, whole):
    """`after_stores` under vmap, decided once for the batch: a batched read of a batched array is
    a view of it where each example's is, and one copy per example (the loop this replaced) made
    every shared read a copy. A shared pick of a batched result is repeated per example."""
    view = _is_view(early, whole, flags[0])
    out, batched = (late, flags[1]) if view else (early, flags[0])
    if batched or not (flags[0] or flags[1]):
        return out
    n = np.shape(early if flags[0] else late)[0]
    return namespace(out).broadcast_to(out, (n,) + np.shape(out)).copy()


def batched_after_stores_t(flags, g, early, whole, which):
    """`after_stores_t` under vmap: `g` (batched or not, as the flags say) or zeros, decided once
    for the batch as `batched_after_stores` decides."""
    return after_stores_t(g, early, whole, which) if not flags[1] and not flags[2] else \
        (g if int(_is_view(early, whole, flags[1])) == which else namespace(g).zeros_like(g))
