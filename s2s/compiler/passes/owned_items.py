"""Owned item sums of known shapes (jit, issue 46 section 2): `rt.tree_add_at_owned(acc, like,
keys, values)` (passes/owned_sums.py) where shape folding knows that `like` is a dict display of
float64 arrays, that the keys name every item, that each value has its item's shape, and that
`acc` is only ever the zeros of such a dict and these sums, is `rt.tree_add_at_shaped`: an
in-place sum per item, `np.add(a, v, out=a)`, after checking only each value's type, dtype and
shape (the helper's own checks of both dicts, ten arrays, are what the shapes already say), and the
helper's checks from the first value that fails them (a complex cotangent, another backend's
array). The char RNN's backward loop sums its five weights' cotangents so each step.

Before::

    b_p = rt.zeros_like_tree(p)
    for t in r1:
        b_p = rt.tree_add_at_owned(b_p, p, ('b', 'w'), (b_b, b_w))

After::

    b_p = rt.zeros_like_tree(p)
    for t in r1:
        b_p = rt.tree_add_at_shaped(b_p, p, ('b', 'w'), (b_b, b_w))

The facts are those of shape folding's last run (`known["name_shapes"]`: its container facts,
`boxes`, and its float64 names, a dict's items as `d[]`: passes/float64_items.py).
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from .base import Pass
from .float64_items import SUFFIX
from .shapefold import shape_of

_SUMS = ("rt.tree_add_at_owned", "rt.tree_add_at_shaped")  # (a site this pass wrote already counts)


def _owned_sum(s):
    """(acc, like, keys, values) for `acc = rt.tree_add_at_owned(acc, like, (k...), (v...))` (or
    `_shaped`) with names, string keys and a values display of as many items, else None."""
    if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call)
            and analysis.dotted(s.value.func) in _SUMS and len(s.value.args) == 4
            and not s.value.keywords):
        return None
    acc, like, keys, values = s.value.args
    if not (isinstance(acc, gast.Name) and acc.id == s.targets[0].id and isinstance(like, gast.Name)
            and isinstance(keys, gast.Tuple) and isinstance(values, gast.Tuple) and len(keys.elts) == len(values.elts)
            and all(isinstance(k, gast.Constant) and type(k.value) is str for k in keys.elts)):
        return None
    return acc.id, like.id, [k.value for k in keys.elts], values.elts


def _items(name, shapes):
    """key -> shape of the items of dict display `name` (every item a float64 array of known
    shape), else None."""
    items = getattr(shapes, "boxes", None)
    items = items.dicts.get(name) if items is not None else None
    if items is None or name + SUFFIX not in shapes.f64:
        return None
    out = {k: shape_of(v, shapes) for k, v in items.items()}
    return out if all(s for s in out.values()) else None  # (an item of rank 0 may be a number, summed anew)


def _zeros_of(s, want, shapes) -> bool:
    """Whether `s` binds `acc` to `rt.zeros_like_tree(p)` of a dict display `p` of the items `want`."""
    v = s.value
    return isinstance(s, gast.Assign) and isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.zeros_like_tree" \
        and len(v.args) == 1 and isinstance(v.args[0], gast.Name) and _items(v.args[0].id, shapes) == want


def owned_items(body: list, params, facts) -> tuple[list, bool]:
    shapes = facts["known"].get("name_shapes")
    if not shapes:
        return body, False
    stmts = list(analysis.walk_stmts(body))
    sites = [(s, got) for s in stmts if (got := _owned_sum(s)) is not None]
    changed = False
    for s, (acc, like, keys, values) in sites:
        want = _items(like, shapes)
        if want is None or acc in params or len(set(keys)) != len(keys) or set(keys) != set(want):
            continue
        if any(shape_of(v, shapes) != want[k] for k, v in zip(keys, values)):
            continue
        binders = [b for b in stmts if acc in analysis.targets(b)]
        if any(_owned_sum(b) is None and not _zeros_of(b, want, shapes) for b in binders):
            continue
        s.value = build.call("rt.tree_add_at_shaped", s.value.args)
        changed = True
    return body, changed


PASS = Pass("owned_items", owned_items)
