"""Arrays a function owns alone: local names bound only to fresh values (`xp.zeros(...)`,
arithmetic), their copies and their slices, none of which ever leaves the function's names (no
call argument, container, return, loop iterable or test). A store into such an array changes only
those names, so dead-code elimination may drop it when none of them is read afterwards (an
author's own `dW` updated slice by slice beside the loss that `grad` differentiates)."""
from __future__ import annotations

import gast

from ..primitives import registry
from ..primitives.registry import FRESH_CALLS, NEW_ARRAY_CALLS, VIEW_CALLS, VIEW_EACH_CALLS
from .stmts import any_node, dotted, load_nodes, walk_stmts

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


def _inplace(value) -> bool:
    """`rt.inplace(r, a, ufunc, at[, array])`, the value `a op= v` leaves in `a` (runtime/dtypes.py)."""
    p = registry.lookup(dotted(value.func)) if isinstance(value, gast.Call) and not value.keywords else None
    return p is not None and p.checks and len(value.args) in (4, 5)  # (a fifth: `a` is an ndarray)


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
    if any_node(body, _SCOPES):
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
                elif _inplace(v):  # `a op= v`: `r` itself or a fresh cast of it; `a` read for its dtype and shape
                    r, a = v.args[0], v.args[1]
                    if isinstance(r, gast.Name):
                        g.union(t.id, r.id)
                    elif isinstance(r, (gast.BinOp, gast.UnaryOp)):
                        allowed.update(id(o) for o in gast.walk(r) if isinstance(o, gast.Name))
                    else:
                        g.bad.add(t.id)
                    allowed.update(id(o) for o in (r, a) if isinstance(o, gast.Name))
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


def read_names(body, params) -> set[str]:
    """Names whose values the function may read for something other than updating an array it
    owns alone (`owned_arrays`) that nothing reads in turn: a superset (flow-insensitive). A tuple
    item unpacked into a name outside it (`loss, dW_step = f(...)`, where `dW_step` is only added
    into the author's own `dW`) is not read, so a caller may ask `f` for the other items alone."""
    owned = owned_arrays(body, params)
    stmts = list(walk_stmts(body))
    dead_ok: list = []  # (statement, the names it defines): run only for what reads those names
    read: set[str] = set()
    for s in stmts:
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and _quiet(s.value):
            t = s.targets[0]
            if isinstance(t, gast.Name):
                dead_ok.append((s, {t.id}))
                continue
            if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) and t.value.id in owned:
                dead_ok.append((s, set(owned[t.value.id])))
                continue
            if isinstance(t, gast.Tuple) and all(isinstance(e, gast.Name) for e in t.elts):
                dead_ok.append((s, {e.id for e in t.elts}))
                continue
        read.update(n.id for n in load_nodes(s.test if isinstance(s, (gast.If, gast.While)) else
                                             s.iter if isinstance(s, gast.For) else s)
                    if not isinstance(s, (gast.Break, gast.Continue, gast.Pass)))
    changed = True
    while changed:
        changed = False
        for s, defs in dead_ok:
            if defs & read:
                new = {n.id for n in load_nodes(s)} - read
                if new:
                    read |= new
                    changed = True
    return read


def _quiet(value) -> bool:
    """Whether evaluating `value` does nothing but compute it: names, constants, tuples of them,
    indexing, arithmetic, `a op= v`'s `rt.inplace` (Prim.checks, not an effect: its check of an
    array nothing reads goes with it, as an author's dead `dW`'s does in reverse mode) and NumPy
    calls that only read their arguments."""
    if isinstance(value, (gast.Name, gast.Constant)):
        return True
    if isinstance(value, gast.Tuple):
        return all(_quiet(e) for e in value.elts)
    if isinstance(value, gast.Subscript):
        return isinstance(value.value, gast.Name)
    if isinstance(value, gast.BinOp):
        return _quiet(value.left) and _quiet(value.right)
    if isinstance(value, gast.UnaryOp):
        return _quiet(value.operand)
    if _inplace(value):  # `a op= v`'s value: arithmetic, and a check that goes with it where it is dead
        p = registry.lookup(dotted(value.func))
        return not p.effect and all(_quiet(a) for a in value.args)  # (an effect's check stays, reading v)
    return isinstance(value, gast.Call) and (dotted(value.func) in FRESH_CALLS or _reads_only(value))
