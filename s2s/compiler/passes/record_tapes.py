"""Dead records across a call's record (jit, issue 46 section 2): `records.py` drops the pushes
and pops of a saved variable nobody reads after its restores, on a tape one function both pushes
and pops. An inlined call's two sweeps keep their tape apart: the forward sweep pushes on its
list, which travels in the call's record, and the backward sweep pops a copy of it under another
name, restoring names that are copies of the forward's (`container_shapes.Records`). With
`t14` read by nobody after its pops (the char RNN's `y_hat[t]`, once its zero cotangent is
`xp.zeros((27, 1))`),

Before::

    tape = []
    for t in r0:
        tape.append(rt.shape_stub(t14))
        t14 = y[t]
        tape.append(t16)
        t16 = t14[0]
    saved0 = (tape, t14, t16)
    (b_tape, b_t14, b_t16) = rt.copy_saved(saved0)
    for t in r1:
        g = g / b_t16
        b_t16 = b_tape.pop()
        b_t14 = b_tape.pop()
    return g

After::

    tape = []
    for t in r0:
        t14 = y[t]
        tape.append(t16)
        t16 = t14[0]
    saved0 = (tape, t14, t16)
    (b_tape, b_t14, b_t16) = rt.copy_saved(saved0)
    for t in r1:
        g = g / b_t16
        b_t16 = b_tape.pop()
    return g

Only where the forward list is made here and read by nothing but its pushes and the one record
display, the record by nothing but one copy that unpacks it, and the backward list by nothing but
its pops: the two lists then hold the same pushes in the same order, and removing all of one
variable's pushes and pops leaves every other push paired with the same pop (`records.py`'s
argument). A name that is also a loop's range or counter keeps them.
"""
from __future__ import annotations

import gast

from .. import analysis
from .base import Pass
from .container_shapes import Records, record_copy
from .records import dropped, loop_records, saved_name
from .stack import lists_made, pop_of, push_of
from .sum_into import binders_and_reads


def _unpacks_record(body) -> bool:
    """Whether a statement unpacks a record's copy, `(b_tape, ...) = rt.copy_saved(saved0)`
    (`Records.copies` comes from nowhere else)."""
    return any(type(s) is gast.Assign and type(s.targets[0]) is gast.Tuple and record_copy(s.value) is not None
               for s in analysis.walk_stmts(body))


def _pairs(body, params):
    """(forward list, backward list) pairs whose pushes and pops match one to one: the forward
    list made here, read by its pushes and one record display alone; the record read by one copy
    that unpacks it alone; the backward list bound by that unpack alone, read by its pops alone."""
    if not _unpacks_record(body):
        return [], None  # (a pair's backward list is unpacked from a record copy: most bodies have none)
    made = lists_made(body, params)
    if not made:
        return [], None
    counts = analysis.assigned_counts(body, params)
    recs = Records(body, counts)
    loads = binders_and_reads((), body)[1]  # (name -> how many times the body reads it)
    pushes: dict = {}
    pops: dict = {}
    for s in analysis.walk_stmts(body):
        if (p := push_of(s)) is not None:
            pushes.setdefault(p[0], []).append((s, p[1]))
        elif (p := pop_of(s)) is not None:
            pops.setdefault(p[0], []).append((s, p[1]))
    holders = {}  # forward list -> the record display's name holding it
    for r, d in recs.displays.items():
        for e in d.elts:
            if isinstance(e, gast.Name) and e.id in made:
                holders.setdefault(e.id, []).append(r)
    out = []
    for b_list, f_list in recs.copies.items():
        if f_list not in made or len(holders.get(f_list, ())) != 1 or counts.get(b_list) != 1:
            continue
        record = holders[f_list][0]
        if loads.get(f_list, 0) != len(pushes.get(f_list, ())) + 1 or loads.get(record, 0) != 1 \
                or loads.get(b_list, 0) != len(pops.get(b_list, ())) or counts.get(record) != 1:
            continue
        out.append((f_list, b_list, pushes.get(f_list, []), pops.get(b_list, [])))
    return out, recs


def record_tapes(body: list, params, facts) -> tuple[list, set[str]]:
    pairs, recs = _pairs(body, params)
    if not pairs:
        return body, set()
    live = analysis.Liveness(body)
    loops = loop_records(body)
    drop: set[int] = set()
    for f_list, b_list, saves_all, restores_all in pairs:
        if any(saved_name(v) is None for _, v in saves_all) or any(t is None for _, t in restores_all):
            continue  # (a push of anything but a saved name, a pop into nothing: left as it is)
        for n in sorted({saved_name(v) for _, v in saves_all} - loops):
            saves = [s for s, v in saves_all if saved_name(v) == n]
            restores = [s for s, t in restores_all if recs.copies.get(t) == n]
            if restores and len(saves) == len(restores) \
                    and all(t not in loops and t not in live.after.get(s, {t}) for s, t in
                            ((s, pop_of(s)[1]) for s in restores)):
                drop.update(id(s) for s in saves + restores)
    return body, dropped(body, drop, facts["notes"]) if drop else set()


PASS = Pass("record_tapes", record_tapes, idempotent=True)
