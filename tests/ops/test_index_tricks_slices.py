"""Slices inside np.r_[...] and np.c_[...] (autograd's test_numpy.py::test_r_slicing): `a:b:s` is
np.arange(a, b, s) and `a:b:nj` np.linspace(a, b, n), as NumPy makes them. Values against NumPy's
own r_/c_, gradients and JVPs against central differences, vmap against a loop over examples."""
import numpy as np
import pytest

import s2s

C = np.random.default_rng(1).standard_normal(4)


def r_arange(x):
    return np.r_[x, C, 1:10]


def r_steps(x):
    return np.r_[2:-3:-2, x ** 2, :3, 0.5:1.5:0.25]


def r_linspace(x):
    return np.r_[x, -1:1:5j, np.sin(x)]


def r_variable_bounds(x):
    n = 4
    return np.r_[x * 2.0, 0:n]


def c_columns(x):
    return np.c_[x, 0:4, np.cos(x)]


FNS = [r_arange, r_steps, r_linspace, r_variable_bounds, c_columns]


def _fd_vjp(f, x, w, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (np.sum(w * f(x + e)) - np.sum(w * f(x - e))) / (2 * eps)
    return g


@pytest.mark.parametrize("f", FNS, ids=lambda f: f.__name__)
def test_value_grad_jvp_and_vmap(f):
    rng = np.random.default_rng(2)
    x, t = rng.standard_normal(4), rng.standard_normal(4)
    want = f(x)
    w = rng.standard_normal(want.shape)

    def loss(v):
        return np.sum(w * f(v))
    got = s2s.jit(f)(x)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(s2s.grad(loss)(x), _fd_vjp(f, x, w), rtol=1e-6, atol=1e-8)
    _, tangent = s2s.jvp(f, (x,), (t,))
    np.testing.assert_allclose(tangent, (f(x + 1e-6 * t) - f(x - 1e-6 * t)) / 2e-6, rtol=1e-6, atol=1e-8)
    xs = rng.standard_normal((3, 4))
    np.testing.assert_allclose(s2s.vmap(f)(xs), np.stack([f(v) for v in xs]))
    np.testing.assert_allclose(s2s.vmap(s2s.grad(loss))(xs), np.stack([_fd_vjp(f, v, w) for v in xs]),
                               rtol=1e-6, atol=1e-8)


def directive(x):
    return np.r_["0,2", x, x]


def test_directive_strings_stay_refused():
    with pytest.raises(s2s.S2SError, match="directive strings"):
        s2s.grad(lambda v: np.sum(directive(v)))(np.ones(3))
