"""Call-site idioms the normalizer lowers to core form: `f(*xs, **kw)` with lengths known when
transforming, `operator.add`/`mul`/`sub`/`mod`/`itemgetter`, `functools.reduce`, partials, bound
methods and callable instances, `*args` callees, functions passed as arguments (specialized on
their identity), random sampling, and dict methods (`keys`, `values`, `items`, `get`, `dict(...)`,
`sorted(d)`).

Each hook returns a core-form expression, or None when the call is not one of these idioms.

About 1,140 lines, on purpose: the hooks are independent of each other but share the lowering of a
call's arguments and the specialization on a callee's identity; split, each file would import the
same dozen helpers, and `normalize.expr_Call` would ask two modules instead of one.
"""
from __future__ import annotations

import copy
import functools
import inspect
import operator
import string
import types

import gast
import numpy as np

from ...base import record
from ...errors import S2SError, S2STypeError, where
from ...library import numpy_inside
from .. import analysis
from ..ir import build
from ..primitives import registry, ufunc_methods
from ..primitives.registry import EXT
from . import function_values, idioms, lift, resolve, returned, sampling
from .reads import note as note_read

# the `operator` module's functions (operator.add) -> the operator node they are (`operator_fn` facts)
_BINOPS = {getattr(operator, registry.PRIMS[k].operator_fn): op for op, k in analysis.BINOPS.items()
           if registry.PRIMS[k].operator_fn}
_UNOPS = {getattr(operator, registry.PRIMS[k].operator_fn): op for op, k in analysis.UNOPS.items()
          if registry.PRIMS[k].operator_fn}
DICT_METHODS = {"keys", "values", "items", "get"}


# ---------------------------------------------------------------- *xs and **kw

def expand_stars(norm, node: gast.Call) -> gast.Call:
    """`f(a, *xs, **kw)` -> `f(a, xs[0], xs[1], k=kw['k'])` when the lengths and keys are known."""
    if not any(isinstance(a, gast.Starred) for a in node.args) and all(k.arg is not None for k in node.keywords):
        return node
    f = node.func
    if isinstance(f, gast.Attribute) and f.attr in _SHAPE_SAMPLERS and len(node.args) == 1 and not node.keywords \
            and _static_length(norm, node.args[0].value) is None:  # rs.randn(*x.shape): the shape as a tuple
        shape = build.located(gast.Call(func=build.name("tuple"), args=[node.args[0].value], keywords=[]), node,
                              only_missing=True)
        return build.located(gast.Call(func=build.located(gast.Attribute(value=f.value, attr=_SHAPE_SAMPLERS[f.attr],
                                                                         ctx=gast.Load()), f,
                                                                      only_missing=True),
                             args=[shape], keywords=[]), node, only_missing=True)
    args = []
    for a in node.args:
        if isinstance(a, gast.Starred):
            n = _static_length(norm, a.value)
            if n is None and sum(isinstance(b, gast.Starred) for b in node.args) == 1 and not node.keywords:
                arity = _arity(norm, node.func)  # `vf(rngs, *params)`: what the callee takes
                if arity is not None and arity >= len(node.args) - 1:
                    args += _unpacked(norm, a, arity - (len(node.args) - 1))
                    continue
            if n is None:
                norm.fail(a, f"s2s needs to know how many values `*{_text(a.value)}` passes when it transforms "
                             "the function, and cannot tell here.",
                          "Pass the elements explicitly (`f(xs[0], xs[1])`), or build the sequence as a "
                          "tuple/list literal in this function (`xs = (a, b)`).")
            args += [build.located(gast.Subscript(value=copy_(a.value), slice=build.const(i), ctx=gast.Load()), a,
                                   only_missing=True)
                     for i in range(n)]
        else:
            args.append(a)
    kws = []
    for k in node.keywords:
        if k.arg is not None:
            kws.append(k)
            continue
        keys = _static_keys(norm, k.value)
        if keys is None:
            norm.fail(k.value, f"s2s needs to know the keys of `**{_text(k.value)}` when it transforms the "
                               "function, and cannot tell here.",
                      "Pass the keywords explicitly, or build the dict in this function as a literal or "
                      "`dict(a=..., b=...)`.")
        kws += [gast.keyword(arg=key, value=build.located(gast.Subscript(value=copy_(k.value), slice=build.const(key),
                                                               ctx=gast.Load()), k.value, only_missing=True))
                for key in keys]
    return build.located(gast.Call(func=node.func, args=args, keywords=kws), node, only_missing=True)


def zip_args(norm, it: gast.Call, target) -> list:
    """The sequences of `for a, b, c in zip(*xs)`: with `xs`'s length unknown now, the target's
    (each item of the zip unpacks into it, so `xs` must hold that many sequences)."""
    if len(it.args) == 1 and isinstance(it.args[0], gast.Starred) and not it.keywords \
            and _static_length(norm, it.args[0].value) is None and isinstance(target, (gast.Tuple, gast.List)) \
            and not any(isinstance(e, gast.Starred) for e in target.elts):
        return _unpacked(norm, it.args[0], len(target.elts))
    return expand_stars(norm, it).args


def _unpacked(norm, a: gast.Starred, n: int) -> list:
    """`*xs` that must pass `n` values: `x0, ..., xn = xs` first (which raises, as the call
    would, when xs holds another number), then the names."""
    names = [norm.namer.fresh("star") for _ in range(n)]
    norm.locals.update(names)
    target = gast.Tuple(elts=[build.name(m, store=True) for m in names], ctx=gast.Store())
    norm.stmt(build.located(gast.Assign(targets=[target], value=copy_(a.value), type_comment=None), a, only_missing=True))
    return [build.located(build.name(m), a, only_missing=True) for m in names]


def _arity(norm, func, depth: int = 0):
    """How many positional arguments the callee `func` takes, when it is known now and fixed (no
    defaults, no `*args`): a function, `partial(f, a, ...)`, a transform of one (`vmap(f, ...)`), or
    a local bound once to one of those. None otherwise."""
    if depth > 8:
        return None
    lit = _single_literal(norm, func)
    if lit is not None:
        return _arity(norm, lit, depth + 1)
    if isinstance(func, gast.Call) and func.args and isinstance(func.func, (gast.Name, gast.Attribute)) \
            and norm._rooted_global(func.func):
        maker = _static_or_none(norm, func.func)
        inner = _arity(norm, func.args[0], depth + 1)
        if maker is functools.partial and not func.keywords and inner is not None:
            return inner - (len(func.args) - 1) if inner >= len(func.args) - 1 else None
        rec = record.of(maker)
        return inner if rec is not None and rec.transform and len(func.args) == 1 else None
    if isinstance(func, gast.Name) and func.id in norm.locals or not isinstance(func, (gast.Name, gast.Attribute)):
        return None
    obj = _static_or_none(norm, func)
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


