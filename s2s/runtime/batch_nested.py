"""Transposes of vmap's own helpers batched again (a vmap inside a vmapped function), so that
code calling vmap inside a vmap can be differentiated: each moves the inner batch axis (axis 1,
behind the outer batch) back where the batched helper took it from. Declared in
primitives/rules_vmap_nested.py."""
from __future__ import annotations

import numpy as np

from ._examples import map_over_spec
from .core import asarray

__all__ = ("batched_vmap_in_t", "batched_vmap_out_t")


def _axis(a: int) -> int:
    """Where an example's axis `a` lies in an array with the outer batch in front."""
    return a + 1 if a >= 0 else a


def batched_vmap_in_t(flags, v, like, spec):
    """Transpose of batched_vmap_in: the inner batch axis moved back (summed where the leaf was
    broadcast along it)."""
    def back(leaf, a):
        leaf = asarray(leaf)
        return np.sum(leaf, axis=1) if a is None else np.moveaxis(leaf, 1, _axis(a))
    return map_over_spec(back, spec, v)


def batched_vmap_out_t(flags, v, spec):
    """Transpose of batched_vmap_out: the inner batch axis moved back to axis 1."""
    return map_over_spec(lambda leaf, a: leaf if a is None else np.moveaxis(asarray(leaf), _axis(a), 1), spec, v)
