"""A callee reading attributes its caller stored: `layer.W, layer.b = W, b; layer.forward(X)` with
`forward` reading `self.W`, or `NET.weights = [w1, w2]; NET.feedforward(x)`.

s2s folds a callee's reads of objects' attributes in as they were when it compiled the callee. Where
the caller stores into `obj.a` (frontend/attr_stores.py holds the stored value in a local) and the
callee names the same object (its bound `self`, a global, a chain of attributes: resolved now, by
identity), the call passes the caller's locals to a copy of the callee that takes them as leading
parameters, and whose `obj.a` reads are those parameters (`MARKER` in its namespace tells
attr_stores.begin). So the primal and the derivative flow from the store into the callee's read,
and the callee passes them on to the functions it calls in turn. A callee that stores into such an
attribute itself, or reads an attribute of that name through a value s2s cannot resolve now, is
refused: the caller's local would not see the store, or the read might be of the stored object.
"""
from __future__ import annotations

import copy
import types

import gast

from ...base import record
from ..analysis import dotted
from ..ir import build
from . import attr_callee_lists, idioms, resolve

MARKER = "__s2s_stored_attrs__"  # in a callee's namespace: {its dotted path: (parameter, object, attribute)}


def _callee_def(fn):
    """(def node without `self`, namespace with `self` bound, filename, function, object) of a user
    function or bound method; None where its source cannot be had."""
    func, obj = (fn.__func__, fn.__self__) if isinstance(fn, types.MethodType) else (fn, None)
    rec = record.of(func)
    core = getattr(rec, "core", None) if rec is not None else None
    try:
        if core is not None:
            node, ns, filename = copy.deepcopy(core[0]), dict(core[1]), core[2]
        else:
            node, filename = idioms.parsed_def(func)
            ns = idioms.namespace_of(func)
    except (OSError, TypeError, SyntaxError):
        return None
    if obj is not None:
        if not node.args.args:
            return None
        self_name = node.args.args[0].id
        node.args.args = node.args.args[1:]
        ns[self_name] = obj
        ns["__s2s_self__"] = self_name  # (super() reads it, frontend/attr_stores.py)
    return node, ns, filename, func, obj


def _locals_of(node) -> set:
    names = {a.id for a in node.args.args}
    names |= {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}
    return names


def _resolve(chain, ns: dict, local: set):
    """The object a name or attribute chain denotes in the callee's namespace, found now; `None`
    where it is rooted in a local of the callee (or is no such chain, or fails)."""
    path = []
    while isinstance(chain, gast.Attribute):
        path.append(chain.attr)
        chain = chain.value
    if not isinstance(chain, gast.Name) or chain.id in local or chain.id not in ns:
        return None
    obj = ns[chain.id]
    try:
        for a in reversed(path):
            obj = getattr(obj, a)
    except Exception:  # noqa: BLE001 (a property that raises: not resolved)
        return None
    return obj


def _objects_passed(norm, node, body, by_object: dict, local: set) -> dict:
    """The callee's parameters that the call binds to an object whose attributes the caller stored
    (`rnn_forward(self, A)`), known now: a name or attribute chain of the caller's that is no
    local; only parameters the callee never rebinds."""
    params = [a.id for a in body.args.args]
    rebound = {n.id for n in gast.walk(body) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}
    given = list(zip(params, node.args)) + [(k.arg, k.value) for k in node.keywords if k.arg in params]
    out = {}
    for p, a in given:
        if p in rebound or isinstance(a, gast.Starred) or not (
                isinstance(a, (gast.Name, gast.Attribute)) and norm.rooted_global(a)):
            continue
        try:
            obj = norm.static(a)
        except Exception:  # noqa: BLE001 (not known now: the callee's reads stay unresolved)
            continue
        if id(obj) in by_object:
            out[p] = obj
    return out


# the methods that change a list, dict or set in place: theirs and not their immutable counterparts'
_CHANGING = frozenset(n for t in (list, dict, set) for n in vars(t) if not n.startswith("_")) \
    - frozenset(vars(tuple)) - frozenset(vars(frozenset)) - frozenset(vars(types.MappingProxyType))


def _stores(node):
    """The attribute nodes `node`'s def stores into or changes (`obj.a = v`, `obj.a += v`, `del
    obj.a`, `obj.a[k] = v`, `obj.a.update(...)`)."""
    for n in gast.walk(node):
        if isinstance(n, gast.Attribute) and isinstance(n.ctx, (gast.Store, gast.Del)):
            yield n
        elif isinstance(n, gast.Subscript) and isinstance(n.ctx, (gast.Store, gast.Del)):
            while isinstance(n, gast.Subscript):
                n = n.value
            if isinstance(n, gast.Attribute):
                yield n
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in _CHANGING \
                and isinstance(n.func.value, gast.Attribute):
            yield n.func.value


