"""Functions autograd.numpy offers beyond NumPy's own names, in plain Python over NumPy calls s2s
has rules for, so s2s transforms them like user code when a transformed function calls them."""
from __future__ import annotations

import numpy as np

__all__ = ["make_diagonal"]


def make_diagonal(D, offset=0, axis1=0, axis2=1):
    """The inverse of `np.diagonal(A, offset, axis1, axis2)`: zeros with D's last axis on that
    diagonal of the new axes axis1 and axis2 (autograd's own offers only offset=0, axis1=-1,
    axis2=-2, which this computes as well)."""
    n = np.shape(D)[-1]
    m = n + abs(offset)
    if offset != 0:  # D's entries fill the first n rows (offset > 0) or columns (offset < 0)
        D = np.concatenate([D, np.zeros(np.shape(D)[:-1] + (abs(offset),), dtype=D.dtype)], axis=-1)
    if offset >= 0:
        grid = np.expand_dims(D, -1) * np.eye(m, m, offset, dtype=D.dtype)
    else:
        grid = np.expand_dims(D, -2) * np.eye(m, m, offset, dtype=D.dtype)
    return np.moveaxis(grid, (-2, -1), (axis1, axis2))
