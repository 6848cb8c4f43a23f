"""Dead records: a saved variable whose every restore is dead leaves reverse mode's tape.

Reverse mode saves a variable before each overwrite in a loop and pops it back in the backward
sweep (`transforms/tape.py`). Once shape folding has written the helpers that read a restored
value (`rt.unbroadcast(g, margin)`, `rt.zeros_like_tree(t7)`) as what they compute, nobody
reads it, but its pushes and pops stay: `restores.py` drops such pairs only in flat loops,
while a gradient's loops nest and branch (cs231n's `svm_loss_naive`: a loop over classes with
`continue` and an `if`, inside a loop over examples). With `margin` read by nobody after
either of its pops (live nowhere after them),

Before::

    for i in r0:
        for j in r1:
            if t6:
                ctl.append(True)
                continue
            tape.append(rt.shape_stub(margin))
            margin = t8 + 1.0
            ...
    for i in r4:
        for j in r3:
            ...
            margin = tape.pop()

After::

    for i in r0:
        for j in r1:
            if t6:
                ctl.append(True)
                continue
            margin = t8 + 1.0
            ...
    for i in r4:
        for j in r3:
            ...

Why it is sound at any depth of nesting and whatever the jumps: on a list of the reverse
transform (one with a `rt.shape_stub` push: no user code names `rt`), every push of a saved
variable `n` (`L.append(n)`, `L.append(rt.shape_stub(n))`) is popped back into `n` itself; its
control records, a loop's range or trip counter and a branch's flag, are popped into other,
fresh names. The pushes and pops of one variable are properly nested among the others', so
removing all of them leaves every other push paired with the same pop. A name that is also a
loop's range or counter (a record pushed on the same list) keeps its pushes, and so does one
with a push or pop count that differs.
"""
from __future__ import annotations

import gast

from .. import analysis
from .base import Pass
from .stack import noted_lists, pop_of, push_of


def saved_name(v):
    """`n` for a push's value `n` or `rt.shape_stub(n)`, else None."""
    if isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.shape_stub" and len(v.args) == 1:
        v = v.args[0]
    return v.id if isinstance(v, gast.Name) else None


def _stub(v) -> bool:
    return isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.shape_stub"


def loop_records(body) -> set:
    """Names a loop's record may push: the ranges `for` loops iterate, and trip counters (`n = n + 1`)."""
    out = set()
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.For) and isinstance(s.iter, gast.Name):
            out.add(s.iter.id)
        elif isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.BinOp) \
                and isinstance(s.value.left, gast.Name) and s.value.left.id == s.targets[0].id:
            out.add(s.targets[0].id)
    return out


def dead_records(body: list, params, facts) -> tuple[list, set[str]]:
    if not noted_lists(body, params, facts["notes"], local=False):
        return body, set()
    lists = noted_lists(body, params, facts["notes"])
    pushes: dict = {}
    for s in analysis.walk_stmts(body):
        if (p := push_of(s)) is not None and p[0] in lists:
            pushes.setdefault(p[0], []).append((s, p[1]))
    tapes = [lst for lst, ps in pushes.items() if any(_stub(v) for _, v in ps)]
    if not tapes:  # (no tape: no pops to look at)
        return body, set()
    pops: dict = {}
    for s in analysis.walk_stmts(body):
        if (p := pop_of(s)) is not None and p[0] in lists:
            pops.setdefault(p[0], []).append((s, p[1]))
    loads = analysis.loads(body)  # (a list measured or passed on keeps all)
    tapes = [lst for lst in tapes if loads.count(lst) == len(pushes[lst]) + len(pops.get(lst, ()))]
    if not tapes:
        return body, set()
    live = analysis.Liveness(body)
    records = loop_records(body)
    drop: set[int] = set()
    for lst in tapes:
        for n in sorted({saved_name(v) for _, v in pushes[lst]} - {None} - records):
            saves = [s for s, v in pushes[lst] if saved_name(v) == n]
            restores = [s for s, t in pops.get(lst, ()) if t == n]
            if len(saves) == len(restores) and all(n not in live.after.get(s, {n}) for s in restores):
                drop.update(id(s) for s in saves + restores)
    if not drop:
        return body, set()
    return body, dropped(body, drop, facts["notes"])


def dropped(body: list, drop: set, notes) -> set:
    """Removes the statements whose ids are in `drop` from `body` and its blocks (an emptied loop
    or `if` body keeps a `pass`); the names they read or bound (`notes.names`)."""
    touched: set[str] = set()

    def edit(block):
        keep = []
        for s in block:
            if id(s) in drop:
                touched.update(notes.names(s))
                continue
            for f in ("body", "orelse"):
                inner = getattr(s, f, None)
                if inner:
                    edit(inner)
                    if not inner and f == "body":
                        inner.append(gast.Pass())
            keep.append(s)
        block[:] = keep

    edit(body)
    return touched


PASS = Pass("dead_records", dead_records, idempotent=True)
