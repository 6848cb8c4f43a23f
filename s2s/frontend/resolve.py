"""Decide what a name in the user's function refers to: a primitive, a user function, a constant."""
from __future__ import annotations

import builtins
import math
import types

import numpy as np

from .. import record, runtime
from ..primitives import (
    registry,
    rules,  # noqa: F401  (registers the rules)
)


def math_functions() -> dict[str, str]:
    """`math` module name -> the primitive it is (`Prim.math_name`: math.fabs is xp.abs)."""
    return {p.math_name: key for key, p in registry.PRIMS.items() if p.math_name}

BUILTIN_PRIMS = {"len", "range", "float", "int", "abs", "print", "isinstance", "bool", "str"}


def _build_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for key in registry.PRIMS:
        mod, _, rest = key.partition(".")
        if mod == "xp":
            obj = np
            for part in rest.split("."):
                obj = getattr(obj, part, None)
            if obj is not None:
                table.setdefault(id(obj), key)
        elif mod == "rt" and hasattr(runtime, rest):
            table[id(getattr(runtime, rest))] = key
    for mname, key in math_functions().items():
        table[id(getattr(math, mname))] = key
    return table


_TABLE: dict = {"size": -1, "of": {}}
KEEP_ALIVE = [np, runtime, math]


def _table() -> dict[int, str]:
    """The object-id -> primitive table, rebuilt when primitives are declared after it was built
    (a late `prim(...)` is visible to the next lookup)."""
    if _TABLE["size"] != len(registry.PRIMS):
        _TABLE["of"], _TABLE["size"] = _build_table(), len(registry.PRIMS)
    return _TABLE["of"]


def prim_key(obj) -> str | None:
    """The primitive `obj` is (e.g. "xp.exp" for numpy.exp or s2s.numpy.exp), or None."""
    key = _table().get(id(obj))
    if key is not None:
        return key
    if obj is builtins.abs:
        return "abs"
    rec = record.of(obj)
    return None if rec is None else rec.prim


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
