"""Deferred sums (jit, shapes known): a loop that adds a product of per-iteration matrices to an
accumulator, `acc = acc + p.T @ q`, or a column sum, `acc = acc + xp.sum(q, axis=0)`, keeps its
operands in lists instead and adds them up once after the loop, `P.T @ Q` with `P`, `Q` the
lists stacked along their first axis: one product of T·B rows instead of T products (and T
additions) of B rows. A reverse sweep's weight gradients are this shape (an RNN's
`b_wh = b_wh + h.T @ b_t6`).

Before (`h`, `g` of shape B x N, known from the jit signature)::

    for t in r1:
        g = b_h * (1 - h * h)
        h = tape.pop()
        b_b = b_b + xp.sum(g, axis=0)
        b_h = g @ wh.T
        b_wh = b_wh + h.T @ g

After::

    sum_0 = []
    sum_1 = []
    for t in r1:
        g = b_h * (1 - h * h)
        h = tape.pop()
        sum_0.append(g)
        b_h = g @ wh.T
        sum_1.append(h)
    if sum_0:
        cat_0 = xp.concatenate(sum_0)
        cat_1 = xp.concatenate(sum_1)
        b_b = b_b + xp.sum(cat_0, axis=0)
        b_wh = b_wh + cat_1.T @ cat_0

Values: the same products added in another order (BLAS's over all rows, not step by step), so
equal up to rounding, as a fused sum is. Only a loop at the top level of the function with no
`else`, `break`, `continue` or `return`; an accumulation at the top level of its body; `acc`
read and assigned nowhere else in the loop; `p`, `q` names of known 2-D shapes (`q` of rank
at least 1 for the sum); and a function that writes into no array (no item store, no `out=`,
no mutating helper, no in-place method: a list keeps the array objects, so one written later
would change what is added).

*Outer products* (`acc = acc + rt.dot_vjp_b(v, a, b)`, the weight gradient of `x[i] @ W` for one
example an iteration, or `acc + xp.outer(a, v)`) need neither: their operands go as copies into
the rows of preallocated arrays (`s2s/runtime/deferred_sums.py`), added a block of rows at a time
as one product, so writes elsewhere in the function do not matter, nor do `break` and
`continue` (a term the loop skips is not kept). The runtime keeps only float64 NumPy vectors
(and matrix `b`) and adds any other term at once::

    rows_0 = rt.deferred_rows(r1)
    for i in r1:
        ...
        b_W = rt.defer_dot_vjp_b(rows_0, b_W, b_scores, t3, W)
    b_W = rt.add_deferred(rows_0, b_W)
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from ..ir.build import clone
from .base import Pass, mutated


def _term(e, shapes):
    """The operand names of an accumulated term: `p.T @ q` -> (p, q); `xp.sum(q, axis=0)` -> (q,)."""
    if isinstance(e, gast.BinOp) and isinstance(e.op, gast.MatMult) and isinstance(e.left, gast.Attribute) \
            and e.left.attr == "T" and isinstance(e.left.value, gast.Name) and isinstance(e.right, gast.Name):
        p, q = e.left.value.id, e.right.id
        if len(shapes.get(p) or ()) == 2 and len(shapes.get(q) or ()) == 2:
            return p, q
    if isinstance(e, gast.Call) and analysis.dotted(e.func) == "xp.sum" and len(e.args) == 1 \
            and isinstance(e.args[0], gast.Name) and len(e.keywords) == 1 and e.keywords[0].arg == "axis" \
            and isinstance(e.keywords[0].value, gast.Constant) and e.keywords[0].value.value == 0 \
            and type(e.keywords[0].value.value) is int and len(shapes.get(e.args[0].id) or ()) >= 1:
        return (e.args[0].id,)
    return None


def _outer(e):
    """The runtime helper that defers an outer-product term and its arguments after `acc`:
    `rt.dot_vjp_b(v, a, b)` -> ("rt.defer_dot_vjp_b", [v, a, b]); `xp.outer(a, v)` ->
    ("rt.defer_outer", [a, v]); else None."""
    if not (isinstance(e, gast.Call) and not e.keywords and all(isinstance(a, gast.Name) for a in e.args)):
        return None
    f = analysis.dotted(e.func)
    if f == "rt.dot_vjp_b" and len(e.args) == 3:
        return "rt.defer_dot_vjp_b", e.args
    if f == "xp.outer" and len(e.args) == 2:
        return "rt.defer_outer", e.args
    return None


def _accumulation(s, shapes, outer=False):
    """(acc, the term, its operand names) of `acc = acc + term` (or `term + acc`), or None; with
    `outer`, the term is an outer product's (`_outer`), its operand names all it reads."""
    if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.BinOp)
            and isinstance(s.value.op, gast.Add)):
        return None
    acc = s.targets[0].id
    for mine, term in ((s.value.left, s.value.right), (s.value.right, s.value.left)):
        if not (isinstance(mine, gast.Name) and mine.id == acc):
            continue
        if outer:
            ops = tuple(a.id for a in _outer(term)[1]) if _outer(term) is not None else None
        else:
            ops = _term(term, shapes) if shapes else None
        if ops is not None and acc not in ops:
            return acc, term, ops
    return None


