"""Scalar fill: do not build an array of one repeated value when the next operation broadcasts.

Before::

    b_t2 = rt.mean_vjp(b_t3, t1, None, False)
    b_t1 = b_t2 * 2 * t1
    return b_t1

After::

    b_t2 = b_t3 / xp.size(t1)
    b_t1 = b_t2 * 2 * t1
    return b_t1

The cotangent of a full `mean`/`sum` is one value everywhere; when its only use is an
elementwise expression that also multiplies (or adds) an array of the same shape, the scalar
gives the same result without allocating and filling an array.
"""
from __future__ import annotations

import collections

import gast

from .. import analysis as an
from ..ir import build as A
from ..primitives import registry
from .base import Pass, names_of

_ELEMENTWISE = (gast.Mult, gast.Div, gast.Add, gast.Sub)


def _path_has_full_operand(expr, name, root, roots) -> bool | None:
    """None if `name` is not in `expr`; else whether the path to it meets an operand shaped like
    `root` through elementwise arithmetic only."""
    if isinstance(expr, gast.Name):
        return False if expr.id == name else None
    if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, gast.USub):
        return _path_has_full_operand(expr.operand, name, root, roots)
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, _ELEMENTWISE):
        for side, other in ((expr.left, expr.right), (expr.right, expr.left)):
            found = _path_has_full_operand(side, name, root, roots)
            if found is not None:
                full = isinstance(other, gast.Name) and roots.get(other.id, other.id) == root
                return found or full
        return None
    return None if name not in A.names_in(expr) else False


def _candidates(body):
    """(position, statement) of each top-level full `mean`/`sum` cotangent fill."""
    for i, s in enumerate(body):
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call)):
            continue
        call = s.value
        h = registry.HELPERS.get(an.dotted(call.func))
        if h is None or not h.fill or len(call.args) != 4:
            continue
        v, like, axis, keep = call.args
        if isinstance(axis, gast.Constant) and axis.value is None and isinstance(keep, gast.Constant) \
                and keep.value is False and isinstance(like, gast.Name):
            yield i, s


def _reads(body, names: set[str], notes) -> collections.Counter:
    """How often `names` are read in the body (statements that read none of them are skipped on
    their notes, without a walk)."""
    counts: collections.Counter = collections.Counter()
    for s in an.walk_stmts(body):
        if isinstance(s, (gast.If, gast.While)):
            reads = an.loads(s.test)
        elif isinstance(s, gast.For):
            reads = an.loads(s.iter)
        elif notes.loads(s).isdisjoint(names):
            continue
        else:
            reads = an.loads(s)
        counts.update(n for n in reads if n in names)
    return counts


def scalar_fill(body: list, params, facts) -> tuple[list, set[str]]:
    dirty, memo = facts["dirty"], facts["memo"]
    read_more = memo.setdefault("read_more", set())  # candidates whose cotangent had other readers
    if dirty is not None:  # those still have them unless a statement that reads it changed
        read_more.difference_update(dirty)
    found = [(i, s) for i, s in _candidates(body) if s.targets[0].id not in read_more]
    if not found:
        return body, set()
    counts = _reads(body, {s.targets[0].id for _, s in found}, facts["notes"])
    roots = None
    touched: set[str] = set()
    for i, s in found:
        call = s.value
        v, like = call.args[:2]
        b = s.targets[0].id
        if counts[b] != 1:
            read_more.add(b)
            continue
        if roots is None:
            roots = an.shape_roots(body, params)  # only when there is something to do
        use = next((u for u in body[i + 1:] if b in an.loads(u)), None)
        if not isinstance(use, gast.Assign) or not _path_has_full_operand(use.value, b, roots.get(like.id, like.id),
                                                                          roots):
            continue
        touched.update(names_of(s))
        s.value = A.binop(v, gast.Div(), A.call("xp.size", [like])) if an.dotted(call.func) == "rt.mean_vjp" else v
        touched.update(names_of(s))
    return body, touched


PASS = Pass("scalar_fill", scalar_fill, idempotent=True)