def _static_length(norm, v):
    if isinstance(v, (gast.Tuple, gast.List)) and not any(isinstance(e, gast.Starred) for e in v.elts):
        return len(v.elts)
    lit = _single_literal(norm, v)
    if lit is not None:
        return _static_length(norm, lit)
    if isinstance(v, gast.Name) and v.id not in norm.locals:
        obj = norm.static(v)
        if isinstance(obj, (tuple, list)):
            return len(obj)
    if isinstance(v, gast.Name) and v.id in norm.locals:
        return _rebound_length(norm, v.id)
    return None


def _rebound_length(norm, name: str):
    """The length of local `name` bound more than once, when every binding has the same known
    length: a literal, or `list(name)`/`tuple(name)` of itself (`args = list(args)` in a `*args`
    function, specialized to `args = (args_0, args_1)`), and its only other changes are item
    assignments (`args[i] = ...`), which keep the length."""
    if name in {a.id for a in norm.fn.args.args}:
        return None
    values, changed, item_only, stores = _function_facts(norm)
    if name in changed - item_only:
        return None
    if stores.get(name, 0) != len(values.get(name, [])):  # (bound elsewhere too: `args, b = ...`, `(args := ...)`)
        return None
    lengths = set()
    for value in values.get(name, []):
        if isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords \
                and isinstance(value.args[0], gast.Name) and value.args[0].id == name \
                and isinstance(value.func, gast.Name) and _static_or_none(norm, value.func) in (list, tuple):
            continue  # (the same items again)
        if not isinstance(value, (gast.Tuple, gast.List)) or any(isinstance(e, gast.Starred) for e in value.elts):
            return None
        lengths.add(len(value.elts))
    return lengths.pop() if len(lengths) == 1 else None


def _static_keys(norm, v):
    if isinstance(v, gast.Dict) and all(isinstance(k, gast.Constant) and isinstance(k.value, str) for k in v.keys):
        return [k.value for k in v.keys]
    if _is_dict_call(norm, v) and not v.args:
        return [k.arg for k in v.keywords]
    lit = _single_literal(norm, v)
    if lit is not None:
        return _static_keys(norm, lit)
    if isinstance(v, gast.Name) and v.id not in norm.locals:
        obj = norm.static(v)
        if isinstance(obj, dict) and all(isinstance(k, str) for k in obj):
            return list(obj)
    return None


def _single_literal(norm, v):
    """The literal a local name is bound to, when it is assigned exactly once and never changed."""
    if not (isinstance(v, gast.Name) and v.id in norm.locals):
        return None
    values, changed = _bindings(norm)
    found = values.get(v.id, [])
    if v.id in changed or v.id in {a.id for a in norm.fn.args.args} or len(found) != 1:
        return None
    return found[0] if isinstance(found[0], (gast.Tuple, gast.List, gast.Dict, gast.Call)) else None


def _bindings(norm):
    """(values assigned to each name, names otherwise changed) in the function."""
    return _function_facts(norm)[:2]


def _function_facts(norm):
    """(values assigned to each name, names otherwise changed, names changed only by item
    assignment (`xs[i] = v`, not a slice's), how many times each name is stored to) in the
    function: one walk, kept on the normalizer for its function node (which normalization reads
    and never rewrites), so that asking about every `a + b` of a long function costs no walk of
    the whole function (issue 46: that walk per `+` made the frontend quadratic)."""
    cached = getattr(norm, "_s2s_bindings", None)
    if cached is not None and cached[0] is norm.fn:
        return cached[1]
    values: dict[str, list] = {}
    changed: set[str] = set()
    items, other = set(), set()
    stores: dict[str, int] = {}
    for n in build.walk(norm.fn):
        if isinstance(n, gast.Assign):
            for name in dict.fromkeys(t.id for t in n.targets if isinstance(t, gast.Name)):
                values.setdefault(name, []).append(n.value)
        elif isinstance(n, (gast.AugAssign, gast.For)) and isinstance(n.target, gast.Name):
            changed.add(n.target.id)
            other.add(n.target.id)
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute):
            changed.add(_text(n.func.value))  # xs.append(...)
            other.add(_text(n.func.value))
        elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
            changed.add(_text(n.value))
            (other if isinstance(n.slice, gast.Slice) else items).add(_text(n.value))
        elif isinstance(n, gast.Delete):
            other.update(_text(t.value) for t in n.targets if isinstance(t, gast.Subscript))
        elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    facts = (values, changed, items - other, stores)
    norm._s2s_bindings = (norm.fn, facts)
    return facts


# ---------------------------------------------------------------- calls of known objects

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
        return _jvp_inside(norm, node, obj, rec.inside)
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
    if obj is sorted and len(node.args) == 1 and _items_by_key(norm, node):
        return _sorted_items(norm, node)
    if obj is sorted and len(node.args) == 1 and not node.keywords:
        _use_ext(norm)
        return build.call("ext.s2s_sorted_keys", [norm.atom(_keys_source(node.args[0]))])
    if obj is dict and len(node.args) <= 1 and all(k.arg is not None for k in node.keywords):
        entries = _dict_entries(norm, node.args[0]) if node.args else {}
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
    target = _callee(norm, node, obj)
    if target is None:
        return None
    fn, node = target
    args = [norm.atom(a) for a in node.args]
    kws = {k.arg: norm.atom(k.value) for k in node.keywords}
    return build.call(build.name(norm.bind(fn.__name__, fn)), args, kws)


def _items_by_key(norm, node) -> bool:
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
                and norm._rooted_global(k.value.func) and _static_or_none(norm, k.value.func) is operator.itemgetter
                and len(k.value.args) == 1 and not k.value.keywords and _literal_value(k.value.args[0]) == 0):
            return False
    return True


def _sorted_items(norm, node):
    """`sorted(d.items(), key=itemgetter(0))` -> `[(k, d[k]) for k in sorted(d)]`."""
    d = node.args[0].func.value
    _use_ext(norm)
    keys = norm.tmp(build.call("ext.s2s_sorted_keys", [norm.atom(d)]))
    norm.locals.add(keys.id)
    k = norm.namer.fresh("k")
    elt = gast.Tuple(elts=[build.name(k), gast.Subscript(value=copy_(d), slice=build.name(k), ctx=gast.Load())],
                     ctx=gast.Load())
    comp = gast.ListComp(elt=elt, generators=[gast.comprehension(target=build.name(k, store=True), iter=keys,
                                                                 ifs=[], is_async=0)])
    return norm.expr(build.located(comp, node, only_missing=True))


