"""Optimization passes over generated functions; `PIPELINE` lists them in the order they run.

Each pass takes the function's statements and the names its callers see besides what it
returns, and gives back `(statements, changed)`; `optimize` runs them to a fixed point.
"""
from __future__ import annotations

import gast

from .dce import dead_code
from .fill import scalar_fill
from .shapes import shape_sources

PIPELINE = (shape_sources, scalar_fill, dead_code)


def optimize(fn: gast.FunctionDef) -> gast.FunctionDef:
    """Run every pass over `fn`'s body until none changes anything."""
    params = {a.id for a in fn.args.args}
    body, changed = fn.body, True
    while changed:
        changed = False
        for run in PIPELINE:
            body, c = run(body, params)
            changed |= c
    fn.body = body
    return fn
