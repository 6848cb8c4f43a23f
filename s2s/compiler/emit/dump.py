"""A dump (`python -m s2s dump`): generated functions as one module that runs on its own, with the
imports, constants and globals the code reads defined before the functions, and the other names
the functions call each other by (hessian's `vmap_tangent_...`) assigned after them."""
from __future__ import annotations

import builtins
import inspect
import math
import types

import numpy as np

from ...base import record
from .kernels import Fused
from .numba_arrayloops import ArrayLoop
from .numba_loops import LoopKernel
from .products import Product

MAX_INLINE = 10_000  # array globals up to this many elements are written out; larger ones are parameters


def module_source(fns: list, title: str, roots: int = 1) -> str:
    """The text of a module defining generated functions `fns` (as `record.of(f).source` prints them),
    whose first `roots` are the transformed functions (the docstring names them) and the rest the
    generated functions they call."""
    names = {f.__name__ for f in fns}
    defs: dict[str, str] = {}
    aliases: dict[str, str] = {}  # another name of a generated function: assigned once it is defined
    params: list[str] = []
    xp = "numpy"
    for f in fns:
        glob = f.__globals__
        xp = getattr(glob.get("xp"), "__name__", xp)
        for n in _referenced(f.__code__):
            if n in defs or n in aliases or n in names or n in ("xp", "rt") or n not in glob:
                continue
            target = _generated(glob[n])  # another name of a generated function
            if target is not None:
                aliases[n] = f"{n} = {target.__name__}"
                continue
            line, is_param = _definition(n, glob[n])
            defs[n] = line
            if is_param:
                params.append(n)
    head = [f'"""{title}', "", "Written by `python -m s2s dump`: a module that imports cleanly and runs as is.",
            _entry_points(fns[:roots], len(fns) > roots)]
    if params:
        head += ["", "Array globals too large to write out are parameters of this module: set "
                 + ", ".join(f"`{p}`" for p in params) + " (module attributes) before calling."]
    head += ['"""', f"import {xp} as xp", "", "from s2s import runtime as rt", ""]
    body = [record.of(f).source.rstrip("\n") for f in fns]
    top = "\n".join(head + [defs[n] for n in sorted(defs)]).rstrip("\n")
    tail = ["\n".join(["# other names the functions above call each other by"] + [aliases[n] for n in sorted(aliases)])]
    return top + "\n\n\n" + "\n\n\n".join(body + (tail if aliases else [])) + "\n"


def program(roots: list) -> list:
    """`roots` and the generated functions their code calls (by any name, directly or through the
    functions it calls), each once, breadth first: every function before those it calls first.
    Unlike `record.generated_closure`, a function the namespace holds but the code no longer calls
    (the optimizer replaced the call) is left out."""
    order, seen, queue = [], set(), list(roots)
    while queue:
        f = _generated(queue.pop(0))
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        order.append(f)
        glob = f.__globals__
        queue.extend(glob[n] for n in _referenced(f.__code__) if n in glob)
    return order


def _generated(v):
    """The generated function `v` is (or stands for, when compiled on first call), else None."""
    rec = record.of(v)
    if rec is not None and rec.lazy:
        v = rec.target()
        rec = record.of(v)
    return v if rec is not None and rec.source is not None else None


def _entry_points(fns: list, helpers: bool) -> str:
    """The docstring's line that says which functions to call, with their parameters."""
    calls = ", ".join(f"`{f.__name__}{inspect.signature(f)}`" for f in fns)
    which, calls_them = ("function", "it calls") if len(fns) == 1 else ("functions", "they call")
    return f"The transformed {which}: {calls}" + (f"; the others are the ones {calls_them}." if helpers else ".")




def _referenced(code) -> list[str]:
    out = list(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out += _referenced(c)
    return [n for n in dict.fromkeys(out) if not hasattr(builtins, n)]


def _definition(name: str, v) -> tuple[str, bool]:
    """`name = <value>` for one global the code reads, and whether it is a parameter to set."""
    lit = literal(v)
    if lit is not None:
        return f"{name} = {lit}", False
    if isinstance(v, np.ndarray):
        return (f"{name} = None  # parameter: an array of shape {v.shape} and dtype {v.dtype}", True)
    if isinstance(v, types.ModuleType):
        return f"import {v.__name__} as {name}", False
    if isinstance(v, (LoopKernel, ArrayLoop)):  # called with `xp` first, as its Python loop is
        return v.plain_source, False
    if isinstance(v, Product):  # a product whose rows threads share: the product
        return v.source(), False
    if isinstance(v, Fused):  # a fused kernel runs in the dump as its unfused NumPy expression
        return f"def {name}(*args):\n    return _{name}(xp, *args)\n\n\n" + v.plain_source.replace(
            f"def {v.name}(", f"def _{name}(", 1), False
    mod, qual = getattr(v, "__module__", None), getattr(v, "__qualname__", None)
    if isinstance(v, (types.FunctionType, types.BuiltinFunctionType, type, np.ufunc)) or callable(v):
        if mod and qual and "<" not in qual and "." not in qual and mod != "__main__":
            return f"from {mod} import {qual} as {name}", False
        if isinstance(v, np.ufunc):
            return f"{name} = xp.{v.__name__}", False
    return f"{name} = None  # parameter: {type(v).__name__} {_short(v)}", True


def literal(v) -> str | None:
    """Python source for a constant (numbers, strings, NumPy scalars, small arrays, tuples and
    lists of them), or None when `v` is not one."""
    if v is None or isinstance(v, (bool, str, bytes)):
        return repr(v)
    if isinstance(v, (int, float)) and not isinstance(v, np.generic):
        return _float(v) if isinstance(v, float) else repr(v)
    if isinstance(v, complex):
        return f"complex({_float(v.real)}, {_float(v.imag)})"
    if isinstance(v, np.generic):
        inner = literal(v.item())
        return None if inner is None else f"xp.{v.dtype.name}({inner})"
    if isinstance(v, np.ndarray) and v.size <= MAX_INLINE and v.dtype.kind in "biufc":
        items = literal(v.tolist())
        return None if items is None else f"xp.array({items}, dtype=xp.{v.dtype.name})"
    if isinstance(v, (tuple, list)):
        parts = [literal(x) for x in v]
        if any(p is None for p in parts):
            return None
        inner = ", ".join(parts) + ("," if isinstance(v, tuple) and len(parts) == 1 else "")
        return f"({inner})" if isinstance(v, tuple) else f"[{inner}]"
    return None


def _float(x: float) -> str:
    if math.isnan(x) or math.isinf(x):
        return f"float({str(x)!r})"
    return repr(x)


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."
