"""Algebraic simplification, constant folding and zero/one propagation on Python scalars.

Constants combine (`2 * 3.0` → `6.0`, computed by Python as the code would at run time). When a
jit signature says which parameters are Python floats, the values computed from them by
arithmetic are Python floats too (`floats`); then the helpers differentiation emits are no-ops
or constants: `rt.unbroadcast(g, x)` is `g`, `rt.seed(y)` is `1.0`, `rt.zeros_like_tree(y)` is
`0.0`, `rt.tree_add(y, z)` is `y + z`, and `y * 1.0`, `y + 0.0` are `y` (the one reassociation:
`-0.0 + 0.0` gives `-0.0`).
Nothing multiplies by zero away: `0.0 * y` stays, as NaN and inf in `y` must reach the result.

Before (x a float)::

    b_t6 = rt.seed(t6)
    b_t3 = rt.unbroadcast(b_t6, t3)
    t8 = b_t3 * 2 * 2
    return t8

After::

    b_t6 = 1.0
    b_t3 = b_t6
    t8 = b_t3 * 2 * 2
    return t8
"""
from __future__ import annotations

import collections
import operator

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry
from .base import Pass, bottom_up
from .constants import float64_ranks

# the arithmetic operators (`arith`) -> the Python function that folds their constant operands (`operator_fn`)
_FOLD = {op: getattr(operator, registry.PRIMS[k].operator_fn) for op, k in analysis.BINOPS.items()
         if registry.PRIMS[k].arith}


# the dtype gates (runtime/dtypes.py): the value itself, placed for the derivative rules only; the
# final code has been differentiated, so they go (a store `y[i] = rt.stored_as(v, y, at)` in a loop
# kept the loop vectorizer from reading it)
_GATES = frozenset(k for k, p in registry.PRIMS.items() if p.dtype_gate)


def _num(n) -> bool:
    return isinstance(n, gast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool)


def _is_float(n, floats) -> bool:
    if isinstance(n, gast.Name):
        return n.id in floats
    return _num(n) and isinstance(n.value, float) or not _num(n) and _float_result(n, floats)


def _float_result(v, floats) -> bool:
    """Whether right-hand side `v` is certainly a Python float, given the names that are."""
    fl = lambda n: _is_float(n, floats)  # noqa: E731
    if isinstance(v, gast.Name) or _num(v):
        return fl(v) if isinstance(v, gast.Name) else isinstance(v.value, float)
    if isinstance(v, gast.UnaryOp) and isinstance(v.op, (gast.USub, gast.UAdd)):
        return fl(v.operand)
    if isinstance(v, gast.BinOp) and type(v.op) in _FOLD:
        return (fl(v.left) and (fl(v.right) or _num(v.right))) or (fl(v.right) and _num(v.left))
    if isinstance(v, gast.BinOp) and isinstance(v.op, gast.Pow):  # a float to an int power is a float
        return fl(v.left) and _num(v.right) and isinstance(v.right.value, int)
    if isinstance(v, gast.Call) and (p := registry.lookup(analysis.dotted(v.func))) is not None and p.float_of_first:
        return fl(v.args[0])  # (rt.unbroadcast, rt.seed, rt.zeros_like_tree of a float)
    if isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.tree_add" and len(v.args) == 2:
        return fl(v.args[0]) and fl(v.args[1])  # two adjoints of floats meet as their sum
    return False


class _Every:
    """Every name (for asking whether a value could be a float at all)."""

    def __contains__(self, name) -> bool:
        return True


_EVERY = _Every()


def python_floats(body, params, float_params, notes=None) -> set[str]:
    """Names every assignment of which gives a Python float (parameters as the signature says).
    The greatest such set: every name that could be one is assumed one, and a name is dropped while
    one of its assignments reads a dropped name, so an accumulation (`g = g + 1.0`, and adjoints
    meeting in `g = rt.tree_add(g, h)`) keeps being a float. (Sound by induction over the run: a
    parameter not in `float_params` is never assumed; any other name is bound by its assignments
    only.) With `notes`, which assignments could give a float at all is kept from one run to the next."""
    defs: dict[str, list] = {}
    never: set[str] = set(params) - set(float_params)
    for s in analysis.walk_stmts(body):
        names = analysis.targets(s)
        if not names:
            continue
        v = s.value if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) else None
        could = v is not None and (notes.get(s, "could_be_float", lambda s: _float_result(s.value, _EVERY))
                                   if notes is not None else _float_result(v, _EVERY))
        for t in names:
            if could:
                defs.setdefault(t, []).append(v)
            else:
                never.add(t)
    floats = (set(defs) | set(float_params)) - never
    shrank = True
    while shrank:
        shrank = False
        for n, vs in defs.items():
            if n in floats and not all(_float_result(v, floats) for v in vs):
                floats.discard(n)
                shrank = True
    return floats


