"""Helpers of traced code (transforms/trace.py): each builds the node of one statement's result
from its arguments' nodes, as autograd's tracer does, with `make(value, fun, args, kwargs,
parent_argnums, parents)` (the node class). A variable's node is None (its value does not depend
on the traced input), a node, or, for a tuple, list or dict built by the code, the same structure
of its items' nodes (a plain tuple, list or dict: nodes are never of those types)."""
from __future__ import annotations

import operator

import numpy as np

__all__ = ("trace_snapshot", "trace_op", "trace_item", "trace_unpack", "trace_appended", "trace_pop", "trace_setitem",
           "trace_attr", "trace_copy")

_STRUCTURES = (tuple, list, dict)


def _getitem(container, index):
    return container[index]


_getitem.__name__ = _getitem.__qualname__ = "__getitem__"  # autograd's name for `a[i]` (ArrayBox.__getitem__)


def _is_structure(n) -> bool:
    return type(n) in _STRUCTURES


def _leaves(n) -> list:
    """The nodes in a node structure (a node: itself; None: none)."""
    if n is None:
        return []
    if not _is_structure(n):
        return [n]
    items = n.values() if type(n) is dict else n
    return [leaf for item in items for leaf in _leaves(item)]


def _made(make, value, fun, args, kwargs, argnums, parents):
    """`make`'s node, given the values as they are now (`trace_snapshot`), since the code may
    change them in place later (`a[i] = v`, a list appended to), which autograd's boxed values
    never are."""
    return make(trace_snapshot(value), fun, trace_snapshot(tuple(args)), trace_snapshot(kwargs), argnums, parents)


def trace_snapshot(v):
    """`v` as it is now: NumPy arrays copied, in tuples, lists and dicts too."""
    t = type(v)
    if t is np.ndarray:
        return v.copy()
    if t is tuple or t is list:
        return t(trace_snapshot(e) for e in v)
    if t is dict:
        return {k: trace_snapshot(e) for k, e in v.items()}
    return v


def trace_op(make, value, fun, args, kwargs, parents, aliasing=False, keyword_parents=None):
    """The node of `value = fun(*args, **kwargs)`: None when no argument has a node (`parents`
    holds one node, structure or None per argument; `keyword_parents` those of keyword arguments,
    whose parent_argnums are their names); an argument that is a structure of nodes (a list given
    to np.stack) gives each of its nodes as a parent at its position. `aliasing`: a helper of
    s2s's own code that hands back an argument itself (an unbroadcast that sums nothing) passes
    that argument's node on, as autograd's code makes no node there."""
    if fun in (list, tuple) and len(parents) == 1 and type(parents[0]) in (list, tuple):
        return fun(parents[0])  # a copy of a sequence the code built: the same items' nodes
    argnums, nodes = [], []
    for i, p in [*enumerate(parents), *(keyword_parents or {}).items()]:
        for leaf in _leaves(p):
            argnums.append(i)
            nodes.append(leaf)
    if not nodes:
        return None
    if aliasing:
        for a, p in zip(args, parents):
            if a is value and p is not None:
                return p
    return _made(make, value, fun, tuple(args), dict(kwargs), tuple(argnums), tuple(nodes))


def trace_item(make, value, node, container, index):
    """The node of `value = container[index]`: the item's node where `container` is a tuple, list
    or dict the code built (its node a structure), else a `getitem` node of an array's."""
    if node is None:
        return None
    if _is_structure(node):
        return node[index]
    return _made(make, value, _getitem, (container, index), {}, (0,), (node,))


def trace_unpack(make, value, node, n: int) -> tuple:
    """The nodes of `a, b, ... = value` (n names): the structure's items, or `getitem` nodes of a
    node's value (a primitive that returns a tuple)."""
    if node is None:
        return (None,) * n
    if _is_structure(node):
        return (None,) * n if type(node) is dict else tuple(node)  # (a dict unpacks to its keys)
    return tuple(_made(make, value[i], _getitem, (value, i), {}, (0,), (node,)) for i in range(n))


def trace_appended(make, node, lst, item_node):
    """The node structure of list `lst` after `lst.append(item)` (already run): a list of its
    items' nodes, None while no item has one."""
    if node is None and item_node is None:
        return None
    if node is None:
        node = [None] * (len(lst) - 1)
    elif not _is_structure(node):  # a list computed from a traced value: its items are `getitem`s of it
        node = [_made(make, lst[i], _getitem, (lst, i), {}, (0,), (node,)) for i in range(len(lst) - 1)]
    node.append(item_node)
    return node


def trace_pop(make, node, lst, item) -> tuple:
    """(the node of `item = lst.pop()` (already run), the list's node structure after it)."""
    if node is None:
        return None, None
    if not _is_structure(node):  # a list computed from a traced value: its items are `getitem`s of it
        whole = [*lst, item]
        node = [_made(make, v, _getitem, (whole, i), {}, (0,), (node,)) for i, v in enumerate(whole)]
    return node.pop(), node


def trace_setitem(make, value, node, index, item, item_node):
    """The node of array `value` after `value[index] = item` (already run): a `setitem` node whose
    arguments are the array, the index and the item; a list's or dict's structure of nodes gets
    the item's node at `index`."""
    if node is None and item_node is None:
        return None
    if node is None and (type(value) is dict or type(value) is list and not isinstance(index, slice)):
        node = [None] * len(value) if type(value) is list else dict.fromkeys(value)
    if type(node) in (list, dict):
        if isinstance(index, slice):  # `lst[i:j] = items`: the items' nodes
            item_node = list(item_node) if type(item_node) in (list, tuple) else [
                _made(make, v, _getitem, (item, i), {}, (0,), (item_node,)) if item_node is not None else None
                for i, v in enumerate(item)]
        node[index] = item_node
        return node
    return trace_op(make, value, operator.setitem, (value, index, item), {}, (node, None, item_node))


def trace_attr(make, value, node, obj, name: str):
    """The node of `value = obj.<name>` (`x.T`, a field of a pytree node); None for a shape, a
    size, a dtype or another value that is not data (an int, a bool, a string)."""
    if node is None or _is_structure(node) or _metadata(value):
        return None
    return _made(make, value, getattr, (obj, name), {}, (0,), (node,))


def _metadata(v) -> bool:
    if v is None or isinstance(v, (bool, int, str, np.integer, np.bool_, np.dtype, type)):
        return True
    return type(v) is tuple and all(isinstance(e, (int, np.integer)) for e in v)


def trace_copy(node):
    """The node structure of a backward sweep's copy of its record (`rt.copy_saved`): its lists
    copied too, since the sweep pops them."""
    if not _is_structure(node):
        return node
    if type(node) is dict:
        return {k: trace_copy(v) for k, v in node.items()}
    return type(node)(trace_copy(v) for v in node)
