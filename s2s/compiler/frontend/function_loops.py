"""`for f in (np.sin, softplus): ...` and `for fun, p in zip(funs, params): ...` over functions
(or objects of user classes) known when transforming: the body once per item, the item resolved
in each copy, so the program grows with the list written in the source, never with a trip count."""
from __future__ import annotations

import copy
import types

import gast

from ..ir import build
from . import function_values, idioms
from .reads import note as note_read


def loop_over_functions(norm, s: gast.For) -> bool:
    """`for f in (np.sin, softplus): ...` over functions (or objects of user classes) known now: the
    body once per item, with `f` resolved in each copy (the program grows with the list written in the source, never
    with a trip count). Returns whether it handled the loop."""
    if isinstance(s.target, gast.Tuple) and not s.orelse:
        return _loop_over_zipped_functions(norm, s)
    if not isinstance(s.target, gast.Name) or s.orelse:
        return False
    items = _function_items(norm, s.iter)
    if items is None:
        return False
    if any(isinstance(n, (gast.Break, gast.Continue)) for b in s.body for n in gast.walk(b)) or \
            any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and n.id == s.target.id
                for b in s.body for n in gast.walk(b)):
        return False
    for item in items:
        for stmt in s.body:
            norm.stmt(_replace_name(copy.deepcopy(stmt), s.target.id, item))
    return True


def _loop_over_zipped_functions(norm, s: gast.For) -> bool:
    """`for fun, p in zip(funs, params): ...` with `funs` functions known now (stax's serial): the
    body once per function, `fun` resolved in each copy and `p = params[k]` bound before it. The
    other sequences are indexed, so they must be at least as long (zip would stop earlier)."""
    it, names = s.iter, s.target.elts
    if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and not it.keywords
            and norm.env.lookup(it.func.id) == (True, zip) and not norm.is_local(it.func)
            and len(it.args) == len(names) and all(isinstance(n, gast.Name) for n in names)):
        return False
    found = [(k, _function_items(norm, a)) for k, a in enumerate(it.args)]
    found = [(k, items) for k, items in found if items is not None]
    if len(found) != 1:
        return False
    k, items = found[0]
    target = names[k].id
    if any(isinstance(n, (gast.Break, gast.Continue)) for b in s.body for n in gast.walk(b)) or \
            any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and n.id == target
                for b in s.body for n in gast.walk(b)):
        return False
    seqs = [None if j == k else norm.tmp(norm.atom(a), "seq") for j, a in enumerate(it.args)]
    norm.locals.update(q.id for q in seqs if q is not None)
    for i, item in enumerate(items):
        for j, n in enumerate(names):
            if j != k:
                norm.stmt(build.located(gast.Assign(targets=[build.name(n.id, store=True)], value=gast.Subscript(
                    value=copy.deepcopy(seqs[j]), slice=build.const(i), ctx=gast.Load()), type_comment=None), s,
                    only_missing=True))
        for stmt in s.body:
            norm.stmt(_replace_name(copy.deepcopy(stmt), target, item))
    return True


def _function_items(norm, it):
    """The items of a collection of functions known now, as expressions (None if `it` is not one):
    a literal (evaluated once, its lambdas lifted once), a local holding one, or a global list."""
    if isinstance(it, (gast.List, gast.Tuple)) and function_values.could_be(norm, it) or \
            isinstance(it, gast.Name) and it.id in norm.fvalues:
        refs = function_values.value(norm, it)
        if not isinstance(refs, (list, tuple)):
            return None
        name = norm.namer.fresh("functions")
        norm.fvalues[name] = refs
        return [build.located(gast.Subscript(value=build.name(name), slice=build.const(i), ctx=gast.Load()), it,
                              only_missing=True)
                for i in range(len(refs))]
    if isinstance(it, (gast.Name, gast.Attribute)) and \
            (isinstance(it, gast.Name) and it.id not in norm.locals or isinstance(it, gast.Attribute)
             and norm.rooted_global(it)):
        try:
            seq = norm.static(it)
        except Exception:  # noqa: BLE001 - not static
            return None
        if isinstance(seq, list):  # unrolled: one copy of the body per item (the code is reused while
            note_read("len", seq, None, len(seq))  # the list has as many)
        if isinstance(seq, (list, tuple)) and seq and all(idioms.is_function_value(f) for f in seq):
            return [build.located(gast.Subscript(value=copy.deepcopy(it), slice=build.const(i), ctx=gast.Load()), it,
                                  only_missing=True)
                    for i in range(len(seq))]
        if isinstance(seq, (list, tuple)) and seq and all(_is_instance_of_user_class(o) for o in seq):
            names = []  # objects (convnet's layers): each a global name, so `layer.method(...)` is its method
            for i, o in enumerate(seq):
                note_read("item", seq, i, o)
                names.append(norm.namer.fresh(f"{type(o).__name__}_"))
                norm.fscope[names[-1]] = o
            return [build.located(build.name(n), it, only_missing=True) for n in names]
    return None


def _is_instance_of_user_class(obj) -> bool:
    """An instance of a class defined in Python (not an array, number, string, container or function)."""
    return isinstance(getattr(obj, "__dict__", None), dict) and not isinstance(obj, (type, types.ModuleType)) \
        and not callable(obj) and type(obj).__module__ not in ("builtins", "numpy")


def _replace_name(stmt, name, value):
    class Swap(gast.NodeTransformer):
        def visit_Name(self, n):
            if n.id == name and isinstance(n.ctx, gast.Load):
                return build.located(copy.deepcopy(value), n, only_missing=True)
            return n
    return Swap().visit(stmt)
