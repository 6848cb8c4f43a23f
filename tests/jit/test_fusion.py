"""Fused elementwise kernels (the `fusion` pass with s2s.compiler.emit.kernels): on arrays above the
size threshold jit(f) gives bitwise the values of f (a fused sum: equal up to rounding; a numba
kernel's `exp`: within an ulp, see helpers_kernels.assert_selu), and falls back to NumPy for
small, float32, non-contiguous or mismatched arrays."""

import gast
import numpy as np
import pytest
from helpers_kernels import assert_selu, energy, mixed, positive, selu

import s2s
from s2s.compiler.emit import kernels, numba_kernels
from s2s.compiler.passes import fusion

N = kernels.THRESHOLD * 3 + 17  # several blocks, and a ragged last one


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    return rng.normal(size=N), rng.normal(size=N)


def test_selu_is_fused(data):
    x, _ = data
    j = s2s.jit(selu)
    assert_selu(j(x), x)
    assert_selu(j(x.reshape(-1, 1)), x.reshape(-1, 1))
    src = s2s.source(j.compiled)
    assert "fused_0(x)" in src and ("np.exp(x_, out=f0)" in src or "_exp(x[i])" in src)


def test_mixed_arrays_and_scalars(data):
    x, y = data
    j = s2s.jit(mixed)
    np.testing.assert_array_equal(j(x, y, 0.7), mixed(x, y, 0.7))
    np.testing.assert_array_equal(j(x, y, 3), mixed(x, y, 3))


def test_boolean_result(data):
    x, y = data
    got = s2s.jit(positive)(x, y)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, positive(x, y))


def test_fused_sum(data):
    x, _ = data
    got = s2s.jit(energy)(x)
    assert isinstance(got, np.float64)
    np.testing.assert_allclose(got, energy(x), rtol=1e-12)


def test_fallbacks(data):
    x, y = data
    j = s2s.jit(selu)
    for arg in (x[:100], x.astype(np.float32), x[::2], x[:N - 17].reshape(-1, 8)[:, :3]):
        np.testing.assert_array_equal(j(arg), selu(arg))  # below the threshold or not float64: NumPy
    with pytest.raises(ValueError):
        s2s.jit(mixed)(x, y[:-1], 0.5)  # shapes that do not broadcast: NumPy's own error


def test_nan_and_inf_propagate(data):
    x, _ = data
    x = x.copy()
    x[[0, 5, N - 1]] = [np.nan, np.inf, -np.inf]
    with np.errstate(all="ignore"):
        assert_selu(s2s.jit(selu)(x), x)


def test_gradient_of_jitted_function_is_unaffected(data):
    x, _ = data
    g = s2s.grad(lambda v: np.sum(s2s.jit(selu)(v)))
    np.testing.assert_allclose(g(x[:50]), 1.05 * np.where(x[:50] > 0, 1.0, 1.67 * np.exp(x[:50])), rtol=1e-12)


def test_switch_off(monkeypatch, data):
    monkeypatch.setenv("S2S_NO_FUSE", "1")

    def f(x):
        return np.exp(x) * 2.0 + 1.0 - x
    assert "fused" not in s2s.source(s2s.jit(f).compiled)
    np.testing.assert_array_equal(s2s.jit(f)(data[0]), f(data[0]))


def test_fused_kernel_in_a_forked_child(data):
    import multiprocessing as mp
    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform")
    x, _ = data
    want = JSELU(x)
    assert_selu(want, x)  # the parent's pool exists now
    with mp.get_context("fork").Pool(1) as pool:
        got = pool.apply(_jselu, (x,))
    np.testing.assert_array_equal(got, want)


JSELU = s2s.jit(selu)


def _jselu(x):
    return JSELU(x)


