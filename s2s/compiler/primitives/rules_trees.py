"""Pytree flattening inside transformed code (runtime/trees.py): the leaves of a tree are linear
in it, the tree built from leaves is linear in them, and each is the other's transpose; the
structure carries no derivative, nor does `is_leaf` (a predicate on the tree's Python structure).
A batched tree is the tree of its batched leaves, so each runs on it as it is, and its structure is
every example's (unbatched: tree_map's other trees, flattened against it, stay unbatched)."""
from __future__ import annotations

from .registry import LOOP, SAME, by, defjvp, linear, prim

linear("rt.tree_leaves_of", "x, is_leaf=None", "x", "rt.tree_build_like(x, g, is_leaf)", tree_args=(0,), batch=SAME)
prim("rt.tree_def_of", "x, is_leaf=None", nondiff=True, unbatched_result=True, batch=SAME)
linear("rt.tree_leaves_as", "treedef, x, is_leaf=None", "x", "rt.tree_build_like(x, g, is_leaf)", tree_args=(1,),
       batch=SAME, batched_by="x")
linear("rt.tree_build", "treedef, leaves", "leaves", "rt.tree_leaves_up_to(treedef, g)", tree_args=(1,), batch=SAME,
       batched_by="leaves")
linear("rt.tree_leaves_up_to", "treedef, x", "x", "rt.tree_build(treedef, g)", tree_args=(1,), batch=SAME,
       batched_by="x")
linear("rt.tree_build_like", "like, leaves, is_leaf=None", "leaves",
       "rt.tree_leaves_up_to(rt.tree_def_of(like, is_leaf), g)", tree_args=(1,), batch=SAME, batched_by="leaves")
defjvp("rt.tree_leaves_as", x="rt.tree_leaves_up_to(treedef, dx)")
defjvp("rt.tree_leaves_of", x="rt.tree_leaves_up_to(rt.tree_def_of(x, is_leaf), dx)")

# Registered nodes and namedtuples: a field read is linear in the node (its transpose a node zero
# but for that field); a node built from its fields is linear in them (its transpose reads the
# fields back). A batched node is the node of its batched leaves.
linear("rt.node_field", "x, field, at=''", "x", "rt.node_field_ct(x, field, g)", tree_args=(0,), batch=SAME,
       any_dtype=True)
linear("rt.node_field_ct", "x, field, ct", "ct", "rt.node_field(g, field)", zero_args=("x", "field"),
       batch=by("rt.batched_node_field_ct"))
linear("rt.make_node", "cls, args", "args", "rt.make_node_ct(cls, args, g)", tree_args=(1,), list_args=("args",),
       batch=SAME)
defjvp("rt.make_node", args="rt.make_node_t(cls, args, dargs)")
linear("rt.make_node_ct", "cls, args, ct", "ct", "rt.make_node(cls, g)", zero_args=("cls", "args"), batch=SAME)
linear("rt.make_node_t", "cls, args, dargs", "dargs", "rt.make_node_ct(cls, args, g)", zero_args=("cls", "args"),
       tree_args=(2,), batch=SAME)
# a vjp's cotangent of a list argument read as an array: the list's structure (s2s/api/arg_structure.py)
linear("rt.restructure", "v, like", "v", "rt.restructure(g, v)", tree_args=(0,), tree_preserving=True, batch=LOOP)
