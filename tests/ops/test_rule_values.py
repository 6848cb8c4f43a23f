"""Derivative rules give the right value where a derivative exists, and the documented value
(JAX's) at points where a formula in terms of the output would divide by zero (issue 8, family 2)."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads

X = np.array([3.3, -2.7, 5.1, 0.4])
Y = np.array([1.3, 1.1, -2.2, 0.7])


def angle_wrap(t):
    return (t + np.pi) % (2 * np.pi) - np.pi


def mod_sum(x, y):
    return np.sum(np.mod(x, y) * np.remainder(x, y))


def fmod_sum(x, y):
    return np.sum(np.fmod(x, y) ** 2)


def test_modulo_operator_has_derivative_one_in_its_first_argument():
    assert s2s.grad(angle_wrap)(4.0) == 1.0
    assert s2s.jvp(angle_wrap, (4.0,), (1.0,))[1] == 1.0


@pytest.mark.parametrize("op", [np.mod, np.remainder])
def test_mod_and_remainder_derivatives_are_one_and_minus_floor_quotient(op):
    def f(x, y):
        return np.sum(op(x, y))
    if op is np.remainder:
        def f(x, y):  # noqa: F811
            return np.sum(np.remainder(x, y))
    else:
        def f(x, y):  # noqa: F811
            return np.sum(np.mod(x, y))
    gx, gy = s2s.grad(f, argnums=(0, 1))(X, Y)
    np.testing.assert_array_equal(gx, np.ones(4))
    np.testing.assert_array_equal(gy, -np.floor(X / Y))


def test_fmod_derivative_in_divisor_is_minus_truncated_quotient():
    def f(x, y):
        return np.sum(np.fmod(x, y))
    gx, gy = s2s.grad(f, argnums=(0, 1))(X, Y)
    np.testing.assert_array_equal(gx, np.ones(4))
    np.testing.assert_array_equal(gy, -np.trunc(X / Y))


@pytest.mark.parametrize("f", [mod_sum, fmod_sum])
def test_mod_family_matches_finite_differences_to_second_order(f):
    check_grads(f, (X, Y), order=2, modes=("fwd", "rev"))


def full_fill(s):
    return np.sum(np.full(3, s) * np.array([1.0, 2.0, 4.0]))


def test_full_fill_value_is_differentiable():
    assert s2s.grad(full_fill)(2.0) == 7.0
    check_grads(full_fill, (2.0,), order=2, modes=("fwd", "rev"))


def linspace_sq(a, b):
    return np.sum(np.linspace(a, b, 5) ** 2)


def linspace_vec(a, b):
    return np.sum(np.sin(np.linspace(a, b, 4, endpoint=False, axis=1)))


def test_linspace_endpoints_are_differentiable():
    ga, gb = s2s.grad(linspace_sq, argnums=(0, 1))(0.3, 1.7)
    t = np.linspace(0.0, 1.0, 5)
    pts = 0.3 + (1.7 - 0.3) * t
    assert np.isclose(ga, np.sum(2 * pts * (1 - t)))
    assert np.isclose(gb, np.sum(2 * pts * t))
    check_grads(linspace_sq, (0.3, 1.7), order=2, modes=("fwd", "rev"))
    check_grads(linspace_vec, (np.array([0.1, 0.5]), np.array([1.2, -0.4])), order=2, modes=("fwd", "rev"))


def pow_zero(x):
    return x ** 0


def pow_xy(x, y):
    return x ** y


def test_power_zero_has_derivative_zero_even_at_zero():
    assert s2s.grad(pow_zero)(0.0) == 0.0
    assert s2s.grad(pow_zero)(2.0) == 0.0
    gx, gy = s2s.grad(pow_xy, argnums=(0, 1))(0.0, 0.0)
    assert (gx, gy) == (0.0, 0.0)
    assert s2s.jvp(pow_xy, (0.0, 0.0), (1.0, 1.0))[1] == 0.0
    assert s2s.grad(s2s.grad(pow_zero))(0.0) == 0.0


def test_power_second_derivative_matches_hand_value():
    def cube(x):
        return x ** 3
    assert s2s.grad(s2s.grad(cube))(2.0) == 12.0


def std_of(x):
    return np.std(x)


def var_of(x):
    return np.var(x)


def test_std_and_var_at_zero_variance_have_zero_gradient_not_nan():
    np.testing.assert_array_equal(s2s.grad(std_of)(np.ones(3)), np.zeros(3))
    np.testing.assert_array_equal(s2s.grad(var_of)(np.ones(3)), np.zeros(3))
    assert s2s.jvp(std_of, (np.ones(3),), (np.arange(3.0),))[1] == 0.0


def test_std_away_from_zero_matches_finite_differences():
    check_grads(std_of, (np.array([0.3, -1.2, 2.0]),), order=2, modes=("fwd", "rev"))


def write_repeated(v):
    a = np.zeros(3)
    a[[0, 0, 2]] = v
    return np.sum(a * np.array([2.0, 1.0, 3.0]))


def test_repeated_index_write_sends_cotangent_only_to_the_write_numpy_kept():
    g = s2s.grad(write_repeated)(np.array([1.0, 5.0, 7.0]))
    np.testing.assert_array_equal(g, [0.0, 2.0, 3.0])  # a[0] holds v[1]; v[0] was overwritten
    check_grads(write_repeated, (np.array([1.0, 5.0, 7.0]),), order=2, modes=("fwd", "rev"))


def write_repeated_scalar(s):
    a = np.ones(3)
    a[[1, 1]] = s
    return np.sum(a * a)


def test_repeated_index_write_of_a_broadcast_value_counts_each_slot_once():
    assert s2s.grad(write_repeated_scalar)(3.0) == 6.0


def outer_sum(w, b):
    return np.sum(np.outer(w, b) ** 2)


def test_reverse_over_reverse_of_outer_matches_finite_differences():
    w, b = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.3])
    check_grads(outer_sum, (w, b), order=2, modes=("rev",))
    jj = s2s.jacrev(s2s.jacrev(outer_plain, 1), 0)(w, b)
    # d/dw d/db outer(w, b)[i, j] = delta(i, k) delta(j, l): a constant tensor
    want = np.einsum("ik,jl->ijlk", np.eye(3), np.eye(2))
    np.testing.assert_array_equal(jj, want)


def outer_plain(w, b):
    return np.outer(w, b)


def prod_all(x):
    return np.prod(x)


def prod_rows(x):
    return np.sum(np.sin(np.prod(x, axis=1)))


def test_prod_gradient_is_exact_where_an_entry_is_zero():
    x = np.array([2.0, 0.0, 3.0, 0.5])
    np.testing.assert_array_equal(s2s.grad(prod_all)(x), [0.0, 3.0, 0.0, 0.0])
    assert s2s.jvp(prod_all, (x,), (np.ones(4),))[1] == 3.0
    h = s2s.hessian(prod_all)(x)
    want = np.array([[0, 1.5, 0, 0], [1.5, 0, 1.0, 6.0], [0, 1.0, 0, 0], [0, 6.0, 0, 0]])  # x0 x3 = 1
    np.testing.assert_allclose(h, want)
    check_grads(prod_rows, (np.array([[0.5, -1.2, 2.0], [0.3, 0.0, 1.1]]),), order=2, modes=("fwd", "rev"))


def cbrt_of(x):
    return np.cbrt(x)


def test_cbrt_derivative_at_zero_is_infinite_not_nan():
    assert s2s.grad(cbrt_of)(0.0) == np.inf
    assert np.isclose(s2s.grad(cbrt_of)(8.0), 1 / 12)


def diag_of_wide(m):
    return np.sum(np.diag(m, 1) ** 2)


def test_diag_of_a_non_square_matrix_has_a_cotangent_of_its_shape():
    m = np.arange(6.0).reshape(2, 3)
    g = s2s.grad(diag_of_wide)(m)
    want = np.zeros((2, 3))
    want[0, 1], want[1, 2] = 2 * m[0, 1], 2 * m[1, 2]
    np.testing.assert_array_equal(g, want)


def test_power_with_both_arguments_active_matches_finite_differences_to_second_order():
    check_grads(pow_xy, (np.array([0.7, 1.3, 2.1]), np.array([0.5, -1.5, 2.5])), order=2, modes=("fwd", "rev"))


def prod3(x):
    return np.prod(x)


def test_third_derivative_of_prod_matches_differences_of_its_hessian():
    x, eps = np.array([1.0, 2.0, 3.0]), 1e-5
    hess = s2s.hessian(prod3)
    fd = np.stack([(hess(x + eps * e) - hess(x - eps * e)) / (2 * eps) for e in np.eye(3)], axis=-1)
    np.testing.assert_allclose(s2s.jacfwd(hess)(x), fd, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(s2s.jacrev(hess)(x), fd, rtol=1e-6, atol=1e-6)
