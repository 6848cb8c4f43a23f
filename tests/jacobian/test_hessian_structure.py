"""Hessians that use the structure of the function: jacrev of a dot-like output that is a scalar at
run time is its gradient, and jacfwd's diagonal is computed with the tangent 1 (refusing at run
time where the Jacobian may not be diagonal). Every value is checked against central differences
of the gradient (s2s.test_util) or against the looped Jacobian (one jvp per basis vector)."""
import numpy as np
import pytest
from helpers_compare import fd_hessian

import s2s
from s2s.test_util import check_grads

A3 = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]])


def dot_self(x):
    return np.dot(x, x)


def matmul_self(x):
    return x @ x


def inner_sin(x):
    return np.inner(np.sin(x), x)


def vdot_self(x):
    return np.vdot(x, x)


def quad_form(x):
    return np.dot(x, A3 @ x)  # not diagonal: the basis runs


def tanh3(x):
    return np.sum(np.tanh(x) ** 3)


def dot_in_loop(x):
    y = x * 1.0
    for _ in range(3):
        y = np.sin(y)  # elementwise, the tangent reassigned in the loop
    return np.dot(y, y)


VEC = np.array([0.3, -1.2, 0.8, 2.0])
MAT = np.array([[0.3, -1.2, 0.5], [0.8, 2.0, -0.4]])


@pytest.mark.parametrize("f, x", [(dot_self, VEC), (matmul_self, VEC), (inner_sin, VEC), (vdot_self, VEC),
                                  (vdot_self, MAT), (quad_form, VEC[:3]), (tanh3, VEC), (tanh3, MAT),
                                  (dot_in_loop, VEC), (dot_self, np.float64(0.7))],
                         ids=["dot", "matmul", "inner_sin", "vdot", "vdot_2d", "quad_form", "tanh3", "tanh3_2d",
                              "dot_in_loop", "dot_0d"])
def test_hessian_equals_differences_of_the_gradient_and_the_looped_form(f, x):
    h = s2s.hessian(f)
    got = h.compiled(x)  # the batched form itself: no fallback on a failed call
    np.testing.assert_allclose(got, fd_hessian(f, x), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, h.looped(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got, s2s.jacfwd(s2s.jacfwd(f))(x), rtol=1e-10, atol=1e-12)


def test_dot_hessian_is_forward_over_gradient_with_no_basis_on_vectors():
    src = s2s.source(s2s.hessian(dot_self))
    assert "rt.diag_jacobian(diagonal_jacrev_dot_self, x, x)" in src
    h = s2s.hessian(dot_self).compiled
    diag = h.__globals__["diagonal_jacrev_dot_self"]
    assert np.shape(diag(VEC)) == ()  # computed with the number 1: no ones, no basis
    np.testing.assert_array_equal(h(VEC), 2.0 * np.eye(4))


def test_jacrev_of_a_dot_gives_the_gradient_for_vectors_and_the_full_jacobian_for_matrices():
    jr = s2s.jacrev(dot_self)
    np.testing.assert_allclose(jr(VEC), 2 * VEC, rtol=1e-15)
    sq = np.array([[1.0, 2.0], [3.0, -1.0]])
    want = s2s.jacfwd(dot_self)(sq)  # dot of matrices: a (2, 2) output, the row path
    assert want.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(jr(sq), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.hessian(dot_self)(sq), s2s.jacfwd(s2s.jacfwd(dot_self))(sq), rtol=1e-12)
    check_grads(dot_self, (VEC,), order=2, modes=("fwd", "rev"))


def test_integer_valued_output_takes_the_general_path():
    def dot_int(x):
        return np.dot(x.astype(np.int64), x.astype(np.int64))
    # an integer output is not a floating scalar: the general Jacobian (zeros), as before
    np.testing.assert_array_equal(s2s.jacrev(dot_int)(VEC), s2s.jacfwd(dot_int)(VEC))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_diagonal_keeps_the_dtype_of_the_ones_tangent(dtype):
    x = VEC.astype(dtype)
    for f in (dot_self, tanh3):
        h = s2s.hessian(f).compiled(x)
        assert h.dtype == s2s.hessian(f).looped(x).dtype == dtype
        np.testing.assert_allclose(h, s2s.hessian(f).looped(x), rtol=1e-6 if dtype == np.float32 else 1e-12)


def test_diagonal_with_nan_and_inf_inputs_matches_the_looped_form():
    x = np.array([0.3, np.nan, np.inf, -np.inf])
    for f in (dot_self, tanh3):
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(s2s.hessian(f).compiled(x), s2s.hessian(f).looped(x))


def test_a_free_constant_result_broadcasts_to_the_input_shape():
    def linear_sum(x):
        return np.sum(3.0 * x)  # Hessian zero: the diagonal is computed as a number
    np.testing.assert_array_equal(s2s.hessian(linear_sum).compiled(MAT), np.zeros(MAT.shape + MAT.shape))


def test_vmap_and_jit_of_the_dot_hessian():
    xs = np.stack([VEC, -VEC, 2 * VEC])
    np.testing.assert_array_equal(s2s.vmap(s2s.hessian(dot_self))(xs), np.stack([2.0 * np.eye(4)] * 3))
    np.testing.assert_array_equal(s2s.jit(s2s.hessian(dot_self))(VEC), 2.0 * np.eye(4))
    np.testing.assert_allclose(s2s.jit(s2s.hessian(tanh3))(VEC), s2s.hessian(tanh3).looped(VEC), rtol=1e-12)


def test_dot_cotangent_guard_refuses_matrices():
    from s2s import runtime as rt
    v = np.float64(1.0)
    np.testing.assert_array_equal(rt.dot_vjp_a_diag(v, VEC, 1.0, VEC), 1.0)
    for args in ((v, MAT, 1.0, MAT), (v, VEC, 1.0, MAT), (VEC, VEC, 1.0, VEC)):
        with pytest.raises(rt.NotDiagonal):
            rt.dot_vjp_a_diag(*args)
        with pytest.raises(rt.NotDiagonal):
            rt.dot_vjp_b_diag(args[0], 1.0, args[1], args[3])
