"""Calls of objects known when transforming, lowered to core form: `operator.add`/`mul`/...,
`operator.itemgetter`, `functools.reduce`, `map`, NumPy's ufunc methods (`np.add.reduce`,
`.accumulate`, `.reduceat`, `.outer`, `.at`), integer casts, random samplers, `sorted`/`dict`
(dict_calls.py), callees specialized on the functions passed to them (function_calls.py), a call
of a call (`itemgetter(0)(x)`, `grad(inner)(y)`), sampler and dict methods of local values, and a
parameter called.

Each hook returns a core-form expression, or None when the call is not one of these idioms (the
normalizer then lowers it as an ordinary call).
"""
from __future__ import annotations

import copy
import functools
import operator
import types

import gast
import numpy as np

from ...base import record
from ...errors import S2STypeError, where
from ...library import python_inside
from .. import analysis
from ..ir import build
from ..primitives import registry, ufunc_methods
from . import dict_calls, function_calls, function_values, idioms, resolve, sampling, static_locals
from .reads import note as note_read

# the `operator` module's functions (operator.add) -> the operator node they are (`operator_fn` facts)
_BINOPS = {getattr(operator, registry.PRIMS[k].operator_fn): op for op, k in analysis.BINOPS.items()
           if registry.PRIMS[k].operator_fn}


_UNOPS = {getattr(operator, registry.PRIMS[k].operator_fn): op for op, k in analysis.UNOPS.items()
          if registry.PRIMS[k].operator_fn}


def call(norm, node: gast.Call, obj):
    """Lower a call of the static object `obj`, or return None to let the normalizer do it."""
    if resolve.prim_key(obj) is not None:
        return None
    if isinstance(obj, type) and issubclass(obj, (np.integer, np.bool_)) and len(node.args) == 1 and not node.keywords:
        dtype = build.name(norm.bind(obj.__name__, obj))  # np.int64(x): an integer cast, no derivative
        return build.call("rt.int_cast", [norm.atom(node.args[0]), dtype])
    if isinstance(obj, types.FunctionType):
        _check_arguments(norm, node, obj)
    rec = record.of(obj)
    if rec is not None and rec.inside is not None:
        return function_calls.jvp_inside(norm, node, obj, rec.inside)
    if obj in _BINOPS and len(node.args) == 2 and not node.keywords:
        return build.binop(norm.atom(node.args[0]), _BINOPS[obj](), norm.atom(node.args[1]))
    if obj in _UNOPS and len(node.args) == 1:
        return norm.expr(build.located(gast.UnaryOp(op=_UNOPS[obj](), operand=node.args[0]), node, only_missing=True))
    if isinstance(obj, operator.itemgetter):
        return _itemgetter(norm, node, obj)
    if obj is functools.reduce:
        return _reduce(norm, node)
    if obj is map:
        return _map(norm, node)
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, np.ufunc) and getattr(obj, "__name__", "") in ("reduce", "accumulate", "reduceat", "outer", "at"):
        return _ufunc_method(norm, node, owner, obj.__name__)
    if obj is len and len(node.args) == 1 and isinstance(node.args[0], gast.Name) and node.args[0].id in norm.fvalues:
        return build.const(len(norm.fvalues[node.args[0].id]))  # a collection of functions: known now
    if obj is sorted and len(node.args) == 1 and dict_calls.items_by_key(norm, node):
        return dict_calls.sorted_items(norm, node)
    if obj is sorted and len(node.args) == 1 and node.keywords and {k.arg for k in node.keywords} <= {"key", "reverse"}:
        given = [k for k in node.keywords if not (k.arg == "key" and isinstance(k.value, gast.Constant)
                                                  and k.value.value is None)]  # (key=None: by the items)
        by = python_inside.sorted_by if any(k.arg == "key" for k in given) else python_inside.sorted_values
        func = function_values.callee(norm, node.func, function_values.Ref(by))
        return norm.expr(build.located(gast.Call(func=func, args=node.args, keywords=given), node,
                                       only_missing=True))  # sorted(xs, key=f, reverse=r) of numbers
    if obj is sorted and len(node.args) == 1 and not node.keywords:
        dict_calls.use_ext(norm)
        return build.call("ext.s2s_sorted_keys", [norm.atom(dict_calls.keys_source(node.args[0]))])
    if obj is dict and len(node.args) <= 1 and all(k.arg is not None for k in node.keywords):
        entries = dict_calls.dict_entries(norm, node.args[0]) if node.args else {}
        if entries is not None:  # dict(pairs or mapping written here, **keywords): a dict literal
            entries.update((k.arg, k.value) for k in node.keywords)
            return gast.Dict(keys=[build.const(k) for k in entries], values=[norm.atom(v) for v in entries.values()])
    if sampling.is_sampler(obj):
        sampler = build.name(norm.bind(_label(obj), obj))
        return sampling.sample_call(norm, sampler, [norm.atom(a) for a in node.args],
                                    {k.arg: norm.atom(k.value) for k in node.keywords})
    if _for_call(obj, node) is not obj:
        return build.call(build.name(norm.bind(obj.__name__, _for_call(obj, node))), [norm.atom(a) for a in node.args],
                      {k.arg: norm.atom(k.value) for k in node.keywords})
    target = function_calls.specialized_callee(norm, node, obj)
    if target is None:
        return None
    fn, node = target
    args = [norm.atom(a) for a in node.args]
    kws = {k.arg: norm.atom(k.value) for k in node.keywords}
    return build.call(build.name(norm.bind(fn.__name__, fn)), args, kws)


