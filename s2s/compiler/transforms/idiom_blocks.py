"""The walk that reverse mode's idiom rewrites share (tanh_idioms.py, softmax_idioms.py): each
block's statements, with the temporaries a pattern may read (assigned once, before it, in the
same block), and the test that a matched pattern's temporaries are read by the pattern alone."""
from __future__ import annotations

import gast

from .. import analysis


def rewrite_each(body: list, params, match) -> list:
    """`body` (core form, modified in place) where each statement for which `match(block, k, s,
    temp)` gives (new value, indices of the statements it replaces) gets that value, and those
    statements go; `temp(e)` is the index of the one assignment of temporary `e` before `k` in
    the block, else None."""
    counts = analysis.assigned_counts(body, params)
    reads: dict[str, int] = {}
    for n in analysis.iter_nodes(body):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            reads[n.id] = reads.get(n.id, 0) + 1
    _block(body, counts, reads, match)
    return body


def _block(block: list, counts, reads, match) -> None:
    for s in block:
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and not isinstance(s, gast.FunctionDef):
                _block(inner, counts, reads, match)
    defs = {}
    for k, s in enumerate(block):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
            defs.setdefault(s.targets[0].id, (k, s))
    drop: set[int] = set()
    for k, s in enumerate(block):
        if k in drop:
            continue

        def temp(e, k=k):
            ok = isinstance(e, gast.Name) and counts.get(e.id) == 1 and e.id in defs and defs[e.id][0] < k
            return defs[e.id][0] if ok else None
        found = match(block, k, s, temp)
        if found is None or not _confined(block, k, found[1], reads, found[2]):
            continue
        s.value = found[0]
        drop |= found[1]
    if drop:
        block[:] = [s for k, s in enumerate(block) if k not in drop]


def _confined(block, k, used, reads, x) -> bool:
    """Whether the temporaries the statements `used` assign are read by them and statement `k`
    alone, and the pattern's operand `x` (a name) is none of them and is assigned nowhere between
    the first of them and `k`."""
    names = {block[i].targets[0].id for i in used}
    inside: dict[str, int] = {}
    for i in (*used, k):
        for e in analysis.iter_nodes(block[i].value):
            if isinstance(e, gast.Name) and e.id in names:
                inside[e.id] = inside.get(e.id, 0) + 1
    if x in names or any(reads.get(t, 0) != inside.get(t, 0) for t in names):
        return False
    return not any(x in analysis.targets(t) for t in analysis.walk_stmts(block[min(used):k]))
