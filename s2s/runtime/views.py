"""NumPy's views inside a tuple assignment: `A[0], A[1] = A[1], A[0]` of a matrix reads two rows,
which are views, so the second store writes the row the first store changed (both rows become
row 1), while the elements of a vector are copies (a swap). The right side's reads are taken
before the stores, and read again before each later store; `after_stores` picks the one NumPy's
value is, and its derivative follows that one (issue 44: s2s differentiated a swap)."""
from __future__ import annotations

import numpy as np

from .core import namespace

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("after_stores", "after_stores_t")


def _is_view(early, whole) -> bool:
    """Whether the read `early` of array `whole` is a view of it (NumPy's basic indexing of more
    than one element), not a copy (an element, or an advanced index)."""
    if np.ndim(early) == 0:
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