def _check_arguments(norm, node, fn) -> None:
    """A call of a Python function with a keyword its signature does not take raises Python's
    TypeError at the user's line: never a call that drops it."""
    if any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return  # (lengths known only later)
    try:
        sig = record.signature_of(fn)
    except (TypeError, ValueError):
        return
    params = sig.parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return
    names = {p.name for p in params if p.kind != p.POSITIONAL_ONLY}
    for k in node.keywords:
        if k.arg not in names:
            norm.fail(node, f"`{getattr(fn, '__name__', 'f')}(...)`: got an unexpected keyword argument "
                            f"'{k.arg}'", kind=S2STypeError)


def _for_call(obj, node):
    """A vmap called with keywords or with defaults left out: the vmap whose in_axes say so."""
    adapt = getattr(type(obj), "for_call", None)
    return obj if adapt is None else adapt(obj, len(node.args), {k.arg for k in node.keywords})


def _ufunc_method(norm, node, ufunc, method: str):
    """`np.add.reduce(x)` (np.sum over axis 0), `np.add.accumulate(x)` (np.cumsum over axis 0),
    `np.multiply.outer(a, b)` (the ufunc of `a` with an axis per dimension of `b` added) and the
    statement `np.add.at(y, i, v)` (`y` rebound to a copy with `v` added at `i`, repeats summed)."""
    name = f"np.{ufunc.__name__}.{method}"
    table = {"reduce": ufunc_methods.REDUCE, "accumulate": ufunc_methods.ACCUMULATE,
             "reduceat": ufunc_methods.REDUCEAT}.get(method)
    if table is not None:
        target = table.get(ufunc)
        if target is None or not node.args:
            norm.fail(node, f"s2s differentiates `{name}` for {', '.join(f'np.{u.__name__}' for u in table)} only.",
                      "Call the NumPy reduction itself (np.sum, np.prod, np.cumsum, ...).")
        keywords = list(node.keywords)
        args = list(node.args)
        if method != "reduce":
            args[0] = _refuse_scalar(norm, node, method)
        if len(node.args) < 2 + (method == "reduceat") and not any(k.arg == "axis" for k in keywords):
            keywords.append(gast.keyword(arg="axis", value=build.const(0)))  # a ufunc method's default axis
        func = function_values.callee(norm, node.func, function_values.Ref(target))
        return norm.expr(build.located(gast.Call(func=func, args=args, keywords=keywords), node, only_missing=True))
    if method == "outer":
        if len(node.args) != 2 or node.keywords:
            norm.fail(node, f"s2s supports `{name}(a, b)` with two arguments.")
        a, b = (norm.atom(x) for x in node.args)
        nd_a, nd_b = (norm.tmp(build.call("xp.ndim", [x])) for x in (a, b))
        stop = norm.tmp(build.binop(nd_a, gast.Add(), nd_b))
        axes = norm.tmp(build.call("tuple", [norm.tmp(build.call("range", [nd_a, stop]))]))
        wide = norm.tmp(build.call("xp.expand_dims", [a, axes]))
        norm.locals.update(x.id for x in (wide, b) if isinstance(x, gast.Name))
        func = function_values.callee(norm, node.func, function_values.Ref(ufunc))
        return norm.expr(build.located(gast.Call(func=func, args=[wide, b], keywords=[]), node, only_missing=True))
    if ufunc in ufunc_methods.AT_HELPER and len(node.args) == 3 and not node.keywords \
            and isinstance(node.args[0], gast.Name) and node.args[0].id in norm.locals:
        y = node.args[0].id
        norm.check_alias(norm.current, y, f"{name}({y}, ...)")
        index, v = norm.atom(node.args[1]), norm.atom(node.args[2])
        v = _at_values(norm, y, index, v)
        norm.assign_to(build.located(build.name(y, store=True), node, only_missing=True),
                       build.call(ufunc_methods.AT_HELPER[ufunc], [build.name(y), index, v]))
        return build.const(None)
    if ufunc not in ufunc_methods.AT or len(node.args) != 3 or node.keywords \
            or not (isinstance(node.args[0], gast.Name) and node.args[0].id in norm.locals):
        norm.fail(node, f"s2s supports `{name}(y, index, values)` for np.add, np.subtract and np.multiply on a local "
                        "array `y`.",
                  "Write `y = y + np.bincount(...)`, or a loop of `y[i] = y[i] + v`.")
    y = node.args[0].id
    norm.check_alias(norm.current, y, f"{name}({y}, ...)")
    index, v = norm.atom(node.args[1]), norm.atom(node.args[2])
    v = _at_values(norm, y, index, v)
    if ufunc_methods.AT[ufunc] < 0:
        v = norm.tmp(gast.UnaryOp(op=gast.USub(), operand=v))
    fresh = norm.tmp(build.call("xp.copy", [build.name(y)]))
    norm.assign_to(build.located(build.name(y, store=True), node, only_missing=True),
                   build.call("rt.add_at", [fresh, index, v]))
    return build.const(None)


