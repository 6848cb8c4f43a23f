"""autograd.scipy.integrate's `odeint(func, y0, t, args=(), rtol=None, atol=None)`: SciPy's odeint, with
autograd's adjoint VJP in `y0`, `t` and `args` (a pytree of arrays).

The VJP is autograd's (Froehlich, Loos and Hasenauer 2017, Sec. 2.4.2): from the last time back
to the first, SciPy integrates the state together with its adjoint, `t`'s and the flattened
`args`' cotangents backwards between each pair of observation times, with the same options.
Inside a transformed function `func` is known when transforming: `odeint` calls a primitive made
once per `func` (`_solver`, a transform s2s evaluates then), so no function travels as data.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

import s2s
from s2s.base import record
from s2s.errors import S2SError

from . import extend
from .misc.flatten import plain_flatten

try:
    import scipy.integrate as _integrate
except ImportError:  # SciPy is optional: odeint says so when called
    _integrate = None

__all__ = ["odeint"]


def _scipy_integrate():
    if _integrate is None:
        raise S2SError("autograd.scipy.integrate.odeint needs SciPy, which is not installed: pip install 's2s[scipy]'")
    return _integrate


def odeint(func: Callable, y0: Any, t: Any, args: tuple = (), rtol: Any = None, atol: Any = None) -> np.ndarray:
    """`scipy.integrate.odeint(func, y0, t, args, rtol=rtol, atol=atol)`: the state at each time."""
    return _solver(func)(y0, t, args, rtol, atol)


@functools.cache
def _solver(func: Callable) -> Callable:
    """The primitive `(y0, t, args, rtol, atol) -> states`, with autograd's VJPs in y0, t, args."""
    def solve(y0, t, args, rtol, atol):
        return _scipy_integrate().odeint(func, y0, t, tuple(args), rtol=rtol, atol=atol)

    def vjp(which):
        return lambda ans, y0, t, args, rtol, atol: lambda g: _adjoint(func, ans, t, args, rtol, atol, g)[which]

    def jvp(g, ans, y0, t, args, rtol, atol):
        return _forward(func, g)

    solve.__name__ = solve.__qualname__ = f"odeint_{getattr(func, '__name__', 'f')}".replace("<lambda>", "lambda")
    extend.defvjp(solve, vjp(0), vjp(1), vjp(2))
    extend.defjvp(solve, jvp, jvp, jvp)
    return solve


record.attach(_solver, transform=True)  # evaluated when the function calling odeint is transformed


def _adjoint(func, yt, t, args, rtol, atol, g):
    """(y0's, t's, args') cotangents for the cotangent `g` of the states `yt` at times `t`."""
    T, D = np.shape(yt)
    flat_args, unflatten = plain_flatten(tuple(args))

    def augmented(state, time, flat):
        y, adj = state[:D], state[D:2 * D]
        dy, pullback = s2s.vjp(func, y, time, *unflatten(flat))
        cts = pullback(-adj)
        return np.hstack((dy, cts[0], cts[1], plain_flatten(tuple(cts[2:]))[0]))

    adj_y, adj_t0, adj_args = g[-1, :], 0.0, np.zeros(np.size(flat_args))
    times = []
    for i in range(T - 1, 0, -1):
        adj_t = np.dot(func(yt[i, :], t[i], *args), g[i, :])
        times.append(adj_t)
        adj_t0 = adj_t0 - adj_t
        start = np.hstack((yt[i, :], adj_y, adj_t0, adj_args))
        out = _scipy_integrate().odeint(augmented, start, np.array([t[i], t[i - 1]]), (flat_args,), rtol=rtol, atol=atol)
        adj_y, adj_t0, adj_args = out[1][D:2 * D], out[1][2 * D], out[1][2 * D + 1:]
        adj_y = adj_y + g[i - 1, :]
    times.append(adj_t0)
    return adj_y, np.hstack(times)[::-1], type(args)(unflatten(adj_args))


def _forward(func, g):
    """odeint has no forward-mode rule (autograd gives it none): refused when transformed."""
    raise S2SError("odeint has autograd's reverse-mode derivative only")


# a second derivative would differentiate SciPy's integration of the adjoint, and forward mode has no
# rule: refused by name where a transform meets them (jvp, jacfwd, hessian, grad of grad)
_adjoint.__s2s_refuse__ = ("odeint's derivative (autograd's adjoint, SciPy integrating backwards) is first order "
                           "only: s2s cannot differentiate it again (no hessian, jacfwd of grad or grad of grad)")
_forward.__s2s_refuse__ = ("odeint has autograd's reverse-mode derivative only (its adjoint): s2s.jvp, jacfwd and "
                           "hessian of it are refused; use grad, vjp or jacrev")
