"""A called function that stores items into a dict it is given (issue 45): cs231n's
`batchnorm_forward(x, gamma, beta, bn_param)` ends with `bn_param['running_mean'] = running_mean`,
and Python's caller sees the new keys afterwards.

s2s calls a version of the callee in which each such item is a local variable (a later read of
`bn_param['running_mean']` or `bn_param.get('running_mean')` reads the local, with its derivative)
and which returns the items' final values after its result. The caller stores them into its own
dict (`d['running_mean'] = ...`, a store its own transforms follow), or drops them where the
argument is a new dict nothing else sees (a display, `dict(...)`, a call of a function that returns
a display). A function that passes the dict on to such a function (`spatial_batchnorm_forward`
calling `batchnorm_forward(..., bn_param)`) is rewritten the same way, with the inner version's
items as its own.

Followed only where it is sound: keys are string constants, each key's first store is a statement
of the function's body itself (so the item is set on every path after it), the function returns
only after every first store, and the dict is otherwise only read by key (`d['mode']`,
`d.get('eps', 1e-5)`) or passed on before any store. Any other use (`len(d)`, `d.keys()`, `d[k] +=
v`, a rebind, passing it on after a store, a nested function) leaves the call to the transforms'
refusal of a callee updating its argument in place.
"""
from __future__ import annotations

import copy
import re
import types
from dataclasses import dataclass

import gast

from ...base import record
from ..ir import build
from . import idioms, resolve

_SUFFIX = "_dict_updated"


@dataclass(frozen=True)
class _Plan:
    """What a function stores into its dict parameters: `extras`, the (parameter, key) pairs whose
    final values its variant returns after its result, in that order; `variant`, that version."""

    extras: tuple[tuple[str, str], ...]
    variant: object


def _key(node) -> str | None:
    return node.value if isinstance(node, gast.Constant) and isinstance(node.value, str) else None


def _flat(t):
    if isinstance(t, (gast.Tuple, gast.List)):
        for e in t.elts:
            yield from _flat(e)
    else:
        yield t


def _static(ns: dict, func):
    """The object a call's function names in namespace `ns` (`f`, `module.f`), or None."""
    if isinstance(func, gast.Name):
        return ns.get(func.id, getattr(__builtins__, func.id, None) if not isinstance(__builtins__, dict)
                      else __builtins__.get(func.id))
    if isinstance(func, gast.Attribute):
        base = _static(ns, func.value)
        return getattr(base, func.attr, None) if base is not None else None
    return None


def _candidate(fn) -> bool:
    return isinstance(fn, types.FunctionType) and resolve.is_user_function(fn) and record.of(fn) is None \
        and not fn.__code__.co_flags & 0x0C and not fn.__code__.co_kwonlyargcount


def _targets_of(n) -> list:
    if isinstance(n, gast.Assign):
        return n.targets
    if isinstance(n, (gast.AugAssign, gast.AnnAssign, gast.For, gast.comprehension)):
        return [n.target]
    if isinstance(n, gast.withitem) and n.optional_vars is not None:
        return [n.optional_vars]
    if isinstance(n, gast.Delete):
        return n.targets
    return []


