"""Pytree flattening inside transformed code (s2s/library/tree_inside.py's stand-ins for s2s.tree_util's
tree_flatten, tree_leaves, tree_structure, tree_unflatten; primitives/rules_trees.py declares
them): the leaves are linear in the tree, the structure carries no derivative."""
from __future__ import annotations

import inspect

import numpy as np

from ..base import tree
from ..base.tree import node_children, tree_flatten, tree_unflatten
from ..errors import S2SError
from .batch import lift_rank, num_examples, replicate_batch
from .core import zeros_like_tree

__all__ = ("tree_leaves_of", "tree_def_of", "tree_leaves_as", "tree_build", "tree_build_like",
           "tree_leaves_up_to", "node_field", "node_field_ct", "make_node", "make_node_t", "make_node_ct",
           "clash_error", "batched_node_field_ct", "lift_rank_tree", "lift_rank_tree_t", "restructure")


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
        kids = tree.NODES[type(x)][0](x)[0]
    elif d.kind == "dict":
        kids = [x[k] for k in d.aux]
    else:
        kids = list(x) if d.kind != "none" else []
    for c, k in zip(d.children, kids):
        _up_to(c, k, out)


# ---------------------------------------------------------------- registered nodes' fields

def _err(msg: str, hint: str = "") -> S2SError:
    return S2SError(msg + ("\n" + hint if hint else ""))


def node_field(x, field: str, at: str = ""):
    """`x.field` for a pytree node (a registered type, a namedtuple) or another Python object a
    transformed function reads a field of; an array's other attributes are refused (`at`: where
    the user's code reads it)."""
    if hasattr(x, "shape") and hasattr(x, "dtype") and not tree.is_node_type(type(x)):
        raise _err((at + "\n" if at else "") + f"s2s does not support the attribute `.{field}` of an array.",
                       "Supported: .T, .shape, .ndim, .size, .dtype, .real and the array methods.")
    try:
        return getattr(x, field)
    except AttributeError:
        raise _err((at + "\n" if at else "") + f"`.{field}`: a {type(x).__name__} has no attribute `{field}`.") from None


def _field_index(x, field: str, kids: list) -> int:
    value = getattr(x, field)
    for i, c in enumerate(kids):
        if c is value:
            return i
    raise _err(f"s2s cannot differentiate `.{field}` of a {type(x).__name__}: it is not one of the children "
                   "its registered flatten function returns (s2s finds a field among them by identity).",
                   "Read the children with s2s.tree_util.tree_leaves, or return the field itself from flatten.")


def node_field_ct(x, field: str, ct):
    """The cotangent of node `x` from the cotangent `ct` of its field `x.field`: a node of `x`'s type
    and static data, zero but for that field (JAX's cotangent of a registered node)."""
    parts = tree.node_children(x)
    if parts is None:
        raise _err(f"s2s differentiates `.{field}` only of a registered pytree node or a namedtuple, "
                       f"not of a {type(x).__name__}.", "Register its type with s2s.tree_util.register_pytree_node.")
    kids, rebuild = parts
    i = _field_index(x, field, kids)
    return rebuild([ct if j == i else zeros_like_tree(c) for j, c in enumerate(kids)])


