"""What s2s.tree_util's tree_flatten, tree_leaves, tree_structure and tree_unflatten are inside a
transformed function (their `__s2s_inside__`): plain Python over the primitives of
primitives/rules_trees.py, which s2s transforms like user code. So a program can flatten its
gradients inside a vmapped function (JAX's differentially_private_sgd) and differentiate through
the leaves."""
from __future__ import annotations

from .runtime.trees import tree_build, tree_def_of, tree_leaves_of

__all__ = ["tree_flatten", "tree_leaves", "tree_structure", "tree_unflatten"]


def tree_flatten(x):
    """(the leaves of `x`, its structure)."""
    return tree_leaves_of(x), tree_def_of(x)


def tree_leaves(x):
    """The leaves of `x`."""
    return tree_leaves_of(x)


def tree_structure(x):
    """The structure of `x`."""
    return tree_def_of(x)


def tree_unflatten(treedef, leaves):
    """The tree of structure `treedef` with these leaves."""
    return tree_build(treedef, leaves)
