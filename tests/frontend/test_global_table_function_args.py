"""A function picked from a global table with a literal key and passed to a function,
`apply(TABLE[0], x)` (autograd's check_grads binds the function it checks into a global tuple:
`odeint(fixed[0], ...)`): the callee is specialized on that entry, as on a function named
directly. Checked under grad and jvp (central differences) and vmap (a loop over examples)."""
import numpy as np
import pytest

import s2s


def apply(f, v):
    return f(v)


def twice(f, g, v):
    return f(g(v))


def cube(v):
    return v ** 3


TABLE = (np.sin, cube)
NAMED = {"tanh": np.tanh, "cube": cube}


def tuple_entry(x):
    return np.sum(apply(TABLE[1], x) + twice(TABLE[0], TABLE[1], x))


def dict_entry(x):
    return np.sum(apply(NAMED["tanh"], x) * twice(f=NAMED["cube"], g=np.cos, v=x))


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("f", [tuple_entry, dict_entry], ids=lambda f: f.__name__)
def test_grad_jvp_and_vmap(f):
    rng = np.random.default_rng(0)
    x, t = rng.standard_normal(4), rng.standard_normal(4)
    np.testing.assert_allclose(s2s.grad(f)(x), _fd(f, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jvp(f, (x,), (t,))[1], (f(x + 1e-6 * t) - f(x - 1e-6 * t)) / 2e-6, rtol=1e-6)
    xs = rng.standard_normal((3, 4))
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(v) for v in xs])