def _refuse_scalar(norm, node, method: str) -> gast.expr:
    """`np.maximum.accumulate(x)` and `.reduceat` raise NumPy's TypeError where `x` is 0-d (the
    cumulative functions they stand for accept one): a guard before the call, a `raise` that every
    transform keeps (frontend/guards.py). Returns the atom that holds the array."""
    x = norm.atom(node.args[0])
    if isinstance(x, gast.Name):
        norm.locals.add(x.id)  # (the call is normalized again, over this atom)
    zero_d = norm.tmp(gast.Compare(left=norm.tmp(build.call("xp.ndim", [x])), ops=[gast.Eq()],
                                   comparators=[build.const(0)]))
    fail = gast.Raise(exc=gast.Call(func=build.name("TypeError"), args=[build.const(f"cannot {method} on a scalar")],
                                    keywords=[]), cause=None)
    norm.emit(build.if_(zero_d, norm.block([build.located(fail, node, only_missing=True)]), [gast.Pass()]))
    return x


def _at_values(norm, y, index, v):
    """The values of `np.add.at(y, index, v)` broadcast to the shape of `y[index]`, as NumPy
    broadcasts them: so the cotangent of `v` is summed over the broadcast axes."""
    shape = norm.tmp(build.call("xp.shape", [norm.tmp(build.subscript(build.name(y), index))]))
    return norm.tmp(build.call("xp.broadcast_to", [v, shape]))


def _itemgetter(norm, node, getter):
    if len(node.args) != 1 or node.keywords:
        norm.fail(node, "s2s supports `operator.itemgetter(...)` called with one argument.")
    items = getter.__reduce__()[1]
    base = norm.atom(node.args[0])
    parts = [norm.tmp(build.subscript(base, norm.atom(_const_node(i, node)))) for i in items]
    return parts[0] if len(parts) == 1 else build.tuple_(parts)


def _const_node(v, where):
    return build.located(gast.Constant(value=v, kind=None), where, only_missing=True)


def _reduce(norm, node):
    """`functools.reduce(f, xs[, init])` -> a loop `acc = f(acc, xs[i])` over the list."""
    if node.keywords or not 2 <= len(node.args) <= 3:
        norm.fail(node, "s2s supports `functools.reduce(f, sequence)` and `functools.reduce(f, sequence, initial)`.")
    f = node.args[0]
    if isinstance(f, gast.Lambda):  # reduce(lambda a, b: ..., xs): lift it like a local def
        function_calls.local_function(norm, f)
        f = build.name(f.s2s_lifted)
    seq = norm.atom(node.args[1])
    acc = norm.namer.fresh("acc")
    i = norm.namer.fresh("i")
    norm.locals.update({acc, i, seq.id if isinstance(seq, gast.Name) else acc})
    start = 0
    if len(node.args) == 3:
        first = node.args[2]
    else:
        first = gast.Subscript(value=build.name(seq.id), slice=build.const(0), ctx=gast.Load())
        start = 1
    stmts = [gast.Assign(targets=[build.name(acc, store=True)], value=first, type_comment=None),
             gast.For(target=build.name(i, store=True),
                      iter=gast.Call(func=build.name("range"), args=[build.const(start), gast.Call(
                          func=build.name("len"), args=[build.name(seq.id)], keywords=[])], keywords=[]),
                      body=[gast.Assign(targets=[build.name(acc, store=True)], value=gast.Call(
                          func=f, args=[build.name(acc), gast.Subscript(value=build.name(seq.id), slice=build.name(i),
                                                                    ctx=gast.Load())], keywords=[]),
                          type_comment=None)], orelse=[], type_comment=None)]
    src, norm.source_lines = norm.source_lines, None
    for s in stmts:
        norm.stmt(build.located(s, node, only_missing=True))
    norm.source_lines = src
    return build.name(acc)


