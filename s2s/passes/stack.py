"""Stack forwarding: a value pushed on a local list and popped back in the same straight-line
block, with nothing else looking at the list in between, travels through a variable instead.

Before::

    tape = []
    tape.append(b_x)
    b_x = t13
    b_x = tape.pop()

After::

    tape = []
    stk_0 = b_x
    b_x = t13
    b_x = stk_0

Nested transforms (`grad(grad(f))`) save and restore variables this way around every
reassignment; forwarded, the copies vanish under copy propagation and dead code.
"""
from __future__ import annotations

import gast

from .. import analysis as an
from ..ir import build as A
from .base import Pass


def _local_lists(body, params) -> set[str]:
    """Lists made here (`L = []`) that are only pushed, popped and measured by `rt.zeros_list`."""
    made = {s.targets[0].id for s in an.walk_stmts(body) if isinstance(s, gast.Assign)
            and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.List) and not s.value.elts}
    made -= set(params)
    ok = set(made)
    for s in an.walk_stmts(body):
        uses = [n for n in gast.walk(s) if isinstance(n, gast.Name) and n.id in ok]
        for n in uses:
            if isinstance(n.ctx, gast.Store) and not (isinstance(s, gast.Assign) and isinstance(s.value, gast.List)
                                                      and not s.value.elts):
                ok.discard(n.id)
            elif isinstance(n.ctx, gast.Load) and not _receiver_or_measured(s, n):
                ok.discard(n.id)
    return ok


def _receiver_or_measured(stmt, name) -> bool:
    for n in gast.walk(stmt):
        if isinstance(n, gast.Attribute) and n.value is name and n.attr in ("append", "pop"):
            return True
        if isinstance(n, gast.Call) and an.dotted(n.func) == "rt.zeros_list" and name in n.args:
            return True
    return False


def _push(s):
    """(list, value) for `L.append(v)`."""
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Attribute) \
            and s.value.func.attr == "append" and isinstance(s.value.func.value, gast.Name) and len(s.value.args) == 1:
        return s.value.func.value.id, s.value.args[0]
    return None


def _pop(s):
    """(list, target or None) for `t = L.pop()` or `L.pop()`."""
    v = s.value if isinstance(s, (gast.Expr, gast.Assign)) else None
    if isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr == "pop" and not v.args \
            and isinstance(v.func.value, gast.Name):
        if isinstance(s, gast.Expr):
            return v.func.value.id, None
        if isinstance(s.targets[0], gast.Name):
            return v.func.value.id, s.targets[0].id
    return None


def _block(stmts, lists, taken, counter) -> bool:
    changed = False
    for s in stmts:
        for f in ("body", "orelse"):
            if getattr(s, f, None):
                changed |= _block(getattr(s, f), lists, taken, counter)
    for j, s in enumerate(stmts):
        p = _pop(s)
        if p is None or p[0] not in lists:
            continue
        for i in range(j - 1, -1, -1):
            if p[0] not in an.loads(stmts[i]):
                continue
            push = _push(stmts[i])
            if push is not None and push[0] == p[0]:
                while True:
                    name = f"stk_{counter[0]}"
                    counter[0] += 1
                    if name not in taken:
                        break
                stmts[i] = gast.copy_location(A.assign(name, push[1]), stmts[i])
                stmts[j] = gast.copy_location(A.assign(p[1], A.name(name)), s) if p[1] else gast.Pass()
                changed = True
            break
    stmts[:] = [s for s in stmts if not isinstance(s, gast.Pass)] or stmts[:1]
    return changed


def stack_forwarding(body: list, params, facts) -> tuple[list, bool]:
    lists = _local_lists(body, params)
    if not lists:
        return body, False
    taken = {n.id for s in body for n in gast.walk(s) if isinstance(n, gast.Name)}
    return body, _block(body, lists, taken, [0])


PASS = Pass("stack_forwarding", stack_forwarding)
