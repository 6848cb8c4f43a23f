"""Programs that used to end in an internal error (issue 8, family 5) give results or S2SErrors."""
import numpy as np
import pytest

import s2s
import s2s.numpy as jnp
from s2s.test_util import check_grads


def while_true_returns_inside(x):
    while True:
        x = x * 0.5
        if x < 1.0:
            return x * x


def default_reads_enclosing_local(x):
    c = x * 2.0

    def g(v, c=c):
        return v * c
    return g(x)


def two_args(x, y):
    return x * y * y


@s2s.custom_jvp
def sin_cj(x):
    return np.sin(x)


sin_cj.defjvp(lambda primals, tangents: (np.sin(primals[0]), np.cos(primals[0]) * tangents[0]))


@s2s.custom_vjp
def sin_cv(x):
    return np.sin(x)


sin_cv.defvjp(lambda x: (np.sin(x), x), lambda res, g: (np.cos(res) * g,))


@s2s.custom_vjp
def scale_cv(k, x):
    return k * np.sin(x)


scale_cv.nondiff_argnums = (0,)
scale_cv.defvjp(lambda k, x: (k * np.sin(x), x), lambda k, res, g: (k * np.cos(res) * g,))


def uses_custom_jvp(x):
    return np.sum(sin_cj(x) * x)


def uses_custom_vjp(x):
    return np.sum(sin_cv(x) * x)


def vec(x):
    return np.sin(x) * 2.0


X = np.array([0.3, -0.5, 1.2])


def test_while_true_with_the_return_inside():
    assert s2s.grad(while_true_returns_inside)(3.0) == pytest.approx(2 * 3.0 / 16)  # (x/4)^2
    out, tan = s2s.jvp(while_true_returns_inside, (3.0,), (1.0,))
    assert out == pytest.approx(0.5625) and tan == pytest.approx(0.375)
    check_grads(while_true_returns_inside, (3.0,), order=2)


def test_nested_default_reading_an_enclosing_local_is_evaluated_where_the_def_runs():
    assert s2s.grad(default_reads_enclosing_local)(3.0) == pytest.approx(12.0)  # d/dx 2 x^2
    check_grads(default_reads_enclosing_local, (3.0,), order=2)


def test_argnums_sequences_and_bad_argnums():
    assert s2s.grad(two_args, argnums=[0, 1])(2.0, 3.0) == (9.0, 12.0)
    assert s2s.jacrev(two_args, argnums=[1])(2.0, 3.0)[0] == 12.0
    with pytest.raises(s2s.S2SError, match="argnums must be an int or a sequence of ints"):
        s2s.grad(two_args, argnums=1.0)
    with pytest.raises(s2s.S2SError):
        s2s.grad(two_args, argnums=True)


@pytest.mark.parametrize("f", [uses_custom_jvp, uses_custom_vjp])
def test_second_order_through_custom_rules(f):
    want = np.diag(2 * np.cos(X) - X * np.sin(X))  # d2/dx2 sum(sin(x) x)
    np.testing.assert_allclose(s2s.hessian(f)(X), want, rtol=1e-10)
    np.testing.assert_allclose(s2s.jacrev(s2s.grad(f))(X), want, rtol=1e-10)


def test_custom_vjp_with_a_nondiff_argument_composes():
    g = s2s.grad(lambda x: np.sum(scale_cv(2.0, x)))
    np.testing.assert_allclose(g(X), 2.0 * np.cos(X))
    np.testing.assert_allclose(s2s.jacrev(g)(X), np.diag(-2.0 * np.sin(X)), rtol=1e-10)


def test_tangent_and_cotangent_of_the_wrong_shape_are_s2s_errors():
    for bad in (np.ones(2), np.ones((2, 3))):
        with pytest.raises(s2s.S2SError, match="expected shape"):
            s2s.jvp(vec, (X,), (bad,))
        with pytest.raises(s2s.S2SError, match="expected shape"):
            s2s.vjp(vec, X)[1](bad)


def test_numpy_functions_transform_directly():
    assert s2s.grad(np.tanh)(0.5) == pytest.approx(1 - np.tanh(0.5) ** 2)
    np.testing.assert_allclose(s2s.vjp(jnp.sin, X)[1](np.ones(3))[0], np.cos(X))


class Table:
    def __getitem__(self, v):
        return v * 3.0


TABLE = Table()


def indexes_an_object(x):
    return TABLE[x] + x


def index_expression(x):
    i = 1
    return x[np.s_[i]] * 2.0


def test_indexing_a_non_array_object_by_a_computed_value_is_an_error_not_a_zero():
    with pytest.raises(s2s.S2SError, match="indexing an object of type Table"):
        s2s.grad(indexes_an_object)(2.0)
    np.testing.assert_allclose(s2s.grad(index_expression)(np.ones(3)), [0.0, 2.0, 0.0])
