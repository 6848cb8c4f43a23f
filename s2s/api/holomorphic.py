"""Derivatives at complex inputs, with JAX's conventions (issue 45, section 5).

s2s's rules compute JAX's complex derivatives (a vjp is the jvp's transpose, without conjugates), so
what is left here is JAX's contract for each transform:
- `grad(f, holomorphic=True)(z)` is f'(z) (the vjp of the complex 1), for complex inputs and a
  complex output; `value_and_grad`, `jacfwd` and `jacrev` (and `jacobian`) likewise;
- without `holomorphic`, grad and value_and_grad take complex inputs of a real-valued function
  (`grad(lambda z: np.abs(z) ** 2)(3 + 4j)` is 6 - 8j, as JAX's) and refuse a complex output with
  JAX's error; jacfwd refuses complex inputs with JAX's error, and jacrev (which JAX computes there)
  is refused, pointing to vjp or holomorphic=True.
A holomorphic derivative is called, not transformed further (grad of it is refused at the call).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..base import real_only
from ..base.tracebacks import ENTRY
from ..base.tree import tree_leaves, tree_map
from ..compiler import driver
from ..compiler.emit.loader import call
from ..errors import S2STypeError
from .calls import check_diff_args

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


class Holomorphic:
    """`grad`, `value_and_grad`, `jacfwd` or `jacrev` of `fun` with `holomorphic=True`: called, and
    batched by vmap as a loop over the examples; not transformed further."""

    S2S_NOT_TRANSFORMED = ("it is a holomorphic derivative, which s2s calls but does not transform further",
                           "fun", ": take the holomorphic derivative of a transformed function instead, or use "
                                  "s2s.jvp / s2s.vjp, which take complex values, inside the function you transform")
    __s2s_refuse__ = S2S_NOT_TRANSFORMED[0] + "; call it outside the transformed function."

    def __init__(self, kind: str, fun: Callable, argnums: Any, has_aux: bool, checkpoint: Any = None) -> None:
        self.kind, self.fun, self.argnums, self.has_aux, self.checkpoint = kind, fun, argnums, has_aux, checkpoint
        self.nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        self.__name__ = f"{kind}_{getattr(fun, '__name__', 'f')}"
        self.__doc__ = getattr(fun, "__doc__", None)

    def __call__(self, *args: Any) -> Any:
        with ENTRY:
            check_diff_args(args, self.nums, self.kind)
            real = [dt for dt in _leaf_dtypes(args, self.nums) if dt.kind != "c"]
            if real:
                raise S2STypeError(f"{self.kind} with holomorphic=True requires inputs with complex dtype, but got "
                                   f"{real[0]}.")
            with real_only.holomorphic():
                if self.kind in _GRADS:
                    return _grads(self.kind, self.fun, self.argnums, self.has_aux, self.checkpoint, args, True)
                return call(driver.jacobian_function(self.kind, self.fun, self.argnums, self.has_aux, batched=False),
                            args)

    def __s2s_vmap__(self, in_axes: Any, out_axes: Any, axis_size: Any) -> Callable:
        """vmap of it: a loop over the examples (in_axes an int, None or one per argument; the
        results stacked along axis 0)."""
        if out_axes != 0:
            raise S2STypeError(f"vmap of a holomorphic {self.kind} stacks its results along axis 0 only "
                               f"(out_axes={out_axes!r}).")

        def looped(*args: Any) -> Any:
            axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
            if len(axes) != len(args) or not all(a is None or isinstance(a, int) for a in axes):
                raise S2STypeError(f"vmap of a holomorphic {self.kind} takes in_axes as an int, None or one int "
                                   "or None per argument.")
            sizes = {np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None}
            n = sizes.pop() if len(sizes) == 1 else axis_size
            if n is None or sizes:
                raise S2STypeError("vmap: the mapped arguments must have one size along their in_axes.")
            outs = [self(*(a if ax is None else np.take(a, k, axis=ax) for a, ax in zip(args, axes)))
                    for k in range(n)]
            return tree_map(lambda *xs: np.stack(xs), *outs)
        return looped

    def __repr__(self) -> str:
        return f"<s2s {self.kind} of {getattr(self.fun, '__name__', self.fun)} (holomorphic)>"


def _grads(kind, fun, argnums, has_aux, checkpoint, args, holomorphic: bool):
    """grad or value_and_grad at `args` through the value_and_grad version, whose value tells
    whether the output's dtype is the one JAX requires."""
    out = call(driver.grad_function(fun, argnums, has_aux, True, checkpoint), args)
    value_part, grads = out
    value = value_part[0] if has_aux else value_part
    complex_out = np.iscomplexobj(value)
    if holomorphic and not complex_out:
        raise S2STypeError(f"{kind} with holomorphic=True requires outputs with complex dtype, but got "
                           f"{np.result_type(value)}.")
    if not holomorphic and complex_out:
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
        return _grads(kind, fun, argnums, has_aux, checkpoint, args, False)
    dtype = next(dt for dt in _leaf_dtypes(args, (argnums,) if isinstance(argnums, int) else tuple(argnums))
                 if dt.kind == "c")
    if kind == "jacfwd":
        raise S2STypeError(f"jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but "
                           f"got {dtype}. For holomorphic differentiation, pass holomorphic=True. For differentiating "
                           "non-holomorphic functions involving complex inputs, use s2s.vjp directly.")
    raise S2STypeError(f"s2s computes {kind} at complex inputs ({dtype}) with holomorphic=True only. For a function "
                       "that is not holomorphic, use s2s.vjp directly (or grad of a real-valued one).")
