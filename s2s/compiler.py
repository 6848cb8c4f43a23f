"""The pipeline: function -> core form -> transform -> source -> function, cached and thread-safe."""
from __future__ import annotations

import copy
import linecache
import os
import threading
import types

import numpy as np

from . import runtime
from .codegen import compile_source, to_source
from .frontend import idioms
from .frontend.normalize import CoreFn, Normalizer
from .frontend.parse import parse_function
from .frontend.resolve import Env
from .frontend.validate import validate

LOCK = threading.RLock()
_CORES: dict = {}
_TRANSFORMS: dict = {}
_IN_PROGRESS: dict = {}


def fn_key(fn, _seen=None):
    """What a transform of `fn` depends on: its code, the globals and closure values it reads, and
    (recursively) the keys of the plain Python functions it calls."""
    fn = idioms.adapt(fn)  # partials, bound methods, callable instances, function-valued defaults
    if not isinstance(fn, types.FunctionType):
        if hasattr(fn, "__s2s_core__") or hasattr(fn, "compiled") or hasattr(fn, "__s2s_lazy__") \
                or hasattr(fn, "__s2s_custom_vjp__") or hasattr(fn, "__s2s_custom_jvp__"):
            return ("s2s", id(fn)) + idioms.arity_key(fn)
        from .errors import S2STypeError
        raise S2STypeError(f"s2s transforms Python functions; {getattr(fn, '__name__', fn)!r} is a "
                           f"{type(fn).__name__}. Wrap it: `def f(x): return np.sin(x)`.")
    if hasattr(fn, "__s2s_core__"):
        return ("gen", id(fn))
    code = fn.__code__
    glob = fn.__globals__
    seen = _seen if _seen is not None else set()
    seen.add(code)
    deps = []
    for n in _all_names(code):
        if n in glob:
            v = glob[n]
            if isinstance(v, types.FunctionType) and v.__code__ not in seen and not hasattr(v, "__s2s_core__"):
                deps.append((n, fn_key(v, seen)))
            else:
                deps.append((n, v if isinstance(v, (int, float, bool, str, type(None))) else idioms.dep_key(v)))
    cells = tuple(idioms.dep_key(c.cell_contents) if not isinstance(c.cell_contents, (int, float, bool, str))
                  else c.cell_contents for c in (fn.__closure__ or ()) if _has_contents(c))
    defaults = tuple(id(d) for d in (fn.__defaults__ or ()))
    return (code, tuple(deps), cells, defaults)


def _has_contents(cell) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False


def _all_names(code) -> list[str]:
    out = list(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out += _all_names(c)
    return out


def core_of(fn) -> CoreFn:
    """The core form of a user function or of an s2s-generated one (from the AST it carries)."""
    if hasattr(fn, "__s2s_custom_vjp__") or hasattr(fn, "__s2s_custom_jvp__"):
        from .custom import caller_of
        fn = caller_of(fn)
    fn = idioms.adapt(fn)
    key = fn_key(fn)
    with LOCK:
        hit = _CORES.get(key)
        if hit is not None and hit[0] is fn or hit is not None and key[0] not in ("s2s", "gen"):
            return hit[1]
        gen = getattr(fn, "__s2s_core__", None)
        if gen is not None:
            node, ns, filename = gen
            lines = None if filename.startswith("<") else linecache.getlines(filename)
            core = Normalizer(copy.deepcopy(node), Env(ns=ns), filename, source_lines=lines).run()
        else:
            parsed = parse_function(fn)
            lines = linecache.getlines(parsed.filename)
            core = Normalizer(parsed.node, Env(fn), parsed.filename, parsed.line_offset, parsed.col_offset,
                              lines).run()
        if os.environ.get("S2S_VALIDATE"):
            validate(core.node)
        _CORES[key] = (fn, core)
        return core


def compile_fn(name: str, node, ns: dict, filename: str, header: str = ""):
    """Generate source for `node`, exec it, and attach what later transforms need."""
    source = to_source(node, header)
    ns = {"xp": np, "rt": runtime, **ns}
    fn = compile_source(name, source, ns, np)
    fn.__s2s_core__ = (node, ns, f"<s2s:{name}>")
    fn.__s2s_source__ = source
    return fn


def cached(kind: str, fn, options, build):
    """Build (once per key) the transform `kind` of `fn` with `options`; recursion gets a lazy handle."""
    key = (kind, fn_key(fn), options)
    with LOCK:
        hit = _TRANSFORMS.get(key)
        if hit is not None:
            return hit[1]
        if key in _IN_PROGRESS:
            return _IN_PROGRESS[key]
        holder = _Lazy()
        _IN_PROGRESS[key] = holder.handles(kind)
        try:
            result = build()
        finally:
            del _IN_PROGRESS[key]
        holder.result = result
        _TRANSFORMS[key] = (fn, result)
        return result


class _Lazy:
    """Stands for a transform still being built (a recursive function calls itself)."""

    def __init__(self):
        self.result = None

    def handles(self, kind):
        if kind == "split":
            return (_LazyFn(self, 0), _LazyFn(self, 1))
        return _LazyFn(self, None)


class _LazyFn:
    __s2s_lazy__ = True

    def __init__(self, holder, index):
        self.holder, self.index = holder, index

    def target(self):
        r = self.holder.result
        return r if self.index is None else r[self.index]

    def __call__(self, *args):
        return self.target()(*args)

    @property
    def __s2s_core__(self):
        return self.target().__s2s_core__

    @property
    def __name__(self):
        return self.target().__name__

    @property
    def __signature__(self):
        import inspect
        return inspect.signature(self.target())


def header_for(kind: str, core: CoreFn, what: str = "") -> str:
    line = getattr(core.node, "lineno", None)
    where = f"{core.filename}" + (f":{line}" if line else "")
    return f"s2s: {kind} of {core.name} ({where}){' ' + what if what else ''}"
