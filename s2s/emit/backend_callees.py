"""Plain Python callees of generated code, compiled for the backend of the call.

Generated code calls some functions as they are, without transforming them: under jit a callee
that is not inlined (`linalg.expm(a)`, with defaults), under a derivative a callee whose inputs are
inactive (`nn.one_hot(labels, 3)`), and the runtime's composites (`rt.pad_constant`), which
transforms differentiate from their source but jit calls directly. Written with `np.`, run as plain
Python they would compute with NumPy on CuPy or Dask arrays (CuPy refuses NumPy arrays beside its
own; Dask reaches its own linalg through NumPy's dispatch, or computes on the host). On a backend
other than NumPy each such callee is therefore replaced by its jit version (`driver.jit_function`,
built on first call), whose generated code calls the backend's `xp` (emit/loader.py `version`):
one generated source, one compiled version per backend. A callee s2s cannot compile stays plain.
"""
from __future__ import annotations

import inspect
import types
import weakref

import gast

from .. import record, runtime
from ..errors import S2SError
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
    if module.startswith("s2s") and not module.startswith(_LIBRARY) and fn not in _composites():
        return False
    code = fn.__code__
    flags = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_GENERATOR | inspect.CO_COROUTINE
    return not code.co_flags & flags


def on_backend(fn, backend):
    """`fn` for `backend`: its jit version there, built on first call, or `fn` itself when it is
    not a plain function s2s compiles (or s2s refuses to compile it: it then runs as written)."""
    if not _compilable(fn):
        return fn
    per = _VERSIONS.setdefault(fn, {})
    hit = per.get(backend.name)
    if hit is None:
        hit = per[backend.name] = _make(fn, backend)
    return hit


def _make(fn, backend):
    from .. import driver  # (driver imports the loader, which imports this module)
    from .loader import version
    sig = inspect.signature(fn)
    names = list(sig.parameters)
    built: list = []

    def run(*args, **kwargs):
        if not built:
            try:
                built.append(version(driver.jit_function(fn, fuse=False), backend))
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


_COMPOSITES: list = []


def _composites() -> frozenset:
    """The runtime functions written with primitives that generated code may call as `rt.<name>`:
    the composites' sources and the keyword forms (registry.composite, KEYWORD_FORMS)."""
    if not _COMPOSITES:
        found = set(registry.KEYWORD_FORMS.values())
        for p in registry.PRIMS.values():
            src = p.source
            found.update(src.values() if isinstance(src, dict) else (src,) if src is not None else ())
        _COMPOSITES.append(frozenset(f for f in found if isinstance(f, types.FunctionType)))
    return _COMPOSITES[0]


class Runtime(types.SimpleNamespace):
    """`rt` as generated code sees it on one backend: the runtime's functions, its composites
    (written with `np.`) replaced by their versions for the backend, each made on first use."""

    def __init__(self, backend):
        super().__init__()
        self.__dict__["_backend"] = backend

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(runtime, name)
        if isinstance(value, types.FunctionType) and value in _composites():
            value = on_backend(value, self._backend)
        self.__dict__[name] = value
        return value


_RUNTIMES: dict = {}


def runtime_for(backend) -> Runtime:
    """The `rt` of generated code on `backend` (one per backend)."""
    rt = _RUNTIMES.get(backend.name)
    if rt is None or rt._backend is not backend:
        rt = _RUNTIMES[backend.name] = Runtime(backend)
    return rt