class _Uses:
    """Every occurrence of the function's parameters in statement `stmt`, classified: a store
    `p['k'] = v` among an assignment's targets, a read `p['k']` or `p.get('k'[, d])`, a positional
    argument of a call, or anything else."""

    def __init__(self, stmt, params):
        self.stores, self.loads, self.args, self.other = [], [], [], []
        marked = set()
        targets = set()
        for n in gast.walk(stmt):
            for t in _targets_of(n):
                targets.update(id(x) for x in gast.walk(t))  # (`p['k'][0] = v` changes the item: not a read)
            if isinstance(n, gast.Assign):
                for t in n.targets:
                    for e in _flat(t):
                        if isinstance(e, gast.Subscript) and isinstance(e.value, gast.Name) \
                                and e.value.id in params and _key(e.slice) is not None:
                            self.stores.append((e.value.id, _key(e.slice), e))
                            marked.add(id(e.value))
        for n in gast.walk(stmt):
            if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Load) and isinstance(n.value, gast.Name) \
                    and n.value.id in params and _key(n.slice) is not None and id(n) not in targets:
                self.loads.append((n.value.id, _key(n.slice), n))
                marked.add(id(n.value))
            elif isinstance(n, gast.Call):
                f = n.func
                if isinstance(f, gast.Attribute) and f.attr == "get" and isinstance(f.value, gast.Name) \
                        and f.value.id in params and 1 <= len(n.args) <= 2 and not n.keywords \
                        and _key(n.args[0]) is not None and id(n) not in targets:
                    self.loads.append((f.value.id, _key(n.args[0]), n))
                    marked.add(id(f.value))
                for pos, a in enumerate(n.args):
                    if isinstance(a, gast.Name) and a.id in params and id(a) not in targets:
                        self.args.append((a.id, n, pos))
                        marked.add(id(a))
        for n in gast.walk(stmt):
            if isinstance(n, gast.Name) and n.id in params and id(n) not in marked:
                self.other.append(n.id)
            if isinstance(n, (gast.FunctionDef, gast.Lambda, gast.Yield, gast.YieldFrom)):
                self.other.extend(params)


def _analyse(fn, seen: frozenset):
    """(the rewritten def, its namespace, the extras) of `fn`, or None where it stores nothing
    into a dict parameter or s2s cannot follow how it does."""
    if fn in seen or not _candidate(fn):
        return None
    try:
        node, filename = idioms.parsed_def(fn)
    except Exception:  # noqa: BLE001 (no source: the general path reports it)
        return None
    params = [a.id for a in node.args.args]
    if not any(isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name)
               and n.value.id in params for n in gast.walk(node)) \
            and not any(isinstance(n, gast.Call) and any(isinstance(a, gast.Name) and a.id in params for a in n.args)
                        for n in gast.walk(node)):
        return None  # (the common case, decided cheaply)
    ns = idioms.namespace_of(fn)
    body = node.body
    uses = [_Uses(s, set(params)) for s in body]
    first: dict[tuple[str, str], int] = {}  # (param, key) -> the body statement of its first store
    sites = {}  # body index -> (callee, its plan, {callee's param: our param})
    for i, (s, u) in enumerate(zip(body, uses)):
        for p, call, pos in u.args:
            callee = _static(ns, call.func)
            inner = _plan(callee, seen | {fn}) if _candidate(callee) else None
            if inner is None:
                if _candidate(callee) and _stores_into(callee, pos):
                    return None  # (it stores into the dict in a way not followed here)
                continue  # (a read-only use: checked against the stores below)
            cparams = [a for a in callee.__code__.co_varnames[:callee.__code__.co_argcount]]
            value = s.value if isinstance(s, (gast.Assign, gast.Expr)) else None
            if value is not call or call.keywords or any(isinstance(a, gast.Starred) for a in call.args):
                return None
            binding = {}
            for q, _k in inner.extras:
                k = cparams.index(q)
                a = call.args[k] if k < len(call.args) else None
                if not (isinstance(a, gast.Name) and a.id in params) \
                        or sum(isinstance(b, gast.Name) and b.id == a.id for b in call.args) != 1:
                    return None
                binding[q] = a.id
            sites[i] = (callee, inner, binding)
            for q, k in inner.extras:
                first.setdefault((binding[q], k), i)
        for p, k, _ in u.stores:
            first.setdefault((p, k), i)
    if not first:
        return None
    updated = {p for p, _ in first}
    for i, (s, u) in enumerate(zip(body, uses)):
        if any(p in updated for p in u.other):
            return None
        for p, k, e in u.stores:
            if first[(p, k)] == i and not (isinstance(s, gast.Assign) and any(e is x for t in s.targets
                                                                              for x in _flat(t))):
                return None  # (a first store under an `if` or in a loop: the item may be unset)
        for p, call, _pos in u.args:
            if p in updated and i not in sites and any(first[(q, k)] <= i for q, k in first if q == p):
                return None  # (passed on after a store: the callee would read the old dict)
        if i in sites and any(first[(q, k)] < i for q, k in first if q in sites[i][2].values()):
            return None
    last = max(first.values())
    for i, s in enumerate(body):
        if i <= last and any(isinstance(n, gast.Return) for n in gast.walk(s)):
            return None  # (a return before an item is set)
    extras = tuple(sorted(first, key=lambda pk: (params.index(pk[0]), first[pk])))
    return _rewrite(node, filename, ns, params, first, sites, extras)


