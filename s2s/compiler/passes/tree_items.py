"""Item sums into a container's cotangent: a cotangent built from zeros, a few items added, and
then added whole into an accumulator adds those items into the accumulator instead.

An inlined call that reads its weights from a dict (`Waa = parameters['Waa']`, the char RNN's
step) gives back the dict's cotangent as a dict of zeros with its items added, which the caller
adds into its own: per step, a zero array for every item, a new dict for every item added, and
a sum of every item. `rt.tree_add_at` adds the items into the accumulator's and keeps its other
items as they are (the zeros they would have been added to change nothing but the sign of a
zero); a container of another kind or shape than the accumulator takes the long way, with the
same result.

Before::

    b_p = rt.zeros_like_tree(p)
    b_p = rt.add_at(b_p, 'b', b_b)
    b_p = rt.add_at(b_p, 'w', b_w)
    acc = rt.tree_add(acc, b_p)

After::

    acc = rt.tree_add_at(acc, p, ('b', 'w'), (b_b, b_w))

Only within one block: the statements between the zeros and the sum are comments, the item sums,
or plain assignments that bind neither the container `p`, the accumulator nor an item's value
already added, and the zeros' name is read nowhere else in the function.
"""
from __future__ import annotations

import collections

import gast

from .. import analysis
from ..ir import build
from .base import Pass, bound


def _call(value, name: str, n: int):
    return isinstance(value, gast.Call) and analysis.dotted(value.func) == name and len(value.args) == n \
        and not value.keywords


def _zeros(s):
    """(x, p) for `x = rt.zeros_like_tree(p)`, else None."""
    if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and _call(s.value, "rt.zeros_like_tree", 1) \
            and isinstance(s.value.args[0], gast.Name):
        return s.targets[0].id, s.value.args[0].id
    return None


def _item(s, x):
    """(key, value) for `x = rt.add_at(x, key, value)`, key a constant and value a name, else None."""
    if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id == x \
            and _call(s.value, "rt.add_at", 3) and isinstance(s.value.args[0], gast.Name) and s.value.args[0].id == x \
            and isinstance(s.value.args[1], gast.Constant) and type(s.value.args[1].value) in (str, int) \
            and isinstance(s.value.args[2], gast.Name):
        return s.value.args[1], s.value.args[2].id
    return None


def _sum(s, x):
    """acc for `acc = rt.tree_add(acc, x)`, else None."""
    if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and _call(s.value, "rt.tree_add", 2) \
            and all(isinstance(a, gast.Name) for a in s.value.args) and s.value.args[1].id == x \
            and s.value.args[0].id == s.targets[0].id and s.targets[0].id != x:
        return s.targets[0].id
    return None


def _chain(block, i, x, p, loads):
    """(the indices of the item sums, the index of the sum, acc, keys, values) of the chain starting
    at `block[i]` (`x = rt.zeros_like_tree(p)`), or None."""
    keys, values, items = [], [], []
    for j in range(i + 1, len(block)):
        s = block[j]
        if build.is_comment(s):
            continue
        if (it := _item(s, x)) is not None:
            keys.append(it[0])
            values.append(it[1])
            items.append(j)
            continue
        acc = _sum(s, x)
        if acc is not None:
            if acc == p or acc in values or loads[x] != len(items) + 1:
                return None
            between = [block[k] for k in range(i + 1, j) if k not in items and not build.is_comment(block[k])]
            if any(set(bound(b)) & {acc, p} or isinstance(b, gast.Expr) and {acc, p} & set(analysis.loads(b))
                   for b in between):  # (nor a helper that may update either in place)
                return None
            return items, j, acc, keys, values
        if not isinstance(s, (gast.Assign, gast.Expr)) or x in analysis.loads(s) \
                or set(bound(s)) & ({x, p} | set(values)):
            return None
    return None


def _rewrite(block, loads) -> set[str]:
    changed: set[str] = set()
    for s in block:
        for f in ("body", "orelse"):
            if getattr(s, f, None):
                changed |= _rewrite(getattr(s, f), loads)
    i = 0
    while i < len(block):
        z = _zeros(block[i])
        found = _chain(block, i, *z, loads) if z is not None else None
        if found is None:
            i += 1
            continue
        items, j, acc, keys, values = found
        x, p = z
        block[j] = build.assign(acc, build.call("rt.tree_add_at", [
            build.name(acc), build.name(p), build.tuple_([build.clone(k) for k in keys]),
            build.tuple_([build.name(v) for v in values])]))
        drop = {i, *items}
        block[:] = [s for k, s in enumerate(block) if k not in drop]
        changed |= {x, p, acc, *values}
    return changed


def _zeros_call(calls) -> bool:
    return any(analysis.dotted(c.func) == "rt.zeros_like_tree" for c in calls)


def _has_zeros(body, notes) -> bool:
    """Whether `body` calls `rt.zeros_like_tree` (a simple statement's answer noted: the second
    round of passes asks again of unchanged statements)."""
    for s in analysis.walk_stmts(body):
        cls = type(s)
        if cls is gast.If or cls is gast.While:
            head = [s.test]
        elif cls is gast.For:
            head = [s.target, s.iter]
        elif getattr(s, "body", None) or getattr(s, "orelse", None):  # (not core form: walk it all)
            return _zeros_call(n for n in analysis.iter_nodes(body) if isinstance(n, gast.Call))
        else:
            if notes.get(s, "zeros_like_tree", lambda s: _zeros_call(notes.calls(s))):
                return True
            continue
        if _zeros_call(n for n in analysis.iter_nodes(head) if isinstance(n, gast.Call)):
            return True
    return False


def tree_items(body: list, params, facts) -> tuple[list, set[str]]:
    loads: collections.Counter = collections.Counter()
    if not _has_zeros(body, facts["notes"]):
        return body, set()
    for n in analysis.iter_nodes(body):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            loads[n.id] += 1
    return body, _rewrite(body, loads)


PASS = Pass("tree_items", tree_items, idempotent=True)
