"""Row sums (jit, issue 46 section 2): a cotangent made of zeros with rows added in place, then
added whole into an accumulator, keeps only its rows (`rt.row_zeros`, `rt.row_add`) and adds them
into the accumulator's own array (`rt.row_sums_into`) where the accumulator alone holds it. The
dense form costs zeros of the table's size and a pass over it per call, where the rows are a few
(skip-gram's inner loss reads eleven rows of a 19,539 x 10 table per outside word; its author pays
the zeros and the sum too).

Before (after passes/sum_into.py)::

    acc = xp.zeros((n, d))
    for o in r0:
        b_u = xp.zeros((n, d))
        for i in r1:
            b_u = rt.add_at(b_u, w, v)
        acc = rt.tree_add_into(acc, b_u, True)
    return acc

After::

    acc = xp.zeros((n, d))
    for o in r0:
        b_u = rt.row_zeros((n, d), xp)
        for i in r1:
            b_u = rt.row_add(b_u, w, v)
        acc = rt.row_sums_into(acc, b_u, True)
    return acc

Only where the addend is the cotangent's own array, as passes/sum_into.py requires (every binding
of it is zeros or an `rt.add_at` into itself, every read one of those or the sum, dead after the
sum, no parameter), and the accumulator alone holds its array: every binding of it is zeros or
such a sum, it is no parameter, and nothing reads it but those sums until the last top-level
statement that binds it (so no other name or container holds the array a sum writes into). The
values are the dense code's bit for bit (s2s/runtime/row_sums.py says why); a repeated row adds
each value in turn, as `rt.add_at` does.
"""
from __future__ import annotations

import collections

import gast

from .. import analysis
from ..ir import build
from .base import Pass
from .owned_sums import assigned_name, is_call
from .sum_into import binders_and_reads


def _site(s):
    """(acc, x) for `acc = rt.tree_add_into(acc, x)` or `(acc, x, True)`, x another name, else None."""
    t = assigned_name(s)
    v = s.value if t is not None else None
    if not (isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.tree_add_into" and 2 <= len(v.args) <= 3
            and not v.keywords):
        return None
    a, x = v.args[:2]
    if isinstance(a, gast.Name) and isinstance(x, gast.Name) and a.id == t and x.id != t:
        return t, x.id
    return None


def _zeros(s, x) -> bool:
    """Whether `s` is `x = xp.zeros(shape)` or `x = rt.zeros_like_tree(e)`, not reading `x`."""
    if assigned_name(s) != x or not (is_call(s.value, "xp.zeros", 1) or is_call(s.value, "rt.zeros_like_tree", 1)):
        return False
    return x not in analysis.loads(s.value)


def _row_update(s, x) -> bool:
    """Whether `s` is `x = rt.add_at(x, i, v)` with `i` and `v` not reading `x`."""
    if assigned_name(s) != x or not is_call(s.value, "rt.add_at", 3):
        return False
    a, i, v = s.value.args
    return isinstance(a, gast.Name) and a.id == x and x not in analysis.loads(i) and x not in analysis.loads(v)


def _owned(body, acc, binders, sums, params) -> bool:
    """Whether `acc` alone holds its array: bound only to zeros and by the sums `sums`, no
    parameter, read by nothing but those sums up to its last top-level binding."""
    if acc in params or any(id(b) not in sums and not _zeros(b, acc) for b in binders):
        return False
    binding = {id(b) for b in binders}
    last = max(i for i, top in enumerate(body) if any(id(s) in binding for s in analysis.walk_stmts([top])))
    reads = sum(1 for n in analysis.iter_nodes(body[:last + 1])
                if type(n) is gast.Name and n.id == acc and isinstance(n.ctx, gast.Load))
    return reads == len(sums)


def row_sums(body: list, params, facts) -> tuple[list, bool]:
    stmts = list(analysis.walk_stmts(body))
    sites = [(s, *site) for s in stmts if (site := _site(s)) is not None]
    if not sites:
        return body, False
    binders, reads = binders_and_reads(stmts, body)
    by_acc: dict[str, list] = collections.defaultdict(list)
    for s, acc, x in sites:
        by_acc[acc].append((s, x))
    live = None
    changed = False
    for acc, pairs in by_acc.items():
        chosen = []
        for s, x in pairs:
            bs = binders[x]
            zeros = [b for b in bs if _zeros(b, x)]
            updates = [b for b in bs if _row_update(b, x)]
            if x in params or not zeros or len(zeros) + len(updates) != len(bs) or reads[x] != len(updates) + 1:
                break
            live = analysis.Liveness(body) if live is None else live
            if x in live.after[s]:
                break
            chosen.append((s, zeros, updates))
        if len(chosen) != len(pairs) or not _owned(body, acc, binders[acc], {id(s) for s, _ in pairs}, params):
            continue
        for s, zeros, updates in chosen:
            for z in zeros:
                if analysis.dotted(z.value.func) == "xp.zeros":
                    z.value = build.call("rt.row_zeros", [*z.value.args, build.name("xp")])
                else:
                    z.value = build.call("rt.row_zeros_like", z.value.args)
            for u in updates:
                u.value = build.call("rt.row_add", u.value.args)
            s.value = build.call("rt.row_sums_into", s.value.args)
        changed = True
    return body, changed


PASS = Pass("row_sums", row_sums)
