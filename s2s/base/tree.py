"""Pytrees: nested tuples, lists and dicts of leaves, as in JAX.

A pytree is a tuple (namedtuples included), list or dict whose items are pytrees, ``None``
(an empty node with no leaves), or anything else (a leaf). Dicts are flattened in sorted-key
order so that two dicts with the same keys always line up, whatever their insertion order.
Other types become nodes when registered (`register_node`, used by `s2s.tree_util`); `is_leaf`
stops the flattening at the subtrees it accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

import numpy as np

__all__ = [
    "ARRAY_ATTRIBUTES",
    "AxesNode",
    "COMPUTED_ATTRIBUTES",
    "axes_children",
    "hashable_axes",
    "PyTreeDef",
    "field_clash",
    "is_node_type",
    "node_children",
    "register_node",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
    "tree_vdot",
]

_LEAF = "leaf"
_NONE = "none"
_TUPLE = "tuple"
_LIST = "list"
_DICT = "dict"
_CUSTOM = "custom"
NODES: dict[type, tuple[Callable, Callable]] = {}  # registered type -> (flatten, unflatten)


def register_node(cls: type, flatten: Callable, unflatten: Callable) -> None:
    """Make instances of `cls` pytree nodes: `flatten(x) -> (children, aux_data)` (aux_data
    hashable), `unflatten(aux_data, children) -> x`."""
    NODES[cls] = (flatten, unflatten)


def is_node_type(cls: type) -> bool:
    """Whether instances of `cls` are nodes with named fields: a registered type or a namedtuple."""
    return cls in NODES or isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def node_children(x: Any) -> tuple[list, Callable[[list], Any]] | None:
    """(children, rebuild) of a registered node or a namedtuple, `rebuild(new_children)` making
    one of the same type and static data; None for anything else."""
    node = NODES.get(type(x)) if NODES else None
    if node is not None:
        children, aux = node[0](x)
        return list(children), lambda kids: node[1](aux, list(kids))
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return list(x), lambda kids: type(x)(*kids)
    return None


class AxesNode:
    """vmap's in_axes given as a registered node (JAX's prefix tree), kept hashable: the node's type
    and its children's axes."""

    __slots__ = ("children", "cls")

    def __init__(self, cls: type, children: tuple) -> None:
        self.cls, self.children = cls, children

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AxesNode) and (self.cls, self.children) == (other.cls, other.children)

    def __hash__(self) -> int:
        return hash((self.cls, self.children))

    def __repr__(self) -> str:
        return f"{self.cls.__name__}{self.children!r}"


def hashable_axes(spec: Any) -> Any:
    """`spec` (vmap's in_axes) with each registered node in it an AxesNode."""
    parts = node_children(spec) if type(spec) in NODES else None
    if parts is not None:
        return AxesNode(type(spec), tuple(hashable_axes(c) for c in parts[0]))
    if isinstance(spec, tuple) and not hasattr(spec, "_fields"):
        return tuple(hashable_axes(c) for c in spec)
    if isinstance(spec, list):
        return [hashable_axes(c) for c in spec]
    if isinstance(spec, dict):
        return {k: hashable_axes(v) for k, v in spec.items()}
    return spec


def axes_children(spec: Any, x: Any) -> list | None:
    """The axes of node `x`'s children when `spec` gives them (a node of `x`'s type, or its
    AxesNode); None when `spec` is one axis for the whole node."""
    if isinstance(spec, AxesNode):
        if spec.cls is not type(x):
            raise ValueError(f"vmap in_axes {spec!r} does not match a {type(x).__name__}")
        return list(spec.children)
    if type(spec) is type(x):
        return node_children(spec)[0]
    return None


# What a transformed function reads as an array's attribute after a dot, whatever the object: the
# names the frontend lowers to array queries (`.shape`) and to functions of the array (`.T`, the
# ones a property of a node class would also hide). The frontend fills both on import.
ARRAY_ATTRIBUTES: set[str] = set()
COMPUTED_ATTRIBUTES: set[str] = set()


def field_clash(x: Any) -> str | None:
    """"Type.name" for the first registered node or namedtuple in pytree `x` with a field named like
    an array attribute (`.shape`, `.T`, ...), which a transformed function would read as the
    array's; None when there is none."""
    kids = node_children(x)
    if kids is not None:
        names = set(getattr(x, "_fields", ()))
        names.update(getattr(x, "__dict__", {}))
        names.update(f.name for f in getattr(x, "__dataclass_fields__", {}).values())
        names.update(n for n in COMPUTED_ATTRIBUTES if isinstance(getattr(type(x), n, None), property))
        bad = sorted(names & ARRAY_ATTRIBUTES)
        if bad:
            return f"{type(x).__name__}.{bad[0]}"
    elif isinstance(x, dict):
        kids = (list(x.values()), None)
    elif isinstance(x, (tuple, list)):
        kids = (list(x), None)
    else:
        return None
    return next((c for c in map(field_clash, kids[0]) if c is not None), None)


