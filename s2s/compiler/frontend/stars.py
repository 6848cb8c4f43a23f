"""`*xs` and `**kw` at calls and in tuples, lowered with the lengths and keys known when
transforming: `f(*xs, **kw)` -> `f(xs[0], xs[1], k=kw['k'])`, `for a, b in zip(*xs)`, `(*x.shape,
2)` -> `tuple(x.shape) + (2,)`, and `xs + (a,)` of sequences of known lengths as one tuple, so that
each element keeps its own derivative."""
from __future__ import annotations

import copy
import functools
import inspect
import types

import gast

from ...base import record
from ..ir import build
from . import static_locals


def expand_stars(norm, node: gast.Call) -> gast.Call:
    """`f(a, *xs, **kw)` -> `f(a, xs[0], xs[1], k=kw['k'])` when the lengths and keys are known."""
    if not any(isinstance(a, gast.Starred) for a in node.args) and all(k.arg is not None for k in node.keywords):
        return node
    f = node.func
    if isinstance(f, gast.Attribute) and f.attr in _SHAPE_SAMPLERS and len(node.args) == 1 and not node.keywords \
            and static_locals.static_length(norm, node.args[0].value) is None:  # rs.randn(*x.shape): the shape as a tuple
        shape = build.located(gast.Call(func=build.name("tuple"), args=[node.args[0].value], keywords=[]), node,
                              only_missing=True)
        return build.located(gast.Call(func=build.located(gast.Attribute(value=f.value, attr=_SHAPE_SAMPLERS[f.attr],
                                                                         ctx=gast.Load()), f,
                                                                      only_missing=True),
                             args=[shape], keywords=[]), node, only_missing=True)
    args = []
    for a in node.args:
        if isinstance(a, gast.Starred):
            n = static_locals.static_length(norm, a.value)
            if n is None and sum(isinstance(b, gast.Starred) for b in node.args) == 1 and not node.keywords:
                arity = _arity(norm, node.func)  # `vf(rngs, *params)`: what the callee takes
                if arity is not None and arity >= len(node.args) - 1:
                    args += _unpacked(norm, a, arity - (len(node.args) - 1))
                    continue
            if n is None:
                norm.fail(a, f"s2s needs to know how many values `*{static_locals.text(a.value)}` passes when it transforms "
                             "the function, and cannot tell here.",
                          "Pass the elements explicitly (`f(xs[0], xs[1])`), or build the sequence as a "
                          "tuple/list literal in this function (`xs = (a, b)`).")
            args += [build.located(gast.Subscript(value=copy.deepcopy(a.value), slice=build.const(i), ctx=gast.Load()), a,
                                   only_missing=True)
                     for i in range(n)]
        else:
            args.append(a)
    kws = []
    for k in node.keywords:
        if k.arg is not None:
            kws.append(k)
            continue
        keys = static_locals.static_keys(norm, k.value)
        if keys is None:
            norm.fail(k.value, f"s2s needs to know the keys of `**{static_locals.text(k.value)}` when it transforms the "
                               "function, and cannot tell here.",
                      "Pass the keywords explicitly, or build the dict in this function as a literal or "
                      "`dict(a=..., b=...)`.")
        kws += [gast.keyword(arg=key, value=build.located(gast.Subscript(value=copy.deepcopy(k.value),
                                                                         slice=build.const(key), ctx=gast.Load()),
                                                          k.value, only_missing=True))
                for key in keys]
    return build.located(gast.Call(func=node.func, args=args, keywords=kws), node, only_missing=True)


def zip_args(norm, it: gast.Call, target) -> list:
    """The sequences of `for a, b, c in zip(*xs)`: with `xs`'s length unknown now, the target's
    (each item of the zip unpacks into it, so `xs` must hold that many sequences)."""
    if len(it.args) == 1 and isinstance(it.args[0], gast.Starred) and not it.keywords \
            and static_locals.static_length(norm, it.args[0].value) is None and isinstance(target, (gast.Tuple, gast.List)) \
            and not any(isinstance(e, gast.Starred) for e in target.elts):
        return _unpacked(norm, it.args[0], len(target.elts))
    return expand_stars(norm, it).args


