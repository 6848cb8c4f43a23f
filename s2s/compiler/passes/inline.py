"""Inlining (jit): a call of a user function, or of a function s2s generated (`grad_f`,
`fwd_f`...), is replaced by the callee's core-form body, its names prefixed by the callee's, so
the other passes see through the call (constants fold, dead outputs of a `vjp` disappear, a
`jit` version has no Python call overhead per helper).

Callee::

    def helper(a, b):
        c = a * b
        t0 = c + 1.0
        return t0

Before::

    z = helper(x, y)
    return z

After::

    helper_a = x
    helper_b = y
    helper_c = helper_a * helper_b
    helper_t0 = helper_c + 1.0
    z = helper_t0
    return z

(copy propagation then removes the copies). `known["callees"](name)` gives a callee's
(core-form FunctionDef, namespace, function) or None: the driver hands it over under jit only, and says
None for functions with the user's own derivative rules (custom_vjp/custom_jvp, which a later
`grad` must still see), for callable objects and for anything it cannot read. A callee is
inlined when it returns once, as its last statement, and is small (`MAX_STATEMENTS`); calls
inside it are inlined in later rounds of the fixed point, up to `MAX_INLINED` per function (a
recursive function stays a call, and so does a call of a function that the statement was already
inlined from: mutual recursion, e.g. a custom_jvp rule that calls its own function, whose split
calls the rule's split, is not unrolled until the budget runs out, which made functions of 1500
statements and hessians that took seconds to compile). The callee's global names join the caller's namespace
(`known["ns"]`), renamed where the caller has another value under that name.
"""
from __future__ import annotations

import gast

from ...base import record
from .. import analysis
from ..analysis import raising
from ..ir import build
from ..ir.core import SOURCE_FILE
from .base import Pass, clone

MAX_STATEMENTS = 400
MAX_INLINED = 64
_RUNTIME = {"xp", "rt"}  # bound per call by the loader: the same for caller and callee
_FROM = "s2s_inlined_from"  # statement attribute: ids of the functions it was inlined from


def _identity(fn) -> int:
    """The id of the function `fn` is or stands for (a lazy handle of a recursive build stands for
    the function it builds)."""
    rec = record.of(fn)
    while rec is not None and rec.lazy and rec.target is not None:
        fn = rec.target()
        rec = record.of(fn)
    return id(fn)


def _inlinable(fn: gast.FunctionDef) -> bool:
    body = fn.body
    if not body or not isinstance(body[-1], gast.Return) or len(body) > MAX_STATEMENTS:
        return False
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        return False
    for n in build.walk(gast.Module(body=body[:-1], type_ignores=[])):
        if isinstance(n, (gast.Return, gast.FunctionDef, gast.Lambda, gast.Global, gast.Nonlocal, gast.Yield,
                          gast.ClassDef, gast.AsyncFunctionDef)):
            return False
    return True


class _Renamer:
    """Callee names -> names free in the caller: locals get the callee's prefix, globals keep
    their name unless the caller's namespace holds something else under it."""

    def __init__(self, prefix, taken, ns, callee_ns):
        self.prefix, self.taken, self.ns, self.callee_ns, self.map = prefix, taken, ns, callee_ns, {}

    def fresh(self, base):
        name, k = base, 1
        while name in self.taken or name in self.ns:
            name, k = f"{base}_{k}", k + 1
        self.taken.add(name)
        return name

    def local(self, n):
        if n not in self.map:
            self.map[n] = self.fresh(f"{self.prefix}_{n}")
        return self.map[n]

    def glob(self, n):
        if n in _RUNTIME or n in self.map:
            return self.map.get(n, n)
        if n not in self.callee_ns:
            self.map[n] = n  # a builtin
        elif n not in self.ns or self.ns[n] is self.callee_ns[n]:
            self.ns[n] = self.callee_ns[n]
            self.map[n] = n
        else:
            self.map[n] = self.fresh(n)
            self.ns[self.map[n]] = self.callee_ns[n]
        return self.map[n]


