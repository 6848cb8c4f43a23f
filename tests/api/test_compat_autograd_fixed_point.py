"""s2s.compat.autograd.misc.fixed_points.fixed_point: the fixed point of `f(a)` and autograd's
implicit derivative in `a`, first and second order, inside functions s2s transforms. Checked
against hand-derived derivatives of sqrt (Newton's iteration converges to sqrt(a)) and central
finite differences of the converged fixed point."""
import numpy as np

import s2s
from s2s.compat import autograd as ag
from s2s.compat.autograd.misc.fixed_points import fixed_point

TOL = 1e-13


def newton_sqrt(a):
    return lambda x: 0.5 * (x + a / x)


def cosine_map(a):  # x = cos(a * x): a fixed point with no closed form
    return lambda x: np.cos(a * x)


def max_distance(x, y):
    return np.max(np.abs(x - y))


def sqrt_sum(a):
    return np.sum(fixed_point(newton_sqrt, a, np.ones_like(a), max_distance, TOL))


def cosine_fixed(a):
    return fixed_point(cosine_map, a, 0.5, max_distance, TOL)


def test_values_and_derivatives_of_a_fixed_point_match_sqrts():
    a = np.array([2.0, 0.5, 9.0])
    np.testing.assert_allclose(sqrt_sum(a), np.sum(np.sqrt(a)), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(sqrt_sum)(a), 0.5 / np.sqrt(a), rtol=1e-10)
    np.testing.assert_allclose(ag.grad(ag.grad(lambda s: sqrt_sum(s * np.ones(1))))(4.0), -0.25 * 4.0 ** -1.5,
                               rtol=1e-8)


def test_derivatives_of_a_fixed_point_match_finite_differences():
    a, h = 0.8, 1e-5
    g = ag.grad(cosine_fixed)
    np.testing.assert_allclose(g(a), (cosine_fixed(a + h) - cosine_fixed(a - h)) / (2 * h), rtol=1e-7)
    np.testing.assert_allclose(ag.grad(g)(a), (g(a + h) - g(a - h)) / (2 * h), rtol=1e-6)


def test_the_start_has_no_derivative_as_in_autograd():
    start = s2s.grad(lambda x0: fixed_point(cosine_map, 0.8, x0, max_distance, TOL))(0.5)
    assert start == 0.0
