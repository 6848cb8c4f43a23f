"""Elementwise functions that jit fuses into one kernel, shared by the fusion tests
(tests/test_fusion.py: NumPy kernels; tests/test_backends_kernels.py: their CuPy form)."""
import numpy as np

from s2s.compiler.emit import numba_kernels


def selu(x):
    return 1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67)


def assert_within_ulps(got, want, scale=None, ulps=1):
    """Equal where `want` is NaN, inf or 0, elsewhere within `ulps` ulps of `scale` (by default
    `want`; where terms cancel, the larger term)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    exact = ~np.isfinite(want) | (want == 0)
    np.testing.assert_array_equal(got[exact], want[exact])
    scale = np.abs(want if scale is None else scale)[~exact]
    assert np.all(np.abs(got[~exact] - want[~exact]) <= ulps * np.spacing(scale))


def assert_fused(got, want, scale=None, ulps=2):
    """`got`, a fused kernel's result, is `want`: bitwise on the NumPy block kernel; on the numba
    kernel, whose `exp` is its own (within an ulp of NumPy's), `assert_within_ulps`."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if not numba_kernels.available() or want.dtype != np.float64:
        np.testing.assert_array_equal(got, want)
        return
    assert_within_ulps(got, want, scale, ulps)


def assert_selu(got, x):
    """`got` is selu(x) (assert_fused: 1.67 * exp(x) - 1.67's terms cancel near 0)."""
    with np.errstate(all="ignore"):
        assert_fused(got, selu(x), np.where(x > 0, x, 1.05 * 1.67))


def mixed(x, y, a):
    return np.tanh(x * a + y) / (1.0 + np.abs(y) ** 2) - np.maximum(x, y)


def positive(x, y):
    return x * 2.0 + y * y > 1.0


def energy(x):
    return np.sum(np.exp(-x * x) * 0.5 + x)
