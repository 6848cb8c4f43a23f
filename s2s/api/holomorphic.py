"""Derivatives at complex inputs, with JAX's conventions (issue 45, section 5).

s2s's rules compute JAX's complex derivatives (a vjp is the jvp's transpose, without conjugates; a
real value's cotangent is the real part of a complex one), so what is left here is JAX's contract
for each transform:
- `grad(f, holomorphic=True)(z)` is f'(z) (the vjp of the complex 1), for complex inputs and a
  complex output; `value_and_grad`, `jacfwd`, `jacrev` (and `jacobian`) and `hessian` likewise.
  Each is the ordinary transform of a function s2s writes (`holomorphic_function`): `f` called on
  its arguments and returned, with JAX's checks that they are complex (rt.complex_arg,
  rt.complex_result), so the derivative is generated code that jit, vmap, grad and jvp transform
  again, and the checks run inside them too;
- without `holomorphic`, grad, value_and_grad and jacrev take complex inputs of a real-valued
  function (`grad(lambda z: np.abs(z) ** 2)(3 + 4j)` is 6 - 8j, as JAX's) and refuse a complex
  output with JAX's error; jacfwd refuses complex inputs with JAX's error.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import gast
import numpy as np

from ..base import record
from ..base.tree import tree_leaves
from ..compiler import driver
from ..compiler.emit.loader import call
from ..compiler.frontend import idioms
from ..errors import S2STypeError

_GRADS = ("grad", "value_and_grad")


def _leaf_dtypes(args: tuple, nums: tuple) -> list:
    return [np.result_type(leaf) for i in nums if i < len(args) for leaf in tree_leaves(args[i])]


def has_complex_input(args: tuple, nums: tuple) -> bool:
    """Whether a differentiated argument holds a complex leaf (the cheap test every call makes)."""
    for i in nums or ():
        a = args[i] if -len(args) <= i < len(args) else None
        t = type(a)
        if t is np.ndarray:
            if a.dtype.kind == "c":
                return True
        elif t is float:
            continue
        elif t is complex or isinstance(a, np.complexfloating):
            return True
        elif isinstance(a, (tuple, list, dict)) or a is not None and not isinstance(a, (int, np.generic)):
            if any(np.iscomplexobj(leaf) for leaf in tree_leaves(a)):
                return True
    return False


def has_complex_arg(args: tuple, nums: tuple) -> bool:
    """Whether any argument holds a complex leaf (grad's test: its version for real arguments
    has no check of a real output where only a complex argument could make it complex)."""
    return has_complex_input(args, range(len(args)))


def complex_positions(args: tuple) -> tuple:
    """The positions of the arguments that hold a complex leaf."""
    return tuple(i for i in range(len(args)) if has_complex_input(args, (i,)))


def holomorphic_function(kind: str, fun: Callable, argnums: Any, has_aux: bool) -> Callable:
    """`fun` as the function a `holomorphic=True` derivative `kind` transforms: s2s writes

        def f(z, w):
            return rt.complex_result(f_(rt.complex_arg(z, "grad with holomorphic=True"), w), ...)

    (the arguments at `argnums` checked, the output, or with `has_aux` the first item of the
    pair, checked), kept per (kind, fun, argnums, has_aux) and written again when `fun`'s cache key
    changes (a global it reads rebound), so that transforms of it see the change."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    return idioms.remember(("holomorphic", kind, id(fun), nums, has_aux), fun,
                           lambda: _synthesize(kind, fun, nums, has_aux), driver.key_and_watch(fun)[0])


