"""Python idioms that stand for plain functions: `functools.partial`, bound methods, callable
instances, `*args` functions called with a known number of arguments, and functions whose
function-valued parameters are known (a default like `nonlinearity=np.tanh`, or a function passed at
a call site, as JAX's `static_argnums` would).

Each becomes a *synthesized* function: ordinary Python source built here, exec'd once, and carrying
its (unnormalized) AST the way lifted functions do, so every transform treats it like any other user
function. The values it specializes on (the bound `self`, a partial's arguments, a function passed
as an argument) are constants of the synthesized function and part of its cache key.
"""
from __future__ import annotations

import copy
import functools
import inspect
import threading
import types

import gast
import numpy as np

from ...base import record
from ...errors import S2SError, S2SSyntaxError, error_at
from ..ir import build
from ..primitives import registry
from ..primitives.rules_idioms import s2s_same
from .parse import parse_function
from .reads import note as note_read
from .reads import stored_attributes
from .refs import Ref

_LOCK = threading.RLock()
_SYNTH: dict = {}  # key -> (objects kept alive so ids stay unique, synthesized function)


def is_function_value(obj) -> bool:
    """A value that is a function (user function, NumPy function, partial, method), not data."""
    if obj is None or isinstance(obj, (type, np.ndarray, np.generic, int, float, complex, str, bool)):
        return False
    return callable(obj)


def is_library_function(obj) -> bool:
    """A NumPy function or ufunc with derivative rules (`np.tanh`, `jnp.sin`, `np.linalg.norm`), which
    JAX's API lets one transform directly."""
    return _library_prim(obj) is not None


def _library_prim(obj):
    """The primitive (registry.Prim) NumPy's or s2s.numpy's function `obj` is, or None."""
    prim = getattr(record.of(obj), "prim", None)
    if isinstance(prim, str):  # s2s.numpy's functions (`jnp.sin`): the rule they stand for
        return registry.lookup(prim)
    module = "numpy" if isinstance(obj, np.ufunc) else getattr(obj, "__module__", None) or ""
    if not callable(obj) or isinstance(obj, type) or not (module == "numpy" or module.startswith("numpy.")):
        return None
    name = getattr(obj, "__name__", "")
    return registry.lookup(f"xp{module[len('numpy'):]}.{name}")  # only those with rules


def needs_adapting(obj) -> bool:
    if is_library_function(obj):
        return True
    if isinstance(obj, types.FunctionType):
        return hasattr(obj, "__defaults__") and record.of(obj) is None \
            and (any(is_function_value(d) for d in (obj.__defaults__ or ()))
                 or has_varkw(obj) and not has_varargs(obj)  # (`*args, **kwargs`: specialized per arity)
                 or inspect.isgeneratorfunction(obj))
    if record.of(obj) is not None:
        return False
    if isinstance(obj, functools.partial):
        return True
    if isinstance(obj, types.MethodType) and isinstance(obj.__func__, types.FunctionType):
        return True
    call = vars(type(obj)).get("__call__") or next((vars(c)["__call__"] for c in type(obj).__mro__
                                                    if "__call__" in vars(c)), None)
    return isinstance(call, types.FunctionType) and not isinstance(obj, type)


_CALL = threading.local()  # the `*args` function being called with how many extra arguments


