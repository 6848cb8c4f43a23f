"""Pytree flattening inside transformed code (runtime/trees.py): the leaves of a tree are linear
in it, the tree built from leaves is linear in them, and each is the other's transpose; the
structure carries no derivative, nor does `is_leaf` (a predicate on the tree's Python structure).
A batched tree is the tree of its batched leaves, so each runs on it as it is."""
from __future__ import annotations

from .registry import SAME, defjvp, linear, prim

linear("rt.tree_leaves_of", "x, is_leaf=None", "x", "rt.tree_build_like(x, g, is_leaf)", tree_args=(0,), batch=SAME)
prim("rt.tree_def_of", "x, is_leaf=None", nondiff=True, batch=SAME)
linear("rt.tree_leaves_as", "treedef, x, is_leaf=None", "x", "rt.tree_build_like(x, g, is_leaf)", tree_args=(1,),
       batch=SAME)
linear("rt.tree_build", "treedef, leaves", "leaves", "rt.tree_leaves_up_to(treedef, g)", tree_args=(1,), batch=SAME)
linear("rt.tree_leaves_up_to", "treedef, x", "x", "rt.tree_build(treedef, g)", tree_args=(1,), batch=SAME)
linear("rt.tree_build_like", "like, leaves, is_leaf=None", "leaves",
       "rt.tree_leaves_up_to(rt.tree_def_of(like, is_leaf), g)", tree_args=(1,), batch=SAME)
defjvp("rt.tree_leaves_as", x="rt.tree_leaves_up_to(treedef, dx)")
defjvp("rt.tree_leaves_of", x="rt.tree_leaves_up_to(rt.tree_def_of(x, is_leaf), dx)")
