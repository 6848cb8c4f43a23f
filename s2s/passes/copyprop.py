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

from ..ir import build as A
from .base import Pass, assigns, clone, names_of


def _atom(value) -> bool:
    return isinstance(value, gast.Name) or isinstance(value, gast.Constant) and isinstance(value.value, (int, float)) \
        and not isinstance(value.value, bool)


def _replace(stmt, name: str, value) -> bool:
    """Replace reads of `name` in the value of `stmt` by `value`; whether any was replaced."""
    node = stmt.value
    if isinstance(node, gast.Name) and node.id == name:
        stmt.value = clone(value)
        return True
    if isinstance(value, gast.Constant) and isinstance(node, gast.Compare) \
            and isinstance(node.ops[0], (gast.Is, gast.IsNot)):
        return False  # `1 is None` is a SyntaxWarning when the code is compiled
    hit = False
    for n in gast.walk(node):
        for field, child in gast.iter_fields(n):
            kids = child if isinstance(child, list) else [child]
            for i, k in enumerate(kids):
                if isinstance(k, gast.Name) and k.id == name and isinstance(k.ctx, gast.Load):
                    new = clone(value)
                    if isinstance(child, list):
                        child[i] = new
                    else:
                        setattr(n, field, new)
                    hit = True
    return hit


def _block(stmts: list, touched: set[str]) -> None:
    for i, s in enumerate(stmts):
        for f in ("body", "orelse"):
            if getattr(s, f, None):
                _block(getattr(s, f), touched)
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and _atom(s.value)):
            continue
        a = s.targets[0].id
        watch = {a} | ({s.value.id} if isinstance(s.value, gast.Name) else set())
        if isinstance(s.value, gast.Name) and s.value.id == a:
            continue
        for u in stmts[i + 1:]:
            if A.is_comment(u):
                continue
            last = not isinstance(u, (gast.Assign, gast.Expr, gast.Return)) or isinstance(u, gast.Assign) \
                and bool(assigns(u) & watch)
            if last and not (isinstance(u, gast.Assign) and isinstance(u.targets[0], gast.Name)):
                break  # an item store or a block ends the copy's reach
            if u.value is not None and _replace(u, a, s.value):  # (the right side reads the old values)
                touched.update(names_of(u), watch)
            if last:
                break


def copy_propagation(body: list, params, facts) -> tuple[list, set[str]]:
    touched: set[str] = set()
    _block(body, touched)
    return body, touched


PASS = Pass("copy_propagation", copy_propagation, idempotent=True)
