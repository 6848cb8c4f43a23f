"""s2s.compat.autograd's flatten_func and hessian_vector_product as autograd's gmm uses them: the
flattened objective (output of shape (1,), autograd's scalar) differentiated by grad and by
hessian_vector_product, which calls `unflatten` inside the transform. Checked against
hand-derived gradients and Hessians."""
import numpy as np
import pytest

from s2s.compat import autograd as ag
from s2s.compat.autograd.misc.flatten import flatten_func

PARAMS = {"b": np.array([0.5, -1.0]), "a": np.array([[1.0, 2.0], [-0.5, 0.3]])}


def objective(params):  # sum(a^2 * b[None]) + sum(b^3): a Hessian known by hand
    return np.sum(params["a"] ** 2 * params["b"][None, :]) + np.sum(params["b"] ** 3)


def test_flattened_objective_is_differentiated_by_grad_and_hessian_vector_product():
    flat_obj, unflatten, x = flatten_func(objective, PARAMS)
    a, b = PARAMS["a"], PARAMS["b"]
    assert np.shape(flat_obj(x)) == (1,)  # autograd's flatten of a scalar
    # leaves in sorted key order: a (4), then b (2)
    want = np.concatenate([(2 * a * b[None, :]).ravel(), np.sum(a ** 2, axis=0) + 3 * b ** 2])
    np.testing.assert_allclose(ag.grad(flat_obj)(x), want, rtol=1e-12)
    hess = np.zeros((6, 6))
    for i in range(2):
        for j in range(2):
            k = 2 * i + j
            hess[k, k] = 2 * b[j]
            hess[k, 4 + j] = hess[4 + j, k] = 2 * a[i, j]
    hess[4:, 4:] += np.diag(6 * b)
    v = np.array([0.3, -1.0, 0.7, 2.0, -0.4, 1.1])
    np.testing.assert_allclose(ag.hessian_vector_product(flat_obj)(x, v), hess @ v, rtol=1e-12)
    assert unflatten(x)["a"].shape == (2, 2)


def test_hessian_vector_product_refuses_outputs_of_several_elements():
    with pytest.raises(Exception, match="reshape|size"):
        ag.hessian_vector_product(lambda x: x ** 2)(np.array([1.0, 2.0]), np.ones(2))
