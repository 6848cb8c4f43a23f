"""autograd.tracer over s2s: `Node` and `trace`, and `primitive` (the same as autograd.extend's),
`isbox` and `getval`. s2s never boxes a value: `trace(start_node, fun, x)` runs `fun`'s traced
version, generated source in which each op that depends on `x` is followed by the statement that
builds its node (s2s/compiler/transforms/trace.py), with the start node's class."""
from __future__ import annotations

import warnings
from typing import Any

from s2s.api import entry_points as api

from .extend import primitive

__all__ = ["Node", "getval", "isbox", "primitive", "trace"]


class Node:
    """A node of a trace: a subclass defines `__init__(value, fun, args, kwargs, parent_argnums,
    parents)`, called for each op whose arguments depend on the traced input (`fun` is the NumPy
    function, `args` the plain values, `parents` the argument nodes, at `parent_argnums`), and
    `initialize_root(...)` for the start node, which `new_root` makes."""

    __slots__ = []

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        raise NotImplementedError("a Node subclass defines __init__(value, fun, args, kwargs, parent_argnums, parents)")

    def initialize_root(self, *args, **kwargs):
        raise NotImplementedError("a Node subclass defines initialize_root")

    @classmethod
    def new_root(cls, *args, **kwargs):
        """The start node of a trace: made without __init__, then `initialize_root(*args, **kwargs)`."""
        root = cls.__new__(cls)
        root.initialize_root(*args, **kwargs)
        return root


def trace(start_node: Node, fun, x) -> tuple:
    """(fun(x), the node of its result), every op on a value that depends on `x` making a node of
    `start_node`'s class; (fun(x), None) with autograd's warning when the result does not depend on `x`."""
    value, node = api.trace(fun, type(start_node), (x,), (start_node,))
    if not isinstance(node, Node):
        warnings.warn("Output seems independent of input.", stacklevel=2)
        return value, None
    return value, node


def isbox(x: Any) -> bool:
    """False: s2s never wraps values in a tracing box."""
    return False


def getval(x: Any) -> Any:
    """`x` itself: the value a box would hold (s2s never boxes one)."""
    return x
