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


def _accumulation(s, shapes):
    """(acc, the term, its operand names) of `acc = acc + term` (or `term + acc`), or None."""
    if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.BinOp)
            and isinstance(s.value.op, gast.Add)):
        return None
    acc = s.targets[0].id
    for mine, term in ((s.value.left, s.value.right), (s.value.right, s.value.left)):
        if isinstance(mine, gast.Name) and mine.id == acc and (ops := _term(term, shapes)) is not None \
                and acc not in ops:
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


def _plain_loop(loop) -> bool:
    return isinstance(loop, gast.For) and isinstance(loop.target, gast.Name) and not loop.orelse and not any(
        isinstance(s, (gast.Break, gast.Continue, gast.Return)) for s in analysis.walk_stmts(loop.body))


def _defer(loop, shapes, fresh) -> list | None:
    """Rewrite `loop`'s accumulations in place; the statements before it and after it, or None."""
    reads: dict[str, int] = {}
    for n in analysis.iter_nodes(loop.body):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            reads[n.id] = reads.get(n.id, 0) + 1
    sets: dict[str, int] = {}
    for s in analysis.walk_stmts(loop.body):
        for t in analysis.targets(s):
            sets[t] = sets.get(t, 0) + 1
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
    if not shapes or not any(_plain_loop(s) for s in body) or writes_arrays(body):
        return body, False
    taken = {n.id for n in analysis.iter_nodes(body) if isinstance(n, gast.Name)} | set(params)

    def fresh(stem):
        k = next(i for i in range(len(taken) + 1) if f"{stem}_{i}" not in taken)
        taken.add(f"{stem}_{k}")
        return f"{stem}_{k}"
    out, changed = [], False
    for s in body:
        done = _defer(s, shapes, fresh) if _plain_loop(s) else None
        if done is None:
            out.append(s)
            continue
        before, tail = done
        out += [*before, s, tail]
        changed = True
    return out, changed


PASS = Pass("defer_sums", defer_sums)
