"""A forward sweep's array loop kernel pushing its tape's items as one `TapeRows` (rows per push
site, `s2s.runtime.tape_copies`), and the backward sweep's kernel popping them as they are.

Where a forward kernel's `n` iterations push `P` items each, the Python loop's tape holds `n * P`
objects: copying them (`rt.private`) and stacking them back into one array per pop site cost
more than both kernels' arithmetic (cs231n's `svm_loss_naive`: 3.5 ms of 10 a call). A
`TapeRows` is one item instead, which nothing writes into, so a record's copy shares it.
`block_loops` (the driver, once the kernels are chosen) allows it only where every pop of the
tape that can reach it is a backward array loop kernel's (`stacks` below, or its items one by
one through `expand_rows` when the kernel cannot take them): the tape goes into the function's
record only, the record only to `rt.private` or `rt.copy_saved`, and the backward sweep's copy
of the tape is popped in no Python loop.
"""
from __future__ import annotations

import gast
import numpy as np

from ...runtime.tape_copies import TapeRows
from .. import analysis
from ..primitives import registry

_F64 = np.dtype(np.float64)
_FLOATS = frozenset({float, np.float64})
_NUMPY = frozenset({np.float64})


def _root(x):
    while type(x.base) is np.ndarray:
        x = x.base
    return x


class Taken:
    """What `PopPlan.finish` does for stacks read from `TapeRows`: the blocks off their tapes, and
    the kernel's last rows written into the first items (a saved variable's value before the
    loop, an array something else may hold) of the sites it may write into."""

    def __init__(self, tapes: list, back: list):
        self.tapes, self.back = tapes, back

    def finish(self) -> None:
        for tape in self.tapes:
            del tape[-1]
        for first, stacked in self.back:
            first[...] = stacked[-1]


def stacks(plan, args, per: dict, n: int):
    """(the stacks of `plan`'s pop sites, a `Taken`) where each tape it pops (`per`: tape -> its pop
    sites, in the body's order) has on top the `TapeRows` of `n` iterations of as many pushes,
    every check of `PopPlan.stacks` holding for the items it stands for; else None (then the
    items one by one). Pop site q of a tape pops the block's push site P - 1 - q, rows reversed."""
    found, tapes = {}, []
    for lst, js in per.items():
        tape = args[plan.params.index(lst)]
        block = tape[-1] if tape else None
        if type(block) is not TapeRows or block.n != n or len(block.sites) != len(js):
            return None
        tapes.append(tape)
        p = len(js)
        for q, j in enumerate(js):
            found[j] = block.sites[p - 1 - q], block.firsts[p - 1 - q]
    given = {id(_root(a)) for a in args if type(a) is np.ndarray}
    out, shared, makers, firsts = [], {}, {}, {}
    for j in plan.pops:
        (rows, kind, stub, rank, maker), first = found[j]
        flags, want = plan.sites[j][4], plan.sites[j][5]
        dead_last, saved = bool(flags and flags[1]), kind == "saved"
        checked = saved and not dead_last  # (the first item is one of the values the kernel reads)
        if not rank:
            if want or checked and type(first) not in (_NUMPY if flags and flags[3] else _FLOATS):
                return None
            stacked = rows[::-1].copy()
            if saved:
                stacked[n - 1] = first if type(first) in _FLOATS else np.nan
            out.append(stacked)
            continue
        shape = rows.shape if stub else rows.shape[1:]
        fits = type(first) is np.ndarray and first.dtype == _F64 and first.shape == shape
        if not shape or want is not None and len(shape) != want or checked and not fits:
            return None
        if flags and flags[4]:  # (read for its shape only)
            out.append(np.zeros((n,) + shape))
            continue
        if stub or checked and (first.base is not None or id(first) in given):
            return None
        if maker is not None and maker in makers:  # (sites pushing the objects one statement made)
            twin, twin_kind, twin_first = makers[maker]
            if twin_kind != kind or checked and first is not twin_first:
                return None
            shared[j] = twin
            out.append(out[plan.pops.index(twin)])
            continue
        if maker is not None:
            makers[maker] = j, kind, first
        if checked and firsts.setdefault(id(first), j) != j:  # (one object first at two sites)
            return None
        stacked = rows[::-1].copy()
        if saved:
            stacked[n - 1] = first if fits else np.nan
            if fits:
                firsts[id(first)] = j
        out.append(stacked)
    back = []
    for j in firsts.values():
        if any(plan.sites[q][4] and plan.sites[q][4][0] for q in [j] + [q for q, t in shared.items() if t == j]):
            back.append((found[j][1], out[plan.pops.index(j)]))
    return out, Taken(tapes, back)


