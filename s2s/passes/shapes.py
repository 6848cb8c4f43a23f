"""Shape sources: a helper that needs only an array's shape reads the earliest array with it.

Before::

    t2 = t1 ** 2
    b_t2 = rt.mean_vjp(g, t2, None, False)
    return b_t2

After::

    t2 = t1 ** 2
    b_t2 = rt.mean_vjp(g, t1, None, False)
    return b_t2

so that `t2` (and what only it needed) can become dead. An elementwise function of one array,
or of an array and a Python number, has that array's shape.
"""
from __future__ import annotations

import gast

from .. import analysis as an
from ..ir import build as A
from ..primitives import registry

# helper -> position of the argument used only for its shape
SHAPE_ARGS = {"rt.unbroadcast": 1, "rt.broadcast_to_like": 1, "rt.sum_vjp": 1, "rt.mean_vjp": 1,
              "rt.zeros_like_tree": 0}


def _same_shape_source(value):
    """The Name whose shape `value` has, if the op preserves its operand's shape."""
    kind = an.classify(value)
    if kind == "copy":
        return value
    p = registry.lookup(kind)
    if p is None:
        return None
    if p.same_shape:
        operand = value.operand if isinstance(value, gast.UnaryOp) else value.args[0] if isinstance(value, gast.Call) \
            else None
        return operand if isinstance(operand, gast.Name) else None
    if p.broadcasting and isinstance(value, gast.BinOp):
        left, right = value.left, value.right
        if isinstance(left, gast.Name) and isinstance(right, gast.Constant) and isinstance(right.value, (int, float)):
            return left
        if isinstance(right, gast.Name) and isinstance(left, gast.Constant) and isinstance(left.value, (int, float)):
            return right
    return None


def shape_roots(body: list, params) -> dict[str, str]:
    """For names assigned once by a shape-preserving op: the earliest name with the same shape."""
    counts: dict[str, int] = {p: 1 for p in params}
    for s in an.walk_stmts(body):
        for t in an.targets(s):
            counts[t] = counts.get(t, 0) + 1
    source = {}
    for s in body:  # straight-line statements only: each name here holds one value
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and counts[s.targets[0].id] == 1:
            src = _same_shape_source(s.value)
            if src is not None and counts.get(src.id, 0) == 1:
                source[s.targets[0].id] = src.id
    roots = {}
    for name in source:
        root = name
        while root in source:
            root = source[root]
        roots[name] = root
    return roots


def shape_sources(body: list, params) -> tuple[list, bool]:
    source = shape_roots(body, params)
    changed = False
    for node in (n for s in body for n in gast.walk(s)):
        if isinstance(node, gast.Call) and an.dotted(node.func) in SHAPE_ARGS:
            i = SHAPE_ARGS[an.dotted(node.func)]
            arg = node.args[i] if i < len(node.args) else None
            if isinstance(arg, gast.Name) and arg.id in source:
                node.args[i] = A.name(source[arg.id])
                changed = True
    return body, changed
