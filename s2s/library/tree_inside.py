"""What s2s.tree_util's tree_flatten, tree_leaves, tree_structure, tree_unflatten, tree_map and
tree_reduce are inside a transformed function (their `__s2s_inside__`): plain Python over the
primitives of primitives/rules_trees.py, which s2s transforms like user code. So a program can
flatten its gradients inside a vmapped function (JAX's differentially_private_sgd), map a function
over a tree's leaves, and differentiate through the leaves. The function given to tree_map or
tree_reduce is specialized on, as any function passed to a function is. tree_map and tree_reduce
take `is_leaf` first: the normalizer moves the keyword there (`__s2s_leading__`), since a
transformed `*args` function has positional parameters only, and wraps a NumPy function given to
them in a lambda of as many parameters (`__s2s_calls__`, `__s2s_arity__`)."""
from __future__ import annotations

from ..runtime.trees import tree_build, tree_def_of, tree_leaves_as, tree_leaves_of

__all__ = ["tree_flatten", "tree_leaves", "tree_map", "tree_reduce", "tree_structure", "tree_unflatten"]


def tree_flatten(x, is_leaf=None):
    """(the leaves of `x`, its structure)."""
    return tree_leaves_of(x, is_leaf), tree_def_of(x, is_leaf)


def tree_leaves(x, is_leaf=None):
    """The leaves of `x`."""
    return tree_leaves_of(x, is_leaf)


def tree_structure(x, is_leaf=None):
    """The structure of `x`."""
    return tree_def_of(x, is_leaf)


def tree_unflatten(treedef, leaves):
    """The tree of structure `treedef` with these leaves."""
    return tree_build(treedef, leaves)


def tree_map(is_leaf, f, tree, *rest):
    """The tree of `f(leaf, *the other trees' leaves there)` (the other trees: `tree`'s structure)."""
    treedef = tree_def_of(tree, is_leaf)
    leaves = tree_leaves_of(tree, is_leaf)
    others = [tree_leaves_as(treedef, r, is_leaf) for r in rest]
    out = []
    for i in range(len(leaves)):
        out.append(f(leaves[i], *[o[i] for o in others]))
    return tree_build(treedef, out)


def tree_reduce(is_leaf, function, tree, *initializer):
    """`functools.reduce(function, leaves[, initializer])` over the tree's leaves."""
    leaves = tree_leaves_of(tree, is_leaf)
    acc = initializer[0] if len(initializer) else leaves[0]
    for i in range(1 - len(initializer), len(leaves)):
        acc = function(acc, leaves[i])
    return acc


tree_map.__s2s_function_args__ = tree_reduce.__s2s_function_args__ = (0,)  # (the user's call's positions)
tree_map.__s2s_leading__ = ("is_leaf",)
tree_map.__s2s_calls__, tree_map.__s2s_arity__ = 1, lambda nargs: nargs - 2  # f takes a leaf of each tree
tree_reduce.__s2s_leading__ = ("is_leaf",)
tree_reduce.__s2s_trailing__ = ("initializer",)
tree_reduce.__s2s_calls__, tree_reduce.__s2s_arity__ = 1, lambda nargs: 2
