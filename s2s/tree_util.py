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

from .base.tree import (
    NODES,
    PyTreeDef,
    node_children,
    register_node,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)
from .errors import S2STypeError
from .library import tree_inside
from .library.numpy_inside import STAND_INS

__all__ = ["DictKey", "FlattenedIndexKey", "GetAttrKey", "Partial", "PyTreeDef", "SequenceKey", "keystr",
           "register_dataclass", "register_pytree_node", "register_pytree_node_class", "tree_flatten",
           "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path", "tree_map", "tree_map_with_path",
           "tree_reduce", "tree_structure", "tree_transpose", "tree_unflatten"]

REFUSAL = ("s2s does not run this `s2s.tree_util` function inside a transformed function: it does not follow "
           "a pytree's structure through the code it transforms (only tree_flatten, tree_leaves, tree_structure, "
           "tree_unflatten, tree_map and tree_reduce run there). Call it outside the transform (on the arguments "
           "or the results), or index the tuples, lists and dicts directly.")
_NO_INIT = object()
FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # a registered dataclass -> its data fields (their key paths)


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
    FIELD_NAMES[nodetype] = data
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


# ---- key paths (JAX's tree_flatten_with_path, keystr) and transposition ----

@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """The position of a child of a tuple or list."""
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class DictKey:
    """The key of a child of a dict."""
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """The field name of a child of a namedtuple or a registered dataclass."""
    name: str

    def __str__(self) -> str:
        return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
    """The position of a child of a node registered without names (register_pytree_node)."""
    key: int

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


def _simple(k) -> str:
    return str(k.idx if isinstance(k, SequenceKey) else k.key if isinstance(k, (DictKey, FlattenedIndexKey))
               else k.name)


def keystr(keys: Sequence, *, simple: bool = False, separator: str = "") -> str:
    """A key path as text: `"['a'][0].w"` (JAX's keystr); `simple=True` gives each key's bare
    value, joined with `separator` (`keystr(p, simple=True, separator="/")` is `"a/0/w"`)."""
    if simple:
        return separator.join(_simple(k) for k in keys)
    return separator.join(str(k) for k in keys)


def _dict_keys(d: dict) -> list:
    """A dict's keys in the order tree_flatten takes them (sorted; by type name and repr where keys
    of different types do not compare)."""
    try:
        return sorted(d)
    except TypeError:
        return sorted(d, key=lambda k: (type(k).__name__, repr(k)))


def _with_paths(x: Any, path: tuple, out: list, is_leaf: Callable[[Any], bool] | None) -> None:
    if is_leaf is not None and is_leaf(x):
        out.append((path, x))
        return
    if x is None:
        return
    node = node_children(x)
    if node is not None:
        kids = node[0]
        names = FIELD_NAMES.get(type(x)) if type(x) in NODES else type(x)._fields
        for i, c in enumerate(kids):
            key = GetAttrKey(names[i]) if names is not None else FlattenedIndexKey(i)
            _with_paths(c, path + (key,), out, is_leaf)
    elif isinstance(x, (tuple, list)):
        for i, c in enumerate(x):
            _with_paths(c, path + (SequenceKey(i),), out, is_leaf)
    elif isinstance(x, dict):
        for k in _dict_keys(x):
            _with_paths(x[k], path + (DictKey(k),), out, is_leaf)
    else:
        out.append((path, x))


def tree_flatten_with_path(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, PyTreeDef]:
    """`([(key_path, leaf), ...], treedef)`: tree_flatten's leaves, each with the tuple of keys that
    leads to it (SequenceKey, DictKey, GetAttrKey, FlattenedIndexKey), as JAX's."""
    out: list = []
    _with_paths(tree, (), out, is_leaf)
    return out, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
    """The `(key_path, leaf)` pairs of tree_flatten_with_path."""
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """tree_map whose function also takes each leaf's key path first: `f(path, leaf, *others)`."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    others = [tree_leaves(r, is_leaf) for r in rest]
    for i, r in enumerate(rest, start=1):
        if tree_structure(r, is_leaf) != treedef:
            raise ValueError(f"tree_map_with_path: tree {i} has structure {tree_structure(r, is_leaf)}, "
                             f"expected {treedef}")
    return tree_unflatten(treedef, [f(p, v, *xs) for (p, v), *xs in zip(pairs, *others)])


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: Any) -> Any:
    """A tree of structure outer-of-inner turned into inner-of-outer (JAX's tree_transpose):
    `tree_transpose(structure([0, 0]), structure((0, 0)), [(1, 2), (3, 4)])` is `([1, 3], [2, 4])`.
    `inner_treedef` None: the structure of the first outer leaf's subtree."""
    leaves = tree_leaves(pytree_to_transpose)
    n_out = outer_treedef.num_leaves
    if inner_treedef is None:
        first = _first_subtree(outer_treedef, pytree_to_transpose)
        inner_treedef = tree_structure(first)
    n_in = inner_treedef.num_leaves
    whole = tree_structure(tree_unflatten(outer_treedef, [tree_unflatten(inner_treedef, [0] * n_in)] * n_out))
    if tree_structure(pytree_to_transpose) != whole or len(leaves) != n_out * n_in:
        raise S2STypeError(f"tree_transpose: the tree has structure {tree_structure(pytree_to_transpose)}, not "
                           f"{outer_treedef} of {inner_treedef}")
    columns = [tree_unflatten(outer_treedef, leaves[j::n_in]) for j in range(n_in)]
    return tree_unflatten(inner_treedef, columns)


def _first_subtree(outer: PyTreeDef, tree: Any) -> Any:
    """The subtree of `tree` at `outer`'s first leaf (walked with the same key paths)."""
    marker = object()
    probe = tree_unflatten(outer, [marker] + [None] * (outer.num_leaves - 1))
    path = next(p for p, v in tree_leaves_with_path(probe, is_leaf=lambda v: v is marker) if v is marker)
    for k in path:
        tree = getattr(tree, k.name) if isinstance(k, GetAttrKey) else \
            node_children(tree)[0][k.key] if isinstance(k, FlattenedIndexKey) else \
            tree[k.idx if isinstance(k, SequenceKey) else k.key]
    return tree


register_node(Partial, _partial_flatten, _partial_unflatten)
STAND_INS[id(Partial)] = functools.partial  # made inside a transformed function: the partial it is
for _fn in (register_pytree_node, register_pytree_node_class, register_dataclass, tree_all, tree_flatten_with_path,
            tree_leaves_with_path, tree_map_with_path, tree_transpose, keystr):
    _fn.__s2s_refuse__ = REFUSAL  # read by the frontend where a transformed function calls one
for _fn in (tree_flatten, tree_leaves, tree_structure, tree_unflatten, tree_map, tree_reduce):  # stand-ins there
    _fn.__s2s_inside__ = getattr(tree_inside, _fn.__name__)
__all__ += ["tree_all"]
