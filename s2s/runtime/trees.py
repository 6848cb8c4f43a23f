"""Pytree flattening inside transformed code (s2s/tree_inside.py's stand-ins for s2s.tree_util's
tree_flatten, tree_leaves, tree_structure, tree_unflatten; primitives/rules_trees.py declares
them): the leaves are linear in the tree, the structure carries no derivative."""
from __future__ import annotations

from .. import tree
from ..tree import tree_flatten, tree_unflatten
from .core import zeros_like_tree

__all__ = ("tree_leaves_of", "tree_def_of", "tree_leaves_as", "tree_build", "tree_build_like",
           "tree_leaves_up_to")


def tree_leaves_of(x, is_leaf=None) -> list:
    """The leaves of pytree `x`, in flattening order (a subtree `is_leaf` accepts is one leaf)."""
    return tree_flatten(x, is_leaf)[0]


def tree_def_of(x, is_leaf=None):
    """The structure of pytree `x`."""
    return tree_flatten(x, is_leaf)[1]


def tree_leaves_as(treedef, x, is_leaf=None) -> list:
    """The leaves of `x`, which must have structure `treedef` (tree_map's other trees)."""
    leaves, got = tree_flatten(x, is_leaf)
    if got != treedef:
        raise ValueError(f"tree_map: a tree has structure {got}, expected {treedef}")
    return leaves


def tree_build(treedef, leaves):
    """The pytree of structure `treedef` with these leaves."""
    return tree_unflatten(treedef, list(leaves))


def tree_build_like(like, leaves, is_leaf=None):
    """The pytree of `like`'s structure with these leaves (a cotangent: a leaf given as None is
    zeros shaped like `like`'s)."""
    got, treedef = tree_flatten(like, is_leaf)
    leaves = list(leaves) if leaves is not None else [None] * len(got)
    return tree_unflatten(treedef, [zeros_like_tree(a) if v is None else v for a, v in zip(got, leaves)])


def tree_leaves_up_to(treedef, x) -> list:
    """The subtrees of `x` at the leaves of `treedef`, a prefix of `x`'s structure (the cotangent
    of a tree built with `is_leaf`, whose leaves may be subtrees); None where `x` is None."""
    out: list = []
    _up_to(treedef, x, out)
    return out


def _up_to(d, x, out: list) -> None:
    if d.kind == "leaf":
        out.append(x)
        return
    if x is None:  # a zero cotangent for the whole subtree
        out.extend([None] * d.num_leaves)
        return
    if d.kind == "custom":
        kids = tree._NODES[type(x)][0](x)[0]
    elif d.kind == "dict":
        kids = [x[k] for k in d.aux]
    else:
        kids = list(x) if d.kind != "none" else []
    for c, k in zip(d.children, kids):
        _up_to(c, k, out)
