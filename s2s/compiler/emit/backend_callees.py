"""Plain Python callees of generated code, compiled for the backend of the call.

Generated code calls some functions as they are, without transforming them: under jit a callee
that is not inlined (`linalg.expm(a)`, with defaults), under a derivative a callee whose inputs are
inactive (`nn.one_hot(labels, 3)`), and the runtime's composites (`rt.pad_constant`), which
transforms differentiate from their source but jit calls directly. Written with `np.`, run as plain
Python they would compute with NumPy on CuPy or Dask arrays (CuPy refuses NumPy arrays beside its
own; Dask reaches its own linalg through NumPy's dispatch, or computes on the host). On a backend
other than NumPy each such callee is therefore replaced by its jit version (`driver.jit_function`,
handed over by `use_compiler`; built on first call), whose generated code calls the backend's
`xp` (emit/loader.py `version`, handed to each function here as `bind`): one generated source,
one compiled version per backend. A callee s2s cannot compile stays plain.
"""
from __future__ import annotations

import inspect
import types
import weakref

import gast

from ... import runtime
from ...base import record
from ...errors import S2SError
from ..primitives import registry

# s2s's own modules whose functions are library code written with `np.` (the rest of s2s, its
# transforms and helpers, take their module from their arguments and stay as they are)
_LIBRARY = ("s2s.scipy", "s2s.nn", "s2s.lax")
_VERSIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # plain function -> {backend: version}


def called_names(node) -> set[str]:
    """The names generated function `node` only calls (never reads as a value): those whose
    binding may become another callable with the same calls."""
    calls = [n for n in gast.walk(node) if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)]
    funcs = {id(c.func) for c in calls}
    read = {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and id(n) not in funcs}
    return {c.func.id for c in calls} - read


def _compilable(fn) -> bool:
    """A plain user or s2s-library function of fixed arity, without rules of its own."""
    if not isinstance(fn, types.FunctionType) or record.of(fn) is not None or record.custom(fn) is not None:
        return False
    module = getattr(fn, "__module__", "") or ""
    if module.split(".")[0] == "s2s" and not module.startswith(_LIBRARY) and fn not in _composites():
        return False
    code = fn.__code__
    flags = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_GENERATOR | inspect.CO_COROUTINE
    return not code.co_flags & flags


def on_backend(fn, backend, bind):
    """`fn` for `backend`: its jit version there (`bind(generated, backend)`: the loader's `version`),
    built on first call, or `fn` itself when it is not a plain function s2s compiles (or s2s refuses
    to compile it: it then runs as written)."""
    if not _compilable(fn):
        return fn
    per = _VERSIONS.setdefault(fn, {})
    hit = per.get(backend.name)
    if hit is None:
        hit = per[backend.name] = _make(fn, backend, bind)
    return hit


_COMPILER: list = []  # the driver's jit (s2s/compiler/driver.py hands it over: it sits above this module)


def use_compiler(compile_fn) -> None:
    """Take the function that compiles a plain function into a generated one (the driver's jit)."""
    _COMPILER[:] = [compile_fn]


def _make(fn, backend, bind):
    sig = inspect.signature(fn)
    names = list(sig.parameters)
    built: list = []

    def run(*args, **kwargs):
        if not built:
            try:
                built.append(bind(_COMPILER[0](fn), backend))
            except S2SError:
                built.append(fn)
        if built[0] is fn:
            return fn(*args, **kwargs)
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return built[0](*[bound.arguments[n] for n in names])

    run.__name__, run.__qualname__, run.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    run.__wrapped__ = fn
    return run


_COMPOSITES: dict = {}
# backends whose rule helpers (rt.solve_vjp_a, rt.roll_vjp, ...) also run compiled: on Dask, NumPy's
# dispatch would send their np.linalg calls to Dask's own linear algebra (one square chunk only);
# on CuPy it reaches CuPy's functions, which take host shifts and counts as NumPy's do, where a
# compiled helper would make them device arrays
_HELPERS_COMPILED = ("dask",)


def _composites(helpers: bool = True) -> frozenset:
    """The runtime functions written with primitives that generated code may call as `rt.<name>`:
    the composites of NumPy functions and the keyword forms (registry.composite, KEYWORD_FORMS),
    with `helpers` the derivative rules' helpers too (registered as composites named `rt.*`)."""
    if not _COMPOSITES:
        numpy_forms = set(registry.KEYWORD_FORMS.values())
        rule_helpers = set()
        for key, p in registry.PRIMS.items():
            src = p.source
            fns = src.values() if isinstance(src, dict) else (src,) if src is not None else ()
            (rule_helpers if key.startswith("rt.") else numpy_forms).update(fns)
        _COMPOSITES[False] = frozenset(f for f in numpy_forms if isinstance(f, types.FunctionType))
        _COMPOSITES[True] = _COMPOSITES[False] | {f for f in rule_helpers if isinstance(f, types.FunctionType)}
    return _COMPOSITES[helpers]


class Runtime(types.SimpleNamespace):
    """`rt` as generated code sees it on one backend: the runtime's functions, its composites
    (written with `np.`; the rule helpers among them on Dask only) replaced by their versions for
    the backend, each made on first use."""

    def __init__(self, backend, bind):
        super().__init__()
        self.__dict__["_backend"], self.__dict__["_bind"] = backend, bind

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(runtime, name)
        if isinstance(value, types.FunctionType) and value in _composites(self._backend.name in _HELPERS_COMPILED):
            value = on_backend(value, self._backend, self._bind)
        self.__dict__[name] = value
        return value


_RUNTIMES: dict = {}


def runtime_for(backend, bind) -> Runtime:
    """The `rt` of generated code on `backend` (one per backend)."""
    rt = _RUNTIMES.get(backend.name)
    if rt is None or rt._backend is not backend:
        rt = _RUNTIMES[backend.name] = Runtime(backend, bind)
    return rt
