"""vmap's refusals of shapes that depend on the values (JAX refuses them too): a boolean mask that
differs per example used as an index, and a result whose shape differs per example (np.extract,
np.nonzero, np.unique, ... run once per example). Without them NumPy raises a raw IndexError or
`np.stack` a ValueError; the message says what to write instead."""
from __future__ import annotations

import numpy as np

from ..base.tree import tree_leaves
from ..errors import S2SValueError
from .core import asarray

FIXED_SIZE = ("no stacked result exists, as in JAX. Keep the shape fixed: select with the mask instead "
              "(np.where(mask, x, 0), np.sum(x * mask)), or give every example the same size")


def index_part(p):
    """A batched index part as an array; a boolean one (a mask per example) is refused: its
    selection has a different size per example."""
    p = asarray(p)
    if p.dtype == bool:
        raise S2SValueError("vmap cannot index with a boolean mask that differs per example (x[mask]): "
                            f"each example would select a different number of elements; {FIXED_SIZE}")
    return p


def one_position(index):
    """The one position a per-example `index` into a list, tuple or dict names: the same for every
    example (a loop index or a setting broadcast to a batched name); one that differs per example
    cannot pick an item and is refused."""
    if isinstance(index, tuple) or np.ndim(index) != 1:
        raise S2SValueError("vmap cannot index a list, tuple or dict with a per-example array")
    first = index[0]
    if not bool((index == first).all()):
        raise S2SValueError("vmap cannot index a list, tuple or dict with a position that differs per example "
                            "(its items may have different shapes); stack the items into an array first "
                            "(`np.stack(items)[i]`)")
    return first.item() if hasattr(first, "item") else first


def same_shapes(outs, fn):
    """`outs` (one result per example) if every example's result has the same structure of
    shapes; otherwise the refusal naming `fn`."""
    shapes = [[np.shape(leaf) for leaf in tree_leaves(o)] for o in outs]
    if any(s != shapes[0] for s in shapes[1:]):
        name = fn.replace("xp.", "np.", 1) if isinstance(fn, str) else getattr(fn, "__name__", "an operation")
        raise S2SValueError(f"vmap: `{name}` gives each example a result of a different shape (a shape that "
                            f"depends on the values); {FIXED_SIZE}")
    return outs
