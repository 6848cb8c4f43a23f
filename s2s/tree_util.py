"""`s2s.tree_util`: JAX's pytree utilities over `s2s.base.tree`, with user-registered node types.

A registered type is a node everywhere s2s flattens pytrees: at the boundary of every transform
(`grad`, `vjp`, `jvp`, `vmap`, `jit` flatten their arguments and results with `s2s.base.tree`), in
`s2s.test_util` and here. These functions run on Python values. Inside a function being
transformed, tree_flatten, tree_leaves, tree_structure, tree_unflatten, tree_map and tree_reduce are
their stand-ins of s2s/library/tree_inside.py (primitives on the whole tree, differentiable in the leaves); the others are
refused with an error at the call (`REFUSAL`). A transformed function reads a registered node's
fields (`p.w`: rt.node_field, whose cotangent is a node of the same type, zero but for that field),
builds registered classes and namedtuples (rt.make_node: the constructor must store each argument
as the field of its parameter's name) and makes `Partial`s (a functools.partial there). A field
named like an array attribute (`.shape`, `.T`) is refused at the transform's call (tree.field_clash).
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .base.tree import PyTreeDef, register_node, tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten
from .errors import S2STypeError
from .library import tree_inside
from .library.numpy_inside import STAND_INS

__all__ = ["Partial", "PyTreeDef", "register_dataclass", "register_pytree_node", "register_pytree_node_class",
           "tree_flatten", "tree_leaves", "tree_map", "tree_reduce", "tree_structure", "tree_unflatten"]

REFUSAL = ("s2s does not run this `s2s.tree_util` function inside a transformed function: it does not follow "
           "a pytree's structure through the code it transforms (only tree_flatten, tree_leaves, tree_structure, "
           "tree_unflatten, tree_map and tree_reduce run there). Call it outside the transform (on the arguments "
           "or the results), or index the tuples, lists and dicts directly.")
_NO_INIT = object()


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable) -> None:
    """Make `nodetype` a pytree node: `flatten_func(x) -> (children, aux_data)` with aux_data
    hashable, `unflatten_func(aux_data, children) -> x`."""
    register_node(nodetype, flatten_func, unflatten_func)


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: a node flattened by `x.tree_flatten()` and rebuilt by
    `cls.tree_unflatten(aux_data, children)`."""
    register_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_dataclass(nodetype: type, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None, drop_fields: Sequence[str] = ()) -> type:
    """A dataclass as a node: `data_fields` are its children, `meta_fields` its (hashable) static
    data. Without them, the fields marked `field(metadata=dict(static=True))` are meta, the rest data."""
    if data_fields is None or meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise S2STypeError(f"register_dataclass: {nodetype.__name__} is not a dataclass; "
                               "give data_fields and meta_fields.")
        fields = [f for f in dataclasses.fields(nodetype) if f.init and f.name not in drop_fields]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
    data, meta = tuple(data_fields), tuple(meta_fields)

    def flatten(x):
        return [getattr(x, n) for n in data], tuple(getattr(x, n) for n in meta)

    def unflatten(aux, children):
        return nodetype(**dict(zip(data, children)), **dict(zip(meta, aux)))

    register_node(nodetype, flatten, unflatten)
    return nodetype


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any, initializer: Any = _NO_INIT,
                is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """`functools.reduce(function, leaves[, initializer])` over the tree's leaves."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INIT:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree: Any) -> bool:
    """Whether every leaf is true."""
    return all(tree_leaves(tree))


class Partial(functools.partial):
    """`functools.partial` that is a pytree: its bound arguments are children and the function is
    static, so it can be an argument or result of a transform (JAX's `tree_util.Partial`)."""

    def __new__(cls, func: Callable, *args: Any, **kwargs: Any):
        if isinstance(func, functools.partial):  # flattened like JAX: one level
            return super().__new__(cls, func.func, *func.args, *args, **{**func.keywords, **kwargs})
        return super().__new__(cls, func, *args, **kwargs)


def _partial_flatten(p: Partial) -> tuple[list, Any]:
    return [p.args, p.keywords], p.func


def _partial_unflatten(func: Callable, children: Iterable) -> Partial:
    args, keywords = children
    return Partial(func, *args, **keywords)


register_node(Partial, _partial_flatten, _partial_unflatten)
STAND_INS[id(Partial)] = functools.partial  # made inside a transformed function: the partial it is
for _fn in (register_pytree_node, register_pytree_node_class, register_dataclass, tree_all):
    _fn.__s2s_refuse__ = REFUSAL  # read by the frontend where a transformed function calls one
for _fn in (tree_flatten, tree_leaves, tree_structure, tree_unflatten, tree_map, tree_reduce):  # stand-ins there
    _fn.__s2s_inside__ = getattr(tree_inside, _fn.__name__)
__all__ += ["tree_all"]
