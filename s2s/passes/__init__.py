"""Optimization passes over generated functions; `PIPELINE` lists them in the order they run.

Each pass is a `base.Pass`: it declares the analyses it reads, and `optimize` (the one place
passes run, for every transform) computes them and runs the passes to a fixed point.
"""
from __future__ import annotations

import gast

from . import dce, fill, shapes

PIPELINE = (shapes.PASS, fill.PASS, dce.PASS)


def optimize(fn: gast.FunctionDef) -> gast.FunctionDef:
    """Run every pass over `fn`'s body until none changes anything."""
    params = {a.id for a in fn.args.args}
    body, changed = fn.body, True
    while changed:
        changed = False
        for p in PIPELINE:
            body, c = p(body, params)
            changed |= c
    fn.body = body
    return fn
