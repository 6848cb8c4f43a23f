"""The work a small jit or vmap call does besides the user's arithmetic (issue 46, the W rows of
tools/bench/bench.py): no real-part check of a float64 gradient that vmap's products lead to, a
matrix times per-example vectors as one product, the per-example dot of a convolution's inner
loop and np.array of a short batched list without NumPy's Python-level helpers, and no test of
s2s's own modules in the per-call check. Values against the hand-written formulas and loops over
examples."""
import re

import numpy as np
import pytest

import s2s
from s2s.compiler.frontend import reads
from s2s.runtime.batch import example_array

RNG = np.random.default_rng(46)


def value_fn(theta, state):
    return np.dot(theta, state)


def td_loss(theta, s_tm1, r_t, s_t):
    target = r_t + value_fn(theta, s_t)
    return (s2s.stop_gradient(target) - value_fn(theta, s_tm1)) ** 2


def td_hand(theta, s_tm1, r_t, s_t):
    return -2.0 * (r_t + s_t @ theta - s_tm1 @ theta)[:, None] * s_tm1


@pytest.mark.parametrize("b", [2, 64])
def test_per_example_gradient_has_no_real_check(b):
    """vmap lowers the products to xp.matmul and the target passes through stop_gradient: both
    float64, so the jit version returns the gradient as computed (no rt.real_cotangent call)."""
    args = (RNG.normal(size=3), RNG.normal(size=(b, 3)), RNG.normal(size=b), RNG.normal(size=(b, 3)))
    f = s2s.jit(s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0)))
    for _ in range(2):  # (the first call, then the fast path)
        np.testing.assert_allclose(f(*args), td_hand(*args), rtol=1e-12, atol=1e-14)
    assert "real_cotangent" not in s2s.source(f, *args)


def test_complex_per_example_gradient_keeps_its_real_part():
    """A complex input still gets its gradient's convention (the fold is for float64 only)."""
    args = (RNG.normal(size=3) + 0j, RNG.normal(size=(2, 3)), RNG.normal(size=2), RNG.normal(size=(2, 3)))
    f = s2s.jit(s2s.vmap(s2s.grad(td_loss, holomorphic=True), in_axes=(None, 0, 0, 0)))
    np.testing.assert_allclose(f(*args), td_hand(*args), rtol=1e-12, atol=1e-14)


def attention(wq, x):
    s = (x @ wq) @ x.T
    s = s - s2s.stop_gradient(np.max(s, axis=1, keepdims=True))
    e = np.exp(s)
    a = e / np.sum(e, axis=1, keepdims=True)
    return np.sum((a @ x) ** 2)


def attention_hand(wq, x):
    s = (x @ wq) @ x.T
    e = np.exp(s - s.max(axis=1, keepdims=True))
    a = e / e.sum(axis=1, keepdims=True)
    da = 2.0 * (a @ x) @ x.T
    return x.T @ (a * (da - np.sum(da * a, axis=1, keepdims=True))) @ x


def test_attention_gradient_has_no_real_checks():
    """Reductions with axis and keepdims, an int power, a transpose and a cotangent bound twice
    (`b_e = b_e + b_t4`) are float64 of float64 arrays: neither the output's check (which would
    compute the loss's value) nor the gradient's real part is left in the jit version."""
    wq, x = RNG.normal(size=(4, 4)) * 0.5, RNG.normal(size=(6, 4))
    f = s2s.jit(s2s.grad(attention))
    for _ in range(2):
        np.testing.assert_allclose(f(wq, x), attention_hand(wq, x), rtol=1e-10, atol=1e-12)
    src = s2s.source(f, wq, x)
    assert "real_result" not in src and "real_cotangent" not in src
    f32 = s2s.jit(s2s.grad(attention))  # float32 arrays: the checks are not dropped on a guess
    np.testing.assert_allclose(f32(wq.astype(np.float32), x.astype(np.float32)), attention_hand(wq, x), rtol=2e-4,
                               atol=1e-4)


