"""Decide what a name in the user's function refers to: a primitive, a user function, a constant."""
from __future__ import annotations

import builtins
import math
import sys
import types
from collections.abc import Callable

import numpy as np

from ... import runtime
from ...base import record
from ...library import numpy_inside, python_inside
from ..primitives import registry, rules  # noqa: F401  (registers the rules)


def math_functions() -> dict[str, str]:
    """`math` module name -> the primitive it is (`Prim.math_name`: math.fabs is xp.abs)."""
    return {p.math_name: key for key, p in registry.PRIMS.items() if p.math_name}



def _sources() -> list[tuple[object, str, str]]:
    """(module, attribute path, primitive) for every object that is a primitive: NumPy's functions
    (xp.*), s2s.runtime's helpers (rt.*) and the math functions that stand for them."""
    out = []
    for key in registry.PRIMS:
        mod, _, rest = key.partition(".")
        if mod in ("xp", "rt"):
            out.append((np if mod == "xp" else runtime, rest, key))
    out += [(math, mname, key) for mname, key in math_functions().items()]
    return out


def _attribute(module, path: str):
    obj = module
    for part in path.split("."):
        obj = getattr(obj, part, None)
    return obj


def _build_table() -> tuple[dict[int, tuple[str, object]], dict[str, list]]:
    """id(object) -> (primitive, the object itself: kept alive, so that its id is never another
    object's), and name (the attribute's, its object's `__name__`) -> the (module, path) sources
    of that name, to notice a rebound attribute."""
    table: dict[int, tuple[str, object]] = {}
    by_name: dict[str, list] = {}
    for module, path, key in _sources():
        obj = _attribute(module, path)
        for name in {path.rpartition(".")[2], getattr(obj, "__name__", None)} - {None}:
            by_name.setdefault(name, []).append((module, path))
        if obj is None:
            continue
        if module is np:
            table.setdefault(id(obj), (key, obj))
        else:
            table[id(obj)] = (key, obj)
    return table, by_name


_TABLE: dict = {"size": -1, "of": {}, "by_name": {}, "rt_paths": []}
KEEP_ALIVE = [np, runtime, math]


def _table() -> dict[int, tuple[str, object]]:
    """The object-id -> primitive table, rebuilt when primitives are declared after it was built
    (a late `prim(...)` is visible to the next lookup)."""
    if _TABLE["size"] != len(registry.PRIMS):
        (_TABLE["of"], _TABLE["by_name"]), _TABLE["size"] = _build_table(), len(registry.PRIMS)
        _TABLE["rt_paths"] = [key[3:] for key in registry.PRIMS if key.startswith("rt.")]
    return _TABLE["of"]


def _rebound(obj) -> bool:
    """`obj` is now the value of a primitive's attribute that held another object when the table
    was built (a module attribute rebound since: a test's monkeypatch undone, a reload)."""
    name = getattr(obj, "__name__", None)
    sources = _TABLE["by_name"].get(name, ()) if isinstance(name, str) else ()
    if any(_attribute(module, path) is obj for module, path in sources):
        return True
    if not str(getattr(obj, "__module__", "")).startswith("s2s.runtime"):
        return False
    return any(getattr(runtime, path, None) is obj for path in _TABLE["rt_paths"])


def prim_key(obj) -> str | None:
    """The primitive `obj` is (e.g. "xp.exp" for numpy.exp or s2s.numpy.exp), or None. The answer
    does not depend on what ran before: an attribute rebound after the table was built (and
    back) is looked up afresh."""
    hit = _table().get(id(obj))
    if hit is None and _rebound(obj):
        _TABLE["size"] = -1
        hit = _table().get(id(obj))
    if hit is not None:
        return hit[0]
    if obj is builtins.abs:
        return "abs"
    rec = record.of(obj)
    return None if rec is None else rec.prim


