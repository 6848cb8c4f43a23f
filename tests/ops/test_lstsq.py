"""np.linalg.lstsq (issue 45 item 6): its four results against NumPy under jit and vmap; the
solution's, the residuals' and the singular values' derivatives in a and b against central
differences for over- and under-determined and square systems, with one or several right-hand
sides; jvp against vjp; vmap of grad against a loop; second derivatives; a least-squares fit inside
a loss; and the refusal of a rank-deficient derivative."""
import numpy as np
import pytest
from helpers_compare import fd_grad, fd_hessian

import s2s

RNG = np.random.default_rng(4545)

# (rows, columns, right-hand sides or None for a vector b)
SHAPES = [(6, 3, None), (6, 3, 2), (3, 5, None), (2, 4, 3), (4, 4, None)]
IDS = [f"{m}x{n}-{k}" for m, n, k in SHAPES]


def _problem(m, n, k):
    return RNG.standard_normal((m, n)), RNG.standard_normal((m,) if k is None else (m, k))


def loss(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return np.sum(np.sin(x)) + 0.3 * np.sum(res) + 0.1 * np.sum(s ** 2)


@pytest.mark.parametrize("m, n, k", SHAPES, ids=IDS)
def test_values_under_jit_are_numpys(m, n, k):
    a, b = _problem(m, n, k)
    got = s2s.jit(lambda a, b: np.linalg.lstsq(a, b))(a, b)
    want = np.linalg.lstsq(a, b)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("m, n, k", SHAPES, ids=IDS)
def test_grad_and_jvp_match_central_differences(m, n, k):
    a, b = _problem(m, n, k)
    ga, gb = s2s.grad(loss, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, fd_grad(lambda t: loss(t, b), a), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gb, fd_grad(lambda t: loss(a, t), b), rtol=1e-6, atol=1e-7)
    va, vb = RNG.standard_normal(a.shape), RNG.standard_normal(b.shape)
    _, tangent = s2s.jvp(loss, (a, b), (va, vb))
    np.testing.assert_allclose(tangent, np.sum(ga * va) + np.sum(gb * vb), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("m, n, k", SHAPES, ids=IDS)
def test_the_solution_is_pinv_b_and_so_is_its_jacobian(m, n, k):
    """At full rank x = pinv(a) @ b, tall or wide: the Jacobians agree with pinv's (s2s's own rule,
    checked elsewhere) and with forward mode."""
    a, b = _problem(m, n, k)
    lst = s2s.jacrev(lambda a: np.linalg.lstsq(a, b)[0])(a)
    np.testing.assert_allclose(lst, s2s.jacrev(lambda a: np.linalg.pinv(a) @ b)(a), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(s2s.jacfwd(lambda a: np.linalg.lstsq(a, b)[0])(a), lst, rtol=1e-9, atol=1e-10)


def test_vmap_and_vmap_of_grad_match_a_loop():
    a, b = RNG.standard_normal((4, 5, 3)), RNG.standard_normal((4, 5))
    x = s2s.vmap(lambda a, b: np.linalg.lstsq(a, b)[0])(a, b)
    np.testing.assert_allclose(x, [np.linalg.lstsq(ai, bi)[0] for ai, bi in zip(a, b)], rtol=1e-12)
    grads = s2s.vmap(s2s.grad(loss, argnums=(0, 1)))(a, b)
    for i in range(4):
        want = s2s.grad(loss, argnums=(0, 1))(a[i], b[i])
        np.testing.assert_allclose(grads[0][i], want[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(grads[1][i], want[1], rtol=1e-12, atol=1e-12)
    shared = s2s.vmap(lambda b: np.linalg.lstsq(a[0], b)[0])(b)  # one matrix, a batch of right-hand sides
    np.testing.assert_allclose(shared, [np.linalg.lstsq(a[0], bi)[0] for bi in b], rtol=1e-12)


def test_second_derivatives():
    a, b = _problem(5, 3, None)
    np.testing.assert_allclose(s2s.hessian(lambda a: loss(a, b))(a), fd_hessian(lambda a: loss(a, b), a),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s2s.hessian(lambda b: loss(a, b))(b), fd_hessian(lambda b: loss(a, b), b),
                               rtol=1e-5, atol=1e-6)


def test_a_least_squares_fit_inside_a_loss():
    """Fit a polynomial to noisy data by least squares, then score the fit on held-out points: the
    loss's gradient in the data (through the fitted coefficients) and in the design's scale."""
    t = np.linspace(-1.0, 1.0, 9)
    held = np.linspace(-0.9, 0.9, 5)
    y = np.sin(2 * t) + 0.05 * RNG.standard_normal(9)

    def validation_loss(y, scale):
        design = np.stack([np.ones_like(t), scale * t, (scale * t) ** 2, (scale * t) ** 3], axis=1)
        coef, residuals, rank, s = np.linalg.lstsq(design, y, rcond=None)
        pred = coef[0] + coef[1] * scale * held + coef[2] * (scale * held) ** 2 + coef[3] * (scale * held) ** 3
        return np.mean((pred - np.sin(2 * held)) ** 2) + 1e-3 * residuals[0]

    gy, gs = s2s.grad(validation_loss, argnums=(0, 1))(y, 1.3)
    np.testing.assert_allclose(gy, fd_grad(lambda v: validation_loss(v, 1.3), y), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(gs, (validation_loss(y, 1.3 + 1e-6) - validation_loss(y, 1.3 - 1e-6)) / 2e-6,
                               rtol=1e-5, atol=1e-10)
    np.testing.assert_allclose(s2s.jit(validation_loss)(y, 1.3), validation_loss(y, 1.3), rtol=1e-12)


def test_a_rank_deficient_derivative_is_refused():
    a, b = _problem(5, 3, None)
    a[:, 2] = a[:, 0] - 2.0 * a[:, 1]
    assert np.linalg.lstsq(a, b)[2] == 2
    f = s2s.jit(lambda a, b: np.linalg.lstsq(a, b)[0])
    np.testing.assert_allclose(f(a, b), np.linalg.lstsq(a, b)[0], rtol=1e-12)  # the value is NumPy's
    for transform in (lambda: s2s.grad(loss)(a, b), lambda: s2s.jvp(loss, (a, b), (a, b)),
                      lambda: s2s.grad(loss, argnums=1)(a, b)):
        with pytest.raises(s2s.S2SError, match="rank-deficient"):
            transform()
    # a cutoff that drops a singular value makes the rank deficient too
    a2, b2 = _problem(4, 3, None)
    with pytest.raises(s2s.S2SError, match="rank-deficient"):
        s2s.grad(lambda a: np.sum(np.linalg.lstsq(a, b2, rcond=0.9)[0]))(a2)
