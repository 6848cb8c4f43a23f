"""Copy propagation: after `a = b` (or `a = 2.0`), later reads of `a` read `b` (or `2.0`) until
either is assigned again, so that the copy becomes dead.

Before::

    b_t5 = b_t6
    b_t3 = rt.unbroadcast(b_t5, t3)
    return b_t3

After::

    b_t5 = b_t6
    b_t3 = rt.unbroadcast(b_t6, t3)
    return b_t3
"""
from __future__ import annotations

import gast

from ..ir import build
from .base import Pass, assigns, clone, names_of


def _atom(value) -> bool:
    return isinstance(value, gast.Name) or isinstance(value, gast.Constant) and isinstance(value.value, (int, float)) \
        and not isinstance(value.value, bool)


def _skips(stmt, value) -> bool:
    """`1 is None` is a SyntaxWarning when the code is compiled: no constant goes into an `is`."""
    node = stmt.value
    return isinstance(value, gast.Constant) and isinstance(node, gast.Compare) \
        and isinstance(node.ops[0], (gast.Is, gast.IsNot))


def _replace(stmt, values: dict) -> set[str]:
    """Replace reads of the names in `values` in the value of `stmt` by their values; the names
    replaced."""
    node = stmt.value
    if isinstance(node, gast.Name):
        if node.id in values:
            stmt.value = clone(values[node.id])
            return {node.id}
        return set()
    hit = set()
    for n in build.walk(node):
        for field, child in gast.iter_fields(n):
            kids = child if isinstance(child, list) else [child]
            for i, k in enumerate(kids):
                if isinstance(k, gast.Name) and k.id in values and isinstance(k.ctx, gast.Load):
                    new = clone(values[k.id])
                    if isinstance(child, list):
                        child[i] = new
                    else:
                        setattr(n, field, new)
                    hit.add(k.id)
    return hit


def _block(stmts: list, touched: set[str], notes) -> None:
    """One walk over the block with the copies in reach (name -> (value, the names that end its
    reach when assigned)): a copy reaches the statements after it until its name or its source is
    assigned (the right side of that assignment still reads the old values) or a statement that
    is not a plain assignment, expression or return (a block, an item store of either name)."""
    live: dict = {}
    for s in stmts:
        if build.is_comment(s):
            continue
        if not isinstance(s, (gast.Assign, gast.Expr, gast.Return)):
            live.clear()  # a block ends every copy's reach; its own blocks start afresh
            for f in ("body", "orelse"):
                if getattr(s, f, None):
                    _block(getattr(s, f), touched, notes)
            continue
        ends = {a for a, (_, watch) in live.items() if watch & assigns(s)} if isinstance(s, gast.Assign) else set()
        if live and s.value is not None:
            item_store = isinstance(s, gast.Assign) and not isinstance(s.targets[0], gast.Name)
            values = {a: v for a, (v, _) in live.items()
                      if not (item_store and a in ends) and not _skips(s, v)}
            hit = _replace(s, values) if values else set()
            if hit:
                notes.forget(s)
                touched.update(names_of(s))
                for a in hit:
                    touched.update(live[a][1])
        for a in ends:
            del live[a]
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and _atom(s.value):
            a = s.targets[0].id
            if not (isinstance(s.value, gast.Name) and s.value.id == a):
                live[a] = (s.value, {a} | ({s.value.id} if isinstance(s.value, gast.Name) else set()))


def copy_propagation(body: list, params, facts) -> tuple[list, set[str]]:
    touched: set[str] = set()
    _block(body, touched, facts["notes"])
    return body, touched


PASS = Pass("copy_propagation", copy_propagation, idempotent=True, forgets=True)
