"""A Python list times a batched integer array under vmap follows NumPy: with examples of rank 1 or
more, `list * n` is the elementwise product of the list as an array (ndarray's reflected product
wins over the list's repetition), checked against a loop over the examples and central
differences; with 0-d examples (NumPy integer scalars, whose product with a list repeats it) the
length would differ per example, which vmap still refuses."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

N = np.array([[2, 3], [1, 4]])
X = np.array([[0.5, 1.5], [1.0, -2.0]])


def built(x, n):
    v = [x[0], x[1] * 2.0]
    return np.sum((v * n) ** 2)


def literal(x, n):
    return np.sum(([1.0, 2.0] * n) * x)


def reflected(x, n):
    return np.sum((n * [x[0], 3.0]) * x)


@pytest.mark.parametrize("f", [built, literal, reflected], ids=lambda f: f.__name__)
def test_list_times_batched_int_rows_is_elementwise(f):
    want = [f(X[i], N[i]) for i in range(2)]
    np.testing.assert_allclose(s2s.vmap(f)(X, N), want)
    np.testing.assert_allclose(s2s.vmap(f, in_axes=(None, 0))(X[0], N), [f(X[0], N[0]), f(X[0], N[1])])
    grads = s2s.vmap(s2s.grad(f))(X, N)
    for i in range(2):
        np.testing.assert_allclose(grads[i], fd_grad(lambda x, i=i: f(x, N[i]), X[i]), rtol=1e-6, atol=1e-7)


def test_list_repeated_a_batched_number_of_times_is_refused():
    with pytest.raises(s2s.S2SError, match="repeat a list"):
        s2s.vmap(built, in_axes=(None, 0))(X[0], np.array([2, 3]))
