"""autograd's `fixed_point(f, a, x0, distance, tol)`: iterate `x = f(a)(x)` from `x0` until two
iterates are within `tol`, with autograd's derivative in `a` (none in `x0`).

The derivative is the implicit one, as autograd defines it: at the fixed point `x* = T(a, x*)`
with `T(a, x) = f(a)(x)`, the cotangent `g` of `x*` gives `w = g + (dT/dx)^T w`, itself found by
`fixed_point` from zeros with the same `distance` and `tol`, and `a`'s cotangent is
`(dT/da)^T w`. The rule is code s2s transforms, so a second derivative differentiates it, through
the inner `fixed_point`'s own rule, as autograd's does.

Inside a transformed function `f` and `distance` are known when transforming: `fixed_point`
calls a primitive of `(a, x0, tol)` made once per pair of them (`_solver`, a transform that s2s
evaluates then), so no function travels as data through the derivative code.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

import s2s
from s2s.base import record

from .. import extend

__all__ = ["fixed_point"]


def fixed_point(f: Callable, a: Any, x0: Any, distance: Callable, tol: float) -> Any:
    """The fixed point of `f(a)` reached by iterating from `x0` until `distance(x, x_prev) <= tol`."""
    return _solver(f, distance)(a, x0, tol)


@functools.cache
def _solver(f: Callable, distance: Callable) -> Callable:
    """The primitive `(a, x0, tol) -> fixed point of f(a)`, with autograd's VJP in `a`."""
    def solve(a, x0, tol):
        step = f(a)
        x, x_prev = step(x0), x0
        while distance(x, x_prev) > tol:
            x, x_prev = step(x), x
        return x

    def solve_vjp(ans, a, x0, tol):
        _, pullback = s2s.vjp(lambda a_, x: f(a_)(x), a, ans)
        return lambda g: pullback(_solver(_reverse(f), distance)((a, ans, g), np.zeros_like(x0), tol))[0]

    solve.__name__ = solve.__qualname__ = f"fixed_point_{getattr(f, '__name__', 'f')}".replace("<lambda>", "lambda")
    extend.defvjp(solve, solve_vjp, _zero_x0, _zero_tol)  # (autograd: none in x0; tol is a constant)
    return solve


def _zero_x0(ans, a, x0, tol):
    return lambda g: np.zeros_like(x0)


def _zero_tol(ans, a, x0, tol):
    return lambda g: np.zeros_like(tol)


@functools.cache
def _reverse(f: Callable) -> Callable:
    """The reverse iteration's map for `params = (a, x*, g)`: `w -> (dT/dx)^T w + g`."""
    def reverse(params):
        a, x_star, x_star_bar = params
        _, pullback = s2s.vjp(lambda x: f(a)(x), x_star)
        return lambda w: pullback(w)[0] + x_star_bar
    return reverse


# both are evaluated when s2s transforms the function that calls them (their arguments are known then)
record.attach(_solver, transform=True)
record.attach(_reverse, transform=True)