class PyTreeDef:
    """The shape of a pytree without its leaves; immutable, hashable, comparable."""

    __slots__ = ("aux", "children", "kind", "num_leaves")

    def __init__(
        self, kind: str, aux: Hashable, children: tuple[PyTreeDef, ...]
    ) -> None:
        self.kind = kind
        self.aux = aux  # tuple type for tuples, sorted key tuple for dicts, (type, aux_data) for
        # registered nodes, else None
        self.children = children
        self.num_leaves = 1 if kind == _LEAF else sum(c.num_leaves for c in children)

    def _key(self) -> tuple:
        return (self.kind, self.aux, self.children)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PyTreeDef) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"PyTreeDef({self._show()})"

    def _show(self) -> str:
        if self.kind == _LEAF:
            return "*"
        if self.kind == _NONE:
            return "None"
        inner = [c._show() for c in self.children]
        if self.kind == _LIST:
            return "[" + ", ".join(inner) + "]"
        if self.kind == _DICT:
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.aux, inner)) + "}"
        if self.kind == _CUSTOM:
            return f"CustomNode({self.aux[0].__name__}[{self.aux[1]!r}], [" + ", ".join(inner) + "])"
        if self.aux is not tuple:
            return f"{self.aux.__name__}(" + ", ".join(inner) + ")"
        return "(" + ", ".join(inner) + (",)" if len(inner) == 1 else ")")


_LEAF_DEF = PyTreeDef(_LEAF, None, ())
_NONE_DEF = PyTreeDef(_NONE, None, ())


def _sorted_keys(d: dict) -> tuple:
    """Keys in sorted order; keys that cannot be compared are ordered by type name and repr."""
    try:
        return tuple(sorted(d))
    except TypeError:
        return tuple(sorted(d, key=lambda k: (type(k).__name__, repr(k))))


def _flatten(x: Any, leaves: list, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF_DEF
    if x is None:
        return _NONE_DEF
    node = NODES.get(type(x)) if NODES else None
    if node is not None:
        children, aux = node[0](x)
        return PyTreeDef(_CUSTOM, (type(x), aux), tuple(_flatten(c, leaves, is_leaf) for c in children))
    if isinstance(x, tuple):
        kids = tuple(_flatten(c, leaves, is_leaf) for c in x)
        return PyTreeDef(_TUPLE, type(x), kids)
    if isinstance(x, list):
        return PyTreeDef(_LIST, None, tuple(_flatten(c, leaves, is_leaf) for c in x))
    if isinstance(x, dict):
        keys = _sorted_keys(x)
        return PyTreeDef(_DICT, keys, tuple(_flatten(x[k], leaves, is_leaf) for k in keys))
    leaves.append(x)
    return _LEAF_DEF


def tree_flatten(x: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """Split a pytree into its leaves (depth first, dict keys sorted) and its structure; a subtree
    that `is_leaf` accepts is a leaf."""
    leaves: list[Any] = []
    treedef = _flatten(x, leaves, is_leaf)
    return leaves, treedef


def tree_structure(x: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The structure of ``x`` without its leaves."""
    return tree_flatten(x, is_leaf)[1]


def tree_leaves(x: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of ``x`` in flattening order."""
    return tree_flatten(x, is_leaf)[0]


def _build(treedef: PyTreeDef, it: Iterable) -> Any:
    if treedef.kind == _LEAF:
        return next(it)
    if treedef.kind == _NONE:
        return None
    kids = [_build(c, it) for c in treedef.children]
    if treedef.kind == _LIST:
        return kids
    if treedef.kind == _DICT:
        return dict(zip(treedef.aux, kids))
    if treedef.kind == _CUSTOM:
        cls, aux = treedef.aux
        return NODES[cls][1](aux, kids)
    cls = treedef.aux
    if cls is tuple:
        return tuple(kids)
    if hasattr(cls, "_fields"):  # namedtuple: fields are positional arguments
        return cls(*kids)
    return cls(kids)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a pytree of structure ``treedef`` from ``leaves`` (the inverse of flatten)."""
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(
            f"tree_unflatten: structure {treedef} needs {treedef.num_leaves} leaves, "
            f"got {len(leaves)}"
        )
    return _build(treedef, iter(leaves))


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Apply ``f`` leafwise to ``tree`` and the trees in ``rest`` (all of the same structure)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = []
    for i, other in enumerate(rest, start=1):
        other_leaves, other_def = tree_flatten(other, is_leaf)
        if other_def != treedef:
            raise ValueError(
                f"tree_map: tree {i} has structure {other_def}, expected {treedef}"
            )
        others.append(other_leaves)
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])


def tree_vdot(a: Any, b: Any) -> float:
    """Real inner product of two pytrees of the same structure: the sum of leafwise dot products."""
    a_leaves, a_def = tree_flatten(a)
    b_leaves, b_def = tree_flatten(b)
    if a_def != b_def:
        raise ValueError(f"tree_vdot: structures differ: {a_def} vs {b_def}")
    total = 0.0
    for i, (x, y) in enumerate(zip(a_leaves, b_leaves)):
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if x.shape != y.shape:
            raise ValueError(f"tree_vdot: leaf {i} has shapes {x.shape} and {y.shape}")
        total += float(np.sum(x * y))
    return total
