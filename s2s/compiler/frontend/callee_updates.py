"""A called function that updates its array argument in place (issue 45, section 4): `softmax(x)`
doing `x -= np.max(x)`. NumPy's caller sees the update, so s2s calls a copy-in/copy-out version
of the callee, `softmax_copied(x)`: it copies each parameter it updates when it starts, and
returns its result with those parameters' final values; the caller then stores each final value
into its own array (`y[...] = new`, an update in place that the caller's own alias checks and
derivatives follow). An argument that is a new array (an arithmetic result, or the result of a
NumPy function that always allocates one: `np.dot(U, c)`, `np.exp(z)`) is not stored back: nothing
else sees it. A callee that updates a parameter and then rebinds its name (the CS224n course's
`x -= np.max(x); x = np.exp(x); x /= np.sum(x)`) has no single final value to store back: its
copy only goes in, and only a new array may be passed. Other arguments (a call's result, which
may be a view such as `x.T`; an element `x[0]`; a global) keep the transforms' refusal.
"""
from __future__ import annotations

import copy
import types

import gast
import numpy as np

from ...base import record
from ..ir import build
from ..primitives.registry import NEW_ARRAY_CALLS
from . import idioms, resolve


def _updated_params(node: gast.FunctionDef) -> tuple[list[str], list[str]]:
    """The parameters the function updates in place (`x -= m`, `x[i] = v`, `x[i] += v`): those it
    never rebinds (copied in and out), and those it also rebinds (copied in only: after the rebind
    the name holds another array, so the caller's final value is not at hand); none where it has
    nested functions or calls a method on a parameter."""
    params = [a.id for a in node.args.args]
    updated, rebound = set(), set()
    for n in gast.walk(node):
        if isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not node:
            return [], []
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
                        if isinstance(e.slice, gast.Constant) and isinstance(e.slice.value, str):
                            return [], []  # (a dict's item: frontend/dict_updates.py, else the refusal)
                        updated.add(e.value.id)
                    elif isinstance(e, gast.Name) and isinstance(e.ctx, gast.Store) and e.id in params:
                        rebound.add(e.id)
        elif isinstance(n, (gast.For, gast.With)) or isinstance(n, gast.NamedExpr):
            for e in gast.walk(getattr(n, "target", n)):
                if isinstance(e, gast.Name) and isinstance(e.ctx, gast.Store) and e.id in params:
                    rebound.add(e.id)
    if n_method_calls(node, params):
        return [], []
    return [p for p in params if p in updated - rebound], [p for p in params if p in updated & rebound]


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


def _variant(fn, updated, returned):
    """`fn` copying each parameter in `updated` when it starts and returning `returned`'s final values
    after its result."""
    def compute():
        node, filename = idioms.parsed_def(fn)
        node = copy.deepcopy(node)
        pos = (node.body[0].lineno, node.body[0].col_offset) if node.body else (node.lineno, node.col_offset)
        copies = []
        for p in updated:
            c = build.assign(p, build.call(build.attr(build.name(p), "copy"), []))
            c.lineno, c.col_offset = pos
            copies.append(c)
        extra = lambda: [build.name(p) for p in returned]  # noqa: E731
        _returns(node.body, extra)
        if not node.body or not isinstance(node.body[-1], gast.Return):
            r = gast.Return(value=build.tuple_([build.const(None), *extra()]))
            r.lineno, r.col_offset = getattr(node.body[-1], "lineno", node.lineno), 0
            node.body.append(r)
        node.body = copies + node.body
        node.name = f"{fn.__name__}_copied"
        return idioms.synthesize(node.name, node, idioms.namespace_of(fn), filename, origin=fn)
    return idioms.remember(("copied", fn.__code__, id(fn)), fn, compute, idioms.namespace_stamp(fn))


def _new_array(norm, arg) -> bool:
    """Whether `arg` makes a new array that no other name sees (arithmetic: `x * 2.0`, `-x`; a ufunc
    called without `out=`, `np.exp(z)`; `np.dot(U, c)` and the other products)."""
    if isinstance(arg, (gast.BinOp, gast.UnaryOp)):
        return True
    if not isinstance(arg, gast.Call) or arg.keywords:
        return False
    try:
        fn = norm.static(arg.func)
    except Exception:  # noqa: BLE001 (not a function s2s resolves: not known to allocate)
        return False
    name = getattr(fn, "__name__", "")
    return isinstance(fn, np.ufunc) and fn.nout == 1 or getattr(np, name, None) is fn and "xp." + name in NEW_ARRAY_CALLS


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
        node_def, _ = idioms.parsed_def(fn)
    except Exception:  # noqa: BLE001
        return None
    returned, copied_only = _updated_params(node_def)
    if not returned and not copied_only:
        return None
    params = [a.id for a in node_def.args.args]
    back = []
    for p in returned:
        arg = node.args[params.index(p)]
        if isinstance(arg, gast.Name) and arg.id in norm.locals and arg.id not in norm.containers:
            back.append((p, arg.id))  # (an array: a list or dict the caller built keeps the refusal)
        elif not _new_array(norm, arg):
            return None
    if not all(_new_array(norm, node.args[params.index(p)]) for p in copied_only):
        return None
    variant = _variant(fn, returned + copied_only, returned)
    label = norm.namer.fresh(variant.__name__)
    norm.fscope[label] = norm.fscope[variant.__name__] = variant  # (its def is resolved by name too)
    new = gast.copy_location(gast.Call(func=gast.Name(id=label, ctx=gast.Load(), annotation=None, type_comment=None),
                                       args=node.args, keywords=[]), node)
    out = norm.expr(new)
    out = out if build.is_atom(out) else norm.tmp(out)
    for p, local in back:
        v = norm.tmp(build.subscript(out, build.const(1 + returned.index(p))))
        target = gast.Subscript(value=gast.Name(id=local, ctx=gast.Load(), annotation=None, type_comment=None),
                                slice=gast.Constant(value=Ellipsis, kind=None), ctx=gast.Store())
        gast.copy_location(target, node)
        norm.assign_to(target, v)
    return build.subscript(out, build.const(0))
