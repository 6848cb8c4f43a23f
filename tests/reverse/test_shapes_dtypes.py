"""Cotangents and tangents have the shape, container and dtype of what they belong to
(issue 8, family 3)."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads

RNG = np.random.default_rng(8)
V = np.array([1.0, 2.0, 3.0])


def dot_scalar(s):
    return np.sum(np.dot(s, V))


def test_grad_of_dot_at_a_scalar_is_a_scalar():
    g = s2s.grad(dot_scalar)(2.0)
    assert np.shape(g) == ()
    assert g == 6.0


def vec_at_stack(a, b):
    return np.sum(np.sin(a @ b))


def test_vector_matmul_stack_cotangents_have_argument_shapes():
    a, b = RNG.standard_normal(3), RNG.standard_normal((2, 3, 4))
    ga, gb = s2s.grad(vec_at_stack, argnums=(0, 1))(a, b)
    assert ga.shape == (3,) and gb.shape == (2, 3, 4)
    check_grads(vec_at_stack, (a, b), order=2, modes=("fwd", "rev"))


def batched_matmul(a, b):
    return np.matmul(a, b)


def batched_matmul_loss(a, b):
    return np.sum(np.sin(np.matmul(a, b)))


def test_broadcast_matmul_tangent_has_output_shape():
    a, b = RNG.standard_normal((1, 2, 2)), RNG.standard_normal((3, 2, 1))
    out, t = s2s.jvp(batched_matmul, (a, b), (a, b))
    assert t.shape == out.shape == (3, 2, 1)
    np.testing.assert_allclose(t, 2 * out)  # bilinear: J (a, b) = 2 a @ b
    check_grads(batched_matmul_loss, (a, b), order=2, modes=("fwd", "rev"))


def concat_tuple(t):
    return np.sum(np.concatenate(t) ** 2)


def stack_tuple(t):
    return np.sum(np.stack(t) ** 2)


@pytest.mark.parametrize("f", [concat_tuple, stack_tuple])
def test_concatenate_and_stack_of_a_tuple_give_a_tuple_cotangent(f):
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    g = s2s.grad(f)((x, y))
    assert type(g) is tuple and len(g) == 2
    np.testing.assert_allclose(g[0], 2 * x)
    np.testing.assert_allclose(g[1], 2 * y)


def vstack_one(m):
    return np.sum(np.vstack(m) ** 2)


def hstack_one(m):
    return np.sum(np.hstack(m) ** 2)


@pytest.mark.parametrize("f", [vstack_one, hstack_one])
def test_hstack_and_vstack_of_a_single_array_give_an_array_cotangent(f):
    m = RNG.standard_normal((2, 3))
    g = s2s.grad(f)(m)
    assert isinstance(g, np.ndarray) and g.shape == (2, 3)
    np.testing.assert_allclose(g, 2 * m)


def f32_max(x):
    return np.max(x) + np.sum(np.sinc(x)) + np.sum(np.maximum(x, 0.1) * x)


def f32_linspace(x):
    return np.sum(np.linspace(x[0], x[1], 4) ** 2) + np.std(x)


@pytest.mark.parametrize("f", [f32_max, f32_linspace])
def test_float32_inputs_get_float32_gradients_and_tangents(f):
    x = np.array([0.3, -0.7, 1.1], dtype=np.float32)
    assert s2s.grad(f)(x).dtype == np.float32
    assert np.asarray(s2s.jvp(f, (x,), (x,))[1]).dtype == np.float32


def r_concat(x):
    return np.sum(np.sin(np.r_[x, 1.0, x[:2]]))


def c_columns(x, y):
    return np.sum(np.cos(np.c_[x, y, x]) * np.arange(3.0))


def r_with_slice(x):
    return np.sum(np.r_[0:3] * x)


def test_r_and_c_index_tricks_are_differentiated_not_treated_as_constants():
    x, y = np.array([0.3, -0.5, 1.2]), np.array([1.0, 2.0, 0.1])
    g = s2s.grad(r_concat)(x)
    np.testing.assert_allclose(g, np.cos(x) + np.r_[np.cos(x[:2]), 0.0])
    check_grads(r_concat, (x,), order=2, modes=("fwd", "rev"))
    check_grads(c_columns, (x, y), order=2, modes=("fwd", "rev"))


def test_r_with_a_slice_is_the_arange_numpy_makes():  # (more forms: tests/ops/test_index_tricks_slices.py)
    np.testing.assert_allclose(s2s.grad(r_with_slice)(np.ones(3)), [0.0, 1.0, 2.0])


def bool_out(x):
    return np.sum(x) > 0


def int_out(x):
    return np.argmax(x)


def const_out(x):
    return np.sum(np.ones(3))


@pytest.mark.parametrize("f", [bool_out, int_out])
def test_grad_of_a_boolean_or_integer_output_raises_as_in_jax(f):
    with pytest.raises(s2s.S2SError, match="real-valued output"):
        s2s.grad(f)(np.array([0.5, -0.2, 0.1]))


def test_grad_of_a_float_output_that_does_not_depend_on_the_input_is_zero():
    np.testing.assert_array_equal(s2s.grad(const_out)(np.ones(3)), np.zeros(3))