def _synthesize(kind: str, fun: Callable, nums: tuple, has_aux: bool) -> Callable:
    params, defaults = _positional(fun, kind, nums)
    label = getattr(fun, "__name__", "f").replace("<lambda>", "lambda_")
    label = label if label.isidentifier() else "f"
    taken = set(params) | {"rt", "xp"}
    callee = idioms.fresh_name(label + "_", taken)
    ns: dict = {callee: fun}
    what = f"{kind} with holomorphic=True"
    heads = []
    for p in params:
        if p in defaults:
            name = idioms.fresh_name(f"{p}_default", taken | set(ns))
            ns[name] = defaults[p]
            heads.append(f"{p}={name}")
        else:
            heads.append(p)
    args = [f"rt.complex_arg({p}, {what!r})" if i in nums else p for i, p in enumerate(params)]
    src = (f"def {label}({', '.join(heads)}):\n"
           f"    return rt.complex_result({callee}({', '.join(args)}), {what!r}{', True' if has_aux else ''})\n")
    return idioms.synthesize(label, gast.parse(src).body[0], ns, f"<s2s:holomorphic_{label}>")


def _positional(fun: Callable, kind: str, nums: tuple) -> tuple:
    """(`fun`'s positional parameters, their defaults by name); a `*args` function is refused (s2s
    compiles one per number of arguments, which the function written here would hide)."""
    try:
        sig = record.signature_of(idioms.adapt(fun) if idioms.is_library_function(fun) else fun)
    except (TypeError, ValueError):
        raise S2STypeError(f"{kind} with holomorphic=True: s2s cannot read the signature of {fun!r}.") from None
    ps = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()):
        raise S2STypeError(f"{kind} with holomorphic=True takes a function with named positional parameters; "
                           f"{getattr(fun, '__name__', fun)} has `*args`: pass one that names them "
                           "(`lambda z, w: f(z, w)`).")
    bad = [i for i in nums if not -len(ps) <= i < len(ps)]
    if bad:
        raise S2STypeError(f"{kind} with holomorphic=True differentiates named positional parameters; argnums {bad[0]} "
                           f"is not one of the {len(ps)} of {getattr(fun, '__name__', fun)}.")
    if any(i < 0 for i in nums):
        raise S2STypeError(f"{kind} with holomorphic=True: give argnums as positions from the start (got {nums}).")
    defaults = {p.name: p.default for p in ps if p.default is not inspect.Parameter.empty}
    return [p.name for p in ps], defaults


def _grads(kind, fun, argnums, has_aux, checkpoint, args):
    """grad or value_and_grad at complex `args` through the value_and_grad version for those
    arguments, whose value tells whether the output is real, as JAX requires without
    holomorphic=True (the version checks it too, where its seed is the literal 1)."""
    fn = driver.grad_function(fun, argnums, has_aux, True, checkpoint, complex_positions(args), kind)
    out = call(fn, args)
    value_part, grads = out
    value = value_part[0] if has_aux else value_part
    if np.iscomplexobj(value):
        raise S2STypeError(f"{kind} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
                           f"but got {np.result_type(value)}. For holomorphic differentiation, pass holomorphic=True. "
                           "For differentiating non-holomorphic functions involving complex outputs, use s2s.vjp "
                           "directly.")
    if kind == "value_and_grad":
        return out
    return (grads, value_part[1]) if has_aux else grads


def complex_inputs(kind: str, fun: Callable, argnums: Any, has_aux: bool, checkpoint: Any, args: tuple) -> Any:
    """A derivative transform without holomorphic=True called at complex inputs (see the module
    docstring)."""
    if kind in _GRADS:
        return _grads(kind, fun, argnums, has_aux, checkpoint, args)
    dtype = next(dt for dt in _leaf_dtypes(args, (argnums,) if isinstance(argnums, int) else tuple(argnums))
                 if dt.kind == "c")
    if kind == "jacfwd":
        raise S2STypeError(f"jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but "
                           f"got {dtype}. For holomorphic differentiation, pass holomorphic=True. For differentiating "
                           "non-holomorphic functions involving complex inputs, use s2s.vjp directly.")
    raise S2STypeError(f"s2s computes {kind} at complex inputs ({dtype}) with holomorphic=True only. For a function "
                       "that is not holomorphic, use s2s.vjp directly (or grad of a real-valued one).")