def _dict_entries(norm, arg):
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


def _callee(norm, node, obj):
    """(function to call, call node) for partials, methods, callable instances, `*args` callees and
    callees passed known functions; None for an ordinary call."""
    fn = idioms.adapt(obj) if (not isinstance(obj, types.FunctionType) or inspect.isgeneratorfunction(obj)) \
        and idioms.needs_adapting(obj) else obj
    if not isinstance(fn, types.FunctionType):
        return None
    fixed, node = _static_function_args(norm, node, fn)
    nvar = None
    params = record.signature_of(fn).parameters
    named = [p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if idioms.has_varargs(fn):
        nfree = sum(len(idioms.free_of(v)) for v in fixed.values())  # (passed first)
        nvar = max(len(node.args) - nfree - len(named) + len(fixed), 0)
    kwnames = None
    if idioms.has_varkw(fn):  # `**kwargs`: one parameter per keyword the call passes beyond the named ones
        kwarg = next(p.name for p in params.values() if p.kind == p.VAR_KEYWORD)
        kwnames = tuple(k.arg for k in node.keywords if k.arg not in {p.name for p in named})
        node = build.located(gast.Call(func=node.func, args=node.args, keywords=[
            gast.keyword(arg=idioms.kw_param(kwarg, k.arg) if k.arg in kwnames else k.arg, value=k.value)
            for k in node.keywords]), node, only_missing=True)
    if not fixed and nvar is None and kwnames is None:
        return (fn, node) if fn is not obj else None
    return idioms.specialize(fn, fixed, nvar, kwnames=kwnames), node


def _static_function_args(norm, node, fn):
    """Arguments of a call that are functions known now (and omitted function-valued defaults):
    they are bound in a specialized copy of the callee and dropped from the call. A function that
    closes over local variables (a lambda, a partial of local values) passes those values instead,
    as leading arguments of the specialized callee."""
    if record.of(fn) is not None and record.of(fn).core is not None:
        return {}, node
    try:
        params = list(record.signature_of(fn).parameters.values())
    except (TypeError, ValueError):
        return {}, node
    fixed, args, kws = {}, [], []
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for i, a in enumerate(node.args):
        value = _function_value(norm, a) if i < len(positional) else None
        if value is not None:
            fixed[positional[i].name] = value
        else:
            args.append(a)
    given = {p.name for p in positional[:len(node.args)]}
    for k in node.keywords:
        value = _function_value(norm, k.value) if k.arg in {p.name for p in positional} else None
        if value is not None:
            fixed[k.arg] = value
        else:
            kws.append(k)
        given.add(k.arg)
    for p in positional:
        if p.name not in given and p.default is not inspect.Parameter.empty and idioms.is_function_value(p.default):
            fixed[p.name] = p.default
    if not fixed:
        return {}, node
    free = [build.name(v) for p in positional if p.name in fixed for v in idioms.free_of(fixed[p.name])]
    return fixed, build.located(gast.Call(func=node.func, args=free + args, keywords=kws), node, only_missing=True)


def _function_value(norm, a):
    """The function `a` denotes if it is known when transforming (a global or attribute chain, a
    lambda or def made here, a local holding one, a partial, an entry of a collection of them):
    the object itself, or a `Ref` to a function made here with the locals it closes over."""
    if _global_entry(norm, a):  # TABLE[0] of a global tuple/list/dict: the entry itself
        obj = _static_or_none(norm, a)
        return obj if idioms.is_function_value(obj) else None
    if not function_values.could_be(norm, a):
        return None
    if isinstance(a, (gast.Name, gast.Attribute)) and norm._rooted_global(a) and not (
            isinstance(a, gast.Name) and a.id in norm.lifted):
        obj = norm.static(a)
        if isinstance(obj, (tuple, list, dict)):
            return obj if function_values.of_object(obj) is not None else None
        return obj if idioms.is_function_value(obj) else None
    ref = function_values.value(norm, a)
    if isinstance(ref, function_values.Ref):
        return ref if ref.free else ref.fn
    return ref  # a tuple, list or dict of functions


def _global_entry(norm, a) -> bool:
    """`a` is `TABLE[key]` of a global (or attribute chain) with a literal key."""
    return isinstance(a, gast.Subscript) and isinstance(a.slice, gast.Constant) \
        and isinstance(a.value, (gast.Name, gast.Attribute)) and norm._rooted_global(a.value) \
        and not (isinstance(a.value, gast.Name) and (a.value.id in norm.fvalues or a.value.id in norm.lifted))


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
        if len(node.args) < 2 + (method == "reduceat") and not any(k.arg == "axis" for k in keywords):
            keywords.append(gast.keyword(arg="axis", value=build.const(0)))  # a ufunc method's default axis
        func = function_values.callee(norm, node.func, function_values.Ref(target))
        return norm.expr(build.located(gast.Call(func=func, args=node.args, keywords=keywords), node, only_missing=True))
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
    if ufunc_methods.AT[ufunc] < 0:
        v = norm.tmp(gast.UnaryOp(op=gast.USub(), operand=v))
    fresh = norm.tmp(build.call("xp.copy", [build.name(y)]))
    norm.assign_to(build.located(build.name(y, store=True), node, only_missing=True),
                   build.call("rt.add_at", [fresh, index, v]))
    return build.const(None)


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
        _local_function(norm, f)
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
    if not (isinstance(f, (gast.Name, gast.Attribute)) and norm._rooted_global(f) and not (
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


# ---------------------------------------------------------------- methods of local values

def method(norm, node: gast.Call):
    """Dict methods and sampler methods on a local value; None for everything else."""
    m = node.func.attr
    if m in sampling.METHODS:
        base = norm.atom(node.func.value)
        return sampling.method_call(norm, base, m, [norm.atom(a) for a in node.args],
                                    {k.arg: norm.atom(k.value) for k in node.keywords})
    if m not in DICT_METHODS:
        return None
    d = node.func.value
    if m == "keys" and not node.args:
        return keys_of(norm, norm.atom(d))
    if m in ("values", "items") and not node.args:
        k = norm.namer.fresh("k")
        elt = gast.Subscript(value=copy_(d), slice=build.name(k), ctx=gast.Load()) if m == "values" else \
            gast.Tuple(elts=[build.name(k), gast.Subscript(value=copy_(d), slice=build.name(k), ctx=gast.Load())],
                       ctx=gast.Load())
        keys = gast.Call(func=gast.Attribute(value=copy_(d), attr="keys", ctx=gast.Load()), args=[], keywords=[])
        comp = gast.ListComp(elt=elt, generators=[gast.comprehension(target=build.name(k, store=True), iter=keys,
                                                                     ifs=[], is_async=0)])
        return norm.expr(build.located(comp, node, only_missing=True))
    if m == "get" and 1 <= len(node.args) <= 2:
        default = node.args[1] if len(node.args) == 2 else gast.Constant(value=None, kind=None)
        test = gast.Compare(left=node.args[0], ops=[gast.In()], comparators=[copy_(d)])
        value = gast.Subscript(value=copy_(d), slice=node.args[0], ctx=gast.Load())
        return norm.expr(build.located(gast.IfExp(test=test, body=value, orelse=default), node, only_missing=True))
    return None


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
    _use_ext(norm)
    return build.call("ext.s2s_dict_from", [build.name(keys), build.name(values)])


def is_dict(norm, v) -> bool:
    """Whether local `v` certainly holds a dict: built here as one, or used with a dict method."""
    if isinstance(v, gast.Dict) or isinstance(v, gast.DictComp) or _is_dict_call(norm, v):
        return True
    if not (isinstance(v, gast.Name) and v.id in norm.locals):
        return False
    for n in build.walk(norm.fn):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in ("keys", "items", "values") \
                and isinstance(n.func.value, gast.Name) and n.func.value.id == v.id:
            return True
        if isinstance(n, gast.Assign) and any(isinstance(t, gast.Name) and t.id == v.id for t in n.targets) \
                and (isinstance(n.value, (gast.Dict, gast.DictComp)) or _is_dict_call(norm, n.value)):
            return True
    return False


def _is_dict_call(norm, v) -> bool:
    if not (isinstance(v, gast.Call) and isinstance(v.func, gast.Name) and v.func.id not in norm.locals):
        return False
    found, obj = norm.env.lookup(v.func.id)
    return found and obj is dict


def _is_keys(norm, v) -> bool:
    return isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr == "keys" \
        and not v.args or is_dict(norm, v)


def _keys_source(v):
    return v.func.value if isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) else v


# ---------------------------------------------------------------- helpers

def _label(obj) -> str:
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "sampler")
    return f"{type(owner).__name__}_{name}" if owner is not None and not isinstance(owner, types.ModuleType) \
        else name


class NotStatic(Exception):
    """A subscript or value that is not known when the function is transformed."""


def _text(node) -> str:
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return _text(node.value) + "." + node.attr
    return "..."


def copy_(node):
    return copy.deepcopy(node)


def keys_of(norm, d):
    """The keys of the dict held in atom `d`, as a list (no derivative)."""
    _use_ext(norm)
    return build.call("ext.s2s_keys", [d])


def _use_ext(norm):
    norm.ns["ext"] = EXT


def function_parameters_given(norm, node: gast.Call, obj, label: str) -> None:
    """A stand-in that calls a function it is given (np.apply_along_axis, tree_map: the positions
    in `__s2s_function_args__`) given a parameter of the transformed function there: refused at
    this call, the user's line, rather than inside the stand-in's code."""
    params = {a.id for a in norm.fn.args.args}
    for i in getattr(obj, "__s2s_function_args__", ()):
        a = node.args[i] if i < len(node.args) else None
        if isinstance(a, gast.Name) and a.id in params and not function_values.could_be(norm, a):
            norm.fail(a, f"`{label}` calls the function it is given, and `{a.id}` is a parameter of the transformed "
                         "function: s2s specializes on a function known when it transforms.",
                      unresolved_hint(norm, a), S2SError)


def stand_in_call(norm, node: gast.Call, obj) -> gast.Call:
    """A call of a stand-in `*args` function (s2s/library/tree_inside.py's tree_map) with the keywords it
    names in `__s2s_leading__` moved before the positional arguments (None where not given) and
    those in `__s2s_trailing__` after them: a transformed `*args` function has positional
    parameters only. The function it takes at position `__s2s_calls__` (of `__s2s_arity__(number
    of arguments)` parameters), when a NumPy function rather than one written in Python, is
    wrapped in a lambda that calls it with its parameters, so the stand-in may call it with `*`."""
    leading, trailing = getattr(obj, "__s2s_leading__", None), getattr(obj, "__s2s_trailing__", ())
    if leading is None:
        return node
    given = {k.arg: k.value for k in node.keywords}
    first = [given.pop(k, None) or build.const(None) for k in leading]
    last = [given.pop(k) for k in trailing if k in given]
    keywords = [k for k in node.keywords if k.arg in given]
    args = first + list(node.args) + last
    at = getattr(obj, "__s2s_calls__", None)
    if at is not None and at < len(args) and not any(isinstance(a, gast.Starred) for a in args):
        ref = function_values.value(norm, args[at]) if function_values.could_be(norm, args[at]) else None
        if isinstance(ref, function_values.Ref):
            n = obj.__s2s_arity__(len(args))
            _check_takes(norm, args[at], ref, n, obj)
            if not function_values.fixed_arity(ref.fn):
                args[at] = function_values.calling_lambda(norm, args[at], n)
    return gast.copy_location(gast.Call(func=node.func, args=args, keywords=keywords), node)


def _check_takes(norm, where, ref, n: int, stand_in) -> None:
    """Refuse, at the user's call, a Python function given to a stand-in that cannot take the `n`
    positional arguments the stand-in passes it (`tree_map(f, a, b)` with a one-parameter `f`):
    the stand-in's own code would fail on it, in s2s's file."""
    if not isinstance(ref.fn, types.FunctionType):
        return
    try:
        inspect.signature(ref.fn).bind(*range(len(ref.free) + n))
    except TypeError as e:
        name = getattr(stand_in, "__name__", "the stand-in")
        norm.fail(where, f"`{name}` calls the function it is given with {n} positional argument"
                         f"{'s' if n != 1 else ''} here, and `{_text(where)}` cannot take them ({e}).",
                  kind=S2STypeError)


def constant_pieces(norm, node: gast.Call, obj) -> gast.Call:
    """np.piecewise's function list written out with numbers among its functions: each number `c`
    becomes `lambda x, *args: c` (as many parameters as the call passes the functions), as NumPy
    treats a number there, so that the list is one of functions s2s specializes on."""
    if obj is not numpy_inside.piecewise or len(node.args) < 3 or not isinstance(node.args[2], (gast.List, gast.Tuple)) \
            or any(isinstance(a, gast.Starred) for a in node.args):
        return node
    k = len(node.args) - 2
    elts = [e if function_values.could_be(norm, e) else _constant_function(norm, e, k) for e in node.args[2].elts]
    funcs = build.located(type(node.args[2])(elts=elts, ctx=gast.Load()), node.args[2], only_missing=True)
    return build.located(gast.Call(func=node.func, args=[node.args[0], node.args[1], funcs] + node.args[3:],
                         keywords=node.keywords), node, only_missing=True)


def _constant_function(norm, value, nargs: int) -> gast.Lambda:
    params = [gast.Name(id=norm.namer.fresh("piece_arg"), ctx=gast.Param(), annotation=None, type_comment=None)
              for _ in range(nargs)]
    lam = gast.Lambda(args=gast.arguments(args=params, posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                          kwarg=None, defaults=[]), body=value)
    for n in gast.walk(lam):
        if isinstance(n, (gast.expr, gast.arguments)) and not hasattr(n, "lineno"):
            gast.copy_location(n, value)
    return lam


def tolist(norm, base):
    """`x.tolist()`: nested lists of x's elements, each differentiable (runtime/shapes.py)."""
    return build.call("rt.tolist", [base])


def sequence_concat(norm, node: gast.BinOp):
    """`xs + (a,)` of tuples/lists whose lengths are known now: one tuple (or list) of their
    elements, so each element keeps its own derivative."""
    if not isinstance(node.op, gast.Add):
        return None
    left, right = (_static_length(norm, v) if not _is_number(v) else None for v in (node.left, node.right))
    if left is None or right is None:
        return None
    elts = [_element(v, i) for v, n in ((node.left, left), (node.right, right)) for i in range(n)]
    as_list = isinstance(_literal(norm, node.left), gast.List)
    return norm.expr(build.located((gast.List if as_list else gast.Tuple)(elts=elts, ctx=gast.Load()), node,
                                   only_missing=True))


def _is_number(v):
    return isinstance(v, gast.Constant)


def _literal(norm, v):
    return v if isinstance(v, (gast.Tuple, gast.List)) else _single_literal(norm, v)


def _element(v, i):
    if isinstance(v, (gast.Tuple, gast.List)):
        return v.elts[i]
    return build.located(gast.Subscript(value=copy_(v), slice=build.const(i), ctx=gast.Load()), v, only_missing=True)


def static_item(norm, node: gast.Subscript):
    """`TABLE[key]` of a global list or dict (of functions, say) with a literal key."""
    base = norm.static(node.value)
    try:
        value = base[node.slice.value]
    except (TypeError, KeyError, IndexError):
        raise NotStatic() from None
    note_read("item", base, node.slice.value, value)  # (the code is reused while the entry holds it)
    return value


def call_of_call(norm, node: gast.Call):
    """`operator.itemgetter(0, 2)(x)`, `grad(inner)(x)` of a lambda or def made in this function:
    a call of a value made by a call (also through a local bound once to the transform's result,
    `vf = vmap(partial(f, g)); vf(x)`)."""
    f = node.func
    lit = _single_literal(norm, f) if isinstance(f, gast.Name) else None
    if isinstance(lit, gast.Call) and isinstance(lit.func, (gast.Name, gast.Attribute)) \
            and norm._rooted_global(lit.func) and lit.args and _bound_once(norm, lit):
        rec = record.of(_static_or_none(norm, lit.func))
        if rec is not None and rec.transform:
            node = build.located(gast.Call(func=copy_(lit), args=node.args, keywords=node.keywords), node, only_missing=True)
            f = node.func
    if not (isinstance(f, gast.Call) and (isinstance(f.func, (gast.Name, gast.Attribute)))
            and norm._rooted_global(f.func)):
        return None
    try:
        maker = norm.static(f.func)
    except Exception:  # noqa: BLE001 - not static: the normalizer reports it
        return None
    rec = record.of(maker)
    if rec is not None and rec.transform and getattr(maker, "__name__", "") == "jit" and len(f.args) == 1 \
            and not f.keywords and _is_transform_call_of_local(norm, f.args[0]):
        # jit(vmap(f))(x) of a function made here: jit computes what it is given, so vmap(f)(x)
        return norm.expr(build.located(gast.Call(func=f.args[0], args=node.args, keywords=node.keywords), node,
                                       only_missing=True))
    if rec is not None and rec.transform and f.args and _local_function(norm, f.args[0]) is not None:
        return _transform_of_local(norm, node, maker)
    if rec is None and isinstance(maker, types.FunctionType) and not idioms.is_library_function(maker) \
            and not node.keywords and not any(isinstance(a, gast.Starred) for a in node.args):
        return _returned_call(norm, node, maker)  # maker(ans, x)(g): the function a call returned, called
    keys = [_literal_value(a) for a in f.args]
    if maker is operator.itemgetter and keys and all(k is not None for k in keys):
        return _itemgetter(norm, node, operator.itemgetter(*keys))
    return None


def _bound_once(norm, node) -> bool:
    """Whether every local `node` reads is bound once (so `node` means the same wherever it is read)."""
    stores = function_values._stores(norm)
    return all(stores.get(n.id, 0) <= 1 for n in gast.walk(node) if isinstance(n, gast.Name) and n.id in norm.locals)


def _returned_call(norm, node, maker):
    """`maker(a)(g)` as `maker_then(a, g)` (frontend/returned.py), `maker` first specialized on
    the functions passed to it."""
    fixed, inner = _static_function_args(norm, node.func, maker)
    fn = returned.applied(idioms.specialize(maker, fixed) if fixed else maker, len(node.args))
    call_ = build.located(gast.Call(func=inner.func, args=inner.args + node.args, keywords=inner.keywords), node,
                          only_missing=True)
    return build.call(build.name(norm.bind(fn.__name__, fn)), [norm.atom(a) for a in call_.args],
                      {k.arg: norm.atom(k.value) for k in call_.keywords})


def _is_transform_call_of_local(norm, a) -> bool:
    """`vmap(f, ...)` (or `jit(f)`) of a function made here: `a` itself is such a transform."""
    if not (isinstance(a, gast.Call) and isinstance(a.func, (gast.Name, gast.Attribute)) and norm._rooted_global(a.func)
            and a.args):
        return False
    rec = record.of(_static_or_none(norm, a.func))
    return rec is not None and rec.transform and (
        function_values.could_be(norm, a.args[0]) and not norm._rooted_global(a.args[0])
        or _is_transform_call_of_local(norm, a.args[0]))


def _literal_value(a):
    if isinstance(a, gast.Constant):
        return a.value
    if isinstance(a, gast.UnaryOp) and isinstance(a.op, gast.USub) and isinstance(a.operand, gast.Constant):
        return -a.operand.value
    return None


def _local_function(norm, a):
    """The lifted function a local `def`/lambda (or an inline lambda) denotes, with its free locals."""
    if isinstance(a, gast.Lambda):
        name = norm.namer.fresh("lambda_")
        norm.stmt_FunctionDef(lift.lambda_to_def(name, a, a))
        a.s2s_lifted = name
        return norm.lifted[name]
    if isinstance(a, gast.Name) and a.id in norm.lifted:
        return norm.lifted[a.id]
    if isinstance(a, gast.Name) and isinstance(norm.fvalues.get(a.id), function_values.Ref):
        ref = norm.fvalues[a.id]
        return ref.fn, list(ref.free)
    if isinstance(a, gast.Call) and isinstance(a.func, (gast.Name, gast.Attribute)) and norm._rooted_global(a.func) \
            and a.args and _static_or_none(norm, a.func) is functools.partial:
        name = norm.namer.fresh("partial_")
        norm.stmt_FunctionDef(lift.lambda_to_def(name, _partial_lambda(norm, a), a))
        a.s2s_lifted = name
        return norm.lifted[name]
    return None


def _static_or_none(norm, node):
    try:
        return norm.static(node)
    except Exception:  # noqa: BLE001 - not known now
        return None


def _partial_lambda(norm, a: gast.Call) -> gast.Lambda:
    """`functools.partial(f, b, k=v)` given to a transform here, as the lambda of f's other
    parameters that calls f with the bound values: those are evaluated once, now, and the lambda
    closes over them (so a vmap does not map them, as JAX treats a partial's arguments)."""
    target = a.args[0]
    fn = _static_or_none(norm, target) if norm._rooted_global(target) else None
    nfree = 0
    if fn is None and function_values.could_be(norm, target):  # a partial of a function made here
        target, ref = _function_name(norm, target)
        fn, nfree = ref.fn, len(ref.free)
    try:
        params = list(inspect.signature(fn).parameters.values())[nfree:]
    except (TypeError, ValueError):
        params = None
    if params is None or any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params) \
            or any(isinstance(x, gast.Starred) for x in a.args) or any(k.arg is None for k in a.keywords):
        norm.fail(a, "s2s transforms functools.partial(f, ...) here only of a module-level function with named "
                     "parameters, bound with plain arguments.", "Write a lambda that calls f instead.")
    bound = [_bound_value(norm, x) for x in a.args[1:]]
    kws = {k.arg: _bound_value(norm, k.value) for k in a.keywords}
    rest = [p for p in params[len(bound):] if p.name not in kws]
    simple = (int, float, bool, str, type(None))
    user = isinstance(fn, types.FunctionType)  # (a NumPy function's `out=None` is not a parameter to offer)
    taken = [p for p in rest if p.default is inspect.Parameter.empty or user and isinstance(p.default, simple)]
    args = gast.arguments(args=[build.name(p.name, param=True) for p in taken], posonlyargs=[], vararg=None,
                          kwonlyargs=[], kw_defaults=[], kwarg=None,
                          defaults=[build.const(p.default) for p in taken if p.default is not inspect.Parameter.empty])
    call = gast.Call(func=copy_(target), args=bound,
                     keywords=[gast.keyword(arg=k, value=v) for k, v in kws.items()]
                     + [gast.keyword(arg=p.name, value=build.name(p.name)) for p in taken])
    return build.located(gast.Lambda(args=args, body=call), a, kinds=(gast.expr, gast.arguments))


