"""np.gradient of an N-d array along several axes (axis=None or a tuple), which returns one array
per axis (autograd's test_numpy.py/test_systematic.py::test_gradient): reverse mode, forward mode
and vmap against central differences of NumPy's own function and a loop over examples."""
import numpy as np
import pytest

import s2s

RNG = np.random.default_rng(5)
W = [RNG.standard_normal((4, 5)) for _ in range(2)]


def every_axis(f):
    gy, gx = np.gradient(f)
    return np.sum(W[0] * gy) + np.sum(W[1] * gx ** 2)


def axes_tuple(f):
    gs = np.gradient(f, 0.5, axis=(1, 0), edge_order=2)
    return np.sum(W[0] * gs[0] ** 2) + np.sum(W[1] * gs[1])


def only_first_read(f):
    return np.sum(W[0] * np.gradient(f)[0] ** 3)


def one_of_tuple_axes(f):
    return np.sum(W[0] * np.gradient(f, axis=(1,)) ** 2)


def fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


FNS = [every_axis, axes_tuple, only_first_read, one_of_tuple_axes]


@pytest.mark.parametrize("fn", FNS, ids=lambda f: f.__name__)
def test_grad_matches_central_differences(fn):
    x = RNG.standard_normal((4, 5))
    np.testing.assert_allclose(s2s.grad(fn)(x), fd_grad(fn, x), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("fn", FNS, ids=lambda f: f.__name__)
def test_jvp_matches_central_differences(fn):
    x, t = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    _, tangent = s2s.jvp(fn, (x,), (t,))
    np.testing.assert_allclose(tangent, (fn(x + 1e-6 * t) - fn(x - 1e-6 * t)) / 2e-6, rtol=1e-6, atol=1e-7)


def test_tuple_result_vjp_and_jvp_against_numpy():
    x, t = RNG.standard_normal((3, 4, 2)), RNG.standard_normal((3, 4, 2))
    out, pull = s2s.vjp(np.gradient, x)
    for got, want in zip(out, np.gradient(x)):
        np.testing.assert_allclose(got, want)
    cts = tuple(RNG.standard_normal(x.shape) for _ in range(3))
    (ct,) = pull(cts)

    def inner(z):
        return sum(np.sum(c * g) for c, g in zip(cts, np.gradient(z)))
    np.testing.assert_allclose(ct, fd_grad(inner, x), rtol=1e-6, atol=1e-7)
    _, tangents = s2s.jvp(np.gradient, (x,), (t,))  # linear: the tangent is the gradient of t
    for got, want in zip(tangents, np.gradient(t)):
        np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("fn", FNS, ids=lambda f: f.__name__)
def test_vmap_of_grad_matches_a_loop(fn):
    xs = RNG.standard_normal((3, 4, 5))
    want = np.stack([fd_grad(fn, x) for x in xs])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(fn))(xs), want, rtol=1e-6, atol=1e-7)


def test_second_order_matches_differences_of_the_gradient():
    x, t = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    g = s2s.grad(every_axis)
    hvp = s2s.jvp(g, (x,), (t,))[1]
    np.testing.assert_allclose(hvp, (g(x + 1e-5 * t) - g(x - 1e-5 * t)) / 2e-5, rtol=1e-5, atol=1e-6)
