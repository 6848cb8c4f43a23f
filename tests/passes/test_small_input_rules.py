"""Fewer operations in small-input gradients, the same bits (issue 46 section 2): a cotangent 1.0
times a float64 array is the array (passes/constants.py), a negation goes into a literal of the
product or quotient it negates, through names bound and read once (passes/algebra.py), a float
factor of a select of two float literals is folded into them, a vector's total cotangent is the
method `.sum()` (passes/shapefold.py), and a max with one maximum spreads its cotangent without
products (runtime/reduce.py). Each checked bit for bit against the operations the code did
before, written out in NumPy, and against central differences."""
import numpy as np
import pytest

import s2s
from s2s import runtime as rt


def log_sigmoid(v):
    return np.sum(np.log(1.0 + np.exp(-v)))


def selu_sum(x):
    return np.sum(1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67))


def softmax_xent(z, k):
    z = z - np.max(z)
    return np.log(np.sum(np.exp(z))) - z[k]


def code_of(g, *args) -> str:
    """The generated code without its comments (which quote the user's source)."""
    return "\n".join(ln for ln in s2s.source(g, *args).splitlines() if not ln.strip().startswith("#"))


def central(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


X = np.random.default_rng(3).normal(size=300) * 3


def test_log_sigmoid_has_no_unit_product_nor_negation():
    g = s2s.jit(s2s.grad(log_sigmoid))
    got = g(X)
    code = code_of(g, X)
    assert "c64_1_0 *" not in code and "negative" not in code and "c64_neg_1_0 /" in code, code
    t1 = np.exp(-X)
    before = -((1.0 * (1 / (1.0 + t1))) * t1)  # the operations of the code before
    np.testing.assert_array_equal(got, before)
    np.testing.assert_array_equal(s2s.grad(log_sigmoid)(X), before)
    np.testing.assert_allclose(got, -1.0 / (1.0 + np.exp(X)), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(got, central(log_sigmoid, X), rtol=1e-5, atol=1e-7)


def test_float32_keeps_its_dtype():
    x = X[:20].astype(np.float32)
    for g in (s2s.grad(log_sigmoid), s2s.jit(s2s.grad(log_sigmoid))):
        got = g(x)
        assert got.dtype == np.float32
        t1 = np.exp(-x)
        np.testing.assert_array_equal(got, -((1.0 * (1 / (1.0 + t1))) * t1))


def test_selu_folds_its_factor_into_the_select():
    g = s2s.jit(s2s.grad(selu_sum))
    got = g(X)
    code = code_of(g, X)
    assert "1.67 *" not in code and str(1.67 * 1.05) in code, code
    m = X > 0
    before = np.where(m, 1.05, 0.0) + (1.67 * np.where(m, 0.0, 1.05)) * np.exp(X)
    np.testing.assert_array_equal(got, before)
    np.testing.assert_allclose(got, 1.05 * np.where(m, 1.0, 1.67 * np.exp(X)), rtol=1e-15)
    np.testing.assert_allclose(got, central(selu_sum, X), rtol=1e-5, atol=1e-7)


def test_a_scalar_select_is_left_alone():
    """`where` of a number: the product stays (a NumPy scalar, where the select is a 0-d array)."""
    g = s2s.jit(s2s.grad(selu_sum))
    for x in (0.7, -0.4):
        got = g(np.float64(x))
        assert np.ndim(got) == 0
        np.testing.assert_allclose(got, 1.05 * (1.0 if x > 0 else 1.67 * np.exp(x)), rtol=1e-15)


def test_softmax_xent_sums_its_vector_by_the_method():
    g = s2s.jit(s2s.grad(softmax_xent))
    got = g(X, 7)
    code = code_of(g, X, 7)
    assert "xp.sum(-" not in code and ".sum()" in code, code
    z = X - X.max()
    e = np.exp(z)
    b = np.zeros(300)
    b[7] += -1.0
    b = b + (1.0 * (1 / e.sum())) * e
    hit = X == X.max()
    before = b + (np.sum(-b, axis=0) * hit / np.asarray(np.count_nonzero(hit), dtype=float))
    np.testing.assert_array_equal(got, before)
    np.testing.assert_allclose(got, central(lambda v: softmax_xent(v, 7), X), rtol=1e-5, atol=1e-7)


def test_a_max_cotangent_of_a_float64_array_needs_no_real_part():
    """rt.max_vjp's value has its operand's float dtype, so a float64 gradient through a max takes
    no real-part check (rt.real_cotangent); a complex operand keeps it, and JAX's values."""
    code = code_of(s2s.jit(s2s.grad(softmax_xent)), X, 7)
    assert "rt.max_vjp(" in code and "rt.real_cotangent" not in code, code
    got = s2s.jit(s2s.grad(softmax_xent))(X, 7)
    assert got.dtype == np.float64 and not np.iscomplexobj(got)

    def abs_max(z):
        return np.max(np.abs(z) ** 2)
    zc = X[:5] + 1j * X[5:10]
    code = code_of(s2s.jit(s2s.grad(abs_max)), zc)
    assert "rt.real_cotangent" in code, code
    k = int(np.argmax(np.abs(zc)))
    want = np.zeros(5, complex)
    want[k] = 2 * np.conj(zc[k])  # (JAX's convention: the conjugate of d/dz)
    np.testing.assert_allclose(np.conj(s2s.jit(s2s.grad(abs_max))(zc)), np.conj(want), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("v", [0.3, -0.3, 0.0, -0.0, 2.5e-17, np.inf, np.nan, np.float64(-1e-17), np.float32(0.5)])
@pytest.mark.parametrize("shape, tie", [((7,), False), ((7,), True), ((3, 4), False), ((3, 4), True), ((), False)])
def test_max_vjp_one_maximum_equals_the_products(dtype, v, shape, tie):
    a = np.random.default_rng(4).normal(size=shape).astype(dtype)
    if tie:
        a.flat[5] = a.flat[2] = a.max() + 1
    ans = a.max()
    with np.errstate(invalid="ignore", over="ignore"):
        got = rt.max_vjp(v, a, ans, None, False)
    hit = a == ans
    with np.errstate(invalid="ignore", over="ignore"):
        want = (v * hit / np.asarray(np.count_nonzero(hit), dtype=dtype)).astype(dtype, copy=False)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