def pass_stored(norm, node: gast.Call, fn):
    """(call node, callee) for a call of a user function `fn` in a function that stores into
    attributes: where the callee names an object whose attributes the caller stored, a copy of it
    taking the caller's locals that hold them as leading parameters; else the call unchanged.
    Refuses a callee that stores into such an attribute, or reads one of the names stored through a
    value it cannot resolve now."""
    objects = getattr(norm, "attr_objects", {})
    appended = getattr(norm, "attr_appended", set())
    if not (objects or appended) or not resolve.is_user_function(getattr(fn, "__func__", fn)):
        return node, fn
    got = _callee_def(fn)
    if got is None:
        return node, fn
    body, ns, filename, func, owner = got
    callee = getattr(func, "__name__", "the function")
    names = {a for _, a in objects} | appended
    by_object: dict = {}
    for _, (obj, attr, _local) in objects.items():
        by_object.setdefault(id(obj), []).append(attr)
    local = _locals_of(body)
    passed = _objects_passed(norm, node, body, by_object, local)
    if passed:
        ns = {**ns, **passed}
        local -= set(passed)
    call_args, call_keywords, items, decided = attr_callee_lists.unroll(norm, node, body, ns, local, objects)
    needs: dict = {}  # the callee's dotted path -> (the caller's local, object, attribute)
    for n in gast.walk(body):
        if not isinstance(n, gast.Attribute):
            continue
        base = _resolve(n.value, ns, local)
        if base is None:
            if n.attr in names and isinstance(n.ctx, gast.Load):
                _refuse_unresolved(norm, node, callee, n.attr)
            continue
        if n.attr in appended:  # (a list this function appends to: its items are read when it compiles)
            _refuse_unresolved(norm, node, callee, n.attr)
        if id(base) not in by_object or (prefix := dotted(n.value)) is None:
            continue
        for attr in by_object[id(base)]:
            if (id(base), attr) in objects:
                needs[f"{prefix}.{attr}"] = (objects[(id(base), attr)][2], base, attr)
    for n in _stores(body):
        base = _resolve(n.value, ns, local)
        if base is not None and (id(base), n.attr) in objects:
            text = dotted(n) or n.attr
            norm.fail(node, f"`{callee}` stores into `{text}`, an attribute this function also stores into; "
                            "s2s passes a callee the value this function stored, so this function would not see "
                            "the callee's store.",
                      f"Return the new value from `{callee}` and store it here, or store `.{n.attr}` only in "
                      f"`{callee}`.")
    if not needs and not items:
        return node, fn
    paths = sorted(needs)
    label = f"{type(owner).__name__}_{func.__name__}" if owner is not None else func.__name__
    key = ("stored_attrs", func.__code__, id(func), id(owner), tuple(paths),
           tuple(sorted((k, id(v)) for k, v in passed.items())),
           tuple(sorted((k, id(v)) for k, v in items.items())), decided)

    def compute():
        taken = {a.id for a in body.args.args} | set(ns) | build.names_in(body)
        params, marker = [], {}
        for p in paths:
            name = idioms.fresh_name(p.replace(".", "_"), taken)
            taken.add(name)
            params.append(name)
            marker[p] = (name, needs[p][1], needs[p][2])
        body.args.args = [build.name(p) for p in params] + body.args.args
        for a in body.args.args:
            a.ctx = gast.Param()
        ns[MARKER] = marker
        for p in passed:  # (the parameters stay parameters: the call still passes the objects)
            ns.pop(p, None)
        body.name = f"{label}_stored".replace("<lambda>", "lambda_").replace("__call__", "call")
        return idioms.synthesize(body.name, body, ns, filename, origin=func)
    spec = idioms.remember(key, (func, owner), compute, idioms.namespace_stamp(func))
    args = [build.name(needs[p][0]) for p in paths] + call_args
    call = build.located(gast.Call(func=node.func, args=args, keywords=call_keywords), node, only_missing=True)
    return call, spec


def _refuse_unresolved(norm, node, callee: str, attr: str) -> None:
    norm.fail(node, f"`{callee}` reads `.{attr}`, an attribute this function stores into, of a value s2s cannot "
                    "tell apart now from the object stored into; s2s gives a function it calls the objects' "
                    "attributes as they were when it compiled it, so the call would not see the store, nor carry "
                    "its derivative.",
              f"Pass the value to `{callee}` as an argument, or read `.{attr}` in this function.")