def linear_loss(params, x, y):
    w, b = params
    return np.mean((x @ w + b - y) ** 2)


def linear_hand(params, x, y):
    w, b = params
    g = 2.0 * (x @ w + b - y) / y.size
    return x.T @ g, g.sum(axis=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_output_check_reads_one_name(dtype):
    """JAX's check that grad's output is real needs only the dtype of the residual it is computed
    from, not the mean of its squares (W5: the loss's value is no longer computed); where the
    version knows the tuple's arrays are float64 (its key names their dtypes), no check is left."""
    args = ((RNG.normal(size=(5, 3)).astype(dtype), RNG.normal(size=3)), RNG.normal(size=(4, 5)), RNG.normal(size=(4, 3)))
    f = s2s.jit(s2s.grad(linear_loss))
    for _ in range(2):
        got = f(*args)
        assert type(got) is tuple
        for g, want in zip(got, linear_hand(*args)):
            np.testing.assert_allclose(g, want, rtol=1e-12 if dtype == np.float64 else 1e-5, atol=1e-14)
    src = s2s.source(f, *args)
    assert ".mean()" not in src
    if dtype == np.float64:
        assert "rt.real_result" not in src and "rt.real_cotangent" not in src
    else:
        assert re.search(r"rt\.real_result\(\w+, 'grad'\)", src)


def test_complex_output_still_refused():
    args = ((RNG.normal(size=(5, 3)) + 1j, RNG.normal(size=3)), RNG.normal(size=(4, 5)), RNG.normal(size=(4, 3)))
    for f in (s2s.grad(linear_loss), s2s.jit(s2s.grad(linear_loss))):
        with pytest.raises(TypeError, match="real-valued outputs"):
            f(*args)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.complex128])
def test_matrix_times_batched_vectors(dtype):
    mat = (RNG.normal(size=(5, 4)) * 3).astype(dtype)
    vs = (RNG.normal(size=(6, 4)) * 3).astype(dtype)

    def apply(v):
        return np.dot(mat, v)
    want = np.stack([np.dot(mat, v) for v in vs])
    for f in (s2s.vmap(apply), s2s.jit(s2s.vmap(apply))):
        got = f(vs)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


def convolve(x, w):
    output = []
    for i in range(1, len(x) - 1):
        output.append(np.dot(x[i - 1:i + 2], w))
    return np.array(output)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.complex128])
@pytest.mark.parametrize("n", [5, 12])
def test_convolution_loop_per_example(n, dtype):
    """Three iterations run as the loop (each a per-example dot), twelve vectorized; complex values
    are not conjugated (np.dot's product, not vecdot's)."""
    xs = RNG.normal(size=(3, n)) * 4
    ws = RNG.normal(size=(3, 3)) * 4
    if dtype == np.complex128:
        xs, ws = xs + 1j * RNG.normal(size=xs.shape), ws - 2j * RNG.normal(size=ws.shape)
    xs, ws = xs.astype(dtype), ws.astype(dtype)
    want = np.stack([convolve(x, w) for x, w in zip(xs, ws)])
    for f in (s2s.vmap(convolve), s2s.jit(s2s.vmap(convolve))):
        got = f(xs, ws)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("shape", [(2,), (3, 2), (70000,)])
def test_batched_list_to_array(shape):
    parts = [RNG.normal(size=shape) for _ in range(3)]
    got = example_array(parts)
    want = np.stack(parts, axis=1)
    assert got.flags.c_contiguous and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError):
        example_array([np.ones(3), np.ones(4)])


def test_reads_of_s2s_modules_are_not_watched():
    """What a compilation reads from s2s's own modules (generated code's `rt.seed`, read again by
    a transform of it) is not tested on every call; a user module's attribute is."""
    import s2s.runtime as rt

    class Holder:
        scale = 2.0
    with reads.collecting() as got:
        reads.note("attr", rt, "seed", rt.seed)
        reads.note("attr", s2s, "grad", s2s.grad)
        reads.note("attr", Holder, "scale", 2.0)
    assert [e[2] for e in got.entries.values()] == ["scale"]
