"""np.sign's derivative at complex values, and order 2 through the modulus of a spectrum (issue 44).

sign(z) = z / |z| for z != 0, so its derivative is not 0 there (it was, silently); at real values
sign is a step (0), and at z == 0 s2s gives 0. Every path is checked against central differences of
real functions of complex intermediates (np.fft makes them from real arrays), at orders 1 and 2,
under jit and vmap too. The order-2 cases through np.abs of an FFT were refused: shape sources
handed rt.sum_vjp a complex array as the shape source of a real one, so its ones were complex."""
from __future__ import annotations

import numpy as np
import pytest

import s2s

RNG = np.random.default_rng(0)
X = RNG.standard_normal(5)
W = RNG.standard_normal(5)
V = RNG.standard_normal(5)


def _fd(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


def _fd_hessian(f, x, eps=1e-5):
    g = s2s.grad(f)
    return np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(x.size)]).T


def real_part_of_sign(x):
    return np.sum(np.real(np.sign(np.fft.fft(x) + 0.5)) * W)


def imag_part_of_sign(x):
    return np.sum(np.imag(np.sign(np.fft.fft(x) - 0.25j)) * V)


def weighted_phases(x):
    return np.sum(np.real(np.sign(np.fft.fft(x)) * (W + 1j * V)))


def modulus_after_sign(x):
    return np.sum(np.abs(np.sign(np.fft.fft(x)) + 0.5) * x)


def sign_at_real_values(x):
    return np.sum(np.sign(x) * x ** 2)


SIGNS = [real_part_of_sign, imag_part_of_sign, weighted_phases, modulus_after_sign, sign_at_real_values]


@pytest.mark.parametrize("f", SIGNS, ids=lambda f: f.__name__)
def test_first_derivatives_equal_central_differences(f):
    fd = _fd(f, X)
    assert np.max(np.abs(fd)) > 1e-3  # (the derivative is not zero: a zero rule would fail)
    np.testing.assert_allclose(s2s.grad(f)(X), fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(X), fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.jacfwd(f)(X), fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.jvp(f, (X,), (W,))[1], fd @ W, rtol=1e-6, atol=1e-7)
    xs = np.stack([X, 0.5 * X - 0.3])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), [_fd(f, x) for x in xs], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", SIGNS[:3], ids=lambda f: f.__name__)
def test_second_derivatives_equal_central_differences(f):
    want = _fd_hessian(f, X)
    np.testing.assert_allclose(s2s.hessian(f)(X), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(s2s.jacrev(s2s.jacfwd(f))(X), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(s2s.jacrev(s2s.grad(f))(X), want, rtol=1e-4, atol=1e-5)


def test_sign_is_a_step_at_real_values_and_zero_at_complex_zero():
    g = s2s.grad(lambda x: np.sum(np.sign(x) * W))(X)
    np.testing.assert_array_equal(g, np.zeros(5))
    # z == 0 exactly (the bins of a constant signal past the first): 0, not a division by 0
    x = np.ones(4)
    assert np.fft.fft(x)[1] == 0.0

    def at_zero(x):
        z = np.sign(np.fft.fft(x))[1]
        return np.real(z) + np.imag(z)

    np.testing.assert_array_equal(s2s.grad(at_zero)(x), np.zeros(4))
    np.testing.assert_array_equal(s2s.jacfwd(at_zero)(x), np.zeros(4))
    np.testing.assert_array_equal(s2s.hessian(at_zero)(x), np.zeros((4, 4)))


SPECTRA = {
    "sqrt_of_modulus": lambda x: np.sum(np.sqrt(np.abs(np.fft.rfft(x)))),
    "modulus_times_input": lambda x: np.sum(np.abs(np.fft.rfft(x)) * x[:3]),
    "broadcast_modulus": lambda x: np.sum(np.abs(np.fft.rfft(x))[None, :] * np.ones((2, 1))),
    "weighted_modulus": lambda x: np.sum(np.abs(np.fft.rfft(x)) * W[:3]),
}


@pytest.mark.parametrize("name", SPECTRA)
def test_grad_of_grad_through_the_modulus_of_an_rfft(name):
    f = SPECTRA[name]
    want = _fd_hessian(f, X)
    g = s2s.grad(f)
    for i in range(2):
        np.testing.assert_allclose(s2s.grad(lambda y: g(y)[i])(X), want[i], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(s2s.hessian(f)(X), want, rtol=1e-4, atol=1e-5)
    gsum = s2s.grad(lambda y: np.sum(g(y)))
    np.testing.assert_allclose(gsum(X), want.sum(0), rtol=1e-4, atol=1e-5)
    xs = np.stack([X, 0.5 * X - 0.3])
    np.testing.assert_allclose(s2s.vmap(gsum)(xs), [_fd_hessian(f, x).sum(0) for x in xs], rtol=1e-4, atol=1e-5)


def test_a_real_value_takes_the_real_part_of_its_complex_cotangent():
    """np.real(x * (1 + 2j)) hands x the complex cotangent (1 + 2j) g; JAX's convention gives x its
    real part (grad refused it, and vmap(grad) returned it, before issue 45)."""
    def f(x):
        return np.sum(np.real(x * (1 + 2j)) * W)

    np.testing.assert_allclose(s2s.grad(f)(X), W, rtol=1e-12)
    got = s2s.vmap(s2s.grad(f))(np.stack([X, X]))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, np.stack([W, W]), rtol=1e-12)
