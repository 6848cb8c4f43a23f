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
from ..primitives import (
    helpers,  # noqa: F401  (declares the helper facts)
    registry,
)
from .base import Pass


def _shape_args(calls) -> tuple:
    """(call, position) of each argument of `calls` that a helper reads only the shape of."""
    out = []
    for node in calls:
        h = registry.HELPERS.get(an.dotted(node.func))
        if h is not None and h.shape_arg is not None and h.shape_arg < len(node.args):
            out.append((node, h.shape_arg))
    return tuple(out)


def shape_sources(body: list, params, facts) -> tuple[list, set[str]]:
    notes, dirty = facts["notes"], facts["dirty"]
    sites = [(s, node, i) for s in an.walk_stmts(body) if not isinstance(s, (gast.If, gast.For, gast.While))
             and not A.is_comment(s) for node, i in notes.get(s, "shape_args", lambda s: _shape_args(notes.calls(s)))
             if isinstance(node.args[i], gast.Name)]
    if not sites or dirty is not None and dirty.isdisjoint(_relevant(body, sites, notes)):
        return body, set()
    source = an.shape_roots(body, params)
    touched: set[str] = set()
    for s, node, i in sites:
        arg = node.args[i].id
        if arg in source:
            touched.update(notes.names(s), (source[arg],))
            node.args[i] = A.name(source[arg])
            notes.forget(s)
    return body, touched


def _relevant(body, sites, notes) -> set[str]:
    """The names a change must touch for a shape argument to have a new source: the argument
    (its statement, its assignments) and what its top-level definition reads."""
    defs = {s.targets[0].id: s for s in body if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)}
    out = set()
    for _, node, i in sites:
        arg = node.args[i].id
        out.add(arg)
        if arg in defs:
            out.update(notes.names(defs[arg]))
    return out


PASS = Pass("shape_sources", shape_sources, idempotent=True)
