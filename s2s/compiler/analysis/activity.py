"""Activity: which variables a derivative flows through, forward from the active parameters
(`activity`) and backward from the outputs (`useful`), and what the backward sweep may read."""
from __future__ import annotations

import gast

from ..primitives.registry import VIEW_CALLS, VIEW_EACH_CALLS
from .stmts import diff_operands, dotted, loads, operands, targets, walk_stmts


def activity(body, active_params, dead=frozenset()) -> set[str]:
    """Variables whose value depends differentiably on the active parameters (a fixpoint); names in
    `dead` (values known never to reach the output) are never active, nor what only they make so.
    Each statement's edges (the names it reads a derivative through, the names it then makes
    active) are found once, in the first sweep; the sweeps that follow go over them only."""
    active = set(active_params)
    edges = []
    for s in walk_stmts(body):
        src, dst = _forward_edge(s)
        if dst:
            edges.append((src, dst))
    changed = True
    while changed:
        changed = False
        for src, dst in edges:
            if any(n in active for n in src):
                for n in (node.id for node in dst):
                    if n not in active and n not in dead:
                        active.add(n)
                        changed = True
    return active


def _forward_edge(s) -> tuple:
    """(names, nodes): when one of `names` is active, so are the names of `nodes` (`activity`'s
    rule; their `id` is read when the edge is taken, as the sweep did)."""
    if isinstance(s, gast.Assign):
        t = s.targets[0]
        if isinstance(t, gast.Subscript):
            return ((s.value.id,), (t.value,)) if isinstance(s.value, gast.Name) else ((), ())
        if isinstance(t, gast.Tuple):
            return ((s.value.id,), tuple(t.elts)) if isinstance(s.value, gast.Name) else ((), ())
        return diff_operands(s.value), (t,)
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
        f = s.value.func
        if isinstance(f, gast.Attribute) and f.attr == "append":
            arg = s.value.args[0]
            if isinstance(arg, gast.Name):
                return (arg.id,), (f.value,)
    return (), ()


def useful(body, outputs) -> set[str]:
    """Variables whose value can reach the `outputs` differentiably (a fixpoint backwards over the
    same edges as `activity`; flow-insensitive, so a superset): a derivative never flows back to
    any other variable, whose adjoint is zero (e.g. the argument of a `stop_gradient`). What a
    statement makes useful is found when it first is, and kept for the sweeps that follow."""
    use = set(outputs)
    stmts = [s for s in walk_stmts(body)]
    stmts.reverse()  # uses propagate backwards: a straight-line body settles in one sweep
    heads = [_backward_heads(s) for s in stmts]
    made: list = [None] * len(stmts)
    changed = True
    while changed:
        changed = False
        for i, s in enumerate(stmts):
            head = heads[i]
            if not head or not any(n in use for n in head):
                continue
            new = made[i]
            if new is None:
                new = made[i] = _backward_new(s)
            for n in new:
                if n not in use:
                    use.add(n)
                    changed = True
    return use


def _backward_heads(s) -> tuple:
    """The names of which one, useful, makes what `s` reads useful (`useful`'s rule)."""
    if isinstance(s, gast.Assign):
        t = s.targets[0]
        if isinstance(t, gast.Subscript):
            return (t.value.id,)
        if isinstance(t, gast.Tuple):
            return tuple(e.id for e in t.elts)
        return (t.id,)
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
        f = s.value.func
        if isinstance(f, gast.Attribute) and f.attr == "append":
            return (dotted(f.value),)
    elif isinstance(s, gast.For):
        return tuple(n.id for n in gast.walk(s.target) if isinstance(n, gast.Name))
    return ()


def _backward_new(s) -> list:
    """What `s` makes useful once one of its `_backward_heads` is."""
    if isinstance(s, gast.Assign):
        t = s.targets[0]
        return diff_operands(s.value) if isinstance(t, gast.Name) else loads(s.value)
    if isinstance(s, gast.Expr):
        return loads(s.value)
    return loads(s.iter)


def relevant(body, active, dead=frozenset()) -> set[str]:
    """Active variables and every name an active statement reads: what the backward sweep may need.
    The index of a store into a relevant array counts too, active or not: the backward sweep puts
    the slot's old value back through it (`d[m] = 1` in a loop reads that pass's mask `m`).
    `dead`: arrays whose stores reverse mode drops (their values never reach the output), which
    no view read needs restored."""
    rel = set(active)
    stores, views = [], []
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript):
            stores.append(s.targets[0])
        elif isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            views.extend((s.targets[0].id, b) for b in _viewed(s.value))
        if isinstance(s, gast.Assign):
            t = s.targets[0]
            base = t.value.id if isinstance(t, gast.Subscript) else None
            outs = targets(s) + ([base] if base else [])
            if any(o in active for o in outs):
                rel.update(operands(s.value))
                if isinstance(t, gast.Subscript):
                    rel.update(n.id for n in gast.walk(t.slice) if isinstance(n, gast.Name))
                    rel.add(base)
        elif isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
            f = s.value.func
            if isinstance(f, gast.Attribute) and f.value.id in active:
                rel.update(operands(s.value))
    stored = {t.value.id for t in stores}
    seen: set[str] = set()  # relevant names and the arrays they may be views of
    changed = True
    while changed:  # (an index may itself be an array filled by stores: its indices count then too)
        changed = False
        for t in stores:
            if t.value.id in rel:
                new = {n.id for n in gast.walk(t.slice) if isinstance(n, gast.Name)} - rel
                if new:
                    rel.update(new)
                    changed = True
        # a relevant value that may be a view of an array stored into later (`r = d[k]` read by
        # an active statement, `d[k, j] += 1` on a later pass) is read through the array's memory
        # when the backward sweep reads it: the array is restored store by store, so it counts too
        for v, b in views:
            if (v in rel or v in seen) and b not in seen:
                seen.add(b)
                changed = True
            if b in seen and b in stored and b not in rel and b not in dead:
                rel.add(b)
                changed = True
    return rel


def _viewed(value) -> list[str]:
    """The arrays a core-form value may be a view of (a name, an index into it, a reshape...)."""
    if isinstance(value, gast.Name):
        return [value.id]
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        return [value.value.id]
    if isinstance(value, gast.Call):
        key = dotted(value.func)
        if key in VIEW_EACH_CALLS:
            return [a.id for a in value.args if isinstance(a, gast.Name)]
        if (key in VIEW_CALLS or key == "rt.dtype_gate") and value.args and isinstance(value.args[0], gast.Name):
            return [value.args[0].id]
    return []