def _function_name(norm, x):
    """(a name the lambda reads, Ref) for a function made here that a partial binds or targets."""
    ref = function_values.value(norm, x)
    name = norm.namer.fresh("bound_fn")
    norm.fvalues[name] = ref
    return build.located(build.name(name), x, only_missing=True), ref


def _bound_value(norm, x):
    """An argument bound by a partial: evaluated here, once (a local name the lambda closes over);
    a function stays a function (the lambda calls or passes it)."""
    if function_values.could_be(norm, x):
        return copy_(x) if norm._rooted_global(x) else _function_name(norm, x)[0]
    v = norm.atom(x)
    if isinstance(v, gast.Name) and v.id not in norm.ns:  # (a global stays one)
        norm.locals.add(v.id)
    return v


def _transform_of_local(norm, node, api):
    """`grad(inner, argnums=k)(y)` where `inner` closes over locals `free`: the transform of the
    lifted `inner(*free, y)` with argnums shifted past them, called with the free locals first."""
    f = node.func
    fn, free = _local_function(norm, f.args[0]) if not hasattr(f.args[0], "s2s_lifted") else \
        norm.lifted[f.args[0].s2s_lifted]
    rest = [norm.static(a) for a in f.args[1:]]
    kws = {k.arg: norm.static(k.value) for k in f.keywords}
    params = inspect.signature(api).parameters
    if free:
        unknown = set(params) - _TRANSFORM_PARAMS
        if unknown:  # a parameter that may select arguments: shifting it is not known here
            norm.fail(node, f"s2s cannot apply `{getattr(api, '__name__', api)}` to a function that uses local "
                            f"variables of the enclosing function: it does not know its parameter(s) "
                            f"{', '.join(sorted(unknown))}.", "Pass those variables as arguments of the function.")
        kws.update(zip(list(params)[1:], rest))  # the options given by position, by name from here on
        rest = []
        for name in ("argnums", "argnum", "static_argnums"):  # autograd's transforms (s2s.compat) say `argnum`
            nums = kws.get(name, params[name].default) if name in params else None
            if nums is not None:
                kws[name] = _shifted(nums, len(free))
        if "in_axes" in params:
            kws["in_axes"] = _closure_axes(norm, f, kws.get("in_axes", params["in_axes"].default), len(free),
                                           len(node.args))
    transformed = api(fn, *rest, **kws)
    adapt = getattr(type(transformed), "for_call", None)
    if adapt is not None:
        transformed = adapt(transformed, len(free) + len(node.args), {k.arg for k in node.keywords})
    args = [build.name(v) for v in free] + [norm.atom(a) for a in node.args]
    kw = {k.arg: norm.atom(k.value) for k in node.keywords}
    return build.call(build.name(norm.bind(getattr(transformed, "__name__", "transformed"), transformed)), args, kw)