def varargs_call(fn, nargs: int, run):
    """Run `run()` (compile and call a transform of the `*args` function `fn`) with `fn` standing
    for its specialization to `nargs` positional arguments."""
    nfixed = len([p for p in record.signature_of(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
    saved = getattr(_CALL, "current", None)
    _CALL.current = (fn, max(nargs - nfixed, 0))
    try:
        return run()
    finally:
        _CALL.current = saved


def current_arity(fn):
    """The number of `*args` arguments `fn` is being compiled for, or None."""
    current = getattr(_CALL, "current", None)
    return current[1] if current is not None and current[0] is fn else None


def arity_key(transformed) -> tuple:
    """For a transform of a `*args` function being compiled for some arity: that arity (a cache key part)."""
    root = getattr(transformed, "_root", None)
    n = current_arity(root) if root is not None else None
    return () if n is None else (n,)


def with_arity(fn, nargs: int):
    """`fn` itself, or for a `*args` function its specialization to `nargs` positional arguments."""
    if not has_varargs(fn):
        return fn
    return varargs_call(fn, nargs, lambda: adapt(fn))


def transformable(fn, nargs: int):
    """What a transform given `fn` itself compiles for `nargs` arguments: a NumPy function as the
    plain function s2s writes for it (no `out=`), a `*args` function specialized to `nargs`."""
    return with_arity(adapt(fn, nargs) if is_library_function(fn) else fn, nargs)


def adapt(obj, nargs: int | None = None):
    """The plain (synthesized) function that `obj` stands for, or `obj` itself; `nargs`: the number
    of arguments a transform was given, for a library function whose signature does not say."""
    current = getattr(_CALL, "current", None)
    if current is not None and current[0] is obj:
        return specialize(obj, {}, current[1], kwnames=() if has_varkw(obj) else None)
    if not needs_adapting(obj):
        return obj
    if is_library_function(obj):
        return _library(obj, nargs)
    if isinstance(obj, types.FunctionType) and inspect.isgeneratorfunction(obj):
        return _generator(obj)
    if isinstance(obj, types.FunctionType):
        sig = record.signature_of(obj)
        fixed = {p.name: p.default for p in sig.parameters.values()
                 if p.default is not inspect.Parameter.empty and is_function_value(p.default)}
        return specialize(obj, fixed, keep=True, kwnames=() if has_varkw(obj) else None)
    if isinstance(obj, functools.partial):
        return _partial(obj)
    if not isinstance(obj, types.MethodType):
        cls = type(obj)
        note_read("type", obj, None, cls)  # (a transform built from its `__call__` is reused while
        note_read("attr", cls, "__call__", cls.__call__)  # the object's class and its method hold)
        obj = types.MethodType(cls.__call__, obj)
    return _method(obj)


def clear() -> None:
    """Forget the synthesized functions (s2s.clear_caches)."""
    with _LOCK:
        _SYNTH.clear()


def remember(key, alive, compute, stamp=None):
    """The function synthesized under `key`, built by `compute` the first time and again whenever
    `stamp` (what it copied from its origin's namespace, `namespace_stamp`) differs."""
    with _LOCK:
        hit = _SYNTH.get(key)
        if hit is None or hit[2] != stamp:
            hit = (alive, compute(), stamp)
            _SYNTH[key] = hit
        return hit[1]


def namespace_stamp(fn) -> tuple:
    """What a function synthesized from `fn` copies from `fn`'s namespace (`namespace_of`): the globals
    its code names and its closure values, numbers by type and text and other objects by identity.
    The copy is made again when this changes, so that a global rebound since (`SCALE = 3.0` read by
    a method, or by `jit(step, static_argnums=1)`'s specialization) is never read from a stale copy."""
    glob = fn.__globals__
    out = [(n, _stamp_value(glob[n])) for n in _names_read(fn, glob, set()) if n in glob]
    for cell in fn.__closure__ or ():
        try:
            out.append(_stamp_value(cell.cell_contents))
        except ValueError:  # an empty cell
            out.append(None)
    return tuple(out)


def _names_read(fn, glob: dict, seen: set) -> tuple:
    """The names `fn`'s code reads, and those of the functions of the same module it names or holds
    in its closure (a decorator's wrapped function), and theirs: the copy holds the globals its
    callees read too (`f(x) * k` with f reading a rebound global, under `jit(step, static_argnums=1)`)."""
    out = list(_code_names(fn.__code__))
    callees = [glob.get(n) for n in out]
    for cell in fn.__closure__ or ():
        try:
            callees.append(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    for v in callees:
        if isinstance(v, types.FunctionType) and v.__globals__ is glob and v not in seen:
            seen.add(v)
            out += _names_read(v, glob, seen)
    return tuple(dict.fromkeys(out))


def _stamp_value(v):
    if isinstance(v, (int, float, complex, bool, str, bytes, type(None))):
        return (type(v), repr(v))  # (0.0 and -0.0, 1 and True, nan: told apart, nan equal to itself)
    if isinstance(v, np.generic):
        return (type(v), v.tobytes())
    return id(v)


def _code_names(code) -> tuple:
    """The names `code` and the code nested in it read (globals among them)."""
    out = list(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out += _code_names(c)
    return tuple(dict.fromkeys(out))


def _value_key(v):
    if isinstance(v, (int, float, bool, str, complex, type(None))):
        return (type(v).__name__, v)
    if isinstance(v, np.generic):
        return ("np", v.dtype.str, v.item())
    return ("id", id(v))


def _attrs_key(obj) -> tuple:
    """`self`'s attributes are constants of the transformed method: they are part of its cache key
    (numbers by value, other objects by identity), so changing `model.scale` compiles again."""
    try:
        d = vars(obj)
    except TypeError:
        return ()
    stored = stored_attributes(obj)  # (stored by a transformed function: read when it runs, never folded in)
    return tuple(sorted((k, _value_key(v)) for k, v in d.items() if k not in stored))


def dep_key(v):
    """How a global or closure value enters its user's cache key: by identity, and for an instance
    of a user class (whose methods the function may call) also by its attributes."""
    if isinstance(v, (types.ModuleType, types.FunctionType, type, np.ndarray, functools.partial)) \
            or not hasattr(v, "__dict__"):
        return id(v)
    return ("obj", id(v), _attrs_key(v))


def namespace_of(fn) -> dict:
    """The names `fn`'s code sees: its globals, with its closure's values over them."""
    ns = dict(fn.__globals__)
    for var, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            ns[var] = cell.cell_contents
        except ValueError:
            pass
    return ns


_COMPILE = []  # the loader's compile_fn, given by the driver (the frontend does not import it)


def set_compiler(compile_fn) -> None:
    """Give the frontend the function that turns a synthesized def into a callable."""
    _COMPILE[:] = [compile_fn]


def synthesize(name: str, node: gast.FunctionDef, ns: dict, filename: str, origin=None):
    """The def `node` compiled in namespace `ns`, with its record (so transforms treat it like user code);
    `origin`: the user function whose namespace `ns` copies (its key watches the globals read)."""
    fn = _COMPILE[0](name, copy.deepcopy(node), ns, filename)
    record.attach(fn, core=(node, {**ns, "xp": fn.__globals__["xp"], "rt": fn.__globals__["rt"]}, filename),
                  written=True, origin=origin)
    return fn


def parsed_def(fn):
    """`fn`'s parsed def, with the user's line numbers and columns already applied."""
    parsed = parse_function(fn)
    node = parsed.node
    for n in gast.walk(node):
        if getattr(n, "lineno", None) is not None:
            n.lineno += parsed.line_offset
            n.col_offset = getattr(n, "col_offset", 0) + parsed.col_offset
        if getattr(n, "end_lineno", None) is not None:
            n.end_lineno += parsed.line_offset
    return node, parsed.filename


def _method(m):
    """`obj.method` (or `obj(...)` through `__call__`): the method with `self` a constant."""
    func, obj = m.__func__, m.__self__
    key = ("method", func.__code__, id(func), id(obj), _attrs_key(obj))

    def compute():
        node, filename = parsed_def(func)
        if not node.args.args:
            raise S2SError(f"{filename}:{node.lineno}\ns2s cannot transform method {func.__name__!r}: "
                           "it has no `self` parameter.")
        self_name = node.args.args[0].id
        node.args.args = node.args.args[1:]
        ns = namespace_of(func)
        ns[self_name] = obj
        ns["__s2s_self__"] = self_name  # (which name is `self`: super() reads it, frontend/attr_stores.py)
        node.name = f"{type(obj).__name__}_{func.__name__}".replace("__call__", "call").replace("<lambda>", "lambda_")
        return synthesize(node.name, node, ns, filename, origin=func)
    return remember(key, (func, obj), compute, namespace_stamp(func))


def _library(f, nargs: int | None = None):
    """`np.tanh` as `def tanh(x): return np.tanh(x)`, taking the function's required positional
    parameters (`_library_arity`)."""
    def compute():
        n = _library_arity(f, nargs)
        label = getattr(f, "__name__", "f")
        params = [f"x{i}" if n > 1 else "x" for i in range(max(n, 1))]
        callee = fresh_name(label, set(params))
        fname = f"{label}_"
        src = f"def {fname}({', '.join(params)}):\n    return {callee}({', '.join(params)})\n"
        return synthesize(fname, gast.parse(src).body[0], {callee: f}, f"<s2s:{fname}>")
    return remember(("library", id(f), nargs), f, compute)


def _library_arity(f, nargs: int | None) -> int:
    """How many positional parameters the function s2s writes for library function `f` takes: a
    ufunc's inputs; else the required ones of NumPy's own signature (through its C dispatcher's
    `__wrapped__`; for s2s.numpy's `(*args, **kwargs)` wrappers, the NumPy function's), at least the
    `nargs` a transform was given for a `*args` one (np.atleast_1d); where NumPy has no signature,
    those its primitive declares without a default. (A one-argument function compiled for
    `grad(np.kron)(a, b)` failed with a raw TypeError.)"""
    if isinstance(getattr(f, "nin", None), int):  # a ufunc, or s2s.numpy's wrapper of one
        return f.nin
    try:
        params = inspect.signature(getattr(f, "_np", f)).parameters.values()
    except (TypeError, ValueError):
        prim = _library_prim(f)
        declared = 0 if prim is None else sum(1 for q in prim.params if q not in prim.defaults and q[0] != "*")
        return declared or nargs or 1
    required = sum(1 for q in params if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD) and q.default is q.empty)
    if any(q.kind == q.VAR_POSITIONAL for q in params):
        return max(required, nargs or 1)
    return required or nargs or 1


def _partial(p):
    """`functools.partial(f, *a, **kw)`: a function of the remaining positional parameters."""
    key = ("partial", id(p))

    def compute():
        func = p.func if isinstance(p.func, types.FunctionType) else adapt(p.func)
        try:
            params = [q.name for q in record.signature_of(p).parameters.values()
                      if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)
                      and q.name not in p.keywords]
        except (TypeError, ValueError):
            raise S2SError(f"s2s cannot read the signature of {p!r}.") from None
        ns = {"__s2s_origin__": p}
        label = getattr(p.func, "__name__", "f").replace("<lambda>", "lambda_")
        fname = "partial_" + label
        taken = set(params)
        callee = fresh_name(label, taken)
        ns[callee] = func
        args = []
        for i, a in enumerate(p.args):
            n = fresh_name(f"arg{i}", taken)
            ns[n] = a
            args.append(n)
        kws = []
        for k, v in p.keywords.items():
            n = fresh_name(k, taken)
            ns[n] = v
            kws.append(f"{k}={n}")
        src = f"def {fname}({', '.join(params)}):\n    return {callee}({', '.join(args + params + kws)})\n"
        node = gast.parse(src).body[0]
        return synthesize(fname, node, ns, f"<s2s:{fname}>")
    return remember(key, p, compute)


def refuse_generator(fn) -> None:
    """A generator function given to a transform itself: its value is a generator, not an array."""
    node, filename = parsed_def(fn)
    where = next((n for n in gast.walk(node) if isinstance(n, (gast.Yield, gast.YieldFrom))), node)
    raise error_at((filename, where.lineno, where.col_offset),
                   f"s2s cannot transform the generator function {fn.__name__!r} itself: it returns a generator, "
                   "not arrays. (A generator called inside a transformed function runs as the list it yields.)",
                   "Return a list or an array instead.", S2SSyntaxError)


def _generator(fn):
    """A generator function as the function returning the list of what it yields: a transformed
    function consumes a generator whole (`for W, b in layers(w)`, `list(...)`), and its items are
    pure computations, so building them all first gives the same values. A `while` loop (possibly
    endless), `yield from` and a yield used as a value are refused."""
    def compute():
        node, filename = parsed_def(fn)
        where = None
        for n in gast.walk(node):
            if isinstance(n, (gast.While, gast.YieldFrom, gast.Match)) or isinstance(n, gast.Yield) and n is not getattr(
                    _parent_expr(node, n), "value", None):
                where = n
                break
        if where is not None:
            what = {gast.While: "a `while` loop", gast.YieldFrom: "`yield from`",
                    gast.Match: "a `match` statement"}.get(type(where), "a yield used as a value")
            raise error_at((filename, where.lineno, where.col_offset),
                           f"s2s runs a generator ({fn.__name__!r}) as the list of what it yields, and refuses "
                           f"{what} in it" + ("." if isinstance(where, gast.Match) else
                                              " (the list might never end, or the generator is driven by its consumer)."),
                           "Return a list instead, built with `append` (and `if`/`elif` for a `match`).", S2SSyntaxError)
        taken = build.names_in(node) | set(fn.__globals__)
        out = fresh_name("yielded", taken)
        node.body = [build.located(build.assign(out, build.list_([])), node.body[0])] + _yields_to_appends(node.body, out) \
            + [build.located(build.ret(build.name(out)), node.body[-1])]
        node.name = f"{fn.__name__}_list"
        return synthesize(node.name, node, namespace_of(fn), filename, origin=fn)
    return remember(("generator", fn.__code__, id(fn)), fn, compute, namespace_stamp(fn))


def _parent_expr(root, target):
    """The `Expr` statement whose value is `target`, if there is one."""
    for n in gast.walk(root):
        if isinstance(n, gast.Expr) and n.value is target:
            return n
    return None


def _yields_to_appends(stmts, out: str) -> list:
    """`yield v` -> `out.append(v)`, and a bare `return` -> `return out`, through nested blocks."""
    new = []
    for s in stmts:
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Yield):
            value = s.value.value if s.value.value is not None else build.const(None)
            s = build.located(build.expr_stmt(build.call(build.attr(build.name(out), "append"), [value])), s)
        elif isinstance(s, gast.Return):
            s = build.located(build.ret(build.name(out)), s)
        elif not isinstance(s, (gast.FunctionDef, gast.Lambda)):
            for field in ("body", "orelse"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, _yields_to_appends(getattr(s, field), out))
        new.append(s)
    return new


def fresh_name(base, taken):
    """`base`, or `base_1`, `base_2`, ... the first not in `taken` (which it joins)."""
    cand, k = base, 0
    while cand in taken:
        k += 1
        cand = f"{base}_{k}"
    taken.add(cand)
    return cand


def has_varargs(fn) -> bool:
    return isinstance(fn, types.FunctionType) and bool(fn.__code__.co_flags & inspect.CO_VARARGS) \
        and record.of(fn) is None


def has_varkw(fn) -> bool:
    return isinstance(fn, types.FunctionType) and bool(fn.__code__.co_flags & inspect.CO_VARKEYWORDS) \
        and record.of(fn) is None


def kw_param(kwarg: str, key: str) -> str:
    """The parameter a `**kwarg` entry `key` becomes in a specialized function."""
    return f"{kwarg}_{key}"


def specialize(fn, fixed: dict, nvar: int | None = None, keep: bool = False, kwnames: tuple | None = None):
    """`fn` with the parameters in `fixed` bound to those values (functions known when the caller
    is transformed), when `nvar` is given, `*args` replaced by `nvar` positional parameters, and
    when `kwnames` is given, `**kwargs` by one parameter per keyword (`kw_param`; the call passes
    them under those names) from which the body's dict is built.

    With `keep`, the fixed parameters stay in the signature (the caller still passes them) and the
    generated code checks that it was passed the very value it was specialized on.
    """
    key = ("spec", fn.__code__, id(fn), tuple(sorted((k, _fixed_key(v)) for k, v in fixed.items())), nvar, keep,
           kwnames)

    def compute():
        node, filename = parsed_def(fn)
        a = node.args
        if a.kwonlyargs or (a.kwarg and kwnames is None) or a.posonlyargs or (a.vararg is not None and nvar is None):
            raise error_at((filename, node.lineno, node.col_offset),
                           f"s2s transforms `*args` functions ({fn.__name__!r}) only with plain positional "
                           "parameters besides `*args` (no keyword-only or `**kwargs` parameters).",
                           "Give the keyword-only parameters default positions, or pass them in a tuple.",
                           S2SSyntaxError)
        ns = namespace_of(fn)
        taken = build.names_in(node) | set(ns)
        new_args, checks = [], []
        dflt = dict(zip([p.id for p in a.args][len(a.args) - len(a.defaults):], a.defaults))
        values = getattr(fn, "__defaults__", None) or ()
        if len(values) == len(a.defaults):  # the values the def computed, where it ran (an enclosing
            for pid, v in zip(list(dflt), values):  # function's locals), never re-evaluated in `ns`
                dflt[pid] = build.name(fresh_name(f"{pid}_default", taken))
                ns[dflt[pid].id] = v
        new_defaults = []
        closures = []
        for p in a.args:  # functions with free locals: their values come first, in their place
            free = free_of(fixed[p.id]) if p.id in fixed else []
            if free:
                names = [fresh_name(f"{p.id}_free{i}", taken) for i in range(len(free))]
                new_args += [build.name(n) for n in names]
                new_defaults += [None] * len(names)
                closures.append(_closure(p.id, fixed[p.id], names, ns, taken, node))
        for p in a.args:
            if p.id in fixed:
                v = fixed[p.id]
                if not free_of(v):
                    ns[p.id] = _fn(v)
                if keep:
                    given = fresh_name(p.id + "_arg", taken)
                    new_args.append(build.name(given))
                    new_defaults.append(dflt.get(p.id))
                    checks.append(_guard(given, p.id, fn.__name__, node, ns, taken))
            else:
                new_args.append(p)
                new_defaults.append(dflt.get(p.id))
        pre = []
        if nvar is not None:
            star = a.vararg.id
            names = [fresh_name(f"{star}_{i}", taken) for i in range(nvar)]
            new_args += [build.name(n) for n in names]
            pre.append(build.assign(star, build.tuple_([build.name(n) for n in names])))
            for s in pre:
                gast.copy_location(s, node.body[0])
                gast.copy_location(s.targets[0], node.body[0])
            a.vararg = None
        if a.kwarg is not None:
            names = [kw_param(a.kwarg.id, k) for k in kwnames]
            new_args += [build.name(n) for n in names]
            new_defaults += [build.const(None) for _ in names]  # (always passed: keeps earlier defaults)
            kept = _leading_pops(node, a.kwarg.id, dict(zip(kwnames, names)))
            pack = gast.parse(f"{a.kwarg.id} = {{{', '.join(f'{k!r}: {n}' for k, n in kept.items())}}}").body[0]
            pre.append(build.located(pack, node.body[0]))
            a.kwarg = None
        for arg in new_args:
            arg.ctx = gast.Param()
        a.args = new_args
        new_defaults += [None] * (len(new_args) - len(new_defaults))
        trailing = []
        for d in reversed(new_defaults):
            if d is None:
                break
            trailing.insert(0, d)
        a.defaults = trailing
        node.body = checks + pre + closures + node.body
        suffix = "_".join(getattr(_fn(v), "__name__", "fs").replace("<lambda>", "lambda_")
                          for v in fixed.values())
        node.name = fn.__name__.replace("<lambda>", "lambda_") + (f"_{suffix}" if suffix else "") \
            + (f"_{nvar}args" if nvar is not None else "")
        return synthesize(node.name, node, ns, filename, origin=fn)
    return remember(key, (fn, tuple(_fn(v) for v in fixed.values())), compute, namespace_stamp(fn))


def _leading_pops(node, kwarg: str, params: dict) -> dict:
    """Resolves the `x = kwargs.pop('key', default)` statements that open a `**kwargs` function
    (stax's `rng = kwargs.pop('rng', None)`) while specializing it on the keywords passed: each
    becomes `x = <the keyword's parameter>` or `x = default`. Returns the keys left in the dict."""
    left = dict(params)
    body = node.body
    i = 0
    while i < len(body) and _is_kwarg_pop(body[i], kwarg):
        call = body[i].value
        key = call.args[0].value
        default = call.args[1] if len(call.args) == 2 else gast.Constant(value=None, kind=None)
        value = gast.Name(id=left.pop(key), ctx=gast.Load(), annotation=None, type_comment=None) \
            if key in left else default
        body[i] = gast.copy_location(gast.Assign(targets=body[i].targets, value=value, type_comment=None), body[i])
        gast.copy_location(value, call)
        i += 1
    return left


def _is_kwarg_pop(s, kwarg: str) -> bool:
    v = s.value if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) \
        else None
    return isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr == "pop" \
        and isinstance(v.func.value, gast.Name) and v.func.value.id == kwarg and not v.keywords \
        and 1 <= len(v.args) <= 2 and isinstance(v.args[0], gast.Constant) and isinstance(v.args[0].value, str)


def _fixed_key(v):
    """How a value a callee is specialized on enters the key: a function by identity, a function
    made in the caller (a Ref) by identity and the number of locals it closes over, a collection
    of them by its entries."""
    if isinstance(v, Ref):
        return (id(v.fn), len(v.free))
    if isinstance(v, (tuple, list)):
        return (type(v).__name__,) + tuple(_fixed_key(e) for e in v)
    if isinstance(v, dict):
        return ("dict",) + tuple((k, _fixed_key(e)) for k, e in v.items())
    return id(v)


def free_of(v) -> list:
    """The free locals of a value a callee is specialized on (a Ref, or a collection of them), in order."""
    if isinstance(v, Ref):
        return list(v.free)
    if isinstance(v, (tuple, list)):
        return [n for e in v for n in free_of(e)]
    if isinstance(v, dict):
        return [n for e in v.values() for n in free_of(e)]
    return []


def _closure(param: str, value, names: list, ns: dict, taken: set, where) -> gast.stmt:
    """`param = partial(fn, free0, ...)` (or a tuple, list or dict of such): the function passed,
    made from the values it closes over, which the specialized callee takes as parameters (so a
    plain call of the callee runs it too)."""
    partial = fresh_name("partial", taken)
    ns[partial] = functools.partial
    names = iter(names)

    def text(v):
        if isinstance(v, (tuple, list)):
            inner = ", ".join(text(e) for e in v) + ("," if isinstance(v, tuple) and len(v) == 1 else "")
            return f"({inner})" if isinstance(v, tuple) else f"[{inner}]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k!r}: {text(e)}" for k, e in v.items()) + "}"
        target = fresh_name(f"{param}_fn", taken)
        ns[target] = _fn(v)
        if not (isinstance(v, Ref) and v.free):
            return target
        return f"{partial}({target}, {', '.join(next(names) for _ in v.free)})"
    return build.located(gast.parse(f"{param} = {text(value)}").body[0], where.body[0])


