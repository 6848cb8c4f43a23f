"""The cache key of a user function, and the cheap per-call test that it has not changed.

`fn_key(fn)` is what a transform of `fn` depends on: its code, the globals, module attributes and
closure values it reads (constants by type and value, so `-0.0`, `nan` and `True` are told from
`0.0`, `nan` and `1`), and (recursively) the keys of the plain Python functions it calls.
Computing it walks all of that (microseconds); `watched_key(fn)` also returns a `Watch`: the
exact list of places the key read (a namespace dict and a name, a closure cell, a function's
`__code__`/`__defaults__`, an instance's attributes) with the object each held. While every place
still holds the very same object, the key is unchanged; `Watch.check()` tests that with one
generated expression of identity comparisons (a few hundred ns). When a place holds another
object, the caller recomputes the key and compares it by value: `x = 0.5` rebound to an equal
float keeps the compiled code, `0.0` rebound to `-0.0` does not. `Watch.compile(reads)` also tests
what a compilation read from objects (frontend/reads.py): attributes, items, lengths and types.
"""
from __future__ import annotations

import dis
import functools
import os
import sysconfig
import types

import numpy as np

from ..base import record
from ..errors import S2STypeError
from .frontend import idioms, resolve
from .frontend.reads import Reads

_CONSTANTS = (int, float, complex, bool, str, bytes, type(None))
_LIBRARIES = {"numpy", "s2s", "math", "cmath", "builtins", "functools", "itertools", "operator", "scipy"}
MISSING = object()  # what a watched namespace held where the name was not bound


class Watch:
    """The places a key was computed from and the objects they held (collected by `fn_key`)."""

    def __init__(self):
        self.slots: dict = {}   # (id(dict), name) -> (dict, name, object it held, or MISSING)
        self.funcs: dict = {}   # id(fn) -> (fn, __code__, __defaults__)
        self.cells: dict = {}   # id(cell) -> (cell, contents)
        self.sizes: dict = {}   # id(dict) -> (dict, len): instances whose every attribute is keyed
        self.ok = True          # False: the key read something no identity test covers

    def slot(self, d: dict, name: str) -> None:
        self.slots.setdefault((id(d), name), (d, name, d.get(name, MISSING)))

    def compile(self, reads: Reads | None = None):
        """`check()`: True while every watched place holds the object it held (the key is unchanged),
        and every read of `reads` (what the compiled code was built from: frontend/reads.py) gives
        the object it gave. None when the key cannot be watched (it must be recomputed on every
        call). The check carries its own terms as `check.terms` (see `terms`), for fast paths that
        inline it."""
        if not self.ok:
            return None
        check_terms = self.terms("w_", reads)
        params, values, expr = check_terms
        check = _maker(", ".join(params), expr)(*values)
        check.terms = check_terms
        return check

    def terms(self, prefix: str = "", reads: Reads | None = None):
        """(names, objects, expression): the identity comparisons of the check as one Python
        expression over `names` bound to `objects` (each name starts with `prefix`); it may raise
        (KeyError: a watched global deleted, ValueError: a closure cell emptied, anything a read of
        `reads` may raise: an attribute deleted): not unchanged."""
        params, values, terms = [], [], []
        for k, (d, name, v) in enumerate(self.slots.values()):
            if v is MISSING:  # still unbound
                params.append(f"{prefix}d{k}")
                values.append(d)
                terms.append(f"{name!r} not in {prefix}d{k}")
                continue
            params += [f"{prefix}d{k}", f"{prefix}v{k}"]
            values += [d, v]
            terms.append(f"{prefix}d{k}[{name!r}] is {prefix}v{k}")  # a subscript: cheaper than .get
        for k, (fn, code, defaults) in enumerate(self.funcs.values()):
            params += [f"{prefix}f{k}", f"{prefix}c{k}", f"{prefix}a{k}"]
            values += [fn, code, defaults]
            terms.append(f"{prefix}f{k}.__code__ is {prefix}c{k} and {prefix}f{k}.__defaults__ is {prefix}a{k}")
        for k, (d, n) in enumerate(self.sizes.values()):
            params += [f"{prefix}s{k}", f"{prefix}n{k}"]
            values += [d, n]
            terms.append(f"len({prefix}s{k}) == {prefix}n{k}")
        for k, (cell, v) in enumerate(self.cells.values()):
            params += [f"{prefix}z{k}", f"{prefix}w{k}"]
            values += [cell, v]
            terms.append(f"{prefix}z{k}.cell_contents is {prefix}w{k}")
        if reads:
            more = reads.terms(prefix + "r", skip={(id(d), name) for d, name, _ in self.slots.values()})
            params, values, terms = params + more[0], values + more[1], terms + more[2]
        return params, values, " and ".join(terms) or "True"


