"""Functions as values at a call: a callee specialized on the functions passed to it (partials,
bound methods, callable instances, `*args` and `**kwargs` callees, function-valued defaults),
functions made in this function (lambdas, local defs, partials of local values) given to a
transform (`grad(inner)(y)`, `vmap(f, in_axes)` with the closed-over locals unmapped), `s2s.jvp`
and `s2s.vjp` called inside, a function a call returned called again, and the stand-ins that
call a function they are given (tree_map, np.piecewise)."""
from __future__ import annotations

import copy
import functools
import inspect
import types

import gast

from ...base import record
from ...errors import S2SError, S2STypeError
from ...library import numpy_inside
from ..ir import build
from . import function_values, idioms, lift, returned, static_locals


def specialized_callee(norm, node, obj):
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
    if static_locals.global_entry(norm, a):  # TABLE[0] of a global tuple/list/dict: the entry itself
        obj = static_locals.static_or_none(norm, a)
        return obj if idioms.is_function_value(obj) else None
    if not function_values.could_be(norm, a):
        return None
    if isinstance(a, (gast.Name, gast.Attribute)) and norm.rooted_global(a) and not (
            isinstance(a, gast.Name) and a.id in norm.lifted):
        obj = norm.static(a)
        if isinstance(obj, (tuple, list, dict)):
            return obj if function_values.of_object(obj) is not None else None
        return obj if idioms.is_function_value(obj) else None
    ref = function_values.value(norm, a)
    if isinstance(ref, function_values.Ref):
        return ref if ref.free else ref.fn
    return ref  # a tuple, list or dict of functions


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
                         f"{'s' if n != 1 else ''} here, and `{static_locals.text(where)}` cannot take them ({e}).",
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


def returned_call(norm, node, maker):
    """`maker(a)(g)` as `maker_then(a, g)` (frontend/returned.py), `maker` first specialized on
    the functions passed to it."""
    fixed, inner = _static_function_args(norm, node.func, maker)
    fn = returned.applied(idioms.specialize(maker, fixed) if fixed else maker, len(node.args))
    call_ = build.located(gast.Call(func=inner.func, args=inner.args + node.args, keywords=inner.keywords), node,
                          only_missing=True)
    return build.call(build.name(norm.bind(fn.__name__, fn)), [norm.atom(a) for a in call_.args],
                      {k.arg: norm.atom(k.value) for k in call_.keywords})


def is_transform_call_of_local(norm, a) -> bool:
    """`vmap(f, ...)` (or `jit(f)`) of a function made here: `a` itself is such a transform."""
    if not (isinstance(a, gast.Call) and isinstance(a.func, (gast.Name, gast.Attribute)) and norm.rooted_global(a.func)
            and a.args):
        return False
    rec = record.of(static_locals.static_or_none(norm, a.func))
    return rec is not None and rec.transform and (
        function_values.could_be(norm, a.args[0]) and not norm.rooted_global(a.args[0])
        or is_transform_call_of_local(norm, a.args[0]))


def local_function(norm, a):
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
    if isinstance(a, gast.Call) and isinstance(a.func, (gast.Name, gast.Attribute)) and norm.rooted_global(a.func) \
            and a.args and static_locals.static_or_none(norm, a.func) is functools.partial:
        name = norm.namer.fresh("partial_")
        norm.stmt_FunctionDef(lift.lambda_to_def(name, _partial_lambda(norm, a), a))
        a.s2s_lifted = name
        return norm.lifted[name]
    return None


