"""Turn a generated core-form function into a running one that later transforms can start from,
and bind it to the array backend of a call.

A generated function is compiled once, with `xp` bound to NumPy. Its version for another backend
is the same code object with a copy of its globals in which `xp` is that backend's namespace and
every generated function it calls is replaced by that callee's version (built on first use, then
kept on the record): one generated source, one compiled version per backend. The plain Python
functions it calls, and the runtime's composites, get versions for the backend too
(emit/backend_callees.py).
"""
from __future__ import annotations

import types

import numpy as np

from ... import runtime
from ...backends import arrays
from ...base import record, tracebacks
from ...base.tree import field_clash
from ...runtime.trees import clash_error
from ..primitives.registry import EXT
from . import backend_callees
from .codegen import compile_source, source_and_places

_SKIP = frozenset({"xp", "rt", "__name__", "__builtins__"})


def compile_fn(name: str, node, ns: dict, filename: str, header: str = ""):
    """Print `node`, exec it with `xp` (NumPy) and `rt` bound, and attach its record."""
    user_file = tracebacks.origin(filename or "")
    source, places = source_and_places(node, header, user_file)
    ns = {"xp": np, "rt": runtime, "ext": EXT, **ns}  # (ext: primitives declared from outside the runtime)
    fn = compile_source(name, source, ns, np, places)
    if user_file:  # (code generated from this code: its comments name lines of the same file)
        tracebacks.ORIGINS[f"<s2s:{name}>"] = user_file
    record.attach(fn, core=(node, ns, f"<s2s:{name}>"), source=source)
    return fn


def version(fn, backend):
    """`fn` for `backend` (an `arrays.Backend`; None or NumPy: `fn` itself). Objects that are not
    generated functions (a transform, a user's Python function) are returned as they are: they
    choose their backend from their own arguments when called."""
    if backend is None or backend is arrays.NUMPY:
        return fn
    rec = record.of(fn)
    if rec is None:
        return fn
    if rec.lazy:  # a transform still being built (recursion): resolve when called
        return lambda *args: version(rec.target(), backend)(*args)
    if rec.core is None or not isinstance(fn, types.FunctionType):
        return fn
    hit = rec.versions.get(backend.name)
    if hit is not None:
        return hit
    glob = dict(fn.__globals__)
    v = types.FunctionType(fn.__code__, glob, fn.__name__, fn.__defaults__, fn.__closure__)
    v.__qualname__, v.__kwdefaults__ = fn.__qualname__, fn.__kwdefaults__
    rec.versions[backend.name] = v  # before the callees: a cycle of calls finds it
    glob["xp"], glob["rt"] = backend.xp, backend_callees.runtime_for(backend, version)
    for name in rec.constants:  # (0-d NumPy arrays: the backend's own)
        glob[name] = backend.xp.asarray(glob[name])
    for name, kernel in rec.small:  # (numba's loops take NumPy arrays: the statements, on the backend)
        glob[name] = version(kernel.numpy, backend)
    plain = backend_callees.called_names(rec.core[0])
    for name, value in list(glob.items()):
        if name not in _SKIP and callable(value) and record.of(value) is not None:
            glob[name] = version(value, backend)
        elif name in plain:  # a plain function it calls: compiled for the backend too
            glob[name] = backend_callees.on_backend(value, backend, version)
    return v


def call(fn, args: tuple):
    """Call generated `fn` on `args` with the backend the arguments select (NumPy: directly)."""
    host = arrays.HOST
    for a in args:  # the NumPy fast path, inlined: plain arrays and numbers (alone, or in a tuple
        t = type(a)  # or list: parameters), NumPy the default
        if t not in host:
            if t is not tuple and t is not list:
                break
            for e in a:
                if type(e) not in host:
                    break
            else:
                continue
            break
    else:
        if arrays.SETTINGS["backend"] == "numpy":
            return fn(*args)
    clash = field_clash(args)  # a pytree node's field named like an array attribute (`.shape`)
    if clash is not None:
        raise clash_error(clash)
    backend, move = arrays.select(args)
    if backend is None:
        return fn(*args)
    if move:
        args = arrays.move(args, backend)
    return version(fn, backend)(*args)