def _unpacked(norm, a: gast.Starred, n: int) -> list:
    """`*xs` that must pass `n` values: `x0, ..., xn = xs` first (which raises, as the call
    would, when xs holds another number), then the names."""
    names = [norm.namer.fresh("star") for _ in range(n)]
    norm.locals.update(names)
    target = gast.Tuple(elts=[build.name(m, store=True) for m in names], ctx=gast.Store())
    norm.stmt(build.located(gast.Assign(targets=[target], value=copy.deepcopy(a.value), type_comment=None), a,
                            only_missing=True))
    return [build.located(build.name(m), a, only_missing=True) for m in names]


def _arity(norm, func, depth: int = 0):
    """How many positional arguments the callee `func` takes, when it is known now and fixed (no
    defaults, no `*args`): a function, `partial(f, a, ...)`, a transform of one (`vmap(f, ...)`), or
    a local bound once to one of those. None otherwise."""
    if depth > 8:
        return None
    lit = static_locals.single_literal(norm, func)
    if lit is not None:
        return _arity(norm, lit, depth + 1)
    if isinstance(func, gast.Call) and func.args and isinstance(func.func, (gast.Name, gast.Attribute)) \
            and norm.rooted_global(func.func):
        maker = static_locals.static_or_none(norm, func.func)
        inner = _arity(norm, func.args[0], depth + 1)
        if maker is functools.partial and not func.keywords and inner is not None:
            return inner - (len(func.args) - 1) if inner >= len(func.args) - 1 else None
        rec = record.of(maker)
        return inner if rec is not None and rec.transform and len(func.args) == 1 else None
    if isinstance(func, gast.Name) and func.id in norm.locals or not isinstance(func, (gast.Name, gast.Attribute)):
        return None
    obj = static_locals.static_or_none(norm, func)
    if not isinstance(obj, types.FunctionType) or obj.__defaults__ or obj.__kwdefaults__ \
            or obj.__code__.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or obj.__code__.co_kwonlyargcount:
        return None
    return obj.__code__.co_argcount


_SHAPE_SAMPLERS = {"randn": "standard_normal", "rand": "random_sample"}  # f(*dims) -> f'(dims)


def joined_tuple(norm, node: gast.Tuple):
    """`(*x.shape, 2)` -> `tuple(x.shape) + (2,)`: the starred parts as tuples, joined."""
    parts, run = [], []
    for e in node.elts:
        if isinstance(e, gast.Starred):
            if run:
                parts.append(build.located(gast.Tuple(elts=run, ctx=gast.Load()), node, only_missing=True))
                run = []
            parts.append(build.located(gast.Call(func=build.name("tuple"), args=[e.value], keywords=[]), e,
                                       only_missing=True))
        else:
            run.append(e)
    if run:
        parts.append(build.located(gast.Tuple(elts=run, ctx=gast.Load()), node, only_missing=True))
    out = parts[0]
    for p in parts[1:]:
        out = build.located(gast.BinOp(left=out, op=gast.Add(), right=p), node, only_missing=True)
    return out


def sequence_concat(norm, node: gast.BinOp):
    """`xs + (a,)` of tuples/lists whose lengths are known now: one tuple (or list) of their
    elements, so each element keeps its own derivative."""
    if not isinstance(node.op, gast.Add):
        return None
    left, right = (static_locals.static_length(norm, v) if not _is_number(v) else None for v in (node.left, node.right))
    if left is None or right is None:
        return None
    elts = [_element(v, i) for v, n in ((node.left, left), (node.right, right)) for i in range(n)]
    as_list = isinstance(_literal(norm, node.left), gast.List)
    return norm.expr(build.located((gast.List if as_list else gast.Tuple)(elts=elts, ctx=gast.Load()), node,
                                   only_missing=True))


def _is_number(v):
    return isinstance(v, gast.Constant)


def _literal(norm, v):
    return v if isinstance(v, (gast.Tuple, gast.List)) else static_locals.single_literal(norm, v)


def _element(v, i):
    if isinstance(v, (gast.Tuple, gast.List)):
        return v.elts[i]
    return build.located(gast.Subscript(value=copy.deepcopy(v), slice=build.const(i), ctx=gast.Load()), v, only_missing=True)
