"""Small-input gradients (issue 46 section 2, per-call overhead): the scalar fill also replaces a
full sum's cotangent broadcast against an elementwise expression of an operand of its shape
(`b * (1 / t2)`), and the runtime's direct paths for NumPy arrays (a max's cotangent, one item's
cotangent added, zeros like an array) give what the general paths give. Checked against the
hand-written gradients and central differences."""
import numpy as np
import pytest

import s2s
from s2s import runtime as rt


def log_sigmoid(v):
    return np.sum(np.log(1.0 + np.exp(-v)))


def softmax_xent(z, k):
    z = z - np.max(z)
    return np.log(np.sum(np.exp(z))) - z[k]


def central(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


@pytest.mark.parametrize("jitted", [False, True])
def test_sum_cotangent_against_an_expression_is_a_scalar(jitted):
    x = np.random.default_rng(0).normal(size=7)
    g = s2s.grad(log_sigmoid)
    g = s2s.jit(g) if jitted else g
    got = g(x)
    src = s2s.source(g, x) if jitted else s2s.source(g)
    assert "sum_vjp" not in src, src
    np.testing.assert_allclose(got, -1.0 / (1.0 + np.exp(x)), rtol=1e-12)
    np.testing.assert_allclose(got, central(log_sigmoid, x), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("jitted", [False, True])
def test_softmax_xent_with_a_tied_max(jitted):
    z = np.array([0.5, 2.0, -1.0, 2.0, 0.0])  # the max twice: its cotangent is split between them
    g = s2s.grad(softmax_xent)
    g = s2s.jit(g) if jitted else g
    e = np.exp(z - z.max())
    want = e / e.sum()
    want[3] -= 1.0
    np.testing.assert_allclose(g(z, 3), want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(g(z, 3), central(lambda v: softmax_xent(v, 3), z), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_max_vjp_direct_path_equals_the_general_one(dtype):
    a = np.array([[1.0, 3.0], [3.0, 2.0]], dtype=dtype)
    ans = a.max()
    v = dtype(2.0)
    got = rt.max_vjp(v, a, ans, None, False)
    general = rt.max_vjp(v, a, ans, (0, 1), False)  # the same reduction through the general path
    np.testing.assert_array_equal(got, general)
    np.testing.assert_array_equal(got, np.array([[0.0, 1.0], [1.0, 0.0]], dtype=dtype))
    assert got.dtype == dtype


def test_add_at_and_zeros_like_on_numpy_arrays():
    acc = rt.zeros_like_tree(np.arange(4))  # integers: a float cotangent
    assert acc.dtype == np.float64 and acc.shape == (4,)
    assert rt.zeros_like_tree(np.ones(3, dtype=np.float32)).dtype == np.float32
    out = rt.add_at(acc, np.int64(2), 1.5)
    out = rt.add_at(out, 2, 1.0)
    np.testing.assert_array_equal(out, [0.0, 0.0, 2.5, 0.0])
    np.testing.assert_array_equal(rt.add_at(np.zeros(3), np.array([0, 0]), 1.0), [2.0, 0.0, 0.0])  # fancy: every hit
    assert rt.namespace(np.ones(2)) is np
