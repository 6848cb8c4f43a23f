"""Attribute stores on objects that outlive the call: `self.Z = Z`, `self.n += 1`, `cfg.x = v`.

Layer code caches on `self` during its forward pass. A store `obj.a = v` (with `obj` a non-local
object: `self` of a bound method, a global) becomes a local variable that holds the value (so a
later read of `obj.a` in the same function is that local, and carries its derivative like any
other alias) and an effect `ext.s2s_setattr(obj, 'a', v)` (primitives/rules_objects.py) that
stores the primal value where the plain function stores it: every transform keeps an effect once,
in the forward sweep. An attribute the function both stores and reads (`self.n += 1`) is read at
run time when the call starts (`ext.s2s_getattr`), not folded in as a constant: it changes from
call to call. A function it calls that reads such an attribute gets the local passed in
(frontend/attr_callees.py). Stores into an attribute of a local object (a pytree argument) stay
refused.
"""
from __future__ import annotations

import ast

import gast

from ..analysis import dotted
from ..ir import build
from . import attr_callees, reads, refusals


def check_read(norm, node, obj) -> None:
    """Refuse to fold in `obj.a` as a constant where the function being compiled, or one it is
    compiled for, stores into `obj.a`: this read would see the value from before the store, without
    its derivative. (A function compiled on its own folds `obj.a` in, watched on every call, whatever
    other functions store into it: the result never depends on what was compiled before.)"""
    if node.attr in reads.stored_here(obj):
        text = dotted(node) or node.attr
        norm.fail(node, f"`{text}` is an attribute that a transformed function stores into (`{text} = ...`); "
                        "s2s reads the attributes of objects here when it compiles, so this read would not see "
                        "a store made during the call, nor carry its derivative.",
                  f"Pass the value as an argument (`f(..., {node.attr})`), or read `{text}` only in the "
                  "function that stores it.")


def _targets(s):
    if isinstance(s, gast.Assign):
        return s.targets
    if isinstance(s, (gast.AugAssign, gast.AnnAssign)):
        return [s.target]
    return []


def _flat(t):
    if isinstance(t, (gast.Tuple, gast.List)):
        for e in t.elts:
            yield from _flat(e)
    else:
        yield t


def _outside(norm, node) -> bool:
    """Whether attribute chain `node` is rooted in a name that is no local of the function."""
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name) and node.id not in norm.locals


def begin(norm) -> None:
    """Find the attribute paths the function stores into; for each one it also reads, read the
    object's attribute at run time when the call starts (if it has it now)."""
    norm.attr_locals = {}
    norm.attr_objects = {}  # (id(obj), attribute) -> (obj, attribute, the local that holds it)
    found, passed = norm.env.lookup(attr_callees.MARKER)  # (a callee given its caller's stored values)
    for d, (param, obj, attr) in (passed.items() if found and isinstance(passed, dict) else ()):
        norm.attr_locals[d] = param
        norm.attr_objects[(id(obj), attr)] = (obj, attr, param)
    if not _stores_attributes(norm.census):
        return  # (no store into an attribute, nor into an item of one: nothing below would find one)
    stored = {}
    for s in gast.walk(norm.fn):
        if isinstance(s, (gast.FunctionDef, gast.Lambda)) and s is not norm.fn:
            continue
        for t in _targets(s):
            for e in _flat(t):
                if isinstance(e, gast.Attribute) and _outside(norm, e.value) and (d := dotted(e)) is not None:
                    stored.setdefault(d, e)
    containers = _containers(norm)
    if not stored and not containers:
        return
    read = {d for n in gast.walk(norm.fn) if isinstance(n, gast.Attribute) and isinstance(n.ctx, gast.Load)
            and (d := dotted(n)) in stored}
    read |= {dotted(s.target) for s in gast.walk(norm.fn) if isinstance(s, gast.AugAssign)
             and dotted(s.target) in stored}
    calls = any(isinstance(n, gast.Call) for n in gast.walk(norm.fn))
    for d in sorted(stored):
        e = stored[d]
        local = norm.namer.fresh(d.replace(".", "_"))
        norm.locals.add(local)
        norm.attr_locals[d] = local
        try:
            obj = norm.static(e.value)
        except Exception:  # noqa: BLE001 (the store reports it at its line)
            continue
        reads.register_store(obj, e.attr)
        norm.attr_objects[(id(obj), e.attr)] = (obj, e.attr, local)
        if d in containers:
            continue  # (its copy is read below)
        if d in read or calls:  # (a callee may read it before this function stores it: attr_callees.py)
            if hasattr(obj, e.attr):
                base = norm.value_of(e.value, d.rsplit(".", 1)[0], obj)
                norm.emit(build.assign(local, build.call("ext.s2s_getattr", [base, build.const(e.attr)])))
    norm.attr_containers = {}
    for d in sorted(containers):
        e = containers[d]
        try:
            obj = norm.static(e.value)
        except Exception:  # noqa: BLE001 (the store reports it at its line)
            continue
        held = getattr(obj, e.attr, None)
        if not isinstance(held, dict) or not all(type(k) in (str, int, bool) for k in held):
            continue  # (only a dict the object holds now, keyed by constants: else refused at the store)
        local = norm.attr_locals.get(d) or norm.namer.fresh(d.replace(".", "_"))
        norm.locals.add(local)
        norm.attr_locals[d] = local
        norm.attr_containers[d] = (obj, e.attr)
        reads.register_store(obj, e.attr)
        norm.attr_objects[(id(obj), e.attr)] = (obj, e.attr, local)
        base = norm.value_of(e.value, d.rsplit(".", 1)[0], obj)
        keys = list(held)
        src = norm.namer.fresh(f"{e.attr}_held")
        norm.emit(build.assign(src, build.call("ext.s2s_dict_of", [base, build.const(e.attr),
                                                                  build.const(tuple(keys))])))
        items = []
        for k in keys:
            item = norm.namer.fresh(f"{e.attr}_item")
            norm.emit(build.assign(item, build.subscript(build.name(src), build.const(k))))
            items.append(build.name(item))
        # (a dict display of the keys it holds now: the function's stores go to this copy, and every
        # transform sees a dict; s2s_dict_of refuses a dict whose keys changed since)
        norm.emit(build.assign(local, gast.Dict(keys=[build.const(k) for k in keys], values=items)))