# the parameters of s2s's transforms (and of the autograd-style ones of s2s.compat): those that
# select arguments by position are shifted past the free locals a lifted function takes first
_TRANSFORM_PARAMS = {"fun", "argnums", "argnum", "has_aux", "checkpoint", "static_argnums", "static_argnames",
                     "in_axes", "out_axes", "axis_size"}


def _shifted(nums, shift: int):
    """Argument positions `nums` (an int or a sequence; negative ones count from the end) after
    `shift` arguments are put first."""
    if isinstance(nums, int):
        return nums + shift if nums >= 0 else nums
    return tuple(n + shift if n >= 0 else n for n in nums)


def _closure_axes(norm, where, in_axes, nfree: int, nargs: int):
    """vmap's `in_axes` for a lifted function called with its free locals first: JAX's rule, a
    variable a function closes over is not mapped by this vmap (an enclosing vmap that batches
    it batches the call), so each free local gets None and the arguments passed keep theirs."""
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if in_axes is None or isinstance(in_axes, int) and not isinstance(in_axes, bool):
        return (None,) * nfree + (in_axes,) * nargs
    if isinstance(in_axes, tuple):
        return (None,) * nfree + in_axes
    norm.fail(where, "s2s needs vmap's in_axes of a function that uses local variables of the enclosing "
                     f"function as an int, None or a tuple with one entry per argument, not {in_axes!r}.",
              "Write in_axes as a tuple, one entry per argument passed.")