def test_fused_expression_on_another_backend(data):
    """Arrays of another backend (the fake CuPy stand-in) take the unfused expression, with
    that backend's namespace: the result stays on the backend."""
    from fake_backend import BACKEND, FakeArray, put

    from s2s.backends import arrays
    from s2s.compiler.emit.loader import call
    arrays.register(BACKEND)
    try:
        x, _ = data
        j = s2s.jit(selu)
        for got in (j(put(x)), call(j.compiled, (put(x),))):  # the second: the version with the kernel
            assert isinstance(got, FakeArray)
            np.testing.assert_array_equal(np.asarray(got.view(np.ndarray)), selu(x))
        assert "fused_0" in s2s.source(j.compiled)
    finally:
        arrays.unregister("fake")


def masks(x, c):
    return np.where(c, 0.0, 1.05) * x + np.where(c, x, -0.0) - np.where(c, 2, x) * np.where(c, -1.5, 3)


def test_where_blends_with_boolean_condition_arguments(data):
    """`np.where` in the NumPy block kernel is a blend of bits: every mix of array, number and
    boolean-array condition gives NumPy's values bitwise (NaN, inf and the sign of zero too)."""
    x, y = data
    x = x.copy()
    x[[1, 2, 3, 4]] = [np.nan, np.inf, -np.inf, -0.0]
    c = y > 0
    j = s2s.jit(masks)
    with np.errstate(all="ignore"):
        got, want = j(x, c), masks(x, c)
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    (run,) = j._versions.values()
    fused = run.__globals__["fused_0"]
    assert fused.engine == "numpy" or kernels.numba_kernels.available()
    fused.fallback = None  # the boolean condition is an argument of the kernel, not a fallback
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(j(x, c), want)


def clashing_names(out, lo, f0, i):
    return np.where(out > lo, out * f0 - i, np.maximum(lo, i) * 2.0)


def test_user_names_that_a_kernel_uses_too(data):
    """Arrays named like the kernels' own names (`out`, `lo`, the buffers `f0`, the loop index
    `i`) are renamed in the kernel: `out` was a duplicate argument (SyntaxError) in both engines."""
    x, y = data
    args = (x, y, x * 0.5, y + 1.0)
    j = s2s.jit(clashing_names)
    np.testing.assert_array_equal(j(*args), clashing_names(*args))
    assert "fused_0(f0, i, lo, out)" in s2s.source(j.compiled)


def one_allocation(x, y):
    return (x - 1.0) ** 2 * 0.5 + y  # NumPy: one array for x - 1.0, the rest computed in it


def two_allocations(x, y):
    return x * 2.0 + y * 0.5 - 1.0


def right_temporaries(x, y):
    return y / (1.0 - x * x)  # `1.0 - t` and `y / t` cannot write into t: three arrays


@pytest.mark.parametrize("f,fused", [(one_allocation, False), (two_allocations, True), (right_temporaries, True)])
def test_fused_only_where_numpy_allocates_more_than_one_array(data, f, fused):
    """A kernel allocates its result; NumPy computes a chain of operators in the memory of its
    first temporary. Where that is the only array NumPy allocates, a kernel of NumPy blocks only
    adds its per-block calls (tools/bench/bench_fusion.py: 1.6x NumPy's time on one thread), so none is
    built; numba's compiled loop makes one pass over memory where NumPy makes one per operation
    (0.74x), so with numba there is one."""
    x, y = data
    j = s2s.jit(f)
    np.testing.assert_array_equal(j(x, y), f(x, y))
    with_numba = numba_kernels.available()  # (wanted: no log, tanh... in these expressions)
    assert ("fused_0" in s2s.source(j.compiled)) == (fused or with_numba)


def test_numpy_allocation_count():
    def count(src, floats=()):
        return fusion._allocations(gast.parse(src).body[0].value, set(floats))[0]
    assert count("(x - 1.0) ** 2 * 0.5 + y") == 1
    assert count("x * 2.0 + y * 0.5 - 1.0") == 2
    assert count("1.0 - x * x") == 2  # subtraction cannot write into its right operand
    assert count("y * (1.0 + x * x)") == 1  # addition and multiplication can
    assert count("-xp.exp(x) * a", floats={"a"}) == 1  # a Python float: no array
    assert count("xp.where(x > 0, x, 2.0 * x)") == 3  # the mask, 2.0 * x, where's result