def block_loops(run, arrayloops) -> set:
    """The forward array loops of function `run` (`known["arrayloops"]`' names) that may push
    `TapeRows`: each tape they push is bound to `[]`, appended to, passed to kernels and put in
    tuples assigned to names (records) read only by `rt.private` or `rt.copy_saved`, whose
    result's item at the tape's position is popped only outside loops or by backward kernels."""
    roles = {k[0]: k[3] for k in arrayloops}
    forward = {k[0]: {s[1] for s in k[6] if s[2] in ("value", "saved", "slot")} for k in arrayloops}
    uses = _Uses(roles)
    uses.visit(run)
    out = set()
    for name, tapes in forward.items():
        if tapes and all(uses.tape_ok(t) for t in tapes):
            out.add(name)
    return out


class _Uses(gast.NodeVisitor):
    """How each name of a function is used: `odd` collects the names used otherwise than a
    tape's or a record's way (see `block_loops`)."""

    def __init__(self, roles):
        self.roles = roles
        self.odd: set = set()
        self.records: dict = {}  # record name -> [(position, tape name)]
        self.copies: dict = {}  # record name -> [the names its copy's items are bound to]
        self.kernel_pops: set = set()  # the tapes backward kernels pop
        self.depth = 0

    def tape_ok(self, tape: str) -> bool:
        if tape in self.odd:
            return False
        held = [(rec, k) for rec, items in self.records.items() for k, t in items if t == tape]
        if not held:
            return tape in self.kernel_pops
        for rec, k in held:
            if rec in self.odd or not self.copies.get(rec):
                return False
            for names in self.copies[rec]:
                if names is None or k >= len(names) or names[k] is None or names[k] in self.odd \
                        or names[k] not in self.kernel_pops:
                    return False
        return True

    def visit_For(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_While = visit_For

    def visit_Assign(self, node):
        t, v = node.targets[0], node.value
        if len(node.targets) == 1 and isinstance(t, gast.Name) and isinstance(v, gast.Tuple) \
                and all(isinstance(e, gast.Name) for e in v.elts):
            self.records.setdefault(t.id, []).extend((k, e.id) for k, e in enumerate(v.elts))
            return  # (a record: the tuple's names go in as a whole)
        if len(node.targets) == 1 and isinstance(v, gast.Call) and _record_copy(v) \
                and v.args and isinstance(v.args[0], gast.Name):
            names = [e.id if isinstance(e, gast.Name) else None for e in t.elts] if isinstance(t, gast.Tuple) else None
            self.copies.setdefault(v.args[0].id, []).append(names)
            for a in v.args[1:]:
                self.visit(a)
            return
        if len(node.targets) == 1 and isinstance(t, gast.Name) and isinstance(v, gast.List) and not v.elts:
            return
        if len(node.targets) == 1 and isinstance(t, gast.Name) and _pop_of(v) is not None and not self.depth:
            return  # (`x = tape.pop()` outside loops: an item pushed outside loops)
        self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.attr == "append":
            for a in node.args:
                self.visit(a)
            return
        if isinstance(f, gast.Name) and f.id in self.roles:  # (a kernel: its tapes by role)
            for a in node.args:
                role = self.roles[f.id].get(a.id) if isinstance(a, gast.Name) else None
                if role == "poptape":
                    self.kernel_pops.add(a.id)
                elif role != "tape" and isinstance(a, gast.Name):
                    self.odd.add(a.id)
            return
        self.generic_visit(node)

    def visit_Delete(self, node):
        return

    def visit_Name(self, node):
        self.odd.add(node.id)


def _record_copy(call) -> bool:
    """Whether `call` is a backward sweep's copy of its record (`rt.private`, `rt.copy_saved`)."""
    f = analysis.dotted(call.func)
    return bool(f and getattr(registry.lookup(f), "record_copy", False))


def _pop_of(e):
    if isinstance(e, gast.Call) and isinstance(e.func, gast.Attribute) and e.func.attr == "pop" and not e.args \
            and isinstance(e.func.value, gast.Name):
        return e.func.value.id
    return None
