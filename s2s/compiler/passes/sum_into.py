"""Sums into a dead addend (jit): a cotangent built from zeros with items added in place, then
added whole into an accumulator and never read again, takes the sum in its own array instead of
a new one (`rt.tree_add_into`): a large array's sum costs a fresh allocation and its page
faults per call, where the dead addend's memory is already there.

An inlined callee that writes a few rows of a large parameter's gradient (skip-gram's
`gradOutsideVecs[w_k] += ...`, whose reverse sweep is `rt.add_at` into zeros of the
vocabulary's size) gives back that cotangent, which the caller adds into its own per call.

Before::

    b_u = rt.zeros_like_tree(u)
    for i in r1:
        b_u = rt.add_at(b_u, w, v)
    acc = rt.tree_add(acc, b_u)

After::

    b_u = rt.zeros_like_tree(u)
    for i in r1:
        b_u = rt.add_at(b_u, w, v)
    acc = rt.tree_add_into(acc, b_u)

Only where the addend is certainly the cotangent's own array and nothing else reads it after:
every binding of its name is `rt.zeros_like_tree(...)` or `xp.zeros(...)` (a new array, or no array) or
`rt.add_at(name, ...)` (the same object, updated in place), every read of it is one of those
`rt.add_at`'s first argument or the sum's second, it is no parameter, and it is dead after the
sum. The values are `rt.tree_add`'s: at run time the helper writes `acc + x` into `x` only for
two NumPy float arrays of one shape and dtype (the same ufunc on the same operands), and takes
`rt.tree_add` otherwise.
"""
from __future__ import annotations

import collections

import gast

from .. import analysis
from ..ir import build
from .base import Pass


def _call(value, name: str):
    return isinstance(value, gast.Call) and analysis.dotted(value.func) == name and not value.keywords


def _named_assign(s):
    """The one Name target of `s`, an assignment, else None."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
        return s.targets[0].id
    return None


def _sum_site(s):
    """(acc, x) for `acc = rt.tree_add(acc, x)` with acc and x names (x another), else None; or
    for `acc = acc + x`, shape folding's form of that sum where both shapes are known."""
    t = _named_assign(s)
    if t is not None and isinstance(s.value, gast.BinOp) and isinstance(s.value.op, gast.Add):
        a, x = s.value.left, s.value.right
    elif t is None or not _call(s.value, "rt.tree_add") or len(s.value.args) != 2:
        return None
    else:
        a, x = s.value.args
    if isinstance(a, gast.Name) and isinstance(x, gast.Name) and a.id == t and x.id != t:
        return t, x.id
    return None


def _own_update(s, x) -> bool:
    """Whether `s` binds `x` to its own array: `x = rt.zeros_like_tree(e)` or `xp.zeros(shape)` (not reading x) or
    `x = rt.add_at(x, i, v)` (i, v not reading x)."""
    if _named_assign(s) != x:
        return False
    v = s.value
    if _call(v, "rt.zeros_like_tree") or _call(v, "xp.zeros") and len(v.args) == 1:  # (shape folding's
        return x not in analysis.loads(v)                                                 # zeros of a known shape)
    if _call(v, "rt.add_at") and len(v.args) == 3 and isinstance(v.args[0], gast.Name) and v.args[0].id == x:
        return x not in analysis.loads(v.args[1]) and x not in analysis.loads(v.args[2])
    return False


def binders_and_reads(stmts: list, body: list) -> tuple[dict, collections.Counter]:
    """name -> the statements of `stmts` that bind it, and name -> how many times `body` reads it."""
    binders: dict[str, list] = collections.defaultdict(list)
    for s in stmts:
        for name in analysis.targets(s):
            binders[name].append(s)
    reads = collections.Counter(n.id for n in analysis.iter_nodes(body)
                                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load))
    return binders, reads


def sum_into(body: list, params, facts) -> tuple[list, bool]:
    stmts = list(analysis.walk_stmts(body))
    sites = [(s, *site) for s in stmts if (site := _sum_site(s)) is not None]
    if not sites:
        return body, False
    binders, reads = binders_and_reads(stmts, body)
    live = None
    changed = False
    for s, acc, x in sites:
        if x in params or not binders[x] or not all(_own_update(b, x) for b in binders[x]):
            continue
        updates = sum(1 for b in binders[x] if _call(b.value, "rt.add_at"))
        readers = sum(1 for _, _, y in sites if y == x)
        if reads[x] != updates + readers:  # (another read of the array: it may escape)
            continue
        live = analysis.Liveness(body) if live is None else live
        if x in live.after[s]:
            continue
        plain = [build.const(True)] if isinstance(s.value, gast.BinOp) else []  # (`acc + x`: `+`'s value)
        s.value = build.call("rt.tree_add_into", [build.name(acc), build.name(x), *plain])
        changed = True
    return body, changed


PASS = Pass("sum_into", sum_into)
