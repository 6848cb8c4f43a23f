"""Reverse mode computes a value that carries no derivative and that only the output's value reads
when it may raise (issue 44): `grad` does not return the output, so its forward sweep used to drop
`y = n / (n - 3)` and return a number where the plain function raises. The rule keeps only
statements that may raise and nothing reads: ordinary gradients' code gets no reader."""
import numpy as np
import pytest

import s2s
from tests.support.helpers_compare import fd_grad

X = np.array([0.3, 0.7, 1.1])


def shape_ratio(x):
    n = x.shape[0]
    y = n / (n - 3)
    return np.sum(np.sin(y)) + np.sum(x ** 2)


def shape_ratio_ok(x):
    n = x.shape[0]
    y = n / (n - 2)
    return np.sum(np.sin(y)) + np.sum(x ** 2)


def mlp(w, x):
    h = np.tanh(x @ w)
    n = x.shape[0]
    return np.sum(h ** 2) / n + 0.1 * np.sum(w * w)


@pytest.mark.parametrize("transform", [
    lambda f: s2s.grad(f)(X), lambda f: s2s.value_and_grad(f)(X), lambda f: s2s.hessian(f)(X),
    lambda f: s2s.jacrev(f)(X), lambda f: s2s.jit(s2s.grad(f))(X), lambda f: s2s.vjp(f, X)[1](1.0),
    lambda f: s2s.vmap(s2s.grad(f))(np.stack([X, X])),
], ids=["grad", "value_and_grad", "hessian", "jacrev", "jit_grad", "vjp", "vmap_grad"])
def test_every_reverse_transform_raises_the_plain_error(transform):
    with pytest.raises(ZeroDivisionError):
        shape_ratio(X)
    with pytest.raises(ZeroDivisionError):
        transform(shape_ratio)


def test_the_kept_chain_changes_no_value():
    np.testing.assert_allclose(s2s.grad(shape_ratio_ok)(X), fd_grad(shape_ratio_ok, X), rtol=1e-7)
    v, g = s2s.value_and_grad(shape_ratio_ok)(X)
    assert v == pytest.approx(shape_ratio_ok(X), rel=1e-14)
    np.testing.assert_allclose(g, 2 * X, rtol=1e-14)


def test_an_ordinary_gradient_gets_no_reader():
    """Every value of mlp's forward sweep is read by the backward sweep: nothing is added."""
    w = np.array([[0.2, -0.4], [0.5, 0.1], [-0.3, 0.7]])
    x = np.array([[0.3, 0.7, 1.1], [0.5, -0.2, 0.4]])
    assert "s2s_keep" not in s2s.source(s2s.grad(mlp))
    np.testing.assert_allclose(s2s.grad(mlp)(w, x), fd_grad(lambda v: mlp(v, x), w), rtol=1e-6)


def test_only_the_chain_that_may_raise_is_computed():
    """grad of shape_ratio_ok computes the inactive chain the output's value reads (it may raise)
    and keeps one reader at its end."""
    src = s2s.source(s2s.grad(shape_ratio_ok))
    assert src.count("s2s_keep") == 1
