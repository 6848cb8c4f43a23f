"""Bugs found in review, each pinned by a test with a hand-derived value or the error it must give."""
import numpy as np
import pytest

import s2s

A = np.array([[1.0, 2.0], [3.0, 4.0]])


def uses_global_array_methods(x):
    return np.sum(A.T @ x) + A.sum() * np.sum(x)


def test_attributes_and_methods_of_a_global_array():
    # d/dx sum(A.T @ x) = row sums of A; d/dx A.sum() * sum(x) = A.sum()
    np.testing.assert_allclose(s2s.grad(uses_global_array_methods)(np.ones(2)), A.sum(axis=1) + A.sum())


def addone(v):
    v += 1.0
    return np.sum(v)


def calls_addone(x):
    y = x * 2.0
    return addone(y) + np.sum(y)


def test_in_place_update_of_a_callee_parameter_is_rejected_at_the_call():
    with pytest.raises(s2s.S2SError) as info:
        s2s.grad(calls_addone)(np.ones(3))
    msg = str(info.value)
    assert "test_regressions.py:26" in msg  # the call, in this file
    assert "`addone` updates its parameter `v` in place" in msg
    assert "test_regressions.py:20" in msg  # the update, in this file


def copy_then_set(v):
    v = v.copy()
    v[0] = 1.0
    return np.sum(v)


def calls_copy_then_set(x):
    return copy_then_set(x * 2.0)


def test_callee_that_copies_its_parameter_first_is_fine():
    np.testing.assert_allclose(s2s.grad(calls_copy_then_set)(np.ones(3)), [0.0, 2.0, 2.0])


def uses_nonlocal(x):
    t = 0.0

    def inner(z):
        nonlocal t
        t = z
        return z
    return inner(x) + t


def test_nonlocal_in_a_nested_def_is_an_s2s_error():
    with pytest.raises(s2s.S2SError, match="nonlocal") as info:
        s2s.grad(uses_nonlocal)(1.0)
    assert "test_regressions.py:56" in str(info.value)


def branch_with_intermediate(x):
    if x > 0.0:
        y = x * x
    else:
        y = np.exp(x) * x  # np.exp(x) is a temporary only this branch assigns
    return y


@pytest.mark.parametrize("x", [-0.6, 0.8])
def test_second_derivative_through_a_branch_with_its_own_temporaries(x):
    want = 2.0 if x > 0 else np.exp(x) * (x + 2.0)
    assert s2s.grad(s2s.grad(branch_with_intermediate))(x) == pytest.approx(want, rel=1e-12)


def pair(x):
    return x, x * 2.0


def inner_product(p):
    a, b = p
    return np.sum(a * b)


def tuple_used_twice(x):
    p = pair(x)
    return inner_product(p) + inner_product(p)


def test_tuple_returned_by_a_call_and_used_twice_adds_cotangents():
    x = np.array([0.3, -0.5])
    np.testing.assert_allclose(s2s.grad(tuple_used_twice)(x), 8.0 * x)


def cube_sum(x):
    return np.sum(x ** 3)


def test_jacrev_of_jacrev():
    x = np.array([0.3, -0.5])
    np.testing.assert_allclose(s2s.jacrev(s2s.jacrev(cube_sum))(x), np.diag(6.0 * x))


@s2s.custom_vjp
def scaled_square(x):
    return x * x


def _scaled_square_fwd(x):
    return x * x, x


def _scaled_square_bwd(x, g):
    return (3.0 * x * g,)  # deliberately not 2x: shows the rule is what runs


scaled_square.defvjp(_scaled_square_fwd, _scaled_square_bwd)


@s2s.custom_jvp
def doubled_sin(x):
    return np.sin(x)


@doubled_sin.defjvp
def _doubled_sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return np.sin(x), 2.0 * np.cos(x) * t


def test_grad_applies_directly_to_custom_rule_functions():
    assert s2s.grad(scaled_square)(2.0) == pytest.approx(6.0)
    assert s2s.grad(doubled_sin)(0.5) == pytest.approx(2.0 * np.cos(0.5))
    assert s2s.jvp(doubled_sin, (0.5,), (1.0,))[1] == pytest.approx(2.0 * np.cos(0.5))


def tanh_loss(w, b, x):
    return np.sum(np.tanh(x * w + b) ** 2)


def gradient_norm(w, b, x):
    gw, gb = s2s.grad(tanh_loss, argnums=(0, 1))(w, b, x)
    return gw * gw + gb * gb


def test_transform_with_tuple_argnums_inside_a_transformed_function():
    from s2s.test_util import check_grads

    check_grads(gradient_norm, (0.5, 0.1, np.array([1.0, 2.0])), order=1, modes=("rev", "fwd"))


def astype_and_casts(x):
    return np.sum(x.astype(np.float64) ** 2) + np.float32(2.0) * np.sum(x)


def test_dtypes_are_values_and_float32_converts():
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(s2s.grad(astype_and_casts)(x), 2 * x + 2.0, rtol=1e-6)


def optional_second(x, y=None):
    if y is None:
        return np.sum(x ** 2)
    return np.sum(x * y)


def test_jvp_and_vjp_fill_in_default_arguments():
    x = np.array([0.5, -1.0])
    out, t = s2s.jvp(optional_second, (x,), (np.ones(2),))
    assert t == pytest.approx(np.sum(2 * x))
    out, f_vjp = s2s.vjp(optional_second, x)
    (gx,) = f_vjp(1.0)
    np.testing.assert_allclose(gx, 2 * x)


def python_sum_of_list(x):
    return sum([x[0] * x[1], x[1] ** 2, np.sin(x[2])])


def test_builtin_sum_over_a_list():
    x = np.array([0.5, -1.0, 0.3])
    np.testing.assert_allclose(s2s.grad(python_sum_of_list)(x), [x[1], x[0] + 2 * x[1], np.cos(x[2])])


NEG = -1.5


def negative_base(x):
    return np.sum(x * NEG ** 2) + np.sum(np.sqrt(1.0 + (-(1.5)) ** 2) * x)


def test_negative_literals_keep_their_precedence_in_generated_code():
    x = np.ones(2)
    np.testing.assert_allclose(s2s.grad(negative_base)(x), 2.25 + np.sqrt(3.25))
