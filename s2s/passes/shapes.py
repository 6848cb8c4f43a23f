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


def _shape_args(s) -> tuple:
    """(call, position) of each argument of `s` that a helper reads only the shape of."""
    out = []
    for node in an.iter_nodes(s):
        h = registry.HELPERS.get(an.dotted(node.func)) if type(node) is gast.Call else None
        if h is not None and h.shape_arg is not None and h.shape_arg < len(node.args):
            out.append((node, h.shape_arg))
    return tuple(out)


def shape_sources(body: list, params, facts) -> tuple[list, set[str]]:
    source, notes = facts["shape_roots"], facts["notes"]
    touched: set[str] = set()
    for s in an.walk_stmts(body):
        if isinstance(s, (gast.If, gast.For, gast.While)) or A.is_comment(s):
            continue
        for node, i in notes.get(s, "shape_args", _shape_args):
            arg = node.args[i]
            if isinstance(arg, gast.Name) and arg.id in source:
                touched.update(notes.names(s), (source[arg.id],))
                node.args[i] = A.name(source[arg.id])
    return body, touched


PASS = Pass("shape_sources", shape_sources, needs=("shape_roots",), idempotent=True)
