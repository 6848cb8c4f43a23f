"""Dicts in a transformed function: their methods (`keys`, `values`, `items`, `get`),
comprehensions, `dict(...)` of pairs written at the call, and `sorted(d)` / `sorted(d.items())`
in the order of the keys, each lowered to lists and the `ext.s2s_*` helpers of rules_idioms.py."""
from __future__ import annotations

import copy
import operator

import gast

from ..ir import build
from ..primitives.registry import EXT
from . import static_locals

DICT_METHODS = {"keys", "values", "items", "get"}


def items_by_key(norm, node) -> bool:
    """`sorted(d.items())` or `sorted(d.items(), key=operator.itemgetter(0))` (or `key=lambda kv:
    kv[0]`): a dict's items in the order of its keys (unique, so values are never compared)."""
    items = node.args[0]
    if not (isinstance(items, gast.Call) and isinstance(items.func, gast.Attribute) and items.func.attr == "items"
            and not items.args and not items.keywords):
        return False
    for k in node.keywords:
        if k.arg == "reverse" and isinstance(k.value, gast.Constant) and k.value.value is False:
            continue
        if k.arg != "key":
            return False
        if isinstance(k.value, gast.Lambda) and len(k.value.args.args) == 1 and not k.value.args.defaults \
                and isinstance(k.value.body, gast.Subscript) and isinstance(k.value.body.value, gast.Name) \
                and k.value.body.value.id == k.value.args.args[0].id and isinstance(k.value.body.slice, gast.Constant) \
                and k.value.body.slice.value == 0:
            continue
        if not (isinstance(k.value, gast.Call) and isinstance(k.value.func, (gast.Name, gast.Attribute))
                and norm.rooted_global(k.value.func)
                and static_locals.static_or_none(norm, k.value.func) is operator.itemgetter
                and len(k.value.args) == 1 and not k.value.keywords
                and static_locals.literal_value(k.value.args[0]) == 0):
            return False
    return True


def sorted_items(norm, node):
    """`sorted(d.items(), key=itemgetter(0))` -> `[(k, d[k]) for k in sorted(d)]`."""
    d = node.args[0].func.value
    use_ext(norm)
    keys = norm.tmp(build.call("ext.s2s_sorted_keys", [norm.atom(d)]))
    norm.locals.add(keys.id)
    k = norm.namer.fresh("k")
    elt = gast.Tuple(elts=[build.name(k), gast.Subscript(value=copy.deepcopy(d), slice=build.name(k), ctx=gast.Load())],
                     ctx=gast.Load())
    comp = gast.ListComp(elt=elt, generators=[gast.comprehension(target=build.name(k, store=True), iter=keys,
                                                                 ifs=[], is_async=0)])
    return norm.expr(build.located(comp, node, only_missing=True))


def dict_entries(norm, arg):
    """{key: value node} of `dict(arg)`'s argument written in the call, a literal dict or a literal
    list/tuple of (key, value) pairs with constant keys (later ones replace earlier ones, as in
    Python); None for any other argument."""
    if isinstance(arg, gast.Dict) and all(isinstance(k, gast.Constant) for k in arg.keys):
        return dict(zip((k.value for k in arg.keys), arg.values))
    if not isinstance(arg, (gast.List, gast.Tuple)):
        return None
    out = {}
    for e in arg.elts:
        if not (isinstance(e, (gast.Tuple, gast.List)) and len(e.elts) == 2 and isinstance(e.elts[0], gast.Constant)):
            return None
        out[e.elts[0].value] = e.elts[1]
    return out


def dict_comp(norm, node: gast.DictComp):
    """`{k: v for ...}` -> lists of keys and values built in a loop, then one dict of them."""
    keys, values = norm.namer.fresh("keys"), norm.namer.fresh("values")
    norm.emit(build.assign(keys, build.list_([])))
    norm.emit(build.assign(values, build.list_([])))
    norm.locals.update({keys, values})
    inner = [
        gast.Expr(value=gast.Call(func=gast.Attribute(value=build.name(keys), attr="append", ctx=gast.Load()),
                                  args=[node.key], keywords=[])),
        gast.Expr(value=gast.Call(func=gast.Attribute(value=build.name(values), attr="append", ctx=gast.Load()),
                                  args=[node.value], keywords=[]))]
    for gen in reversed(node.generators):
        for cond in reversed(gen.ifs):
            inner = [gast.If(test=cond, body=inner, orelse=[])]
        inner = [gast.For(target=gen.target, iter=gen.iter, body=inner, orelse=[], type_comment=None)]
    inner = inner[0]
    for n in gast.walk(build.located(inner, node, only_missing=True)):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            norm.locals.add(n.id)
    src, norm.source_lines = norm.source_lines, None
    norm.stmt(inner)
    norm.source_lines = src
    use_ext(norm)
    return build.call("ext.s2s_dict_from", [build.name(keys), build.name(values)])


def is_dict(norm, v) -> bool:
    """Whether local `v` certainly holds a dict: built here as one, or used with a dict method."""
    if isinstance(v, gast.Dict) or isinstance(v, gast.DictComp) or static_locals.is_dict_call(norm, v):
        return True
    if not (isinstance(v, gast.Name) and v.id in norm.locals):
        return False
    for n in build.walk(norm.fn):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in ("keys", "items", "values") \
                and isinstance(n.func.value, gast.Name) and n.func.value.id == v.id:
            return True
        if isinstance(n, gast.Assign) and any(isinstance(t, gast.Name) and t.id == v.id for t in n.targets) \
                and (isinstance(n.value, (gast.Dict, gast.DictComp)) or static_locals.is_dict_call(norm, n.value)):
            return True
    return False


def keys_source(v):
    """The dict whose keys `sorted(...)` reads: `d` of `d.keys()`, else `v` itself."""
    return v.func.value if isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) else v


def keys_of(norm, d):
    """The keys of the dict held in atom `d`, as a list (no derivative)."""
    use_ext(norm)
    return build.call("ext.s2s_keys", [d])


def use_ext(norm):
    """Make the `ext.` helpers visible to the generated function."""
    norm.ns["ext"] = EXT
