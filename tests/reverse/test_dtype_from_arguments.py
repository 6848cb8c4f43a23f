"""A store into an array whose dtype comes from an argument (issue 44, family 3): `b =
np.zeros_like(k)` of an integer `k`, a copy of it, `k * 2`, `np.tile(k, 1)`, then `b[:] = v`
truncates `v`, so no derivative flows through the store. s2s followed only explicit dtypes and
differentiated the store as a float one; the dtype now flows from the parameters (any dtype)
through the operations that keep their operands' (frontend/dtypes.py), and the derivative of the
store reads `b`'s dtype when it runs. Each form is checked with an integer and with a float `k`
(where the store keeps the derivative), under grad, jit(grad), jvp and vmap(grad), against central
differences of the plain function."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

X = np.array([0.3, 1.7, -0.45])


def zeros_like(x, k):
    b = np.zeros_like(k)
    b[:] = x * 1.5
    return np.sum(b * x)


def empty_like_rows(x, k):
    b = np.empty_like(k)
    for i in range(3):
        b[i] = x[i] * 2.5
    return np.sum(b * x)


def full_like(x, k):
    b = np.full_like(k, 0)
    b[1:] = x[1:] * 3.0
    return np.sum(b * np.sin(x))


def copy_method(x, k):
    b = k.copy()
    b[0] = x[0] * 4.0
    return np.sum(b * x)


def np_copy_then_rows(x, k):
    b = np.copy(k)
    b[1:] = x[1:] * 2.5
    return np.sum(b ** 2 * x)


def array_of_argument(x, k):
    b = np.array(k)
    b[:2] = x[:2] ** 2 * 3.0
    return np.sum(b * x)


def slice_copy(x, k):
    b = k[:].copy()
    b[2] = x[2] * 5.0
    return np.sum(b * x)


def times_int(x, k):
    b = k * 2
    b[:] = x * 1.5
    return np.sum(b * x)


def tile(x, k):
    b = np.tile(k, 1)
    b[:] = x * 1.5
    return np.sum(b * x)


def concatenated(x, k):
    b = np.concatenate([k, k])[:3]
    b[:] = x * 1.5
    return np.sum(b * x)


def where_of_argument(x, k):
    b = np.where(k > 1, k, 0)
    b[:] = x * 2.5
    return np.sum(b * x)


def reshaped(x, k):
    b = k.reshape(3, 1).copy()
    b[:, 0] = x * 1.5
    return np.sum(b[:, 0] * x)


FORMS = [zeros_like, empty_like_rows, full_like, copy_method, np_copy_then_rows, array_of_argument, slice_copy,
         times_int, tile, concatenated, where_of_argument, reshaped]
KS = {"int": np.array([1, 2, 3]), "float": np.array([1.0, 2.0, 3.0])}


def _fd(f, x, k):
    return fd_grad(lambda v: f(v, k), x)


@pytest.mark.parametrize("k", list(KS), ids=list(KS))
@pytest.mark.parametrize("f", FORMS, ids=[f.__name__ for f in FORMS])
def test_the_store_s_derivative_follows_the_argument_s_dtype(f, k):
    k = KS[k]
    want = _fd(f, X, k)
    np.testing.assert_allclose(s2s.grad(f)(X, k), want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(X, k), want, rtol=1e-6, atol=1e-6)
    jac = np.array([s2s.jvp(lambda v: f(v, k), (X,), (e,))[1] for e in np.eye(3)])
    np.testing.assert_allclose(jac, want, rtol=1e-6, atol=1e-6)
    xs = np.stack([X, X * 0.7 + 0.11])  # (no product at an integer: truncation's jumps)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f), in_axes=(0, None))(xs, k), [_fd(f, v, k) for v in xs],
                               rtol=1e-6, atol=1e-6)
    assert s2s.jit(f)(X, k) == f(X, k)


def test_an_integer_store_gives_no_derivative_at_all():
    """The hand-derived value: `b` holds int(1.5 x), constant near X, so the gradient of
    sum(b * x) is b itself."""
    k = KS["int"]
    np.testing.assert_array_equal(s2s.grad(zeros_like)(X, k), np.trunc(X * 1.5))