def _stores_attributes(facts) -> bool:
    """Whether an assignment of the function (its census `facts`) stores into an attribute or into
    an item of one."""
    for s in facts.of(gast.Assign, gast.AugAssign, gast.AnnAssign):
        for t in _targets(s):
            for e in _flat(t):
                if isinstance(e, gast.Attribute) or isinstance(e, gast.Subscript) and isinstance(e.value, gast.Attribute):
                    return True
    return False


def _containers(norm) -> dict:
    """The attribute paths of dicts on non-local objects the function stores an item into
    (`self.ctx["X"] = X`, `layer.params["w"] = w`): dotted path -> the attribute node."""
    out = {}
    for s in gast.walk(norm.fn):
        if isinstance(s, (gast.FunctionDef, gast.Lambda)) and s is not norm.fn:
            continue
        for t in _targets(s) if isinstance(s, gast.Assign) else ():
            for e in _flat(t):
                if isinstance(e, gast.Subscript) and isinstance(e.value, gast.Attribute) \
                        and _outside(norm, e.value.value) and (d := dotted(e.value)) is not None:
                    out.setdefault(d, e.value)
    return out


def container_store(norm, target, value) -> bool:
    """`self.ctx["X"] = v` into a dict the object holds: the store into the function's copy of the
    dict (later reads of `self.ctx[...]`, here and in the functions it calls, read the copy, and
    carry the derivative), then the effect that stores the primal value into the object's dict.
    False where `target` is no such store."""
    d = dotted(target.value) if isinstance(target.value, gast.Attribute) else None
    held = getattr(norm, "attr_containers", {}).get(d) if d is not None else None
    if held is None or isinstance(target.slice, gast.Slice):
        return False
    obj, attr = held
    v = value if build.is_atom(value) else norm.tmp(value)
    local = norm.attr_locals[d]
    norm.assign_to(gast.copy_location(build.subscript(build.name(local), target.slice, store_=True), target), v)
    base = norm.value_of(target.value.value, d.rsplit(".", 1)[0], obj)
    now = norm.tmp(build.call("ext.s2s_getattr", [base, build.const(attr)]))  # (the dict it holds then)
    norm.tmp(build.call("ext.s2s_setitem", [now, norm.index(target.slice), v]), "_")
    return True


def read(norm, node) -> gast.Name | None:
    """The local that holds `obj.a` where the function stores into `obj.a`, else None."""
    d = dotted(node)
    local = getattr(norm, "attr_locals", {}).get(d) if d is not None else None
    return None if local is None else build.name(local)


def store(norm, target, value) -> None:
    """`obj.a = value`: the local that holds it, then the effect that stores the primal value."""
    d = dotted(target)
    if d is None or d not in getattr(norm, "attr_locals", {}):
        norm.fail(target, *refusals.store_attribute(d or target.attr))
    local = norm.attr_locals[d]
    obj = norm.static(target.value)
    base = norm.value_of(target.value, d.rsplit(".", 1)[0], obj)
    norm.assign_to(build.name(local, store=True), value)
    norm.tmp(build.call("ext.s2s_setattr", [base, build.const(target.attr), build.name(local)]), "_")