# Foreign libraries a namespace of s2s stands in for, registered from above so that the frontend
# imports nothing above it (s2s's package registers SciPy's when it is imported, before any
# transform runs; its function imports s2s.scipy the first time it is asked): library -> (its
# namespaces, a function of the namespaces already imported -> {id(their object): (it, kept
# alive; ours)})
_COUNTERPARTS: dict[str, tuple[tuple[str, ...], Callable[[tuple[str, ...]], dict]]] = {}
_COUNTERPARTS_LOADED: dict[str, tuple[tuple[str, ...], dict]] = {}


def register_counterparts(library: str, namespaces: tuple[str, ...],
                          counterparts: Callable[[tuple[str, ...]], dict]) -> None:
    """Have a transformed function read `library`'s objects (in its `namespaces`, e.g. SciPy's
    "special" and "stats") as those `counterparts(loaded namespaces)` maps them to."""
    _COUNTERPARTS[library] = (tuple(namespaces), counterparts)
    _COUNTERPARTS_LOADED.pop(library, None)


def _counterparts_of(library: str) -> dict:
    """The registered counterparts of `library`'s namespaces imported so far, recomputed when
    another one has been imported since."""
    namespaces, counterparts = _COUNTERPARTS[library]
    loaded = tuple(m for m in namespaces if f"{library}.{m}" in sys.modules)
    cached = _COUNTERPARTS_LOADED.get(library)
    if cached is None or cached[0] != loaded:
        cached = _COUNTERPARTS_LOADED[library] = (loaded, counterparts(loaded))
    return cached[1]


def counterpart(obj):
    """The s2s.scipy function (or distribution module) that stands for SciPy's `obj`, else `obj`.
    A method of a SciPy distribution (`scipy.stats.norm.logpdf`) is that module's function. NumPy's
    functions that take a function (np.apply_along_axis, np.piecewise) are their plain-Python
    stand-ins of s2s/library/numpy_inside.py; math.hypot, itertools.accumulate, np.unwrap, ...
    those of s2s/library/python_inside.py."""
    stand_in = numpy_inside.STAND_INS.get(id(obj)) or python_inside.STAND_INS.get(id(obj))
    if stand_in is not None:
        return stand_in
    for library in _COUNTERPARTS:
        if library not in sys.modules:
            continue
        of = _counterparts_of(library)
        hit = of.get(id(obj))
        if hit is not None:
            return hit[1]
        # (a bound method's owner; any other object's attributes are not asked for: a user's
        # __getattr__ may raise anything for a name it does not know)
        hit = of.get(id(obj.__self__)) if isinstance(obj, types.MethodType) else None
        if hit is not None:
            return getattr(hit[1], obj.__name__, obj)
    return obj


def foreign_library(obj) -> str | None:
    """`module.name` of a SciPy function s2s.scipy does not provide (refused, never transformed
    from SciPy's own source nor treated as a constant), else None."""
    module = getattr(obj, "__module__", None) or ""
    if callable(obj) and (module == "scipy" or module.startswith("scipy.")):
        return f"{module}.{getattr(obj, '__name__', '')}"
    return None


def is_user_function(obj) -> bool:
    rec = record.of(obj)
    return isinstance(obj, types.FunctionType) or rec is not None and (rec.custom is not None or rec.target is not None)


class Env:
    """Name lookup for one function: closure cells, then globals, then builtins."""

    def __init__(self, fn=None, ns: dict | None = None):
        self.scopes: list[dict] = []
        if ns is not None:
            self.scopes.append(ns)
        if fn is not None:
            code = fn.__code__
            if fn.__closure__:
                cells = {}
                for var, cell in zip(code.co_freevars, fn.__closure__):
                    try:
                        cells[var] = cell.cell_contents
                    except ValueError:
                        pass
                self.scopes.append(cells)
            self.scopes.append(fn.__globals__)
        self.scopes.append(vars(builtins))

    def lookup(self, name: str):
        for scope in self.scopes:
            if name in scope:
                return True, scope[name]
        return False, None
