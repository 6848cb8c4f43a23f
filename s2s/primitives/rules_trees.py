"""Pytree flattening inside transformed code (runtime/trees.py): the leaves of a tree are linear
in it, the tree built from leaves is linear in them, and each is the other's transpose; the
structure carries no derivative. A batched tree is the tree of its batched leaves, so each runs
on it as it is."""
from __future__ import annotations

from .registry import SAME, defjvp, linear, prim

linear("rt.tree_leaves_of", "x", "x", "rt.tree_build_like(x, g)", tree_args=(0,), batch=SAME)
prim("rt.tree_def_of", "x", nondiff=True, batch=SAME)
linear("rt.tree_build", "treedef, leaves", "leaves", "rt.tree_leaves_of(g)", tree_args=(1,), batch=SAME)
linear("rt.tree_build_like", "like, leaves", "leaves", "rt.tree_leaves_of(g)", tree_args=(1,), batch=SAME)
defjvp("rt.tree_leaves_of", x="rt.tree_leaves_of(dx)")