_MAKERS: dict = {}  # the source of a check -> the function that makes one for given objects


def _maker(params: str, body: str):
    """A function of the watched objects returning the check over them, compiled once per shape
    (a global rebound to an equal value makes a new check per call: a call, not an exec)."""
    key = (params, body)
    make = _MAKERS.get(key)
    if make is None:
        src = (f"def make({params}):\n    def check():\n        try:\n            return {body}\n"
               "        except Exception:\n            return False\n    return check\n")
        env = {"MISSING": MISSING}
        exec(compile(src, "<s2s key watch>", "exec"), env)  # noqa: S102 - our own generated source
        make = _MAKERS[key] = env["make"]
    return make


def watched_key(fn):
    """(fn_key(fn), check) where `check()` says cheaply that the key is still the same (None: no
    cheap test exists for this function, recompute the key)."""
    key, watch = key_and_watch(fn)
    return key, watch.compile()


def key_and_watch(fn):
    """(fn_key(fn), the Watch of the places it read): a caller adds the reads of what it compiled
    (`Watch.compile(reads)`)."""
    watch = Watch()
    key = fn_key(fn, watch=watch)
    return key, watch


def fn_key(fn, _seen=None, watch: Watch | None = None):
    """What a transform of `fn` depends on (see the module's docstring); `watch` collects the
    places it read."""
    adapted = idioms.adapt(fn)  # partials, bound methods, callable instances, function-valued defaults
    if adapted is not fn and watch is not None:
        _watch_adapted(fn, watch)
    fn = adapted
    if not isinstance(fn, types.FunctionType):
        if record.of(fn) is not None:
            same = getattr(fn, "transform_key", None)
            if same is not None:  # grad, jacrev... of a function: the same code as any such transform of it
                return ("s2s-transform",) + same + (fn_key(fn.fun, _seen, watch),) + idioms.arity_key(fn)
            if watch is not None:
                watch.ok = False
            root = getattr(fn, "_root", None)
            inner = fn_key(root, _seen) if isinstance(root, types.FunctionType) else None
            return ("s2s", id(fn), inner) + idioms.arity_key(fn)
        raise S2STypeError(f"s2s transforms Python functions; {getattr(fn, '__name__', fn)!r} is a "
                           f"{type(fn).__name__}. Wrap it: `def f(x): return np.sin(x)`.")
    if is_generated(fn):
        origin = record.of(fn).origin  # a function s2s specialized from `origin`, copying its namespace:
        if watch is not None and isinstance(origin, types.FunctionType):  # made again when that changes
            _watch_function(origin, _seen if _seen is not None else set(), watch)
        return ("gen", id(fn))
    return _function_key(fn, _seen if _seen is not None else set(), watch)


def _watch_function(fn, seen: set, watch: Watch) -> None:
    """Watch the places the key of plain function `fn` reads (its code, globals, closure values)."""
    if fn.__code__ not in seen:
        _function_key(fn, seen, watch)


def _function_key(fn, seen: set, watch: Watch | None):
    """The key of plain Python function `fn` (not adapted): its code, the globals and closure
    values it reads, their keys."""
    code = fn.__code__
    glob = fn.__globals__
    defaults = fn.__defaults__
    if watch is not None:
        watch.funcs.setdefault(id(fn), (fn, code, defaults))
    seen.add(code)
    names = _all_names(code)
    deps = []
    loaded = _global_loads(code) if watch is not None else ()
    for n in names:
        if watch is not None and (n in glob or n in loaded):  # (`np.sum`'s `sum` is no global)
            watch.slot(glob, n)
        if n in glob:
            deps.extend(_deps(n, glob[n], names, seen, watch))
    cells = []
    for n, c in zip(code.co_freevars, fn.__closure__ or ()):
        if _has_contents(c):
            if watch is not None:
                watch.cells.setdefault(id(c), (c, c.cell_contents))
            cells.extend(_deps(n, c.cell_contents, names, seen, watch))
        elif watch is not None:
            watch.ok = False  # an empty cell (a name assigned later): no identity to compare
    return (code, tuple(deps), tuple(cells), tuple(id(d) for d in (defaults or ())))