def aug_store(norm, s) -> None:
    """`obj.a += v` as `obj.a = obj.a + v` (the value read is the local when `obj.a` was stored)."""
    t = s.target
    old = norm.atom(gast.Attribute(value=t.value, attr=t.attr, ctx=gast.Load()))
    new = norm.tmp(build.binop(old, type(s.op)(), norm.atom(s.value)))
    store(norm, t, new)


def held(norm, sharers) -> list[str]:
    """The stored attributes (`self.Z`) among the names that share an array being updated in place:
    the object holds the array after the call, so the update is refused as for a name read later."""
    return [d for d, local in getattr(norm, "attr_locals", {}).items() if local in sharers]


def _root_outside(norm, node) -> bool:
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return isinstance(node, gast.Name) and node.id not in norm.locals


def append(norm, s) -> bool:
    """`self.hs.append(h)`, `self.cache["mask"].append(m)`: a list of a non-local object gets the
    primal value (`ext.s2s_append`, an effect kept once, as a store). The function must not read
    that list otherwise (s2s would fold in its items as they were when it compiled), nor call a
    function that reads an attribute of that name. False where `s` is no such call."""
    v = s.value
    if not (isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr == "append"
            and len(v.args) == 1 and not v.keywords):
        return False
    target = v.func.value
    if not isinstance(target, (gast.Attribute, gast.Subscript)) or not _root_outside(norm, target):
        return False
    if isinstance(target, gast.Subscript) and not isinstance(target.slice, gast.Constant):
        return False
    try:
        lst = norm.static(target)
    except Exception:  # noqa: BLE001 (the general path reports it)
        return False
    if not isinstance(lst, list):
        return False
    text = gast.dump(target)
    uses = [n for n in gast.walk(norm.fn) if isinstance(n, type(target)) and gast.dump(n) == text]
    if len(uses) > 1:
        norm.fail(s, f"`{ast.unparse(gast.gast_to_ast(target))}.append(...)` changes a list that lives outside "
                     "the function, which the function also reads; s2s reads such a list when it compiles, so "
                     "a read would not see the appended items.",
                  "Keep the items in a local list (append to it and read it), and append to the object's list "
                  "once, or return the local list.")
    attrs = {n.attr for n in gast.walk(target) if isinstance(n, gast.Attribute)}
    norm.attr_appended = getattr(norm, "attr_appended", set()) | attrs
    base = norm.value_of(target, "list", lst)
    item = norm.atom(v.args[0])
    if isinstance(item, gast.Name):  # (the list holds that array: an update in place of it is refused)
        label = f"{ast.unparse(gast.gast_to_ast(target))}[-1]"
        held = norm.attr_locals.get(label) or norm.namer.fresh("appended")
        norm.locals.add(held)
        norm.attr_locals[label] = held
        norm.assign_to(build.name(held, store=True), item)
    norm.tmp(build.call("ext.s2s_append", [base, item]), "_")
    return True


def super_call(norm, node):
    """`super().method(...)` in a method whose `self` s2s holds as a constant: the call of
    `super(cls, self).method` (cls the class that defines the method, Python's `__class__`), which
    s2s then follows like any bound method; None where `node` is no such call."""
    func = node.func
    if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Call)
            and isinstance(func.value.func, gast.Name) and func.value.func.id == "super"
            and not func.value.args and not func.value.keywords and "super" not in norm.locals):
        return None
    found, cls = norm.env.lookup("__class__")
    if not found or not isinstance(cls, type):
        norm.fail(func.value, "s2s follows `super().method(...)` only in a method of a class, called on an "
                              "instance (`obj.method`).", "Call `Base.method(self, ...)` instead.")
    ok, self_name = norm.env.lookup("__s2s_self__")  # (set where s2s binds a method to its instance)
    ok, obj = norm.env.lookup(self_name) if ok and isinstance(self_name, str) else (False, None)
    if not ok or not isinstance(obj, cls):
        norm.fail(func.value, "s2s follows `super().method(...)` in a method called on an instance "
                              "(`obj.method`), where it knows `self`.",
                  "Call `Base.method(self, ...)` instead.")
    try:
        method = getattr(super(cls, obj), func.attr)
    except AttributeError:
        norm.fail(func, f"`super().{func.attr}`: no base class of `{cls.__name__}` has `{func.attr}`.")
    label = norm.namer.fresh(f"super_{func.attr}")
    norm.fscope[label] = method
    return gast.copy_location(gast.Call(func=gast.Name(id=label, ctx=gast.Load(), annotation=None,
                                                       type_comment=None),
                                        args=node.args, keywords=node.keywords), node)