def _simplify(v, floats):
    """A simpler equal right-hand side, or None."""
    if isinstance(v, gast.BinOp) and type(v.op) in _FOLD and _num(v.left) and _num(v.right):
        try:
            return build.const(_FOLD[type(v.op)](v.left.value, v.right.value))
        except ArithmeticError:
            return None
    if isinstance(v, gast.Call) and not v.keywords:
        f = analysis.dotted(v.func)
        if f in _GATES:
            return v.args[0]
        if f == "rt.unbroadcast" and all(_is_float(a, floats) for a in v.args):
            return v.args[0]
        if f == "rt.real_cotangent" and all(_is_float(a, floats) for a in v.args):
            return v.args[0]  # (the real part of a real number is itself)
        if f == "rt.seed" and _is_float(v.args[0], floats):
            return build.const(1.0)
        if f == "rt.zeros_like_tree" and _is_float(v.args[0], floats):
            return build.const(0.0)
        if f == "rt.tree_add" and len(v.args) == 2 and all(_is_float(a, floats) for a in v.args):
            return build.binop(v.args[0], gast.Add(), v.args[1])
    if isinstance(v, gast.BinOp) and isinstance(v.op, (gast.Mult, gast.Add, gast.Sub, gast.Div)):
        unit = 1 if isinstance(v.op, (gast.Mult, gast.Div)) else 0
        if _num(v.right) and v.right.value == unit and _is_float(v.left, floats):
            return v.left
        if isinstance(v.op, (gast.Mult, gast.Add)) and _num(v.left) and v.left.value == unit \
                and _is_float(v.right, floats):
            return v.right
    return None


def simplify(body: list, params, facts) -> tuple[list, set[str]]:
    floats = python_floats(body, params, facts["known"].get("floats", ()), facts["notes"])
    memo, dirty, notes = facts["memo"], facts["dirty"], facts["notes"]
    moved = floats.symmetric_difference(memo.get("floats", ())) if dirty is not None else None
    memo["floats"] = floats
    touched: set[str] = set()
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript):
            if isinstance(s.value, gast.Call) and analysis.dotted(s.value.func) in _GATES:
                s.value = s.value.args[0]
                notes.forget(s)
                touched.update(notes.names(s))
        elif isinstance(s, (gast.Assign, gast.Return)) and s.value is not None:
            names, seen = notes.names(s), notes.checked(s, "simplify")
            if moved is not None and names.isdisjoint(moved) and (seen or names.isdisjoint(dirty)):
                continue  # unchanged since the last run, and so are its operands' types
            s.value, c = bottom_up(s.value, lambda e: _simplify(e, floats))
            if c:
                notes.forget(s)
                touched.update(names, notes.names(s))
    touched |= _negated_products(body, notes, params)
    touched |= _scaled_selects(body, params, facts["known"], notes)
    return body, touched


def _scaled(v):
    """The float literal of a product `c * y` or `y * c` (its side: "left"/"right"), or None."""
    if isinstance(v, gast.BinOp) and isinstance(v.op, gast.Mult):
        for side in ("left", "right"):
            c = getattr(v, side)
            if isinstance(c, gast.Constant) and type(c.value) is float:
                return side
    return None


def _negated_products(body, notes, params=()) -> set[str]:
    """`b = c * y; t = -b` with `b` bound and read once, c a float literal: `b = (-c) * y; t = b`
    (exact: negation only flips the sign; one array operation less, which copy propagation then
    removes). The literal may also be a numerator (`b = (1 / u) * y`: `b = (-1.0 / u) * y`), or
    sit deeper in a product or quotient, through names bound and read once (`a = 1 / u; b = a * y`),
    a numerator first (`1.0 * (1 / u)` keeps its 1.0, which `constants` then drops). Integer
    literals stay as factors, as `-2 * x` overflows on unsigned arrays where `-(2 * x)` wraps (a
    numerator becomes a float: `-1.0 / x` is `-(1 / x)` for every dtype)."""
    stmts = list(analysis.walk_stmts(body))
    negations = [s for s in stmts if isinstance(s, (gast.Assign, gast.Return)) and isinstance(s.value, gast.UnaryOp)
                 and isinstance(s.value.op, gast.USub) and isinstance(s.value.operand, gast.Name)]
    touched: set[str] = set()
    if not negations:  # (most bodies: no counts to take)
        return touched
    binds = collections.Counter(t for s in stmts for t in analysis.targets(s))
    reads = collections.Counter(analysis.loads(body))
    defs = {s.targets[0].id: s for s in stmts if isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and binds[s.targets[0].id] == 1}
    order = {id(s): k for k, s in enumerate(stmts)}
    inner = {n: d for n, d in defs.items() if n not in params}  # (a parameter is bound before the body too)
    for s in negations:
        v = s.value
        b = v.operand.id
        d = defs.get(b)
        if d is None or reads[b] != 1:
            continue
        found = _negatable(d.value, d, inner, reads, {"order": order})
        if found is None:
            continue
        _, node, side, stmt = found
        c = getattr(node, side).value
        setattr(node, side, build.const(-float(c) if isinstance(node.op, gast.Div) else -c))
        s.value = v.operand
        for one in (s, d, stmt):
            notes.forget(one)
            touched.update(notes.names(one))
    return touched