def _map(norm, node):
    """`map(f, xs, ...)` -> the list `[f(x, ...) for x, ... in zip(xs, ...)]` (consumed at once, as
    by `sum` or `list`); `f` is resolved once: a global, or a function made here (a lambda, a
    partial of local values) with the locals it closes over."""
    if node.keywords or len(node.args) < 2:
        norm.fail(node, "s2s supports `map(f, sequence, ...)` with a function and one or more sequences.")
    f = node.args[0]
    if not (isinstance(f, (gast.Name, gast.Attribute)) and norm.rooted_global(f) and not (
            isinstance(f, gast.Name) and f.id in norm.lifted)):
        if not function_values.could_be(norm, f):
            norm.fail(node, "`map` needs a function s2s knows when it transforms the function: a global, a lambda "
                            "or def made here, a local bound once to one, or functools.partial of one.")
        f = function_values.callee(norm, f, function_values.value(norm, f))
    seqs = node.args[1:]  # (normalized by the loop the list comprehension becomes)
    names = [norm.namer.fresh("item") for _ in seqs]
    target = build.name(names[0], store=True) if len(names) == 1 else \
        gast.Tuple(elts=[build.name(n, store=True) for n in names], ctx=gast.Store())
    source = seqs[0] if len(seqs) == 1 else gast.Call(func=build.name("zip"), args=seqs, keywords=[])
    elt = gast.Call(func=f, args=[build.name(n) for n in names], keywords=[])
    comp = gast.ListComp(elt=elt, generators=[gast.comprehension(target=target, iter=source, ifs=[], is_async=0)])
    for n in gast.walk(comp):
        if isinstance(n, gast.expr) and not hasattr(n, "lineno"):
            gast.copy_location(n, node)
    return norm.expr_ListComp(comp)


def method(norm, node: gast.Call):
    """Dict methods and sampler methods on a local value; None for everything else."""
    m = node.func.attr
    if m in sampling.METHODS:
        base = norm.atom(node.func.value)
        return sampling.method_call(norm, base, m, [norm.atom(a) for a in node.args],
                                    {k.arg: norm.atom(k.value) for k in node.keywords})
    if m not in dict_calls.DICT_METHODS:
        return None
    d = node.func.value
    if m == "keys" and not node.args:
        return dict_calls.keys_of(norm, norm.atom(d))
    if m in ("values", "items") and not node.args:
        k = norm.namer.fresh("k")
        elt = gast.Subscript(value=copy.deepcopy(d), slice=build.name(k), ctx=gast.Load()) if m == "values" else \
            gast.Tuple(elts=[build.name(k), gast.Subscript(value=copy.deepcopy(d), slice=build.name(k), ctx=gast.Load())],
                       ctx=gast.Load())
        keys = gast.Call(func=gast.Attribute(value=copy.deepcopy(d), attr="keys", ctx=gast.Load()), args=[], keywords=[])
        comp = gast.ListComp(elt=elt, generators=[gast.comprehension(target=build.name(k, store=True), iter=keys,
                                                                     ifs=[], is_async=0)])
        return norm.expr(build.located(comp, node, only_missing=True))
    if m == "get" and 1 <= len(node.args) <= 2:
        default = node.args[1] if len(node.args) == 2 else gast.Constant(value=None, kind=None)
        test = gast.Compare(left=node.args[0], ops=[gast.In()], comparators=[copy.deepcopy(d)])
        value = gast.Subscript(value=copy.deepcopy(d), slice=node.args[0], ctx=gast.Load())
        return norm.expr(build.located(gast.IfExp(test=test, body=value, orelse=default), node, only_missing=True))
    return None


def _label(obj) -> str:
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "sampler")
    return f"{type(owner).__name__}_{name}" if owner is not None and not isinstance(owner, types.ModuleType) \
        else name