def _fn(v):
    """The object a specialized callee holds for `v` (for a collection of Refs: their functions)."""
    if isinstance(v, Ref):
        return v.fn
    if isinstance(v, (tuple, list)):
        return type(v)(_fn(e) for e in v)
    if isinstance(v, dict):
        return {k: _fn(e) for k, e in v.items()}
    return v


def _guard(given: str, param: str, fname: str, where, ns: dict, taken: set) -> gast.stmt:
    """`check(given, param, message)`: the function passed is the default it was specialized on."""
    check = fresh_name("same_function", taken)
    ns[check] = s2s_same
    msg = (f"{fname} was transformed for its default `{param}`; to use another function, pass "
           f"functools.partial({fname}, {param}=...) to the transform instead")
    return build.located(gast.parse(f"{check}({given}, {param}, {msg!r})").body[0], where.body[0])


def lifted_keyword(fn, lifted, key: str) -> str:
    """The parameter a call's keyword `key` is passed as to `lifted_with_arity(fn, ...)`: its own
    name, or the one standing for its `**kwargs` entry."""
    kwarg = record.of(fn).core[0].args.kwarg if lifted is not fn and record.of(fn) is not None else None
    if kwarg is None or key in {p.id for p in record.of(fn).core[0].args.args}:
        return key
    return kw_param(kwarg.id, key)