def _params(cls) -> list[str]:
    if hasattr(cls, "_fields"):
        return list(cls._fields)
    return [p.name for p in inspect.signature(cls).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _carries_derivative(v) -> bool:
    """Whether pytree `v` has a floating (or complex) leaf."""
    for leaf in tree.tree_leaves(v):
        dt = getattr(leaf, "dtype", None)
        if isinstance(leaf, (float, complex)) or dt is not None and dt.kind in "fc":
            return True
    return False


def make_node(cls, args: list):
    """`cls(*args)` for a registered node type or a namedtuple built in a transformed function
    (every parameter given, in order). Its derivative reads each argument back as the field of the
    parameter's field, so a constructor that stores another value there is refused, as is a
    field named like an array attribute."""
    obj = cls(*args)
    if not isinstance(obj, tuple):
        for field, a in zip(_params(cls), args):
            if getattr(obj, field, None) is not a and _carries_derivative(a):
                raise _err(f"s2s builds a {cls.__name__} in a transformed function only when its constructor "
                               f"stores each argument as the field of the parameter's name; `{field}` is not.",
                               "Build it outside the transform, or store the arguments unchanged.")
    clash = tree.field_clash(obj)
    if clash is not None:
        raise clash_error(clash)
    return obj


def make_node_t(cls, args: list, dargs):
    """The tangent of `make_node(cls, args)`: the node of the arguments' tangents (a missing one
    zero, and an argument carrying no derivative, such as static data, as it is)."""
    dargs = list(dargs) if dargs is not None else [None] * len(args)
    return cls(*[a if not _carries_derivative(a) else zeros_like_tree(a) if d is None else d
                 for a, d in zip(args, dargs)])


def make_node_ct(cls, args: list, ct):
    """The cotangents of `make_node(cls, args)`'s arguments: the fields of `ct` (a node of `cls`)."""
    if ct is None:
        return [zeros_like_tree(a) for a in args]
    return [getattr(ct, field) if _carries_derivative(a) else zeros_like_tree(a) for field, a in zip(_params(cls), args)]


def clash_error(clash: str) -> S2SError:
    return _err(f"s2s reads `.{clash.split('.')[-1]}` in a transformed function as the array attribute, so "
                    f"the field {clash} of this pytree node would be read wrongly.",
                    "Rename the field (or the property), or read the node's children with "
                    "s2s.tree_util.tree_leaves.")


def batched_node_field_ct(flags, x, field, ct):
    """`node_field_ct` under vmap: an unbatched node's cotangent from a batched field cotangent is
    batched in every field (its other fields' zeros repeated over the examples)."""
    if flags[2] and not flags[0]:
        x = replicate_batch(x, num_examples(ct))
    return node_field_ct(x, field, ct)


def lift_rank_tree(x, other, other_batched):
    """lift_rank leaf by leaf, for `rt.tree_add` of two cotangents of the same structure (a list's
    leaves are aligned with the other list's; `+` of lists would concatenate instead)."""
    parts = node_children(x)
    if parts is not None and type(other) is type(x):
        return parts[1]([lift_rank_tree(a, b, other_batched) for a, b in zip(parts[0], node_children(other)[0])])
    if isinstance(x, (list, tuple)) and isinstance(other, (list, tuple)) and len(x) == len(other):
        return type(x)(lift_rank_tree(a, b, other_batched) for a, b in zip(x, other))
    if isinstance(x, dict) and isinstance(other, dict) and set(x) == set(other):
        return {k: lift_rank_tree(x[k], other[k], other_batched) for k in x}
    return lift_rank(x, other, other_batched)


def lift_rank_tree_t(g, x):
    """Transpose of lift_rank_tree: each leaf of `g` shaped like the leaf of `x` it was lifted from."""
    parts = node_children(x)
    if parts is not None:
        return parts[1]([lift_rank_tree_t(a, b) for a, b in zip(node_children(g)[0], parts[0])])
    if isinstance(x, (list, tuple)):
        return type(x)(lift_rank_tree_t(a, b) for a, b in zip(g, x))
    if isinstance(x, dict):
        return {k: lift_rank_tree_t(g[k], x[k]) for k in x}
    return g if x is None else np.reshape(g, np.shape(x))


def restructure(v, like):
    """`v` (a cotangent or tangent of `like`) with `like`'s lists and tuples: an array of a list
    is split along its first axis, item by item; a list of an array is stacked back into one.
    Linear in `v`; its transpose is `restructure(g, v)`."""
    kind = type(like)
    if kind is list or kind is tuple:
        if type(v) is list or type(v) is tuple:
            items = [restructure(a, b) for a, b in zip(v, like)] + list(v[len(like):])
            return kind(items) if len(v) == len(like) else type(v)(items)
        shape = getattr(v, "shape", None)
        if shape and shape[0] == len(like):
            return kind(restructure(v[i], b) for i, b in enumerate(like))
        return v
    if kind is dict and type(v) is dict:
        return {k: restructure(a, like[k]) if k in like else a for k, a in v.items()}
    shape = getattr(like, "shape", None)
    if shape and (type(v) is list or type(v) is tuple) and len(v) == shape[0]:
        return np.stack([np.asarray(restructure(a, like[i])) for i, a in enumerate(v)])
    return v