def tolist(norm, base):
    """`x.tolist()`: nested lists of x's elements, each differentiable (runtime/shapes.py)."""
    return build.call("rt.tolist", [base])


def static_item(norm, node: gast.Subscript):
    """`TABLE[key]` of a global list or dict (of functions, say) with a literal key."""
    base = norm.static(node.value)
    try:
        value = base[node.slice.value]
    except (TypeError, KeyError, IndexError):
        raise static_locals.NotStatic() from None
    note_read("item", base, node.slice.value, value)  # (the code is reused while the entry holds it)
    return value


def call_of_call(norm, node: gast.Call):
    """`operator.itemgetter(0, 2)(x)`, `grad(inner)(x)` of a lambda or def made in this function:
    a call of a value made by a call (also through a local bound once to the transform's result,
    `vf = vmap(partial(f, g)); vf(x)`)."""
    f = node.func
    lit = static_locals.single_literal(norm, f) if isinstance(f, gast.Name) else None
    if isinstance(lit, gast.Call) and isinstance(lit.func, (gast.Name, gast.Attribute)) \
            and norm.rooted_global(lit.func) and lit.args and static_locals.bound_once(norm, lit):
        rec = record.of(static_locals.static_or_none(norm, lit.func))
        if rec is not None and rec.transform:
            node = build.located(gast.Call(func=copy.deepcopy(lit), args=node.args, keywords=node.keywords), node,
                                 only_missing=True)
            f = node.func
    if not (isinstance(f, gast.Call) and (isinstance(f.func, (gast.Name, gast.Attribute)))
            and norm.rooted_global(f.func)):
        return None
    try:
        maker = norm.static(f.func)
    except Exception:  # noqa: BLE001 - not static: the normalizer reports it
        return None
    rec = record.of(maker)
    if rec is not None and rec.transform and getattr(maker, "__name__", "") == "jit" and len(f.args) == 1 \
            and not f.keywords and function_calls.is_transform_call_of_local(norm, f.args[0]):
        # jit(vmap(f))(x) of a function made here: jit computes what it is given, so vmap(f)(x)
        return norm.expr(build.located(gast.Call(func=f.args[0], args=node.args, keywords=node.keywords), node,
                                       only_missing=True))
    if rec is not None and rec.transform and f.args and function_calls.local_function(norm, f.args[0]) is not None:
        return function_calls.transform_of_local(norm, node, maker)
    if rec is None and isinstance(maker, types.FunctionType) and not idioms.is_library_function(maker) \
            and not node.keywords and not any(isinstance(a, gast.Starred) for a in node.args):
        return function_calls.returned_call(norm, node, maker)  # maker(ans, x)(g): the function a call returned, called
    keys = [static_locals.literal_value(a) for a in f.args]
    if maker is operator.itemgetter and keys and all(k is not None for k in keys):
        return _itemgetter(norm, node, operator.itemgetter(*keys))
    return None


def call_method_primitive(obj) -> str | None:
    """The rule-table key of `type(obj).__call__` when it has rules (s2s.defvjp): a call of `obj`
    is then that primitive with `obj` as its first argument (its rules, not its body). None for a
    function, a class, or an object whose `__call__` s2s transforms."""
    if isinstance(obj, (type, types.FunctionType, types.MethodType, functools.partial)) or record.of(obj) is not None:
        return None
    call = next((vars(c)["__call__"] for c in type(obj).__mro__ if "__call__" in vars(c)), None)
    rec = record.of(call) if isinstance(call, types.FunctionType) else None
    return None if rec is None else rec.prim


def parameter_called(norm, node: gast.Call):
    """`f(a, ...)` with `f` a parameter, as `rt.call_value<n>(at, "f", f, a, ...)`: resolved when it runs
    (a vector-space value whose class's `__call__` has derivative rules; anything else is refused
    there, at this line). None for any other call s2s cannot resolve."""
    func, root = node.func, node.func
    while isinstance(root, gast.Subscript):  # fs[0](x): an item of a parameter
        root = root.value
    if not (isinstance(root, gast.Name) and root.id in {a.id for a in norm.fn.args.args}) or node.keywords \
            or len(node.args) >= 5 or any(isinstance(a, gast.Starred) for a in node.args):
        return None
    at = where(*norm.where(node)) if norm.where(node) else ""
    return build.call(f"rt.call_value{len(node.args)}",
                      [build.const(at), build.const(root.id), norm.atom(func), *(norm.atom(a) for a in node.args)])
