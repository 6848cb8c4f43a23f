"""A callee that updates its argument in place and then rebinds the name (issue 45, section 4), as
the CS224n course's softmax does: `x -= np.max(x); x = np.exp(x); x /= np.sum(x)`. Called on a new
array (an arithmetic result, `np.dot(U, c)`, a ufunc's result), nothing else sees the update, so
s2s calls a version that copies the argument in; grad matches central differences, jvp matches
grad, jit and vmap match the plain function. Called on the caller's own array, or on a value that
may be a view, it stays refused: the caller's array would hold the values from before the rebind,
which the copy does not return."""
import numpy as np
import pytest
from helpers_compare import fd_grad as central  # (central differences)

import s2s
from s2s.errors import S2SError

U = np.array([[0.3, -1.2], [0.8, 0.4], [-0.5, 0.9]])
M = np.array([[0.2, -0.4, 1.0], [0.7, 0.1, -0.3]])
C = np.array([0.6, -0.7])


def softmax(x):
    """The course's helper (tests/corpus/leehanchung_cs224n/upstream/utils/utils.py), as written."""
    orig_shape = x.shape
    if len(x.shape) > 1:
        tmp = np.max(x, axis=1)
        x -= tmp.reshape((x.shape[0], 1))
        x = np.exp(x)
        tmp = np.sum(x, axis=1)
        x /= tmp.reshape((x.shape[0], 1))
    else:
        tmp = np.max(x)
        x -= tmp
        x = np.exp(x)
        tmp = np.sum(x)
        x /= tmp
    assert x.shape == orig_shape
    return x


def on_matmul(c):
    return -np.log(softmax(U @ c)[1])


def on_dot(c):
    return -np.log(softmax(np.dot(U, c))[2])


def on_arithmetic(c):
    return np.sum(softmax(c * 2.0) * np.arange(2.0))


def on_ufunc(c):
    return np.sum(softmax(np.tanh(U * c)) * U)  # the matrix branch


@pytest.mark.parametrize("f", [on_matmul, on_dot, on_arithmetic, on_ufunc])
def test_grad_jvp_jit_vmap(f):
    want = central(f, C)
    np.testing.assert_allclose(s2s.grad(f)(C), want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(C), want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(s2s.jvp(f, (C,), (np.ones(2),))[1], np.sum(want), rtol=1e-6)
    assert s2s.jit(f)(C) == pytest.approx(f(C), rel=1e-13)
    batch = np.stack([C, -C, 2 * C])
    np.testing.assert_allclose(s2s.vmap(f)(batch), [f(c) for c in batch], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(batch), [central(f, c) for c in batch], rtol=1e-6, atol=1e-9)


def on_own_array(c):
    y = U @ c
    p = softmax(y)  # y now holds U @ c - max: the caller sees the update before the rebind
    return np.sum(p) + np.sum(y ** 2)


def on_a_view(c):
    return np.sum(softmax(np.transpose(M * c[0]))[0])


@pytest.mark.parametrize("f", [on_own_array, on_a_view])
def test_refused_where_the_argument_may_be_seen(f):
    with pytest.raises(S2SError, match="updates its parameter `x` in place"):
        s2s.grad(f)(C)