_IN_PLACE = frozenset({"fill", "sort", "put", "partition", "resize", "itemset", "setfield", "byteswap"})


def writes_arrays(body) -> bool:
    """Whether anything in `body` writes into an array: an item store, an `out=` argument, a
    mutating helper (`Prim.mutates`) or an in-place array method."""
    for n in analysis.iter_nodes(body):
        if isinstance(n, gast.Subscript) and not isinstance(n.ctx, gast.Load) \
                or isinstance(n, gast.keyword) and n.arg == "out":
            return True
        if isinstance(n, gast.Call) and (mutated(n) is not None
                                         or isinstance(n.func, gast.Attribute) and n.func.attr in _IN_PLACE):
            return True
    return False


def _plain_loop(loop, exits=(gast.Break, gast.Continue, gast.Return)) -> bool:
    return isinstance(loop, gast.For) and isinstance(loop.target, gast.Name) and not loop.orelse and not any(
        isinstance(s, exits) for s in analysis.walk_stmts(loop.body))


def _uses(loop):
    """(reads, sets): how many times `loop`'s body reads and assigns each name."""
    reads: dict[str, int] = {}
    for n in analysis.iter_nodes(loop.body):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            reads[n.id] = reads.get(n.id, 0) + 1
    sets: dict[str, int] = {}
    for s in analysis.walk_stmts(loop.body):
        for t in analysis.targets(s):
            sets[t] = sets.get(t, 0) + 1
    return reads, sets


def _defer_outer(loop, fresh) -> list | None:
    """Rewrite `loop`'s outer-product accumulations in place into row-keeping calls; the
    statements before it and after it, or None (none there)."""
    reads, sets = _uses(loop)
    before, after = [], []
    for k, s in enumerate(loop.body):
        found = _accumulation(s, None, outer=True)
        if found is None or found[0] == loop.target.id or reads.get(found[0]) != 1 or sets.get(found[0]) != 1:
            continue
        acc, term, _ = found
        helper, args = _outer(term)
        rows = fresh("rows")
        it = clone(loop.iter) if isinstance(loop.iter, gast.Name) else build.const(None)
        before.append(build.assign(rows, build.call("rt.deferred_rows", [it])))
        loop.body[k] = build.assign(acc, build.call(helper, [build.name(rows), build.name(acc)] + [clone(a) for a in args]))
        after.append(build.assign(acc, build.call("rt.add_deferred", [build.name(rows), build.name(acc)])))
    return (before, after) if after else None


def _defer(loop, shapes, fresh) -> list | None:
    """Rewrite `loop`'s accumulations in place; the statements before it and after it, or None."""
    reads, sets = _uses(loop)
    lists: dict[str, str] = {}  # operand name -> the list its current value goes into
    made, after, body = [], [], []
    for s in loop.body:
        found = _accumulation(s, shapes)
        if found is None or found[0] == loop.target.id or reads.get(found[0]) != 1 or sets.get(found[0]) != 1:
            body.append(s)
            lists = {n: lst for n, lst in lists.items() if n not in analysis.targets(s)}
            continue
        acc, term, ops = found
        for n in ops:
            if n not in lists:
                lists[n] = fresh("sum")
                made.append((lists[n], n))
                body.append(build.expr_stmt(build.call(build.attr(lists[n], "append"), [build.name(n)])))
        after.append((acc, term, {n: lists[n] for n in ops}))
    if not after:
        return None
    loop.body = body
    cats = {lst: fresh("cat") for lst, _ in made}
    tail = [build.assign(cats[lst], build.call("xp.concatenate", [build.name(lst)])) for lst, _ in made]
    for acc, term, ops in after:
        stacked = _Rename({n: cats[lst] for n, lst in ops.items()}).visit(clone(term))
        tail.append(build.assign(acc, build.binop(build.name(acc), gast.Add(), stacked)))
    before = [build.assign(lst, build.list_([])) for lst, _ in made]
    return before, build.if_(build.name(made[0][0]), tail)


class _Rename(gast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            node.id = self.names[node.id]
        return node


def defer_sums(body: list, params, facts) -> tuple[list, bool]:
    shapes = facts["known"].get("name_shapes")
    if not any(_plain_loop(s, gast.Return) for s in body):
        return body, False
    lists_ok = bool(shapes) and not writes_arrays(body)  # (the lists keep the arrays themselves)
    taken = {n.id for n in analysis.iter_nodes(body) if isinstance(n, gast.Name)} | set(params)

    def fresh(stem):
        k = next(i for i in range(len(taken) + 1) if f"{stem}_{i}" not in taken)
        taken.add(f"{stem}_{k}")
        return f"{stem}_{k}"
    out, changed = [], False
    for s in body:
        kept = _defer_outer(s, fresh) if _plain_loop(s, gast.Return) else None
        done = _defer(s, shapes, fresh) if lists_ok and _plain_loop(s) else None
        if done is None and kept is None:
            out.append(s)
            continue
        before, tail = done if done is not None else ([], None)
        rows, sums = kept if kept is not None else ([], [])
        out += [*rows, *before, s, *sums, *([tail] if tail is not None else [])]
        changed = True
    return out, changed


PASS = Pass("defer_sums", defer_sums)
