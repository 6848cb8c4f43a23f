"""Pytrees: nested tuples, lists and dicts of leaves, as in JAX.

A pytree is a tuple (namedtuples included), list or dict whose items are pytrees, ``None``
(an empty node with no leaves), or anything else (a leaf). Dicts are flattened in sorted-key
order so that two dicts with the same keys always line up, whatever their insertion order.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

import numpy as np

__all__ = [
    "PyTreeDef",
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


class PyTreeDef:
    """The shape of a pytree without its leaves; immutable, hashable, comparable."""

    __slots__ = ("aux", "children", "kind", "num_leaves")

    def __init__(
        self, kind: str, aux: Hashable, children: tuple[PyTreeDef, ...]
    ) -> None:
        self.kind = kind
        self.aux = aux  # tuple type for tuples, sorted key tuple for dicts, else None
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


def _flatten(x: Any, leaves: list) -> PyTreeDef:
    if x is None:
        return _NONE_DEF
    if isinstance(x, tuple):
        kids = tuple(_flatten(c, leaves) for c in x)
        return PyTreeDef(_TUPLE, type(x), kids)
    if isinstance(x, list):
        return PyTreeDef(_LIST, None, tuple(_flatten(c, leaves) for c in x))
    if isinstance(x, dict):
        keys = _sorted_keys(x)
        return PyTreeDef(_DICT, keys, tuple(_flatten(x[k], leaves) for k in keys))
    leaves.append(x)
    return _LEAF_DEF


def tree_flatten(x: Any) -> tuple[list[Any], PyTreeDef]:
    """Split a pytree into its leaves (depth first, dict keys sorted) and its structure."""
    leaves: list[Any] = []
    treedef = _flatten(x, leaves)
    return leaves, treedef


def tree_structure(x: Any) -> PyTreeDef:
    """The structure of ``x`` without its leaves."""
    return tree_flatten(x)[1]


def tree_leaves(x: Any) -> list[Any]:
    """The leaves of ``x`` in flattening order."""
    return tree_flatten(x)[0]


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


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """Apply ``f`` leafwise to ``tree`` and the trees in ``rest`` (all of the same structure)."""
    leaves, treedef = tree_flatten(tree)
    others = []
    for i, other in enumerate(rest, start=1):
        other_leaves, other_def = tree_flatten(other)
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
