"""Per-example ranks in batched code: what vmap specialized on its arguments' ranks knows statically.

`per_example_ranks` finds the rank of each variable of the function being batched (a fixed point
from the parameters' ranks). With them, `rank_simplified` turns derivative helpers on per-example
scalars into what they are for scalars (before batching, so the results stay unbatched), and
`lowered` writes a helper as the NumPy expression the rule table gives for those ranks
(registry.RANKED), so the batched code makes no call that inspects ranks at run time.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry
from .base import bind_prim


def _value_rank(value, rank):
    """The per-example rank of a right-hand side from its operands' ranks, or None if unknown."""
    kind = analysis.classify(value)
    if kind == "const":
        return 0 if isinstance(value.value, (int, float)) and not isinstance(value.value, bool) else None
    if kind == "copy":
        return rank.get(value.id)
    p = registry.lookup(kind)
    rule = registry.BATCH.get(kind)
    if p is None or rule is None or not isinstance(value, (gast.Call, gast.BinOp, gast.UnaryOp, gast.Compare)):
        return None
    args = bind_prim(p, value)
    like_at = p.result_like if p.result_like is not None else p.cotangent_of  # the result has its shape
    if like_at is not None:
        like = args.get(p.params[like_at])
        return rank.get(like.id) if isinstance(like, gast.Name) else None
    if kind == "rt.seed":
        return 0
    ops = [a for k, a in args.items() if a is not None and k != "dtype"
           and (rule.kind == "broadcast" or k not in p.zero_args)]
    rs = [atom_rank(a, rank) for a in ops]
    if rule.kind == "same":
        return rs[0] if rs else None
    if rule.kind == "broadcast":
        return None if not rs or None in rs else max(rs)
    if p.dot_ranks and len(rs) == 2 and None not in rs and max(rs) <= 2:
        return 0 if rs == [0, 0] else max(rs) if 0 in rs else rs[0] + rs[1] - 2
    if rule.kind == "axis" and p.full_reduction:
        ax, kd = args.get("axis"), args.get("keepdims")
        if (ax is None or isinstance(ax, gast.Constant) and ax.value is None) and \
                isinstance(kd, gast.Constant) and kd.value is False:
            return 0
    return None


def atom_rank(atom, rank):
    """The per-example rank of an atom: a name's from `rank`, a number's 0, else None."""
    if isinstance(atom, gast.Name):
        return rank.get(atom.id)
    return _value_rank(atom, rank) if isinstance(atom, gast.Constant) else None


def per_example_ranks(body, known) -> dict:
    """Per-example rank of each variable whose every assignment has a known, equal rank (a fixed
    point over the whole function; parameters from the call's arguments)."""
    rank = dict(known)
    conflict = {p for p, r in known.items() if r is None}
    assigns = [s for s in analysis.walk_stmts(body) if isinstance(s, gast.Assign)]
    others = set()
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.For):
            others.add(s.target.id)
        elif isinstance(s, gast.Assign) and not isinstance(s.targets[0], gast.Name):
            others.update(analysis.targets(s))
    conflict |= others
    for _ in range(len(assigns) + 2):
        changed = False
        for s in assigns:
            t = s.targets[0]
            if not isinstance(t, gast.Name) or t.id in conflict:
                continue
            r = _value_rank(s.value, rank)
            if r is None or t.id in rank and rank[t.id] != r:
                conflict.add(t.id)
                rank.pop(t.id, None)
                changed = True
            elif t.id not in rank:
                rank[t.id] = r
                changed = True
        if not changed:
            break
    return {k: v for k, v in rank.items() if k not in conflict}


def rank_simplified(body, rank) -> None:
    """Rewrite, in place, the helpers of derivative code on per-example scalars as what they are
    for scalars (passes/algebra.py does the same for Python floats): `rt.seed(y)` is 1.0 and
    `rt.unbroadcast(g, like)` is `g`. Batched, each would cost a call per batch, and the seed a
    new array of ones that the arithmetic after it would multiply by."""
    for s in analysis.walk_stmts(body):
        v = s.value if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) else None
        if not isinstance(v, gast.Call) or v.keywords:
            continue
        f = analysis.dotted(v.func)
        if f == "rt.seed" and len(v.args) == 1 and atom_rank(v.args[0], rank) == 0:
            s.value = build.const(1.0)
        elif f == "rt.unbroadcast" and len(v.args) == 2 and atom_rank(v.args[0], rank) == 0 \
                and atom_rank(v.args[1], rank) == 0 and isinstance(v.args[0], gast.Name):
            s.value = v.args[0]


def lowered(kind, flags, args, rank, tmp):
    """The batched primitive `kind` (`args`: parameter -> atom, `flags`: batched per parameter) as
    the NumPy expression registry.RANKED gives for its arguments' per-example ranks, its nested
    parts assigned by `tmp(expr) -> name` first (core form); None when there is none."""
    ranks = tuple(atom_rank(a, rank) for a in args.values())
    rule = registry.RANKED.get((kind, tuple(flags), ranks))
    if rule is None:
        return None
    return _flat(build.template(rule, **args), tmp)


def _flat(e, tmp):
    """`e` with each operand that is not an atom assigned to a temporary first (innermost first)."""
    def atom(x):
        return x if build.is_atom(x) else tmp(_flat(x, tmp))
    if isinstance(e, gast.BinOp):
        e.left, e.right = atom(e.left), atom(e.right)
    elif isinstance(e, gast.UnaryOp):
        e.operand = atom(e.operand)
    elif isinstance(e, gast.Call):
        e.args = [atom(a) for a in e.args]
    elif isinstance(e, gast.Subscript):
        e.value = atom(e.value)
    return e
