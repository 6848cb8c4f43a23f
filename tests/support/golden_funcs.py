"""Functions whose generated gradient source is kept byte for byte in tests/golden/.

Editing this file changes line numbers and comments in the generated source: regenerate the
golden files afterwards with ``S2S_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py``.
"""

import numpy as np


def linear_mse(params, x, y):
    w, b = params
    pred = np.dot(x, w) + b
    return np.mean((pred - y) ** 2)


def logistic_sum(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


def clipped_newton(a, cap):
    """A `while` with a data-dependent stop and an `if` on array values (issue 3's golden)."""
    x = a
    steps = 0
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
        if x > cap:
            x = cap
        steps = steps + 1
    return x * steps


def tanh_layer(w, x):
    """A small layer for the jvp, vjp (forward/backward pair), jacrev and jit goldens."""
    h = np.tanh(np.dot(w, x))
    return h * x


def horner(c, x):
    """A callee with a loop: Horner's scheme over the coefficients."""
    acc = 0.0 * x
    for i in range(len(c)):
        acc = acc * x + c[i]
    return acc


def poly_sum(c, x):
    """Calls the looping callee, so the golden shows its generated split pair."""
    return np.sum(horner(c, x) ** 2)
