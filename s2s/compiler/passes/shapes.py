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
or of an array and a Python number, has that array's shape; so has `xp.where`, a comparison or
arithmetic of arrays of one shape (`analysis.shape_roots`), of the same dtype kind: `np.abs(z)` of a
complex `z` is real, and the helpers read the dtype too (`rt.sum_vjp`'s ones are complex for a
complex `like`, a complex cotangent where a real one belongs). And `rt.unbroadcast(g, like)` of a
`g` of `like`'s shape is `g` (it sums nothing).
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry
from .base import Pass, bottom_up


def _shape_args(calls) -> tuple:
    """(call, position) of each argument of `calls` that a helper reads only the shape of."""
    out = []
    for node in calls:
        p = registry.lookup(analysis.dotted(node.func))
        if p is not None and p.shape_arg is not None and p.shape_arg < len(node.args):
            out.append((node, p.shape_arg))
    return tuple(out)


def _unbroadcasts(calls) -> bool:
    """Whether a statement's `calls` hold `rt.unbroadcast`'s (what `shape_sources` may rewrite)."""
    return any(analysis.dotted(c.func) == "rt.unbroadcast" for c in calls)


def shape_sources(body: list, params, facts) -> tuple[list, set[str]]:
    source, notes = facts["shape_roots"], facts["notes"]
    touched: set[str] = set()
    counts = source.counts  # (the loops below rewrite only right-hand sides)
    def same_shape(v):  # `rt.unbroadcast(g, like)` of a `g` with `like`'s shape is `g`
        if isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.unbroadcast" and len(v.args) == 2 \
                and not v.keywords and isinstance(v.args[1], gast.Name):
            root = analysis.expr_shape_root(v.args[0], source, counts)
            if root and root == analysis.expr_shape_root(v.args[1], source, counts):
                return v.args[0]
        return None

    for s in body:  # (also inside a rule's expression: `-rt.unbroadcast(g * ans, y) / y`)
        if isinstance(s, gast.Assign) and notes.get(s, "unbroadcasts", lambda s: _unbroadcasts(notes.calls(s))):
            s.value, c = bottom_up(s.value, same_shape)
            if c:
                touched.update(notes.names(s))
                notes.forget(s)
    for s in analysis.walk_stmts(body):
        if isinstance(s, (gast.If, gast.For, gast.While)) or build.is_comment(s):
            continue
        for node, i in notes.get(s, "shape_args", lambda s: _shape_args(notes.calls(s))):
            arg = node.args[i]
            if isinstance(arg, gast.Name) and arg.id in source.typed:  # (the helpers read its dtype too)
                touched.update(notes.names(s), (source.typed[arg.id],))
                node.args[i] = build.name(source.typed[arg.id])
                notes.forget(s)
    return body, touched


PASS = Pass("shape_sources", shape_sources, needs=("shape_roots",), forgets=True)  # (its removals give new roots)
