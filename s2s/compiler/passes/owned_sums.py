"""Owned item sums (jit, issue 46 section 2): an accumulator of a dict's cotangent that alone
holds its dict and arrays takes each step's item sums into its own arrays (`rt.tree_add_at_owned`),
where `rt.tree_add_at` makes a new dict and a new array per item every step (the char RNN's
five weight gradients, 20 steps a call).

Before::

    b_p = rt.zeros_like_tree(p)
    for t in r1:
        b_p = rt.tree_add_at(b_p, p, ('b', 'w'), (b_b, b_w))
    return b_p['w'], b_p['b']

After::

    b_p = rt.zeros_like_tree(p)
    for t in r1:
        b_p = rt.tree_add_at_owned(b_p, p, ('b', 'w'), (b_b, b_w))
    return b_p['w'], b_p['b']

Only where every binding of the name is `rt.zeros_like_tree(...)` (a new dict of new arrays) or
such a sum into itself, it is no parameter, and nothing reads it but those sums until the last
top-level statement that binds it: a read after that (the gradient's items, returned) sees the
final sums, which nothing updates again. The values are `rt.tree_add_at`'s: the same ufunc on the
same operands, into the accumulator's array instead of a new one.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from .base import Pass


def is_call(value, name: str, n: int) -> bool:
    """Whether `value` calls `name` (dotted) with `n` positional arguments and no keywords."""
    return isinstance(value, gast.Call) and analysis.dotted(value.func) == name and len(value.args) == n \
        and not value.keywords


def assigned_name(s):
    """The one name `s` assigns (`name = ...`), else None."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
        return s.targets[0].id
    return None


def _sum_of(s):
    """`acc` for `acc = rt.tree_add_at(acc, like, keys, values)` whose other arguments do not read
    `acc`, else None."""
    t = assigned_name(s)
    if t is None or not is_call(s.value, "rt.tree_add_at", 4):
        return None
    first, *rest = s.value.args
    if isinstance(first, gast.Name) and first.id == t and all(t not in analysis.loads(a) for a in rest):
        return t
    return None


def _zeros_of(s, x) -> bool:
    return assigned_name(s) == x and is_call(s.value, "rt.zeros_like_tree", 1) and x not in analysis.loads(s.value)


def owned_sums(body: list, params, facts) -> tuple[list, bool]:
    stmts = list(analysis.walk_stmts(body))
    sites: dict[str, list] = {}
    for s in stmts:
        if (acc := _sum_of(s)) is not None:
            sites.setdefault(acc, []).append(s)
    changed = False
    for acc, sums in sites.items():
        binders = [s for s in stmts if acc in analysis.targets(s)]
        if acc in params or any(_sum_of(b) != acc and not _zeros_of(b, acc) for b in binders):
            continue
        binding = {id(b) for b in binders}
        last = max(i for i, top in enumerate(body) if any(id(s) in binding for s in analysis.walk_stmts([top])))
        reads = sum(1 for n in analysis.iter_nodes(body[:last + 1])
                    if type(n) is gast.Name and n.id == acc and isinstance(n.ctx, gast.Load))
        if reads != len(sums):  # (another read before the last sum: the dict or an array may escape)
            continue
        for s in sums:
            s.value = build.call("rt.tree_add_at_owned", s.value.args)
        changed = True
    return body, changed


PASS = Pass("owned_sums", owned_sums)