# ---------------------------------------------------------------- jvp and vjp called inside

def _inside_function(norm, f):
    """(function, its free locals) for the function given to jvp/vjp/partial: a lambda or def made
    here (lifted), or a function known now (a global, an attribute, `grad(g)`)."""
    local = _local_function(norm, f)
    if local is not None:
        return local
    try:
        fn = norm.static(f)
    except NotStatic:
        fn = None
    if fn is None or not callable(fn):
        norm.fail(f, "s2s needs the function given to a transform inside a transformed function to be known "
                     "when it transforms: a module-level function, a lambda or def made here, or a transform of one.")
    return fn, []


def _literal_sequence(norm, node, what, example):
    if not isinstance(node, (gast.Tuple, gast.List)):
        norm.fail(node, f"s2s needs the {what} as a tuple or list written at the call inside a transformed function.",
                  f"Write them out: {example}.")
    return node.elts


def _jvp_inside(norm, node, obj, inside):
    """`s2s.jvp(f, (x, ...), (v, ...))` inside a transformed function: a call of f's generated jvp
    (arguments, then tangents), which the enclosing transform differentiates or batches like any
    other generated function (grad of jvp: reverse-over-forward)."""
    if getattr(obj, "__name__", "") != "jvp":
        norm.fail(node, f"`{_text(node.func)}(...)` returns a function: inside a transformed function bind its "
                        "results on a line of their own.", "Write `y, pullback = s2s.vjp(f, x)`, then `pullback(ct)`.")
    if len(node.args) != 3 or node.keywords:
        norm.fail(node, "s2s.jvp inside a transformed function takes (fun, primals, tangents) positionally.",
                  "Write s2s.jvp(f, (x,), (v,)).")
    primals = _literal_sequence(norm, node.args[1], "primals of jvp", "s2s.jvp(f, (x,), (v,))")
    tangents = _literal_sequence(norm, node.args[2], "tangents of jvp", "s2s.jvp(f, (x,), (v,))")
    if len(primals) != len(tangents):
        norm.fail(node, f"jvp: {len(primals)} primals but {len(tangents)} tangents.")
    fn, free = _inside_function(norm, node.args[0])
    gen, defaults = inside(fn, len(free), len(primals))
    args = [build.name(v) for v in free] + [norm.atom(a) for a in primals]
    args += [norm.value_of(node, f"default{i}", d) for i, d in enumerate(defaults)]
    args += [norm.atom(t) for t in tangents]
    return build.call(build.name(norm.bind(gen.__name__, gen)), args)


