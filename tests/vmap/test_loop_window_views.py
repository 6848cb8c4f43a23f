"""rt.loop_windows of evenly spaced windows (a vectorized loop's `x[i:i + 3]`) is a read-only view
of `x` holding each iteration's slice: of a C-contiguous array's own buffer (built directly, where
NumPy's as_strided costs 3 µs of Python), and through as_strided for any other array."""
import numpy as np
import pytest

from s2s import runtime as rt

RNG = np.random.default_rng(7)


def _bounds(k, start, step, length):
    lo = np.arange(start, start + step * k, step)
    return lo, lo + length


@pytest.mark.parametrize("k, start, step, length", [(7, 0, 1, 3), (40, 2, 1, 4), (5, 1, 2, 2), (64, 0, 3, 5)])
@pytest.mark.parametrize("layout", ["contiguous", "row view", "strided", "read-only", "float32", "objects"])
def test_windows_are_the_slices_as_a_read_only_view(k, start, step, length, layout):
    n = start + step * (k - 1) + length + 2
    x = RNG.normal(size=(3, n))
    if layout == "row view":
        x = RNG.normal(size=(5, n))[1:4]  # (C-contiguous, not at its base's start)
    elif layout == "strided":
        x = RNG.normal(size=(3, 2 * n))[:, ::2]
    elif layout == "read-only":
        x.flags.writeable = False
    elif layout == "float32":
        x = x.astype(np.float32)
    elif layout == "objects":
        x = x.astype(object)
    lo, hi = _bounds(k, start, step, length)
    got = rt.loop_windows(x, (slice(None), slice(lo, hi)), (False, True))
    want = np.stack([x[:, a:b] for a, b in zip(lo, hi)])
    assert got.shape == want.shape == (k, 3, length) and got.dtype == x.dtype
    np.testing.assert_array_equal(got, want)
    assert np.shares_memory(got, x) and not got.flags.writeable
    with pytest.raises(ValueError):
        got[0, 0, 0] = 1.0


def test_windows_of_a_vector_with_the_index_first():
    x = RNG.normal(size=50)
    lo, hi = _bounds(45, 1, 1, 3)
    got = rt.loop_windows(x, slice(lo, hi), True)
    np.testing.assert_array_equal(got, np.stack([x[a:b] for a, b in zip(lo, hi)]))
    assert not got.flags.writeable


def test_uneven_bounds_are_not_a_strided_view():
    x = RNG.normal(size=(2, 60))
    lo, hi = _bounds(40, 0, 1, 3)
    lo[17] += 1  # (one window moved: no constant step)
    hi[17] += 1
    got = rt.loop_windows(x, (slice(None), slice(lo, hi)), (False, True))
    np.testing.assert_array_equal(got, np.stack([x[:, a:b] for a, b in zip(lo, hi)]))
