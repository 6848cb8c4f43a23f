"""autograd's optimizers: `sgd`, `rmsprop`, `adam` over a pytree of parameters.

Each takes `grad(params, i)` and the initial parameters, runs on their flattened vector (as
autograd's do, so the updates are the same arithmetic), calls `callback(params, i, g)` before
each step, and returns the parameters in their original structure.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .flatten import flatten

__all__ = ["adam", "rmsprop", "sgd"]


def _on_pytrees(step_all: Callable) -> Callable:
    """An optimizer of 1-D vectors as one of pytrees: flatten going in, unflatten coming out."""
    @functools.wraps(step_all)
    def optimize(grad: Callable, x0: Any, callback: Callable | None = None, *args: Any, **kw: Any) -> Any:
        x, unflatten = flatten(x0)

        def flat_grad(v, i):
            return flatten(grad(unflatten(v), i))[0]

        flat_callback = None
        if callback:
            def flat_callback(v, i, g):
                return callback(unflatten(v), i, unflatten(g))
        return unflatten(step_all(flat_grad, x, flat_callback, *args, **kw))
    return optimize


@_on_pytrees
def sgd(grad, x, callback=None, num_iters=200, step_size=0.1, mass=0.9):
    """Gradient descent with momentum `mass`."""
    velocity = np.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        velocity = mass * velocity - (1.0 - mass) * g
        x = x + step_size * velocity
    return x


@_on_pytrees
def rmsprop(grad, x, callback=None, num_iters=100, step_size=0.1, gamma=0.9, eps=10**-8):
    """Steps scaled by a running root mean square of the gradient."""
    avg_sq_grad = np.ones(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        avg_sq_grad = avg_sq_grad * gamma + g**2 * (1 - gamma)
        x = x - step_size * g / (np.sqrt(avg_sq_grad) + eps)
    return x


@_on_pytrees
def adam(grad, x, callback=None, num_iters=100, step_size=0.001, b1=0.9, b2=0.999, eps=10**-8):
    """Adam (Kingma and Ba): momentum and a running second moment, both bias-corrected."""
    m = np.zeros(len(x))
    v = np.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * (g**2) + b2 * v
        mhat = m / (1 - b1 ** (i + 1))
        vhat = v / (1 - b2 ** (i + 1))
        x = x - step_size * mhat / (np.sqrt(vhat) + eps)
    return x