def lifted_with_arity(fn, nargs: int, keywords: tuple = ()):
    """A `def f(*args)` or `lambda *args: ...` made inside a transformed function (already lifted),
    specialized to a call with `nargs` positional arguments (its free locals included). A
    `**kwargs` parameter becomes one parameter per keyword of the call's `keywords` that is not a
    named parameter (`kw_param`: the call passes them under those names), from which the body's
    dict is built (`def wrapped(*args, **kwargs): return f(*args, **kwargs)`)."""
    rec = record.of(fn)
    if rec is None or rec.core is None:  # a generated helper (vjp's pullback): no `*args`
        return fn
    node, ns, filename = rec.core
    a = node.args
    if a.vararg is None or a.kwonlyargs or None in keywords:
        return fn
    extra = tuple(k for k in keywords if k not in {p.id for p in a.args})

    def compute():
        new = copy.deepcopy(node)
        taken = build.names_in(new) | set(ns)
        star = new.args.vararg.id
        names = [fresh_name(f"{star}_{i}", taken) for i in range(max(nargs - len(new.args.args), 0))]
        pack = build.assign(star, build.tuple_([build.name(n) for n in names]))
        gast.copy_location(pack, new.body[0])
        gast.copy_location(pack.targets[0], new.body[0])
        new.args.args = new.args.args + [build.name(n) for n in names]
        for p in new.args.args:
            p.ctx = gast.Param()
        new.args.vararg = None
        new.body = [pack] + new.body
        if new.args.kwarg is not None:
            kw = new.args.kwarg.id
            new.args.args += [build.name(kw_param(kw, k), param=True) for k in extra]
            pack = gast.parse(f"{kw} = {{{', '.join(f'{k!r}: {kw_param(kw, k)}' for k in extra)}}}").body[0]
            new.body.insert(1, build.located(pack, new.body[0]))
            new.args.kwarg = None
        new.name = f"{new.name}_{len(names)}args"
        return synthesize(new.name, new, dict(ns), filename)
    return remember(("lifted", id(fn), nargs, extra), fn, compute)
