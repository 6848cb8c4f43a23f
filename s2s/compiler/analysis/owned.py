"""Arrays a function owns alone: local names bound only to fresh values (`xp.zeros(...)`,
arithmetic), their copies and their slices, none of which ever leaves the function's names (no
call argument, container, return, loop iterable or test). A store into such an array changes only
those names, so dead-code elimination may drop it when none of them is read afterwards (an
author's own `dW` updated slice by slice beside the loss that `grad` differentiates)."""
from __future__ import annotations

import gast

from ..primitives import registry
from ..primitives.registry import FRESH_CALLS, NEW_ARRAY_CALLS, VIEW_CALLS, VIEW_EACH_CALLS
from .stmts import dotted, iter_nodes, load_nodes, walk_stmts

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef, gast.Global, gast.Nonlocal)


def _fresh(value) -> bool:
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return True
    return isinstance(value, gast.Call) and (dotted(value.func) in FRESH_CALLS or _reads_only(value))


def _reads_only(value) -> bool:
    """Whether call `value` only reads its array arguments and returns a new array: a product, a
    reduction or an elementwise operation of NumPy's (`xp.sum(ds)`), with no `out=`, never a view."""
    if not isinstance(value, gast.Call) or any(k.arg in ("out", None) for k in value.keywords) \
            or any(isinstance(a, gast.Starred) for a in value.args):
        return False
    name = dotted(value.func)
    if not name or not name.startswith("xp.") or name in VIEW_CALLS or name in VIEW_EACH_CALLS:
        return False
    if name in NEW_ARRAY_CALLS:
        return True
    p = registry.lookup(name)
    return p is not None and (p.reduction or p.fusable or p.product) and not (p.mutates or p.aliasing or p.effect)


class _Groups:
    """Union-find over names; a group is disqualified as a whole."""

    def __init__(self):
        self.parent: dict[str, str] = {}
        self.bad: set[str] = set()

    def find(self, v):
        p = self.parent.setdefault(v, v)
        while p != self.parent[p]:
            p = self.parent[p]
        self.parent[v] = p
        return p

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def owned_arrays(body, params, exits=frozenset()) -> dict[str, frozenset[str]]:
    """name -> the group of names that may share its memory, for every name of a group the
    function owns alone (see the module docstring); when in doubt a name is left out. `exits`:
    ids of Name loads to count as harmless (reverse mode's `has_aux` element, which leaves the
    function but gets no cotangent)."""
    if any(isinstance(n, _SCOPES) for n in iter_nodes(body)):
        return {}
    g = _Groups()
    allowed: set[int] = set(exits)  # ids of Name loads in a harmless place
    bound: set[str] = set()
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and len(s.targets) == 1:
            t, v = s.targets[0], s.value
            if isinstance(t, gast.Name):
                bound.add(t.id)
                g.find(t.id)
                if isinstance(v, gast.Name):  # a copy: the same object
                    g.union(t.id, v.id)
                    allowed.add(id(v))
                elif isinstance(v, gast.Subscript) and isinstance(v.value, gast.Name):  # maybe a view
                    g.union(t.id, v.value.id)
                    allowed.add(id(v.value))
                elif isinstance(v, (gast.BinOp, gast.UnaryOp, gast.Compare)):
                    ops = [v.left, v.right] if isinstance(v, gast.BinOp) else \
                        [v.operand] if isinstance(v, gast.UnaryOp) else [v.left, *v.comparators]
                    allowed.update(id(o) for o in ops if isinstance(o, gast.Name))
                    if not _fresh(v):
                        g.bad.add(t.id)
                elif not _fresh(v):
                    g.bad.add(t.id)
                if isinstance(v, gast.Call) and _reads_only(v):  # its arguments are read, not let out
                    allowed.update(id(a) for a in [*v.args, *(k.value for k in v.keywords)] if isinstance(a, gast.Name))
            elif isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name):
                allowed.add(id(t.value))  # (the value stored is let out: it may be a list's item)
            else:
                g.bad.update(n.id for n in gast.walk(t) if isinstance(n, gast.Name))
        elif isinstance(s, gast.Delete):
            allowed.update(id(n) for n in s.targets if isinstance(n, gast.Name))
        elif isinstance(s, gast.For):
            g.bad.update(n.id for n in gast.walk(s.target) if isinstance(n, gast.Name))
    for s in walk_stmts(body):  # every other read lets the object out (or is not understood)
        heads = [s.test] if isinstance(s, (gast.If, gast.While)) else [s.iter] if isinstance(s, gast.For) else \
            [] if isinstance(s, (gast.Break, gast.Continue, gast.Pass)) else [s]
        for h in heads:
            for n in load_nodes(h):
                if id(n) not in allowed:
                    g.bad.add(n.id)
    bad_roots = {g.find(v) for v in g.bad if v in g.parent} | {g.find(p) for p in params if p in g.parent}
    groups: dict[str, set[str]] = {}
    for v in list(g.parent):
        groups.setdefault(g.find(v), set()).add(v)
    out = {}
    for root, members in groups.items():
        if root in bad_roots or not members <= bound:
            continue
        frozen = frozenset(members)
        for m in members:
            out[m] = frozen
    return out