def _partial_lambda(norm, a: gast.Call) -> gast.Lambda:
    """`functools.partial(f, b, k=v)` given to a transform here, as the lambda of f's other
    parameters that calls f with the bound values: those are evaluated once, now, and the lambda
    closes over them (so a vmap does not map them, as JAX treats a partial's arguments)."""
    target = a.args[0]
    fn = static_locals.static_or_none(norm, target) if norm.rooted_global(target) else None
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
    call = gast.Call(func=copy.deepcopy(target), args=bound,
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
        return copy.deepcopy(x) if norm.rooted_global(x) else _function_name(norm, x)[0]
    v = norm.atom(x)
    if isinstance(v, gast.Name) and v.id not in norm.ns:  # (a global stays one)
        norm.locals.add(v.id)
        if not static_locals.bound_once(norm, v):
            # the partial holds the object the name holds now, and a later `k = ...` rebinds the name
            # only: it is read here, once (an update in place of that object would be missed then)
            if v.id in static_locals.bindings(norm)[1]:
                norm.fail(x, f"`{v.id}` is bound again after this functools.partial takes it, and updated in place: "
                             "s2s follows one or the other for a partial's argument, not both.",
                          f"Pass a copy (`{v.id}.copy()`) or give the later value another name.")
            v = norm.tmp(copy.deepcopy(v), "bound")
            norm.locals.add(v.id)
    return v


def transform_of_local(norm, node, api):
    """`grad(inner, argnums=k)(y)` where `inner` closes over locals `free`: the transform of the
    lifted `inner(*free, y)` with argnums shifted past them, called with the free locals first."""
    f = node.func
    fn, free = local_function(norm, f.args[0]) if not hasattr(f.args[0], "s2s_lifted") else \
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
    refusal = getattr(transformed, "__s2s_refuse__", None)  # (a holomorphic derivative: called, not transformed)
    if isinstance(refusal, str):
        norm.fail(node, f"`{static_locals.text(node.func)}(...)`: {refusal}")
    adapt = getattr(type(transformed), "for_call", None)
    if adapt is not None:
        transformed = adapt(transformed, len(free) + len(node.args), {k.arg for k in node.keywords})
    args = [build.name(v) for v in free] + [norm.atom(a) for a in node.args]
    kw = {k.arg: norm.atom(k.value) for k in node.keywords}
    return build.call(build.name(norm.bind(getattr(transformed, "__name__", "transformed"), transformed)), args, kw)


# the parameters of s2s's transforms (and of the autograd-style ones of s2s.compat): those that
# select arguments by position are shifted past the free locals a lifted function takes first
_TRANSFORM_PARAMS = {"fun", "argnums", "argnum", "has_aux", "checkpoint", "static_argnums", "static_argnames",
                     "in_axes", "out_axes", "axis_size", "holomorphic"}


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


def _inside_function(norm, f):
    """(function, its free locals) for the function given to jvp/vjp/partial: a lambda or def made
    here (lifted), or a function known now (a global, an attribute, `grad(g)`)."""
    local = local_function(norm, f)
    if local is not None:
        return local
    try:
        fn = norm.static(f)
    except static_locals.NotStatic:
        fn = None
    if fn is None or not callable(fn):
        norm.fail(f, "s2s needs the function given to a transform inside a transformed function to be known "
                     "when it transforms: a module-level function, a lambda or def made here, or a transform of one.")
    return fn, []


def _literal_sequence(norm, node, what, example):
    """The items of a tuple or list written at the call, or of one a local holds whose length is
    known now (`p = (x,); s2s.jvp(f, p, t)`), unpacked into names first."""
    if isinstance(node, (gast.Tuple, gast.List)):
        return node.elts
    n = static_locals.static_length(norm, node)
    if n is None:
        norm.fail(node, f"s2s needs the {what} as a tuple or list written at the call inside a transformed function, "
                        "or a local bound to one.", f"Write them out: {example}.")
    names = [norm.namer.fresh("item") for _ in range(n)]
    norm.locals.update(names)
    target = gast.Tuple(elts=[build.name(m, store=True) for m in names], ctx=gast.Store())
    norm.stmt(build.located(gast.Assign(targets=[target], value=copy.deepcopy(node), type_comment=None), node,
                            only_missing=True))
    return [build.located(build.name(m), node, only_missing=True) for m in names]


def jvp_inside(norm, node, obj, inside):
    """`s2s.jvp(f, (x, ...), (v, ...))` inside a transformed function: a call of f's generated jvp
    (arguments, then tangents), which the enclosing transform differentiates or batches like any
    other generated function (grad of jvp: reverse-over-forward)."""
    if getattr(obj, "__name__", "") != "jvp":
        norm.fail(node, f"`{static_locals.text(node.func)}(...)` returns a function: inside a transformed function bind its "
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
            and norm.rooted_global(v.func)):
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


def unresolved_hint(norm, func) -> str:
    """What to write instead of calling a function s2s cannot resolve when transforming."""
    params = [a.id for a in norm.fn.args.args]
    if isinstance(func, gast.Name) and func.id in params:
        return (f"`{func.id}` is a parameter: s2s specializes on a function known when it transforms, so give "
                f"it as a default (`{func.id}=np.tanh`), bind it with functools.partial(f, {func.id}=...), "
                "or pass it from a transformed caller.")
    return "Call the function by its name, or pass it straight to the function that calls it."
