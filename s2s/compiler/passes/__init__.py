"""Optimization passes over generated functions; `PIPELINE` lists them in the order they run.

Each pass is a `base.Pass`: it declares the analyses it reads, and `optimize` (the one place
passes run, for every transform) computes them and runs `PIPELINE` to a fixed point, each pass
reporting what it changed, so that a pass runs again only when something changed since it ran.
`FINAL` then shapes the code that runs (it is not core form any more: `del` statements, nested
expressions) and runs once.
"""
from __future__ import annotations

import copy

import gast

from . import (
    accumulate,
    algebra,
    arrayloop,
    batched_products,
    constants,
    copyprop,
    cse,
    dce,
    fill,
    fusion,
    hoist,
    inline,
    lifetime,
    loopfold,
    loopkernel,
    loopvec,
    newaxis,
    onetrip,
    owned_items,
    owned_sums,
    recompute,
    record_reads,
    record_tapes,
    records,
    reform,
    restores,
    reuse,
    row_sums,
    scalar_selects,
    scalars,
    shapefold,
    shapes,
    slot_takes,
    smallfuse,
    stack,
    sum_into,
    transposed_sums,
    tree_items,
)
from .base import Notes, clone

PIPELINE = (inline.PASS, loopvec.PASS, shapefold.PASS, loopfold.PASS, onetrip.PASS, shapes.PASS, fill.PASS, stack.PASS,
            restores.PASS, records.PASS, record_tapes.PASS, tree_items.PASS, hoist.PASS,
            algebra.PASS, scalars.PASS, cse.PASS,
            copyprop.PASS, dce.PASS)
INLINING = (inline.PASS, copyprop.PASS, dce.PASS)  # calls inlined before batching (driver.calls_inlined)
FINAL = (lifetime.PASS,)
# the passes that read no facts about the arguments (`known`): on a fixed point the pipeline
# reached with other facts (jit's start, a transform's optimized output), they have nothing to do
# until another pass changes something
SETTLED = frozenset(p.name for p in (shapes.PASS, fill.PASS, stack.PASS, restores.PASS, records.PASS, tree_items.PASS,
                                     cse.PASS, copyprop.PASS, dce.PASS))
FINAL_JIT = (reform.PASS, batched_products.PASS, smallfuse.PASS, reuse.PASS, sum_into.PASS, row_sums.PASS, owned_sums.PASS,
             owned_items.PASS, record_reads.PASS, slot_takes.PASS, transposed_sums.PASS, scalar_selects.PASS,
             shapefold.METHODS,
             constants.PASS, newaxis.PASS, lifetime.PASS, reuse.IN_PLACE)


def optimize(fn: gast.FunctionDef, known=None, trace=None, pipeline=None, settled=()) -> gast.FunctionDef:
    """Run the passes over `fn`'s body, in `PIPELINE`'s order and round after round, until none
    has anything left to do (`known`: facts about the arguments, e.g. {"floats": names of
    Python-float parameters}; `trace` collects the names of passes that changed something;
    `pipeline`: the passes to run, `PIPELINE` unless a caller needs only some, e.g. `INLINING`;
    `settled`: names of passes with nothing to do on `fn` as it is, a fixed point reached before).

    A pass runs again only when another pass (or, unless it is idempotent, itself) changed
    something since it last ran; it is told what (`dirty`), so it may look only there."""
    pipeline = PIPELINE if pipeline is None else pipeline
    params = {a.id for a in fn.args.args}
    body = fn.body
    dirty: dict[str, set[str] | None] = {p.name: set() if p.name in settled else None for p in pipeline}  # None: all
    memo: dict[str, dict] = {p.name: {} for p in pipeline}
    notes = Notes()
    while any(d is None or d for d in dirty.values()):
        for p in pipeline:
            if dirty[p.name] is not None and not dirty[p.name]:
                continue
            body, c = p.apply(body, params, known, dirty[p.name], memo[p.name], notes)
            dirty[p.name] = set()
            if c is not None and not c:
                continue
            if trace is not None:
                trace.append(p.name)
            for q in pipeline:
                if q is not p or not q.idempotent:
                    dirty[q.name] = None if c is None or dirty[q.name] is None else dirty[q.name] | c
    fn.body = body
    return fn


def finalize(fn: gast.FunctionDef, jit: bool = False, fuse: bool | str = False, known=None,
             kernels_only: bool = False) -> gast.FunctionDef:
    """A copy of optimized `fn` shaped for running: temporaries released (and, under jit,
    single-use temporaries written into the expressions that read them, then with `fuse`
    cheap values recomputed where that makes fewer kernels (`recompute`) and elementwise
    expressions replaced by kernels, listed in `known["kernels"]`, and loops of scalar
    arithmetic by loop kernels, listed in `known["loops"]`, loops over arrays by array loop
    kernels, `known["arrayloops"]`). `kernels_only`: stop once the fused
    kernels are known (a caller asking only whether there would be any)."""
    fusing = (recompute.PASS, fusion.PASS) if fuse else ()
    stages = FINAL_JIT[:1] + fusing + (accumulate.PASS, arrayloop.PASS, loopkernel.PASS) + FINAL_JIT[1:] if jit else FINAL
    if kernels_only:
        stages = stages[:1 + len(fusing)]
    if all(p is lifetime.PASS for p in stages):  # it only inserts `del`s: a new top-level list will do
        fn = copy.copy(fn)
        fn.body = list(fn.body)
    else:  # the others rewrite statements in place, and the record keeps the core form
        fn = clone(fn)
    params = {a.id for a in fn.args.args}
    if known is not None:
        known["fuse"] = fuse  # reform writes more into elementwise code that becomes one kernel
    for p in stages:
        fn.body, _ = p(fn.body, params, known)
    return fn
