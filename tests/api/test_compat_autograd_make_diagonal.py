"""autograd.numpy.make_diagonal (s2s.compat.autograd.numpy_extra), the inverse of np.diagonal:
its value against NumPy's diagonal and a hand-built array, its derivatives against central
differences, and vmap against a loop over examples."""
import numpy as np
import pytest

import s2s
from s2s.compat.autograd.numpy_extra import make_diagonal

RNG = np.random.default_rng(3)
FORMS = [(0, -1, -2), (0, -2, -1), (1, -1, -2), (-2, -2, -1), (0, 0, 1), (1, 0, 2), (-1, 2, 0)]


@pytest.mark.parametrize("offset, axis1, axis2", FORMS)
def test_inverse_of_numpy_diagonal(offset, axis1, axis2):
    D = RNG.standard_normal((2, 4))
    A = make_diagonal(D, offset, axis1, axis2)
    np.testing.assert_array_equal(np.diagonal(A, offset, axis1, axis2), D)
    assert np.count_nonzero(A) == D.size  # zeros elsewhere


def test_matches_a_hand_built_matrix():
    d = RNG.standard_normal(4)
    want = np.zeros((5, 5))
    want[np.arange(4), np.arange(4) + 1] = d
    np.testing.assert_array_equal(make_diagonal(d, 1, -2, -1), want)
    np.testing.assert_array_equal(make_diagonal(d, 0, -1, -2), np.diag(d))


def _loss(offset, axis1, axis2, W):
    def loss(D):
        return np.sum(W * make_diagonal(D ** 2, offset, axis1, axis2) ** 2)
    return loss


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("offset, axis1, axis2", FORMS)
def test_grad_and_jvp_match_central_differences(offset, axis1, axis2):
    D, t = RNG.standard_normal((2, 4)), RNG.standard_normal((2, 4))
    W = RNG.standard_normal(make_diagonal(D, offset, axis1, axis2).shape)
    f = _loss(offset, axis1, axis2, W)
    np.testing.assert_allclose(s2s.grad(f)(D), _fd(f, D), rtol=1e-6, atol=1e-7)
    _, tangent = s2s.jvp(f, (D,), (t,))
    np.testing.assert_allclose(tangent, (f(D + 1e-6 * t) - f(D - 1e-6 * t)) / 2e-6, rtol=1e-6, atol=1e-7)


def test_vmap_of_grad_matches_a_loop():
    Ds = RNG.standard_normal((3, 2, 4))
    W = RNG.standard_normal((2, 4, 4))
    f = _loss(0, -1, -2, W)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(Ds), np.stack([_fd(f, D) for D in Ds]), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("offset, axis1, axis2", FORMS)
def test_vmap_matches_a_loop(offset, axis1, axis2):
    Ds = RNG.standard_normal((3, 2, 4))
    np.testing.assert_allclose(s2s.vmap(lambda D: make_diagonal(D, offset, axis1, axis2))(Ds),
                               np.stack([make_diagonal(D, offset, axis1, axis2) for D in Ds]))


def test_offered_as_autograd_numpy_make_diagonal():
    from s2s.compat.autograd import alias_autograd, restore
    old = alias_autograd()
    try:
        import autograd.numpy as anp
        assert anp.make_diagonal is make_diagonal
    finally:
        restore(old)