def _scaled_selects(body, params, known, notes) -> set[str]:
    """`w = xp.where(m, a, b); t = c * w` with `a`, `b`, `c` float literals, `w` bound and read once
    and `m` certainly an array (a comparison of a float array of the jit signature): `t =
    xp.where(m, c * a, c * b)`, the products folded (each element is `c * a` or `c * b`, as
    before, computed once; one array operation less: a SELU's derivative `1.67 * where(m, 0.0,
    1.05)`). A number `m` is left alone (its product is a NumPy scalar, the select a 0-d array)."""
    touched: set[str] = set()
    if not known.get("arrays"):  # (no array of the signature: no mask is certainly one)
        return touched
    stmts = list(analysis.walk_stmts(body))
    selects = {s.targets[0].id: s for s in stmts if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
               and isinstance(s.value, gast.Call) and analysis.dotted(s.value.func) == "xp.where"}
    if not selects:
        return touched
    binds = collections.Counter(t for s in stmts for t in analysis.targets(s))
    reads = collections.Counter(analysis.loads(body))
    ranks = float64_ranks(body, params, known)
    masks = {s.targets[0].id: s.value for s in stmts if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
             and binds[s.targets[0].id] == 1 and isinstance(s.value, gast.Compare)}
    for s in stmts:
        v = s.value if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) else None
        side = _scaled(v) if v is not None else None
        w = getattr(v, "right" if side == "left" else "left", None) if side else None
        d = selects.get(w.id) if isinstance(w, gast.Name) and binds[w.id] == 1 and reads[w.id] == 1 else None
        call = d.value if d is not None else None
        if call is None or call.keywords or len(call.args) != 3 or not all(
                isinstance(a, gast.Constant) and type(a.value) is float for a in call.args[1:]):
            continue
        m = call.args[0]
        test = masks.get(m.id) if isinstance(m, gast.Name) else m if isinstance(m, gast.Compare) else None
        if not (isinstance(test, gast.Compare)
                and any(analysis.array_rank(e, ranks) for e in (test.left, *test.comparators))):
            continue
        c = getattr(v, side).value
        s.value = build.call("xp.where", [build.clone(m), build.const(c * call.args[1].value),
                                          build.const(c * call.args[2].value)])
        notes.forget(s)
        touched.update(notes.names(s))
    return touched


def _negatable(v, stmt, defs, reads, seen: dict) -> tuple | None:
    """Where in `v` (the value of `stmt`) a literal can take a negation of the whole: (preference,
    the BinOp, "left"/"right", the statement holding it), the best found: a float or exact int
    numerator (0), a float factor other than 1.0 (1), a factor 1.0 (2). Looks through products,
    the numerators of quotients, and names bound once, before, and read only there (`seen`: the
    statements' order, under "order", and the names looked through)."""
    if isinstance(v, gast.Name):
        d = defs.get(v.id)
        order = seen["order"]
        if d is None or reads[v.id] != 1 or v.id in seen or order[id(d)] > order[id(stmt)]:
            return None  # (bound after its reader: a loop's previous step)
        seen[v.id] = True
        return _negatable(d.value, d, defs, reads, seen)
    if not (isinstance(v, gast.BinOp) and isinstance(v.op, (gast.Mult, gast.Div))):
        return None
    best = None
    sides = ("left", "right") if isinstance(v.op, gast.Mult) else ("left",)
    for side in sides:
        c = getattr(v, side)
        if isinstance(c, gast.Constant):
            if isinstance(v.op, gast.Div) and analysis.number_literal(c) and not isinstance(c.value, bool):
                here = (0, v, side, stmt)
            elif type(c.value) is float:
                here = (2 if c.value == 1.0 else 1, v, side, stmt)
            else:
                continue
        else:
            here = _negatable(c, stmt, defs, reads, seen)
        if here is not None and (best is None or here[0] < best[0]):
            best = here
    return best


PASS = Pass("simplify", simplify, idempotent=True, forgets=True)
