"""Pytree flattening inside transformed code (s2s/tree_inside.py's stand-ins for s2s.tree_util's
tree_flatten, tree_leaves, tree_structure, tree_unflatten; primitives/rules_trees.py declares
them): the leaves are linear in the tree, the structure carries no derivative."""
from __future__ import annotations

import numpy as np

from ..tree import tree_flatten, tree_unflatten

__all__ = ("tree_leaves_of", "tree_def_of", "tree_build", "tree_build_like")


def tree_leaves_of(x) -> list:
    """The leaves of pytree `x`, in flattening order."""
    return tree_flatten(x)[0]


def tree_def_of(x):
    """The structure of pytree `x`."""
    return tree_flatten(x)[1]


def tree_build(treedef, leaves):
    """The pytree of structure `treedef` with these leaves."""
    return tree_unflatten(treedef, list(leaves))


def tree_build_like(like, leaves):
    """The pytree of `like`'s structure with these leaves (a cotangent: a leaf given as None is
    zeros shaped like `like`'s)."""
    got, treedef = tree_flatten(like)
    leaves = list(leaves) if leaves is not None else [None] * len(got)
    return tree_unflatten(treedef, [np.zeros_like(a) if v is None else v for a, v in zip(got, leaves)])
