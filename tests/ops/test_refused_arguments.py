"""Arguments s2s does not differentiate with respect to are refused by name at every order, never a
silent zero (issue 27, family 7): np.quantile's q (its gradient was 0.0), np.trapezoid's sample
points reached through the cotangent helper of a mixed second derivative (0.0 where the answer
is 4), np.gradient's spacing; and a constant the forward sweep saved (np.trapezoid's literal
sample points) stays a constant at order 3 instead of being refused there."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError

X = np.array([0.3, 1.2, -0.7, 2.0, 0.9])
KNOTS = np.array([0.0, 1.0, 2.5, 3.0, 4.0])


def quantile_of_q(w):
    return np.quantile(X, 0.3 * w)


def quantile(x, w):
    return np.quantile(x, w)


def percentile(x, w):
    return np.percentile(x, w)


def trapezoid_scaled(y, w):
    return np.trapezoid(y, w * KNOTS)


def trapezoid_dx(y, w):
    return np.trapezoid(y, dx=w)


def gradient_spacing(y, w):
    return np.sum(np.gradient(y, w) ** 2)


def _mixed(f):
    """d/dw of sum(grad_y f(y, w)): the second argument reaches only the first-order rule's helper."""
    inner = s2s.grad(f)
    return s2s.grad(lambda y, w: np.sum(inner(y, w)), argnums=1)


def test_quantile_refuses_q():
    with pytest.raises(S2SError, match="quantile with respect to q"):
        s2s.grad(quantile_of_q)(1.0)
    with pytest.raises(S2SError, match="quantile with respect to q"):
        s2s.jvp(quantile_of_q, (1.0,), (1.0,))


@pytest.mark.parametrize("f, w", [(quantile, 0.3), (percentile, 30.0), (trapezoid_scaled, 1.0), (trapezoid_dx, 0.5),
                                  (gradient_spacing, 0.5)])
def test_mixed_second_derivative_refuses(f, w):
    with pytest.raises(S2SError, match="with respect to"):
        _mixed(f)(X, w)


def test_constant_sample_points_at_order_three():
    """d^3/dy^3 of trapezoid(y, knots) ** 3 = 6 w_i w_j w_k, w the trapezoid weights, in every mode."""
    def cubed(y):
        return np.trapezoid(y, np.array([0.0, 1.0, 2.5, 3.0, 4.0])) ** 3
    w = np.array([0.5, 1.25, 1.0, 0.75, 0.5])
    want = 6 * np.einsum("i,j,k->ijk", w, w, w)
    for outer in (s2s.jacrev, s2s.jacfwd):
        np.testing.assert_allclose(outer(s2s.jacrev(s2s.jacrev(cubed)))(X), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.jacfwd(s2s.jacfwd(s2s.jacfwd(cubed)))(X), want, rtol=1e-12)
