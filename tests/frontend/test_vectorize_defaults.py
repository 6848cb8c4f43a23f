"""np.vectorize of a function with default parameters inside a transformed function, written in
the function or made at module level (issue 27): the stand-in's `pyfunc(*[...])` could not tell
how many values it passes and raised an S2SSyntaxError in s2s's own numpy_inside.py. Checked
against central differences of the plain-NumPy function."""
import numpy as np
import pytest

import s2s

MODULE_LEVEL = np.vectorize(lambda t, k=2.0: np.sin(t) * k)
TWO_ARGS = np.vectorize(lambda a, b, k=0.5: np.sin(a) * b * k)


@np.vectorize
def decorated(t, k=3.0):
    return np.cos(t) * k


def inline_lambda(x):
    return np.sum(np.vectorize(lambda t, k=2.0: np.sin(t) * k)(x))


def inline_two(x):
    return np.sum(np.vectorize(lambda a, b, k=0.5: np.sin(a) * b * k)(x, x[::-1]))


def module_level(x):
    return np.sum(MODULE_LEVEL(x))


def module_level_two(x):
    return np.sum(TWO_ARGS(x, x[::-1] * 2.0))


def decorated_helper(x):
    return np.sum(decorated(x) * x)


@pytest.mark.parametrize("f", [inline_lambda, inline_two, module_level, module_level_two, decorated_helper],
                         ids=lambda f: f.__name__)
def test_grad_of_vectorize_with_defaults(f):
    x = np.array([[0.1, 0.2], [0.4, -0.3]])
    want = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = 1e-6
        want[k] = (f(x + e) - f(x - e)) / 2e-6
    np.testing.assert_allclose(s2s.grad(f)(x), want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(s2s.jit(f)(x), f(x), rtol=1e-12)