class _Names:
    """The names a body uses (taken for the inlined callees' locals), collected on first use: a
    call of a plain name (`len`, `stop_gradient`) rarely turns out to be a callee to inline."""

    def __init__(self, body, params):
        self.body, self.params, self.names = body, params, None

    def _all(self) -> set[str]:
        if self.names is None:
            self.names = set(self.params) | {n.id for s in self.body for n in build.walk(s) if isinstance(n, gast.Name)}
        return self.names

    def __contains__(self, name) -> bool:
        return name in self._all()

    def add(self, name) -> None:
        self._all().add(name)


def _expand(call_stmt, fn, callee_ns, ns, taken, callee, filename=None) -> list:
    fn = clone(fn)
    if filename:  # the callee's statements carry its file's line numbers (a deeper callee's keep theirs)
        for s in analysis.walk_stmts(fn.body):
            if not hasattr(s, SOURCE_FILE):
                setattr(s, SOURCE_FILE, filename)
    params = [p.id for p in fn.args.args]
    local = set(params) | {t for s in analysis.walk_stmts(fn.body) for t in analysis.targets(s)}
    for n in build.walk(fn):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            local.add(n.id)
    r = _Renamer(fn.name, taken, ns, callee_ns)
    for n in build.walk(gast.Module(body=fn.body, type_ignores=[])):
        if isinstance(n, gast.Name):
            n.id = r.local(n.id) if n.id in local else r.glob(n.id)
    call = call_stmt.value
    out = [gast.copy_location(build.assign(r.local(p), arg), call_stmt) for p, arg in zip(params, call.args)]
    *body, ret = fn.body
    target = call_stmt.targets[0]
    out += body + [gast.copy_location(gast.Assign(targets=[target], value=ret.value, type_comment=None), call_stmt)]
    chain = getattr(call_stmt, _FROM, frozenset()) | {_identity(callee)}
    if hasattr(call_stmt, SOURCE_FILE):  # the call's own statements: the caller's file
        for s in out[:len(params)] + out[-1:]:
            setattr(s, SOURCE_FILE, getattr(call_stmt, SOURCE_FILE))
    for s in analysis.walk_stmts(out):
        setattr(s, _FROM, chain)
    return out


def _callee(s, lookup):
    if not (isinstance(s, gast.Assign) and isinstance(s.value, gast.Call) and analysis.classify(s.value) == "call"):
        return None
    call = s.value
    if not isinstance(call.func, gast.Name) or call.keywords or any(isinstance(a, gast.Starred) for a in call.args):
        return None
    found = lookup(call.func.id)
    if found is None or not _inlinable(found[0]) or len(found[0].args.args) != len(call.args) \
            or found[0].args.defaults or any(v is found[2] for v in found[1].values()) \
            or _identity(found[2]) in getattr(s, _FROM, ()):
        return None  # (the last two: a function that calls itself, or that `s` was inlined from)
    return found


def _block(stmts, lookup, ns, taken, budget) -> tuple[list, bool]:
    out, changed = [], False
    for s in stmts:
        for f in ("body", "orelse"):
            if getattr(s, f, None):
                new, c = _block(getattr(s, f), lookup, ns, taken, budget)
                setattr(s, f, new)
                changed |= c
        found = _callee(s, lookup) if budget[0] > 0 else None
        if found is None:
            out.append(s)
            continue
        budget[0] -= 1
        out.extend(_expand(s, found[0], found[1], ns, taken, found[2], found[3] if len(found) > 3 else None))
        changed = True
    return out, changed


def _stable(e, counts) -> bool:
    """A literal, a name bound at most once, or a tuple of those: the same value wherever read."""
    if isinstance(e, gast.Tuple):
        return all(_stable(x, counts) for x in e.elts)
    return isinstance(e, gast.Constant) or isinstance(e, gast.Name) and counts.get(e.id, 0) <= 1


def _not_lists(body, arrays) -> set[str]:
    """Names certainly not holding a list (so `rt.copy_saved` leaves them as they are): the
    results of arithmetic, comparisons and array functions, and the signature's arrays."""
    out = set(arrays)
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            v = s.value
            if isinstance(v, (gast.BinOp, gast.UnaryOp, gast.Compare)) or isinstance(v, gast.Call) and \
                    (analysis.dotted(v.func) or "").startswith("xp.") and "split" not in analysis.dotted(v.func):
                out.add(s.targets[0].id)
    return out


