"""Optimization passes over generated functions; `PIPELINE` lists them in the order they run.

Each pass is a `base.Pass`: it declares the analyses it reads, and `optimize` (the one place
passes run, for every transform) computes them and runs `PIPELINE` to a fixed point, each pass
reporting whether it changed anything. `FINAL` then shapes the code that runs (it is not core
form any more: `del` statements, nested expressions) and runs once.
"""
from __future__ import annotations

import gast

from . import algebra, copyprop, cse, dce, fill, fusion, inline, lifetime, loopvec, reform, reuse, shapes, stack
from .base import clone

PIPELINE = (inline.PASS, loopvec.PASS, shapes.PASS, fill.PASS, stack.PASS, algebra.PASS, copyprop.PASS, cse.PASS,
            dce.PASS)
FINAL = (lifetime.PASS,)
FINAL_JIT = (reform.PASS, reuse.PASS, lifetime.PASS)


def optimize(fn: gast.FunctionDef, known=None, trace=None) -> gast.FunctionDef:
    """Run every pass over `fn`'s body until none changes anything (`known`: facts about the
    arguments, e.g. {"floats": names of Python-float parameters}; `trace` collects pass names
    that changed something)."""
    params = {a.id for a in fn.args.args}
    body, changed = fn.body, True
    while changed:
        changed = False
        for p in PIPELINE:
            body, c = p(body, params, known)
            if c and trace is not None:
                trace.append(p.name)
            changed |= c
    fn.body = body
    return fn


def finalize(fn: gast.FunctionDef, jit: bool = False, fuse: bool = False, known=None) -> gast.FunctionDef:
    """A copy of optimized `fn` shaped for running: temporaries released (and, under jit,
    single-use temporaries written into the expressions that read them, then with `fuse`
    elementwise expressions replaced by kernels, listed in `known["kernels"]`)."""
    fn = clone(fn)
    params = {a.id for a in fn.args.args}
    stages = FINAL_JIT[:1] + ((fusion.PASS,) if fuse else ()) + FINAL_JIT[1:] if jit else FINAL
    for p in stages:
        fn.body, _ = p(fn.body, params, known)
    return fn
