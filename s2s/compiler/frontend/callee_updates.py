"""A called function that updates its array argument in place (issue 45, section 4): `softmax(x)`
doing `x -= np.max(x)`. NumPy's caller sees the update, so s2s calls a copy-in/copy-out version
of the callee, `softmax_copied(x)`: it copies each parameter it updates when it starts, and
returns its result with those parameters' final values; the caller then stores each final value
into its own array (`y[...] = new`, an update in place that the caller's own alias checks and
derivatives follow). An argument that is a new array (an arithmetic result) is not stored back:
nothing else sees it. Other arguments (a call's result, which may be a view such as `x.T`; an
element `x[0]`; a global) keep the transforms' refusal.
"""
from __future__ import annotations

import copy
import types

import gast

from ...base import record
from ..ir import build
from . import idioms, resolve


def _updated_params(node: gast.FunctionDef) -> list[str]:
    """The parameters the function updates in place (`x -= m`, `x[i] = v`, `x[i] += v`) and never
    rebinds; [] where it rebinds one (its update is then of its own array) or has nested functions."""
    params = [a.id for a in node.args.args]
    updated, rebound = set(), set()
    for n in gast.walk(node):
        if isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not node:
            return []
        if isinstance(n, gast.AugAssign):
            t = n.target
            base = t.value if isinstance(t, gast.Subscript) else t
            if isinstance(base, gast.Name) and base.id in params:
                updated.add(base.id)
        elif isinstance(n, (gast.Assign, gast.AnnAssign)):
            for t in (n.targets if isinstance(n, gast.Assign) else [n.target]):
                for e in gast.walk(t):
                    if isinstance(e, gast.Subscript) and isinstance(e.value, gast.Name) and e.value.id in params \
                            and isinstance(e.ctx, gast.Store):
                        updated.add(e.value.id)
                    elif isinstance(e, gast.Name) and isinstance(e.ctx, gast.Store) and e.id in params:
                        rebound.add(e.id)
        elif isinstance(n, (gast.For, gast.With)) or isinstance(n, gast.NamedExpr):
            for e in gast.walk(getattr(n, "target", n)):
                if isinstance(e, gast.Name) and isinstance(e.ctx, gast.Store) and e.id in params:
                    rebound.add(e.id)
    if updated & rebound or n_method_calls(node, params):
        return []
    return [p for p in params if p in updated]


def n_method_calls(node, params) -> bool:
    """Whether a method is called on a parameter (`x.sort()`, `lst.append(v)` may change it): left
    to the transforms' refusal."""
    return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name)
               and n.func.value.id in params for n in gast.walk(node))


def _returns(stmts, extra):
    for s in stmts:
        if isinstance(s, gast.Return):
            s.value = build.tuple_([s.value if s.value is not None else build.const(None), *extra()])
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(s, field, None)
            if isinstance(inner, list):
                _returns(inner, extra)


def _variant(fn, updated):
    def compute():
        node, filename = idioms._parsed(fn)
        node = copy.deepcopy(node)
        pos = (node.body[0].lineno, node.body[0].col_offset) if node.body else (node.lineno, node.col_offset)
        copies = []
        for p in updated:
            c = build.assign(p, build.call(build.attr(build.name(p), "copy"), []))
            c.lineno, c.col_offset = pos
            copies.append(c)
        extra = lambda: [build.name(p) for p in updated]  # noqa: E731
        _returns(node.body, extra)
        if not node.body or not isinstance(node.body[-1], gast.Return):
            r = gast.Return(value=build.tuple_([build.const(None), *extra()]))
            r.lineno, r.col_offset = getattr(node.body[-1], "lineno", node.lineno), 0
            node.body.append(r)
        node.body = copies + node.body
        node.name = f"{fn.__name__}_copied"
        return idioms._synth(node.name, node, idioms._env_ns(fn), filename, origin=fn)
    return idioms._remember(("copied", fn.__code__, id(fn)), fn, compute, idioms._namespace_stamp(fn))


def _new_array(norm, arg) -> bool:
    """Whether `arg` makes a new array that no other name sees (arithmetic: `x * 2.0`, `-x`)."""
    return isinstance(arg, (gast.BinOp, gast.UnaryOp))


def call(norm, node):
    """`f(y, x * 2)` of a user function that updates a parameter in place: the copy-in/copy-out
    version's call, with the final values stored back into the caller's local arrays; None where
    the call is not one (or an argument is neither a local array nor a new one)."""
    if not isinstance(node.func, gast.Name) or node.func.id in norm.locals or node.keywords:
        return None
    try:
        fn = norm.static(node.func)
    except Exception:  # noqa: BLE001 (the general path reports it)
        return None
    if not isinstance(fn, types.FunctionType) or not resolve.is_user_function(fn) or record.of(fn) is not None \
            or fn.__code__.co_flags & 0x0C or fn.__code__.co_argcount != len(node.args):
        return None
    try:
        node_def, _ = idioms._parsed(fn)
    except Exception:  # noqa: BLE001
        return None
    updated = _updated_params(node_def)
    if not updated:
        return None
    params = [a.id for a in node_def.args.args]
    back = []
    for p in updated:
        arg = node.args[params.index(p)]
        if isinstance(arg, gast.Name) and arg.id in norm.locals and arg.id not in norm.containers:
            back.append((p, arg.id))  # (an array: a list or dict the caller built keeps the refusal)
        elif not _new_array(norm, arg):
            return None
    variant = _variant(fn, updated)
    label = norm.namer.fresh(variant.__name__)
    norm.fscope[label] = norm.fscope[variant.__name__] = variant  # (its def is resolved by name too)
    new = gast.copy_location(gast.Call(func=gast.Name(id=label, ctx=gast.Load(), annotation=None, type_comment=None),
                                       args=node.args, keywords=[]), node)
    out = norm.expr(new)
    out = out if build.is_atom(out) else norm.tmp(out)
    for p, local in back:
        v = norm.tmp(build.subscript(out, build.const(1 + updated.index(p))))
        target = gast.Subscript(value=gast.Name(id=local, ctx=gast.Load(), annotation=None, type_comment=None),
                                slice=gast.Constant(value=Ellipsis, kind=None), ctx=gast.Store())
        gast.copy_location(target, node)
        norm.assign_to(target, v)
    return build.subscript(out, build.const(0))