def _stores_into(callee, pos: int) -> bool:
    """Whether `callee` may store into or change its parameter at `pos` (a conservative look)."""
    try:
        node, _ = idioms.parsed_def(callee)
    except Exception:  # noqa: BLE001
        return True
    if pos >= len(node.args.args):
        return True
    q = node.args.args[pos].id
    return any(u.stores or u.other or u.args for u in (_Uses(s, {q}) for s in node.body))


def _rewrite(node, filename, ns, params, first, sites, extras):
    node = copy.deepcopy(node)
    taken = set(build.names_in(node)) | set(params)
    local = {pk: idioms.fresh_name(f"{pk[0]}_{re.sub(r'[^0-9A-Za-z_]', '_', pk[1])}", taken) for pk in first}
    ns = dict(ns)
    body = []
    for i, s in enumerate(node.body):
        live = {pk for pk, j in first.items() if j < i}
        _replace_reads(s, live, local)
        for n in gast.walk(s):
            if isinstance(n, gast.Assign):
                n.targets = [_replace_stores(t, local) for t in n.targets]
        if i in sites:
            callee, inner, binding = sites[i]
            label = idioms.fresh_name(callee.__name__ + _SUFFIX, taken)
            ns[label] = inner.variant
            res = idioms.fresh_name("updated", taken)
            call = s.value
            new = [build.assign(res, build.call(build.name(label), call.args))]
            if isinstance(s, gast.Assign):
                new.append(gast.Assign(targets=s.targets, value=build.subscript(build.name(res), build.const(0)),
                                       type_comment=None))
            for j, (q, k) in enumerate(inner.extras):
                new.append(build.assign(local[(binding[q], k)],
                                        build.subscript(build.name(res), build.const(1 + j))))
            body += [build.located(n, s, only_missing=True) for n in new]
            continue
        body.append(s)
    extra = lambda: [build.name(local[pk]) for pk in extras]  # noqa: E731
    for n in gast.walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, gast.Return):
            n.value = build.tuple_([n.value if n.value is not None else build.const(None), *extra()])
    if not body or not isinstance(body[-1], gast.Return):
        body.append(build.located(gast.Return(value=build.tuple_([build.const(None), *extra()])), body[-1]))
    node.body = body
    return node, filename, ns, extras


def _replace_reads(stmt, live, local) -> None:
    """Reads of items stored before `stmt` (`p['k']`, `p.get('k', d)`) become their locals."""
    def sub(n):
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Load) and isinstance(n.value, gast.Name) \
                and (n.value.id, _key(n.slice)) in live:
            return gast.copy_location(build.name(local[(n.value.id, _key(n.slice))]), n)
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr == "get" \
                and isinstance(n.func.value, gast.Name) and n.args and (n.func.value.id, _key(n.args[0])) in live:
            return gast.copy_location(build.name(local[(n.func.value.id, _key(n.args[0]))]), n)
        return None

    for parent in list(gast.walk(stmt)):
        for field, value in gast.iter_fields(parent):
            if isinstance(value, list):
                value[:] = [sub(v) or v if isinstance(v, gast.AST) else v for v in value]
            elif isinstance(value, gast.AST) and (new := sub(value)) is not None:
                setattr(parent, field, new)


