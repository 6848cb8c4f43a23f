"""One-trip loops (jit, shapes known): a loop of the function's body over a range of int literals
with exactly one element runs its body once, so its body becomes straight-line code after the loop
variable's one value. A batch loop `for i in range(0, N, batch)` over a dataset of one batch
(N the batch size, a literal once shape folding knows N) is the usual case: in straight-line
code, a name the body rebinds with another shape (`x = X[i:i + b]; x = x.transpose(1, 0, 2)`)
has one shape between two bindings, which shape folding follows (`shapefold`'s flow names), where
in the loop it could not know which binding a read in a later iteration sees.

Before::

    r0 = range(0, 64, 64)
    for i in r0:
        x = X[i:i + 64]
        x = xp.transpose(x, t0)

After::

    r0 = range(0, 64, 64)
    i = 0
    x = X[i:i + 64]
    x = xp.transpose(x, t0)

Only loops at the top level of the function (their names are then bound at the top level
only if nothing else binds them in a loop), with no `else` and no `break` or `continue` of
their own; the range is a call of `range` with int literals, written in the `for` or bound
once to a name the loop reads, or that range handed back by a reverse sweep's record, reversed or
not (`record_ranges.py`: an inlined call's backward loop over the range its forward loop saved).
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from . import record_ranges
from .base import Pass


def _own_jumps(stmts) -> bool:
    """Whether `stmts` hold a `break` or `continue` of the loop they are the body of (not of a
    loop nested in them)."""
    for s in stmts:
        if isinstance(s, (gast.Break, gast.Continue)):
            return True
        if isinstance(s, (gast.For, gast.While)):
            if _own_jumps(s.orelse):
                return True
            continue
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for block in ("body", "orelse", "finalbody"):
            if _own_jumps(getattr(s, block, None) or ()):
                return True
        if any(_own_jumps(h.body) for h in getattr(s, "handlers", None) or ()):
            return True
    return False


def one_trip_loops(body: list, params, facts) -> tuple[list, set[str]]:
    if not facts["known"].get("shapes"):
        return body, set()
    counts = analysis.assigned_counts(body, params)
    ranges = record_ranges.literal_ranges(body, counts)
    out, touched = [], set()
    for s in body:
        r = record_ranges.literal_range(s.iter, ranges) if isinstance(s, gast.For) else None
        if r is None or len(r) != 1 or s.orelse or not isinstance(s.target, gast.Name) or _own_jumps(s.body):
            out.append(s)
            continue
        out.append(gast.copy_location(build.assign(s.target.id, build.const(r[0])), s))
        out += s.body
        touched.update(analysis.loads(s.body), analysis.assigned_counts(s.body), (s.target.id,))
    return out, touched


PASS = Pass("one_trip_loops", one_trip_loops)