def _watch_adapted(obj, watch: Watch) -> None:
    """What `idioms.adapt(obj)` depended on: the synthesized function it returns is cached by the
    identity of `obj` (and the values of a function's defaults, an instance's attributes)."""
    if idioms.current_arity(obj) is not None:
        watch.ok = False  # specialized to the number of `*args` being compiled: depends on the call
    elif isinstance(obj, types.FunctionType):
        watch.funcs.setdefault(id(obj), (obj, obj.__code__, obj.__defaults__))
    elif isinstance(obj, types.MethodType):
        func = obj.__func__
        watch.funcs.setdefault(id(func), (func, getattr(func, "__code__", None), getattr(func, "__defaults__", None)))
        _watch_attrs(obj.__self__, watch)
    elif not (isinstance(obj, functools.partial) or idioms.is_library_function(obj)):
        watch.ok = False  # a callable instance: its class's `__call__` is looked up through the MRO


def _watch_attrs(obj, watch: Watch) -> None:
    """Every attribute of `obj` (a key reads them all, by value or identity), and their number."""
    try:
        attrs = vars(obj)
    except TypeError:
        watch.ok = False
        return
    watch.sizes.setdefault(id(attrs), (attrs, len(attrs)))
    for a in attrs:
        watch.slot(attrs, a)


def _deps(name, v, names, seen, watch) -> list:
    """The key of value `v` named `name`, and for a user module those of its attributes `names` reads."""
    out = [(name, _value_key(v, seen, watch))]
    if isinstance(v, types.ModuleType) and not _is_library(v):
        attrs = v.__dict__
        for a in names:
            if watch is not None:
                watch.slot(attrs, a)
            if a in attrs:
                out.append((f"{name}.{a}", _value_key(attrs[a], seen, watch)))
    return out


def _value_key(v, seen, watch):
    """How one global, module attribute or closure value enters a cache key."""
    if type(v) in _CONSTANTS:
        return (type(v), repr(v))
    if isinstance(v, types.FunctionType) and resolve.foreign_library(v) is not None:
        return ("foreign", id(v))  # SciPy's: read as its s2s.scipy counterpart or refused, never transformed
    if isinstance(v, types.FunctionType) and isinstance(getattr(record.of(v), "prim", None), str):
        return ("prim", id(v))  # s2s's own primitive (`stop_gradient`): its rule, not its code, is what a transform reads
    if isinstance(v, types.FunctionType) and v.__code__ not in seen and not is_generated(v):
        return fn_key(v, seen, watch)
    if isinstance(v, np.generic):
        return (type(v), v.tobytes())
    key = idioms.dep_key(v)
    if watch is not None and isinstance(key, tuple):  # an instance keyed by its attributes
        _watch_attrs(v, watch)
    return key


def _is_library(module) -> bool:
    """Modules whose attributes a program does not reassign (NumPy, s2s, the standard library, any
    installed package such as pytest's assertion helpers): not looked into."""
    if (getattr(module, "__name__", "") or "").split(".")[0] in _LIBRARIES:
        return True
    file = getattr(module, "__file__", None)
    return file is not None and os.path.realpath(file).startswith(_INSTALLED)


_INSTALLED = tuple({os.path.realpath(sysconfig.get_paths()[k]) + os.sep
                   for k in ("stdlib", "platstdlib", "purelib", "platlib")})


def is_generated(fn) -> bool:
    """Whether `fn` is a function s2s generated (it carries its core form)."""
    rec = record.of(fn)
    return rec is not None and rec.core is not None


def _has_contents(cell) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False


@functools.lru_cache(maxsize=4096)
def _global_loads(code) -> frozenset:
    """The names `code` (and the code nested in it) looks up as globals: a name bound later
    under one of these changes what it runs; an attribute name (`np.sum`'s `sum`) does not."""
    out = {i.argval for i in dis.get_instructions(code) if i.opname in _GLOBAL_OPS}
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _global_loads(c)
    return frozenset(out)


_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "DELETE_GLOBAL", "STORE_NAME", "DELETE_NAME"})


def _all_names(code) -> list[str]:
    out = list(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out += _all_names(c)
    return out
