"""s2s.compat.autograd's grad and value_and_grad: autograd's rule that an output of one element
(shape (1,), (1, 1)) counts as a scalar, and `grad(f)(x)` called inside a function that is
itself differentiated (the transform is known when the outer function is normalized)."""
import numpy as np
import pytest

from s2s.compat import autograd as ag
from s2s.errors import S2STypeError


def _cubic_column(x):
    return np.reshape(np.sum(x ** 3), (1,))  # one element, shape (1,)


def _cubic_square(x):
    return np.reshape(np.sum(x ** 3), (1, 1))


def test_grad_of_a_one_element_output_is_the_gradient_of_that_element():
    x = np.array([0.5, -1.5, 2.0])
    np.testing.assert_allclose(ag.grad(_cubic_column)(x), 3 * x ** 2)  # d/dx sum(x^3), by hand
    np.testing.assert_allclose(ag.grad(_cubic_square)(x), 3 * x ** 2)
    g = ag.grad(_cubic_column)
    g(x)
    np.testing.assert_allclose(g(2 * x), 3 * (2 * x) ** 2)  # the second call takes the VJP path


def test_value_and_grad_of_a_one_element_output_keeps_its_shape():
    x = np.array([1.0, 2.0])
    value, grad = ag.value_and_grad(_cubic_column)(x)
    assert np.shape(value) == (1,)
    np.testing.assert_allclose(value, [9.0])
    np.testing.assert_allclose(grad, [3.0, 12.0])


def test_grad_of_several_elements_is_refused_as_in_autograd():
    with pytest.raises(S2STypeError, match="scalar output"):
        ag.grad(lambda x: x ** 2)(np.array([1.0, 2.0]))


def _inner_loss(r, p):
    return r ** 3 * p


def _outer(r):
    return ag.grad(_inner_loss)(r, 2.0 * r)  # 3 r^2 * 2 r = 6 r^3


def test_grad_called_inside_a_differentiated_function():
    r = 0.7
    np.testing.assert_allclose(_outer(r), 6 * r ** 3)
    np.testing.assert_allclose(ag.grad(_outer)(r), 18 * r ** 2)  # d/dr 6 r^3
    h = 1e-6
    np.testing.assert_allclose(ag.grad(_outer)(r), (_outer(r + h) - _outer(r - h)) / (2 * h), rtol=1e-6)


def test_flatten_inside_a_differentiated_function():
    from s2s.compat.autograd.misc import flatten

    def loss(params):
        flat, _ = flatten(params)
        return np.sum(np.sin(flat) * flat)

    params = [(np.arange(6.0).reshape(2, 3) / 7, np.array([0.3, -0.2, 0.9])), {"b": np.array([1.5])}]
    got = ag.grad(loss)(params)
    flat, unflatten = flatten(params)
    want = unflatten(np.cos(flat) * flat + np.sin(flat))  # d/dv v sin v, by hand, leaf by leaf
    for g, w in zip(flatten(got)[0], flatten(want)[0]):
        np.testing.assert_allclose(g, w)
    assert np.shape(got[0][0]) == (2, 3) and set(got[1]) == {"b"}
