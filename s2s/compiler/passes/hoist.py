"""Hoisted projections (jit, shapes known): a loop over every row of an array that multiplies
each row by one matrix, `xs[t] @ w`, does it once before the loop, `xs @ w`, and reads row `t`.

With `xs` of shape 100 x 8 x 32 and `w` of 32 x 32, neither changed by the function,

Before::

    r0 = range(100)
    for t in r0:
        t2 = xs[t]
        t3 = t2 @ w
        h = xp.tanh(t3 + h @ wh)

After::

    r0 = range(100)
    proj_0 = xs @ w
    for t in r0:
        t2 = xs[t]
        t3 = proj_0[t]
        h = xp.tanh(t3 + h @ wh)

NumPy's `matmul` of a stack multiplies each matrix of it as it multiplies one alone (the same
BLAS call on the same operands), so the rows are bitwise those of the loop; the loop loses one
call per iteration (an RNN's input projection). Only NumPy arrays of the version's shapes (CuPy
may batch the products another way), a loop `for t in range(n)` over all `n` rows of `xs`
(bound once, at the top level of the function), `xs` and `w` bound once and only read (in
subscripts, attributes, arithmetic and primitives without `out=`), and `t` bound by loops only.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from .base import Pass, assigns, mutated


def _only_read(name, body) -> bool:
    """Whether `name` is read only as an operand, in a subscript or attribute load, or as an
    argument of a NumPy or runtime function that writes into none of its arguments."""
    for node in analysis.iter_nodes(body):
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and node.value.id == name \
                and not isinstance(node.ctx, gast.Load):
            return False
        if isinstance(node, gast.Call):
            f = analysis.dotted(node.func) or ""
            reads = any(isinstance(a, gast.Name) and a.id == name for a in (*node.args, *(k.value for k in node.keywords)))
            if reads and (not f.startswith(("xp.", "rt.")) or any(k.arg == "out" for k in node.keywords)
                          or mutated(node) is not None):
                return False
            if isinstance(node.func, gast.Attribute) and isinstance(node.func.value, gast.Name) \
                    and node.func.value.id == name:
                return False  # (a method: it may write)
    return True


def _rows(loop, shapes, ranges):
    """The length of the range `loop` runs over (`range(n)`, n an int), or None."""
    it = loop.iter
    if isinstance(it, gast.Name):
        it = ranges.get(it.id)
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.func.id == "range" and len(it.args) == 1 \
            and not it.keywords and isinstance(it.args[0], gast.Constant) and type(it.args[0].value) is int:
        return it.args[0].value
    return None


def hoist_projections(body: list, params, facts) -> tuple[list, set[str]]:
    known = facts["known"]
    shapes = known.get("name_shapes")
    if not shapes or not any(isinstance(s, gast.For) for s in body):
        return body, set()
    counts = analysis.assigned_counts(body, params)
    numpy = set(known.get("shapes", ())) | set(known.get("items", ()))
    ranges = {s.targets[0].id: s.value for s in body if isinstance(s, gast.Assign)
              and isinstance(s.targets[0], gast.Name) and counts.get(s.targets[0].id) == 1}
    taken = {n.id for n in analysis.iter_nodes(body) if isinstance(n, gast.Name)} | set(params)
    touched: set[str] = set()
    out = []
    bound = set(params)  # (the names bound by the top-level statements so far)
    for loop in body:
        if isinstance(loop, gast.For) and isinstance(loop.target, gast.Name) and not loop.orelse \
                and not any(loop.target.id in assigns(s) for s in loop.body):
            out.extend(_hoist(loop, body, shapes, counts, ranges, numpy, bound, taken, touched))
        out.append(loop)
        if not isinstance(loop, (gast.For, gast.While, gast.If)):
            bound.update(analysis.targets(loop))
    return out, touched


def _from_numpy(name, body, numpy) -> bool:
    """Whether `name` is a NumPy argument of the version's shapes, or an item of one unpacked once."""
    if name in numpy:
        return True
    return any(isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Tuple) and isinstance(s.value, gast.Name)
               and s.value.id in numpy and any(isinstance(e, gast.Name) and e.id == name for e in s.targets[0].elts)
               for s in body)


def _hoist(loop, body, shapes, counts, ranges, numpy, bound, taken, touched) -> list:
    """The statements computing the projections of `loop` before it (its statements rewritten)."""
    t, n = loop.target.id, _rows(loop, shapes, ranges)
    if n is None:
        return []
    rows: dict[str, tuple[str, int]] = {}  # name -> (the array it is a row of, where)
    before = []
    for k, s in enumerate(loop.body):
        if not isinstance(s, gast.Assign) or not isinstance(s.targets[0], gast.Name):
            gone = assigns(s)
            rows = {v: r for v, r in rows.items() if v not in gone and r[0] not in gone}
            continue
        v, e = s.targets[0].id, s.value
        if isinstance(e, gast.BinOp) and isinstance(e.op, gast.MatMult) and isinstance(e.left, gast.Name) \
                and e.left.id in rows and isinstance(e.right, gast.Name):
            xs, w = rows[e.left.id][0], e.right.id
            sx, sw = shapes.get(xs), shapes.get(w)
            if sx is not None and sw is not None and len(sx) == 3 and len(sw) == 2 and sx[0] == n \
                    and sx[2] == sw[0] and counts.get(w) == 1 and {xs, w} <= bound and _only_read(w, body) \
                    and _from_numpy(xs, body, numpy) and _from_numpy(w, body, numpy):
                name = next(f"proj_{i}" for i in range(len(taken) + 1) if f"proj_{i}" not in taken)
                taken.add(name)
                before.append(build.assign(name, build.binop(build.name(xs), gast.MatMult(), build.name(w))))
                s.value = gast.Subscript(value=build.name(name), slice=build.name(t), ctx=gast.Load())
                touched.update((v, name, xs, w, t, e.left.id))
        rows = {r: x for r, x in rows.items() if r != v and x[0] != v}
        if isinstance(e, gast.Subscript) and isinstance(e.value, gast.Name) and isinstance(e.slice, gast.Name) \
                and e.slice.id == t and counts.get(e.value.id) == 1 and _only_read(e.value.id, body):
            rows[v] = (e.value.id, k)
    return before


PASS = Pass("hoist_projections", hoist_projections, idempotent=True)