def _pack_of(value, packs, counts, plain):
    """The tuple literal `value` unpacks: itself, the pack a name holds, or the pack inside
    `rt.copy_saved(pack)` (or a name bound to it) when no element is a list (a residual record
    without tapes)."""
    if isinstance(value, gast.Tuple):  # read right here: any names will do
        return value
    if isinstance(value, gast.Name):
        got = packs.get(value.id)
        return _pack_of(got, packs, counts, plain) if isinstance(got, gast.Call) else got
    if isinstance(value, gast.Call) and analysis.dotted(value.func) == "rt.copy_saved" and len(value.args) == 1 \
            and isinstance(value.args[0], gast.Name):
        src = packs.get(value.args[0].id)
        if src is not None and all(isinstance(e, gast.Constant) or isinstance(e, gast.Name) and e.id in plain
                                   for e in src.elts):
            return src
    return None


def _is_copy(value) -> bool:
    """`rt.copy_saved(name)`: a record's copy, bound to a name before it is unpacked (core form)."""
    return isinstance(value, gast.Call) and analysis.dotted(value.func) == "rt.copy_saved" and len(value.args) == 1 \
        and isinstance(value.args[0], gast.Name)


def _unpack_packs(body, params, arrays=()) -> bool:
    """`a, b = t` where `t = (x, y)` (bound once, of names bound at most once) becomes `a = x`
    and `b = y`: an inlined callee's returned tuple, and the residuals `vjp` saves, then travel
    through names that copy propagation and dead code see through."""
    counts = analysis.assigned_counts(body, params)
    # a backward sweep pops only the tapes its forward sweep made (`tape = []`), never a parameter
    plain = _not_lists(body, arrays) | {p for p in params if counts.get(p) == 1}
    packs = {s.targets[0].id: s.value for s in analysis.walk_stmts(body)
             if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
             and counts.get(s.targets[0].id) == 1
             and (isinstance(s.value, gast.Tuple) and _stable(s.value, counts) or _is_copy(s.value))}

    def block(stmts) -> bool:
        changed = False
        for s in stmts:
            for f in ("body", "orelse"):
                if getattr(s, f, None):
                    changed |= block(getattr(s, f))
        for i in range(len(stmts) - 1, -1, -1):
            s = stmts[i]
            t = s.targets[0] if isinstance(s, gast.Assign) else None
            if not isinstance(t, gast.Tuple):
                continue
            src = _pack_of(s.value, packs, counts, plain)
            if src is None or len(src.elts) != len(t.elts) or any(isinstance(e, gast.Starred) for e in t.elts) \
                    or {n.id for n in build.walk(src) if isinstance(n, gast.Name)} & set(analysis.targets(s)):
                continue
            stmts[i:i + 1] = [gast.copy_location(gast.Assign(targets=[e], value=clone(v), type_comment=None), s)
                              for e, v in zip(t.elts, src.elts)]
            changed = True
        return changed
    return block(body)


def inline(body: list, params, facts) -> tuple[list, bool]:
    known = facts["known"]
    lookup, ns = known.get("callees"), known.get("ns")
    if lookup is None or ns is None:
        return body, False
    budget = known.setdefault("inline_budget", [MAX_INLINED])
    stmts = list(analysis.walk_stmts(body))
    changed = False
    if any(isinstance(s, gast.Assign) and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Name)
           for s in stmts):
        body, changed = _block(body, lookup, ns, _Names(body, params), budget)
        if changed and known.get("checks_kept"):  # (jacfwd's tangent alone: a callee's `a op= v` still raises)
            raising.checked(body)
        stmts = list(analysis.walk_stmts(body))
    if not any(isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Tuple) for s in stmts):
        return body, changed
    arrays = set(known.get("arrays", ())) | set(known.get("floats", ()))
    return body, _unpack_packs(body, params, arrays) | changed


PASS = Pass("inline", inline)
