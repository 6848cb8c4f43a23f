"""Scalar fill: do not build an array of one repeated value when the next operation broadcasts.

Before::

    b_t2 = rt.mean_vjp(b_t3, t1, None, False)
    b_t1 = b_t2 * 2 * t1
    return b_t1

After::

    b_t2 = b_t3 / xp.size(t1)
    b_t1 = b_t2 * 2 * t1
    return b_t1

The cotangent of a full `mean`/`sum` is one value everywhere; when each of its uses is an
elementwise expression (arithmetic, `xp.where`) that also has an operand of the same shape, or
computes from it and numbers only a value whose uses are such, the scalar gives the same result
without allocating and filling an array.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
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
    sides = None
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, _ELEMENTWISE):
        sides = [expr.left, expr.right]
    elif isinstance(expr, gast.Call) and analysis.dotted(expr.func) == "xp.where" and len(expr.args) == 3 \
            and not expr.keywords:
        sides = list(expr.args)
    if sides is not None:
        for k, side in enumerate(sides):
            found = _path_has_full_operand(side, name, root, roots)
            if found is not None:
                full = any(_full(o, root, roots) for j, o in enumerate(sides) if j != k)
                return found or full
        return None
    return None if name not in build.names_in(expr) else False


def _full(expr, root, roots, depth=0) -> bool:
    """Whether `expr` broadcasts to at least the shape of `root`: a name of that shape, or
    elementwise arithmetic (`1 / t2`, `xp.where`) with such an operand."""
    if isinstance(expr, gast.Name):
        return roots.get(expr.id, expr.id) == root
    if depth > 8:
        return False
    if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, gast.USub):
        return _full(expr.operand, root, roots, depth + 1)
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, _ELEMENTWISE):
        return _full(expr.left, root, roots, depth + 1) or _full(expr.right, root, roots, depth + 1)
    if isinstance(expr, gast.Call) and analysis.dotted(expr.func) == "xp.where" and len(expr.args) == 3 \
            and not expr.keywords:
        return any(_full(a, root, roots, depth + 1) for a in expr.args)
    return False


class _Reads:
    """Where each name is read in a body: the top-level simple statements reading it (position,
    in order), and the names read inside blocks (`nested`), from the statements' shared notes
    (a walk only of the statements changed since they were noted)."""

    def __init__(self, body, notes):
        self.at: dict[str, list[int]] = {}
        self.nested: set[str] = set()
        for j, s in enumerate(body):
            names = notes.loads(s)
            if isinstance(s, (gast.If, gast.For, gast.While)):
                self.nested.update(names)
                continue
            for n in names:
                self.at.setdefault(n, []).append(j)

    def after(self, name, start) -> list[int] | None:
        """The statements after `start` reading `name`, None if it is read anywhere else."""
        at = self.at.get(name, ())
        if name in self.nested or at and at[0] <= start:
            return None
        return list(at)


def _fillable(b, body, start, root, roots, reads, counts, depth=0) -> bool:
    """Whether every use of `b` after `body[start]` broadcasts it against an operand shaped like
    `root`, directly or through assignments computing from `b` and numbers only."""
    uses = reads.after(b, start)
    if not uses or depth > 8:
        return False  # (a read inside a block or before `start` is not among these statements)
    for j in uses:
        use = body[j]
        if not (isinstance(use, gast.Assign) and isinstance(use.targets[0], gast.Name)):
            return False
        found = _path_has_full_operand(use.value, b, root, roots)
        if found:
            continue
        t = use.targets[0].id
        if found is None or build.names_in(use.value) - {b} or counts.get(t) != 1 \
                or not _fillable(t, body, j, root, roots, reads, counts, depth + 1):
            return False
    return True


def scalar_fill(body: list, params, facts) -> tuple[list, set[str]]:
    roots = reads = None  # computed on the first candidate (roots: one read after it): most bodies have none
    touched: set[str] = set()
    for i, s in enumerate(body):
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call)):
            continue
        call = s.value
        p = registry.lookup(analysis.dotted(call.func))
        if p is None or not p.fill or len(call.args) != 4:
            continue
        v, like, axis, keep = call.args
        if not (isinstance(axis, gast.Constant) and axis.value is None and isinstance(keep, gast.Constant)
                and keep.value is False and isinstance(like, gast.Name)):
            continue
        b = s.targets[0].id
        if reads is None:
            reads = _Reads(body, facts["notes"])
        if not reads.after(b, i):
            continue  # (read inside a block, before, or never: `_fillable`'s first answer, without the roots)
        if roots is None:
            roots = facts["shape_roots"]
        if not _fillable(b, body, i, roots.get(like.id, like.id), roots, reads, roots.counts):  # (values only change)
            continue
        touched.update(names_of(s))
        s.value = build.binop(v, gast.Div(), build.call("xp.size",
                                                        [like])) if analysis.dotted(call.func) == "rt.mean_vjp" else v
        touched.update(names_of(s))
    return body, touched


PASS = Pass("scalar_fill", scalar_fill, needs=("shape_roots",))
