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

from .. import analysis
from ..ir import build
from .base import Pass, names_of


def lists_made(body, params) -> set[str]:
    """Lists made here (`L = []`), parameters aside."""
    return {s.targets[0].id for s in analysis.walk_stmts(body) if isinstance(s, gast.Assign)
            and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.List) and not s.value.elts} - set(params)


def noted_lists(body, params, notes, local: bool = True) -> frozenset[str]:
    """`local_lists` (`local`) or `lists_made` of `body`, kept in the pipeline's notes
    (`Notes.analyses`) while no pass changes anything: stack forwarding, dead records and dead
    restores ask them one after the other."""
    key = "local_lists" if local else "lists_made"
    hit = notes.analyses.get(key)
    if hit is not None and hit[0] is body:
        return hit[1]
    if local:
        found = frozenset(local_lists(body, noted_lists(body, params, notes, False), notes))
    else:
        found = frozenset(lists_made(body, params))
    notes.analyses[key] = (body, found)
    return found


def local_lists(body, made, notes) -> set[str]:
    """Lists made here that are only pushed, popped and measured by `rt.zeros_list`."""
    ok = set(made)
    for s in analysis.walk_stmts(body):
        if not ok:
            break
        if isinstance(s, (gast.If, gast.For, gast.While)):
            head = [s.test] if isinstance(s, (gast.If, gast.While)) else [s.target, s.iter]
            uses = [n for n in analysis.iter_nodes(head) if type(n) is gast.Name and n.id in ok]  # blocks come next
            ok.difference_update(n.id for n in uses)
            continue
        if notes.names(s).isdisjoint(ok):
            continue
        made_here = isinstance(s, gast.Assign) and isinstance(s.value, gast.List) and not s.value.elts
        uses = [u for u in notes.get(s, "name_uses", _name_uses) if u[0] in ok]
        for name, use in uses:
            if use == "store" and not made_here or use == "read":
                ok.discard(name)
    return ok


def _name_uses(stmt) -> tuple:
    """(name, how) for each Name node of a simple statement, how: "store", "read", "list" (a
    list's `append`/`pop` receiver, or an argument of `rt.zeros_list`) or "other" (`del`)."""
    nodes = list(analysis.iter_nodes(stmt))
    lists = set()  # ids of the Name nodes used as lists
    for n in nodes:
        if type(n) is gast.Attribute and n.attr in ("append", "pop"):
            lists.add(id(n.value))
        elif type(n) is gast.Call and analysis.dotted(n.func) == "rt.zeros_list":
            lists.update(id(a) for a in n.args)
    return tuple((n.id, "store" if isinstance(n.ctx, gast.Store) else "other" if not isinstance(n.ctx, gast.Load)
                  else "list" if id(n) in lists else "read") for n in nodes if type(n) is gast.Name)


def push_of(s):
    """(list, value) for `L.append(v)`."""
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Attribute) \
            and s.value.func.attr == "append" and isinstance(s.value.func.value, gast.Name) and len(s.value.args) == 1:
        return s.value.func.value.id, s.value.args[0]
    return None


def pop_of(s):
    """(list, target or None) for `t = L.pop()` or `L.pop()`."""
    v = s.value if isinstance(s, (gast.Expr, gast.Assign)) else None
    if isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr == "pop" and not v.args \
            and isinstance(v.func.value, gast.Name):
        if isinstance(s, gast.Expr):
            return v.func.value.id, None
        if isinstance(s.targets[0], gast.Name):
            return v.func.value.id, s.targets[0].id
    return None


def _block(stmts, lists, fresh, touched, notes) -> None:
    for s in stmts:
        for f in ("body", "orelse"):
            if getattr(s, f, None):
                _block(getattr(s, f), lists, fresh, touched, notes)
    for j, s in enumerate(stmts):
        p = pop_of(s)
        if p is None or p[0] not in lists:
            continue
        for i in range(j - 1, -1, -1):
            u = stmts[i]  # (a block's reads may have changed above: read again; a simple statement's are noted)
            if p[0] not in (analysis.loads(u) if getattr(u, "body", None) or getattr(u, "orelse", None)
                            else notes.loads(u)):
                continue
            push = push_of(stmts[i])
            if push is not None and push[0] == p[0]:
                name = fresh()
                touched.update(names_of(stmts[i]), names_of(s), (name,))
                stmts[i] = gast.copy_location(build.assign(name, push[1]), stmts[i])
                stmts[j] = gast.copy_location(build.assign(p[1], build.name(name)), s) if p[1] else gast.Pass()
            break
    stmts[:] = [s for s in stmts if not isinstance(s, gast.Pass)] or stmts[:1]


def stack_forwarding(body: list, params, facts) -> tuple[list, set[str]]:
    made = noted_lists(body, params, facts["notes"], local=False)
    dirty = facts["dirty"]
    if not made or dirty is not None and made.isdisjoint(dirty):
        return body, set()  # forwarding depends only on statements that name the lists
    lists = noted_lists(body, params, facts["notes"])
    touched: set[str] = set()
    if lists:
        _block(body, lists, _fresh_names(body, facts["notes"]), touched, facts["notes"])
    return body, touched


def _fresh_names(body, notes):
    """A function giving `stk_0`, `stk_1`, ... skipping names the body has (found on first use,
    from the names noted per statement: no walk of every expression)."""
    taken: set[str] | None = None
    counter = 0

    def fresh() -> str:
        nonlocal taken, counter
        if taken is None:
            taken = set()
            for s in analysis.walk_stmts(body):
                if isinstance(s, (gast.If, gast.For, gast.While)):
                    head = [s.test] if isinstance(s, (gast.If, gast.While)) else [s.target, s.iter]
                    taken.update(n.id for n in analysis.iter_nodes(head) if type(n) is gast.Name)
                else:
                    taken.update(notes.names(s))
        while f"stk_{counter}" in taken:
            counter += 1
        counter += 1
        return f"stk_{counter - 1}"
    return fresh


PASS = Pass("stack_forwarding", stack_forwarding, idempotent=True, forgets=True)