def vjp_assign(norm, s) -> bool:
    """`y, pullback = s2s.vjp(f, x, ...)` inside a transformed function: `y, record = fwd(x, ...)`
    with the generated forward sweep, and `pullback(ct)` becomes a call of a generated pullback on
    that record, so that the enclosing transform differentiates it (a VJP of a VJP)."""
    v = s.value
    if not (len(s.targets) == 1 and isinstance(v, gast.Call) and isinstance(v.func, (gast.Name, gast.Attribute))
            and norm._rooted_global(v.func)):
        return False
    try:
        obj = norm.static(v.func)
    except Exception:  # noqa: BLE001 - not static: an ordinary call, which the normalizer reports
        return False
    rec = record.of(obj)
    if rec is None or rec.inside is None or getattr(obj, "__name__", "") != "vjp":
        return False
    t = s.targets[0]
    if not (isinstance(t, gast.Tuple) and len(t.elts) == 2 and isinstance(t.elts[1], gast.Name)):
        norm.fail(s, "s2s needs `y, pullback = s2s.vjp(f, x)` with two names on the left inside a transformed "
                     "function.", "Bind the output and the pullback to names, then call `pullback(ct)`.")
    if any(k.arg != "has_aux" or not (isinstance(k.value, gast.Constant) and k.value.value is False)
           for k in v.keywords) or not v.args:
        norm.fail(s, "s2s supports s2s.vjp(f, *primals) without has_aux inside a transformed function.",
                  "Return the auxiliary value from f's caller instead.")
    fn, free = _inside_function(norm, v.args[0])
    fwd, pull, defaults = rec.inside(fn, len(free), len(v.args) - 1)
    primals = [norm.atom(a) for a in v.args[1:]]
    args = [build.name(n) for n in free] + primals
    args += [norm.value_of(v, f"default{i}", d) for i, d in enumerate(defaults)]
    res = norm.tmp(build.call(build.name(norm.bind(fwd.__name__, fwd)), args))
    saved = norm.namer.fresh("saved")
    norm.locals.add(saved)
    norm.assign_to(build.located(gast.Tuple(elts=[t.elts[0], build.name(saved, store=True)], ctx=gast.Store()), t,
                                 only_missing=True), res)
    like = norm.tmp(build.tuple_([build.clone(p) for p in primals]), "primals")  # the cotangents' structure
    norm.lifted[t.elts[1].id] = (pull, [saved, like.id])
    return True


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


