"""A callee looping over a list of objects its caller stored attributes on: `REG.W = W;
l2_regularization([REG])` with `for layer in layers: ... layer.W ...` (deepnet's penalties).

frontend/attr_callees.py passes a callee the caller's stored values where the callee names the
stored object itself. Here the callee names it through a loop variable, which s2s cannot tell apart
from other objects when it compiles. Where the call passes a list or tuple display whose items are
objects known now (non-local names or attribute chains, which the caller's compiled code is reused
only while they hold), and the callee uses that parameter only as the iterable of `for v in p:`
loops, the callee's copy has each loop unrolled over the display's items, each copy of the body
naming its item by a fresh global bound to it. The parameter is dropped from the copy and its
argument from the call. `hasattr(item, 'a')` of an attribute the item has now becomes `True` (kept
while the attribute holds its value, or stored by the caller). Loops with `break` or `continue`,
a loop variable used elsewhere, or a parameter used otherwise are left alone (and refused as before).
"""
from __future__ import annotations

import copy

import gast

from ..ir import build
from . import idioms
from .reads import note as note_read


def _display_items(norm, arg):
    """The objects of a list or tuple display of non-local names or attribute chains, found now; None
    where any item is not one."""
    if not isinstance(arg, (gast.List, gast.Tuple)) or not arg.elts:
        return None
    items = []
    for e in arg.elts:
        if not (isinstance(e, (gast.Name, gast.Attribute)) and norm.rooted_global(e)):
            return None
        try:
            items.append(norm.static(e))
        except Exception:  # noqa: BLE001 (not known now: left alone)
            return None
    return items


def _loops_over(body, param: str):
    """The `for v in param:` statements of `body` that can be unrolled (a plain name target, no
    `else`, no `break` or `continue`), or None where `param` is read otherwise, or such a loop's
    variable is bound or read outside its loops."""
    loops = [s for s in gast.walk(body) if isinstance(s, gast.For) and isinstance(s.iter, gast.Name)
             and s.iter.id == param]
    if not loops:
        return None
    loop_ids = {id(s) for s in loops}
    if any(id(n) in loop_ids for s in loops for b in s.body for n in gast.walk(b)):
        return None  # (a loop over the list inside another: unrolled once, the inner copies would stay)
    iters = {id(s.iter) for s in loops}
    if any(isinstance(n, gast.Name) and n.id == param and id(n) not in iters and not isinstance(n.ctx, gast.Param)
           for n in gast.walk(body)):
        return None
    for s in loops:
        if not isinstance(s.target, gast.Name) or s.orelse or any(
                isinstance(n, (gast.Break, gast.Continue)) for b in s.body for n in gast.walk(b)):
            return None
    variables = {s.target.id for s in loops}
    targets = {id(s.target) for s in loops}
    inside = {id(n) for s in loops for b in s.body for n in gast.walk(b)}
    for n in gast.walk(body):
        if isinstance(n, gast.Name) and n.id in variables and id(n) not in targets and (
                id(n) not in inside or not isinstance(n.ctx, gast.Load)):
            return None
    if any(isinstance(n, (gast.FunctionDef, gast.Lambda, gast.comprehension)) for s in loops
           for b in s.body for n in gast.walk(b)):
        return None  # (a nested scope might bind the variable's name: not renamed)
    return loops


def _rename(stmts, old: str, new: str) -> list:
    out = copy.deepcopy(stmts)
    for s in out:
        for n in gast.walk(s):
            if isinstance(n, gast.Name) and n.id == old:
                n.id = new
    return out


def _unroll(body, loops, names: list) -> None:
    """Replace each loop in `body` by its body once per item name, the variable renamed."""
    targets = {id(s) for s in loops}
    for n in list(gast.walk(body)):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(n, field, None)
            if not isinstance(stmts, list) or not any(id(s) in targets for s in stmts):
                continue
            new = []
            for s in stmts:
                if id(s) not in targets:
                    new.append(s)
                    continue
                for item in names:
                    new.extend(_rename(s.body, s.target.id, item))
                if not names:
                    new.append(gast.Pass())
            setattr(n, field, new)


