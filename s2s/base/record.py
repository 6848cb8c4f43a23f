"""The one record s2s attaches to a function, on its `__s2s__` attribute.

Every kind of object s2s hands out or recognizes carries one `Record`:

- a generated function (`grad_f`, `fwd_f`, ...): `core` is the AST it was generated from, with its
  namespace and file name, so that further transforms start from it; `source` is its text;
  `versions` its copies bound to other array backends (s2s.compiler.emit.loader.version);
- a transformed function (`s2s.grad(f)`, `s2s.jit(f)`) or a handle for a transform still being
  built (recursion): `target()` returns the generated function it stands for;
- a `custom_vjp` / `custom_jvp` function: `custom` holds its rules (`split(mask)`, `jvp(mask)`,
  `caller()`, `fun`);
- `s2s.jvp` / `s2s.vjp`: `inside(fun, nlead, n)` gives the generated functions that a call of
  them inside a transformed function runs (frontend/function_calls.py lowers the call to them);
- a function s2s treats as a primitive (`stop_gradient`, user functions given rules with
  `s2s.defvjp`): `prim` is its key in the rule table; `rules` its rules as callables
  `(g or tangent, ans, *args)` keyed by (mode, parameter), for a call resolved only at run time
  (a vector-space value's `__call__`, s2s/runtime/spaces.py).
"""
from __future__ import annotations

import dataclasses
import inspect
import types
from collections.abc import Callable
from typing import Any


@dataclasses.dataclass
class Record:
    core: tuple | None = None
    source: str | None = None
    target: Callable[[], Any] | None = None
    custom: Any = None
    prim: str | None = None
    rules: dict | None = None  # (mode, parameter) -> callable rule of a primitive (`prim`)
    lazy: bool = False        # `target` is a transform still being built (a recursive call)
    transform: bool = False   # an s2s transform (grad, jit, ...): called when normalizing `grad(f)(x)`
    inside: Callable[..., Any] | None = None  # jvp/vjp: the generated functions a call inside a transformed function runs
    versions: dict = dataclasses.field(default_factory=dict)  # a generated function per array backend
    any_size: bool = False    # a jit version built for small arrays that large ones would get too (nothing to fuse)
    small: tuple = ()         # (name, numba_small.SmallKernel) of a jit version's small-array kernels (loader.version)
    constants: tuple = ()     # names of the 0-d arrays a jit version reads (passes/constants.py; loader.version)
    shapes: tuple = ()        # a jit version specialized on shapes: what its first statement tests (driver.jit_function)
    settled: bool = False     # `core` is the optimizer's fixed point (passes.optimize ran to it)
    written: bool = False     # `core` is a function s2s specialized, as written (not core form yet)
    origin: Any = None        # the user function whose namespace a specialized function copies (cachekey watches it)
    reads: Any = None         # what building a generated function read from objects (frontend/reads.py)
    blas: bool = True         # its code may call BLAS (False: read by driver._compile where it has fused kernels)


def of(fn) -> Record | None:
    """The record `fn` carries, or None for an object s2s did not make or mark. A record that
    `functools.wraps` copied from the wrapped function (with its `__dict__`) is not the
    wrapper's: the wrapper is a function of its own."""
    rec = getattr(fn, "__s2s__", None)
    if not isinstance(rec, Record):
        return None
    inner = getattr(fn, "__wrapped__", None)
    if inner is not None and getattr(inner, "__s2s__", None) is rec:
        return None
    return rec


def signature_of(fn) -> inspect.Signature:
    """The signature of `fn` itself. Through an s2s transform object it is the transformed
    function's; a user's `functools.wraps` is never followed (`inspect.signature` would give the
    wrapped function's parameters, not the wrapper's)."""
    inner = getattr(fn, "__wrapped__", None)
    if inner is not None and not isinstance(fn, types.FunctionType) and of(fn) is not None:
        return signature_of(inner)
    return inspect.signature(fn, follow_wrapped=False)


def attach(fn, **fields) -> Record:
    """Set (or update) the record of `fn`."""
    rec = of(fn)
    if rec is None:
        rec = Record()
        fn.__s2s__ = rec
    for k, v in fields.items():
        setattr(rec, k, v)
    return rec


def generated(fn):
    """The generated function `fn` is or stands for (building a transformed one if needed), or None."""
    rec = of(fn)
    while rec is not None and rec.target is not None:
        fn = rec.target()
        rec = of(fn)
    return fn if rec is not None and rec.core is not None else None


def custom(fn):
    """The user's derivative rules that `fn` carries (a custom_vjp/custom_jvp), or None."""
    rec = of(fn)
    return None if rec is None else rec.custom


def generated_closure(roots) -> list:
    """`roots` and every generated function they call, each once, in the order first reached."""
    seen, order, queue = set(), [], list(roots)
    while queue:
        f = queue.pop(0)
        rec = of(f)
        f = rec.target() if rec is not None and rec.lazy else f
        rec = of(f)
        if id(f) in seen or rec is None or rec.source is None:
            continue
        seen.add(id(f))
        order.append(f)
        ns = rec.core[1]
        queue.extend(ns[name] for name in sorted(ns) if _in_closure(ns[name]))
    return order


def _in_closure(obj) -> bool:
    rec = of(obj)
    return rec is not None and (rec.source is not None or rec.lazy)