def _replace_stores(t, local):
    if isinstance(t, (gast.Tuple, gast.List)):
        t.elts = [_replace_stores(e, local) for e in t.elts]
        return t
    if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) and (t.value.id, _key(t.slice)) in local:
        return gast.copy_location(build.name(local[(t.value.id, _key(t.slice))], store=True), t)
    return t


def _plan(fn, seen: frozenset = frozenset()) -> _Plan | None:
    """`fn`'s plan (kept per function until a global it reads changes), or None."""
    if not _candidate(fn) or fn in seen:
        return None

    def compute():
        found = _analyse(fn, seen)
        if found is None:
            return None
        node, filename, ns, extras = found
        node.name = fn.__name__ + _SUFFIX
        return _Plan(extras, idioms.synthesize(node.name, node, ns, filename, origin=fn))
    return idioms.remember(("dict_updated", fn.__code__, id(fn)), fn, compute, idioms.namespace_stamp(fn))


def _new_dict(norm, arg) -> bool:
    """Whether `arg` makes a dict nothing else sees: a display, `dict(...)`, or a call of a user
    function whose every `return` returns a display."""
    if isinstance(arg, (gast.Dict, gast.DictComp)):
        return True
    if not isinstance(arg, gast.Call):
        return False
    try:
        fn = norm.static(arg.func)
    except Exception:  # noqa: BLE001
        return False
    if fn is dict:
        return True
    if not _candidate(fn):
        return False
    try:
        node, _ = idioms.parsed_def(fn)
    except Exception:  # noqa: BLE001
        return False
    returns = [n for n in gast.walk(node) if isinstance(n, gast.Return)]
    nested = any(isinstance(n, (gast.FunctionDef, gast.Lambda)) for n in gast.walk(node) if n is not node)
    return bool(returns) and not nested and all(isinstance(r.value, (gast.Dict, gast.DictComp)) for r in returns)


def call(norm, node):
    """`f(x, d)` of a user function that stores items into its dict parameter: the call of its
    variant, with the items stored into the caller's dict `d` (or dropped, `d` a new dict); None
    where the call is no such call, or an argument is neither a local name nor a new dict."""
    func = node.func
    if node.keywords or any(isinstance(a, gast.Starred) for a in node.args) or not (
            isinstance(func, gast.Name) and func.id not in norm.locals
            or isinstance(func, gast.Attribute) and norm.rooted_global(func)):
        return None
    try:
        fn = norm.static(func)
    except Exception:  # noqa: BLE001 (the general path reports it)
        return None
    plan = _plan(fn)
    if plan is None:
        return None
    params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    back = []
    for j, (p, k) in enumerate(plan.extras):
        i = params.index(p)
        arg = node.args[i] if i < len(node.args) else None
        if isinstance(arg, gast.Name) and sum(isinstance(a, gast.Name) and a.id == arg.id for a in node.args) > 1:
            return None  # (`f(d, d)`: the callee's other parameter would not see the store)
        if isinstance(arg, gast.Name) and arg.id in norm.locals:
            back.append((j, arg.id, k))
        elif arg is None or not _new_dict(norm, arg):
            return None  # (a default dict, a global's, an object's: the transforms refuse it)
    label = norm.namer.fresh(plan.variant.__name__)
    norm.fscope[label] = norm.fscope[plan.variant.__name__] = plan.variant
    new = gast.copy_location(gast.Call(func=build.name(label), args=node.args, keywords=[]), node)
    out = norm.expr(new)
    out = out if build.is_atom(out) else norm.tmp(out)
    for j, local, k in back:
        v = norm.tmp(build.subscript(out, build.const(1 + j)))
        target = gast.copy_location(build.subscript(build.name(local), build.const(k), store_=True), node)
        norm.assign_to(target, v)
    return build.subscript(out, build.const(0))