def unresolved_hint(norm, func) -> str:
    """What to write instead of calling a function s2s cannot resolve when transforming."""
    params = [a.id for a in norm.fn.args.args]
    if isinstance(func, gast.Name) and func.id in params:
        return (f"`{func.id}` is a parameter: s2s specializes on a function known when it transforms, so give "
                f"it as a default (`{func.id}=np.tanh`), bind it with functools.partial(f, {func.id}=...), "
                "or pass it from a transformed caller.")
    return "Call the function by its name, or pass it straight to the function that calls it."


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
            norm.stmt(_replace_name(copy_(stmt), s.target.id, item))
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
                    value=copy_(seqs[j]), slice=build.const(i), ctx=gast.Load()), type_comment=None), s, only_missing=True))
        for stmt in s.body:
            norm.stmt(_replace_name(copy_(stmt), target, item))
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
             and norm._rooted_global(it)):
        try:
            seq = norm.static(it)
        except Exception:  # noqa: BLE001 - not static
            return None
        if isinstance(seq, list):  # unrolled: one copy of the body per item (the code is reused while
            note_read("len", seq, None, len(seq))  # the list has as many)
        if isinstance(seq, (list, tuple)) and seq and all(idioms.is_function_value(f) for f in seq):
            return [build.located(gast.Subscript(value=copy_(it), slice=build.const(i), ctx=gast.Load()), it,
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
            return build.located(copy_(value), n, only_missing=True) if n.id == name and isinstance(n.ctx, gast.Load) else n
    return Swap().visit(stmt)


def index_trick_range(norm, sl: gast.Slice) -> gast.Name:
    """A slice inside `np.r_[...]`/`np.c_[...]` as the array NumPy makes of it: `a:b:s` is
    `np.arange(a, b, s)` (a missing start 0, step 1), and `a:b:nj` with an imaginary literal step
    is `np.linspace(a, b, n)` (n points, both ends included). Returns the local holding it."""
    start = norm.atom(sl.lower) if sl.lower is not None else build.const(0)
    if sl.upper is None:
        norm.fail(sl, "a slice inside `np.r_[...]` needs its stop, as NumPy's does.")
    stop = norm.atom(sl.upper)
    step = sl.step
    if isinstance(step, gast.Constant) and isinstance(step.value, complex):
        out = norm.tmp(build.call("xp.linspace", [start, stop, build.const(int(abs(step.value)))]))
    else:
        out = norm.tmp(build.call("xp.arange", [start, stop, norm.atom(step) if step is not None else build.const(1)]))
    norm.locals.add(out.id)  # (read again as an item of the tuple)
    return out


# ---------------------------------------------------------------- np.einsum's sublist form

def einsum_sublists(norm, node: gast.Call) -> gast.Call:
    """`np.einsum(a, [0, 1], b, [1, 2], [0, 2])` -> `np.einsum('ab,bc->ac', a, b)`: the subscripts
    form is the one every derivative rule reads, so the sublist form is rewritten to it here.
    Sublists known when transforming (literals, locals assigned once to one, tuples in globals,
    closures or global tables) become a literal string; where the first sublist shows the form
    but some sublist is read only when the call runs (a global list, which may change, or a
    parameter), `rt.einsum_sublist_spec` builds the string then. Where not even the form is
    known (`einsum(x, s)` of two parameters), rt.einsum_subscripts refuses a non-string first
    argument when the call runs."""
    args = node.args
    if len(args) < 2 or (isinstance(args[0], gast.Constant) and isinstance(args[0].value, str)) \
            or any(isinstance(a, gast.Starred) for a in args):
        return node
    pairs = args[:len(args) - len(args) % 2]
    operands = pairs[0::2]
    subs = list(pairs[1::2]) + ([args[-1]] if len(args) % 2 else [])
    known = [_sublist_value(norm, s) for s in subs]
    if known[0] is _UNKNOWN:
        return node  # the form is not known: rt.einsum_subscripts refuses a sublist when the call runs
    if all(isinstance(k, tuple) for k in known):
        spec = ",".join(_sublist_letters(norm, s, k) for s, k in zip(subs, known[:len(operands)]))
        if len(args) % 2:  # the output sublist
            spec += "->" + _sublist_letters(norm, subs[-1], known[-1])
        return gast.Call(func=node.func, args=[gast.Constant(value=spec, kind=None)] + list(operands),
                         keywords=node.keywords)
    atoms = [norm.atom(o) for o in operands]  # (evaluated once: the first one is also the check's)
    ins = build.located(gast.Tuple(elts=list(subs[:len(operands)]), ctx=gast.Load()), node, only_missing=True)
    out = subs[-1] if len(args) % 2 else build.const(None)
    spec = norm.tmp(build.call("rt.einsum_sublist_spec", [norm.atom(ins), norm.atom(out), atoms[0]]))
    norm.locals.add(spec.id)  # (the call's arguments are read again as atoms)
    ops = []
    for o, a in zip(operands, atoms):
        if isinstance(o, gast.Constant) or isinstance(o, (gast.Name, gast.Attribute)) and norm._rooted_global(o):
            ops.append(o)  # a constant or a global: read again as it is
        else:
            ops.append(a)
            if isinstance(a, gast.Name):
                norm.locals.add(a.id)
    return gast.Call(func=node.func, args=[spec] + ops, keywords=node.keywords)


_UNKNOWN = object()


def _sublist_value(norm, sub):
    """A sublist's value as a tuple when it is known when transforming (a literal, a local assigned
    once to a literal, a tuple in a global, closure or global table with a literal key); None
    for one that is a sequence only then (a global list or array) or a local read when the call
    runs; _UNKNOWN when s2s cannot tell it is a sublist at all."""
    literal = _single_literal(norm, sub) if isinstance(sub, gast.Name) else sub
    if isinstance(sub, gast.Name) and literal is not None and function_values._stores(norm).get(sub.id, 0) != 1:
        literal = None
    if isinstance(literal, (gast.List, gast.Tuple)):
        items = []
        for e in literal.elts:
            v = e.value if isinstance(e, gast.Constant) else Ellipsis if isinstance(e, gast.Name) and \
                e.id == "Ellipsis" and e.id not in norm.locals else _UNKNOWN
            if v is _UNKNOWN or not (v is Ellipsis or isinstance(v, int) and not isinstance(v, bool)):
                return None  # a sequence whose entries are read when the call runs
            items.append(v)
        return tuple(items)
    if isinstance(sub, (gast.Name, gast.Attribute)) and norm._rooted_global(sub) or _global_entry(norm, sub):
        obj = _static_or_none(norm, sub)
        if isinstance(obj, tuple) and all(v is Ellipsis or isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                          for v in obj):
            return tuple(v if v is Ellipsis else int(v) for v in obj)
        if isinstance(obj, (list, tuple, np.ndarray)):
            return None  # mutable: read when the call runs
    return _UNKNOWN


def _sublist_letters(norm, sub, items) -> str:
    """One einsum sublist, axis numbers (and `...`), as subscript letters."""
    out = ""
    for v in items:
        if v is Ellipsis:
            out += "..."
        elif 0 <= v < 52:
            out += string.ascii_letters[v]
        else:
            norm.fail(sub, "np.einsum's sublists hold axis numbers 0..51 (and `...`).")
    return out
