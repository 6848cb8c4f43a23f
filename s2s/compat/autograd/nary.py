"""autograd's operators of the form `op(fun, argnum=0)(*args, **kwargs)` that return functions
or products rather than gradients: make_vjp, make_jvp, make_hvp, deriv, grad_and_aux,
tensor_jacobian_product, make_ggnvp, checkpoint. The arguments `argnum` leaves out, and the
keywords, are held fixed (`_bind.at_argnum`); a tuple `argnum` takes the derivative with respect
to that tuple of arguments, as autograd's `unary_to_nary`."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

import s2s
import s2s.numpy as snp

from ._bind import at_argnum

__all__ = ["checkpoint", "deriv", "grad_and_aux", "holomorphic_grad", "make_ggnvp",
           "make_hvp", "make_jvp", "make_vjp", "tensor_jacobian_product", "vector_jacobian_product"]

checkpoint = s2s.checkpoint  # same values and derivatives; s2s recomputes in the backward sweep


def _one(argnum: Any, cts: tuple) -> Any:
    """The cotangent(s) in autograd's form: one value for an int `argnum`, a tuple otherwise."""
    return cts if isinstance(argnum, (tuple, list)) else cts[0]


def make_vjp(fun: Callable, argnum: Any = 0) -> Callable:
    """`(*args) -> (vjp, fun(*args))`, `vjp(g)` the cotangent of argument `argnum`."""
    def at(*args: Any, **kwargs: Any) -> tuple[Callable, Any]:
        g, xs = at_argnum(fun, argnum, args, kwargs)
        out, pullback = s2s.vjp(g, *xs)
        return (lambda ct: _one(argnum, pullback(ct))), out
    return at


def make_jvp(fun: Callable, argnum: Any = 0) -> Callable:
    """`(*args) -> (v -> (fun(*args), J v))`, J the Jacobian with respect to argument `argnum`."""
    def at(*args: Any, **kwargs: Any) -> Callable:
        g, xs = at_argnum(fun, argnum, args, kwargs)
        return lambda v: s2s.jvp(g, xs, v if isinstance(argnum, (tuple, list)) else (v,))
    return at


def deriv(fun: Callable, argnum: Any = 0) -> Callable:
    """The directional derivative along ones: `J @ ones`, the derivative of a function of a
    scalar (forward mode, as autograd's)."""
    def at(*args: Any, **kwargs: Any) -> Any:
        g, xs = at_argnum(fun, argnum, args, kwargs)
        return s2s.jvp(g, xs, tuple(np.ones_like(np.asarray(x, dtype=float)) if np.ndim(x) else 1.0 for x in xs))[1]
    return at


def make_hvp(fun: Callable, argnum: Any = 0) -> Callable:
    """`(*args) -> (v -> H v, the gradient)`, H the Hessian of scalar `fun` (forward over reverse)."""
    def at(*args: Any, **kwargs: Any) -> tuple[Callable, Any]:
        g, xs = at_argnum(fun, argnum, args, kwargs)
        grad = s2s.grad(g, argnums=tuple(range(len(xs))))
        hvp = (lambda v: _one(argnum, s2s.jvp(grad, xs, v if isinstance(argnum, (tuple, list)) else (v,))[1]))
        return hvp, _one(argnum, grad(*xs))
    return at


def grad_and_aux(fun: Callable, argnum: Any = 0) -> Callable:
    """`(*args) -> (gradient of fun's first output, its second output)`."""
    return s2s.grad(fun, argnums=argnum, has_aux=True)


def _contract(fun: Callable, tensor: Any, x: Any) -> Any:
    return np.tensordot(tensor, fun(x), np.ndim(tensor))


def tensor_jacobian_product(fun: Callable, argnum: Any = 0) -> Callable:
    """`(*args, tensor) -> tensor . J`: the Jacobian contracted with `tensor` over the output's
    leading `ndim(tensor)` axes (all of them: the VJP with cotangent `tensor`)."""
    def at(*args_and_tensor: Any, **kwargs: Any) -> Any:
        *args, tensor = args_and_tensor
        if isinstance(argnum, (tuple, list)):
            return make_vjp(fun, argnum)(*args, **kwargs)[0](tensor)
        g, xs = at_argnum(fun, argnum, tuple(args), kwargs)
        return s2s.jacrev(functools.partial(_contract, g, tensor))(xs[0])
    return at


vector_jacobian_product = tensor_jacobian_product


def _half_sum_squares(x: Any) -> Any:
    return 0.5 * snp.sum(x ** 2, axis=-1)


def make_ggnvp(f: Callable, g: Callable = _half_sum_squares, f_argnum: Any = 0) -> Callable:
    """`(*args) -> (v -> J' H J v)`: the generalized Gauss-Newton product of `g(f(x))`, J the
    Jacobian of `f` and H the Hessian of `g` at `f(x)`."""
    def at(*args: Any, **kwargs: Any) -> Callable:
        fb, xs = at_argnum(f, f_argnum, args, kwargs)
        fx, f_pullback = s2s.vjp(fb, *xs)
        grad_g = s2s.grad(g)

        def ggnvp(v: Any) -> Any:
            jv = s2s.jvp(fb, xs, v if isinstance(f_argnum, (tuple, list)) else (v,))[1]
            return _one(f_argnum, f_pullback(s2s.jvp(grad_g, (fx,), (jv,))[1]))
        return ggnvp
    return at


def holomorphic_grad(fun: Callable, argnum: Any = 0) -> Callable:
    """f'(z) of a holomorphic `fun`: s2s's `grad(fun, argnum, holomorphic=True)`, which takes
    complex inputs and a complex output only (autograd warns at a real input; s2s raises JAX's error)."""
    return s2s.grad(fun, argnum, holomorphic=True)