def _known_hasattr(body, items: dict, objects: dict) -> list:
    """`hasattr(item, 'a')` -> `True` where the item has `.a` now: noted as a read (the code is
    reused while it holds), or an attribute the caller stores (its store keeps it). Returns the
    (item, attribute) pairs it decided, for the copy's cache key."""
    decided: list = []
    for n in gast.walk(body):
        for field, value in list(gast.iter_fields(n)):
            if isinstance(value, list):
                for i, v in enumerate(value):
                    if (t := _hasattr_true(v, items, objects, decided)) is not None:
                        value[i] = t
            elif (t := _hasattr_true(value, items, objects, decided)) is not None:
                setattr(n, field, t)
    return decided


def _hasattr_true(n, items: dict, objects: dict, decided: list):
    if not (isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "hasattr"
            and len(n.args) == 2 and not n.keywords and isinstance(n.args[0], gast.Name)
            and n.args[0].id in items and isinstance(n.args[1], gast.Constant) and isinstance(n.args[1].value, str)):
        return None
    obj, attr = items[n.args[0].id], n.args[1].value
    if not hasattr(obj, attr):
        return None  # (refused as any hasattr: s2s cannot know now whether it will have it)
    if (id(obj), attr) not in objects:
        note_read("attr", obj, attr, getattr(obj, attr))
    decided.append((n.args[0].id, attr))
    return build.located(build.const(True), n)


def unroll(norm, node: gast.Call, body, ns: dict, local: set, objects: dict):
    """Unroll the callee's loops over list displays of known objects the call passes (see the module
    docstring), binding each item to a fresh name in `ns`. Returns (the call's new positional args,
    its new keywords, the items bound, the `hasattr` tests decided); `body`, `ns` and `local` are
    updated in place."""
    args, keywords = list(node.args), list(node.keywords)
    params = [a.id for a in body.args.args]
    given = [(p, i, None) for i, p in enumerate(params[:len(args)])] + \
        [(k.arg, None, k) for k in keywords if k.arg in params]
    stored = {k[0] for k in objects}
    bound: dict = {}
    taken = set(params) | set(ns) | build.names_in(body)
    drop_args, drop_kws, drop_params = set(), set(), set()
    for p, index, kw in given:
        arg = args[index] if index is not None else kw.value
        if index is not None and isinstance(arg, gast.Starred) or any(isinstance(a, gast.Starred) for a in args):
            break
        items = _display_items(norm, arg)
        if items is None or not any(id(o) in stored for o in items):
            continue
        loops = _loops_over(body, p)
        if loops is None:
            continue
        names = []
        for o in items:
            name = idioms.fresh_name(f"{p}_{len(names)}", taken)
            bound[name] = o
            names.append(name)
        _unroll(body, loops, names)
        drop_params.add(p)
        if index is not None:
            drop_args.add(index)
        else:
            drop_kws.add(id(kw))
    if not bound:
        return args, keywords, bound, ()
    builtin = ns.get("hasattr", hasattr) is hasattr and "hasattr" not in local
    decided = _known_hasattr(body, bound, objects) if builtin else []
    kept = [a for a in body.args.args if a.id not in drop_params]
    n_default = len(body.args.defaults)
    first_default = len(body.args.args) - n_default
    body.args.defaults = [d for j, d in enumerate(body.args.defaults)
                          if body.args.args[first_default + j].id not in drop_params]
    body.args.args = kept
    ns.update(bound)
    local -= drop_params
    args = [a for i, a in enumerate(args) if i not in drop_args]
    keywords = [k for k in keywords if id(k) not in drop_kws]
    return args, keywords, bound, tuple(sorted(decided))
