"""An index out of range in a gather that vmap or jit's loop vectorization batches is NumPy's
IndexError, as in the loop over examples or iterations it replaces (it was clipped into range
everywhere: a number where the function raises); only lanes a mask has switched off (a branch
not taken, a `while` that is done) may hold any index."""
import numpy as np
import pytest

import s2s


def shifted(x):
    y = np.zeros_like(x)
    for i in range(len(x)):
        y[i] = x[i + 1]  # one past the end on the last iteration
    return y


def shifted_guarded(x):
    y = np.zeros_like(x)
    n = len(x)
    for i in range(n):
        if i + 1 < n:
            y[i] = x[i + 1]
    return y


def pick(x, i):
    return x[i] * 2.0


def walk(x, i):
    while i < 6:  # per-example trip counts: lanes that are done keep an index past the end
        i = i + 2
    return x[i - 2]


X = np.arange(8.0)


def test_jit_of_a_vectorized_loop_raises_as_the_loop():
    with pytest.raises(IndexError):
        shifted(X)
    with pytest.raises(IndexError, match="out of bounds"):
        s2s.jit(shifted)(X)


def test_masked_gathers_keep_their_values():
    want = shifted_guarded(X)
    np.testing.assert_array_equal(s2s.jit(shifted_guarded)(X), want)
    xs = np.stack([X, X + 10.0])
    np.testing.assert_array_equal(s2s.vmap(shifted_guarded)(xs), np.stack([want, want + 10.0 * (want != 0)]))
    starts = np.array([0, 1, 5])
    np.testing.assert_array_equal(s2s.vmap(walk, in_axes=(None, 0))(X, starts),
                                  [walk(X, int(i)) for i in starts])


def test_vmap_gather_out_of_range_raises_as_a_loop_over_examples():
    idx = np.array([1, 3, 8])
    with pytest.raises(IndexError):
        [pick(X, i) for i in idx]
    with pytest.raises(IndexError, match="out of bounds"):
        s2s.vmap(pick, in_axes=(None, 0))(X, idx)
    np.testing.assert_array_equal(s2s.vmap(pick, in_axes=(None, 0))(X, np.array([1, -1, 7])), [2.0, 14.0, 14.0])


def put(x, i, v):
    y = x.copy()
    y[i] = v
    return y


def put_guarded(x, i, v):
    y = x.copy()
    if i < len(x):  # per example: lanes past the end write nothing
        y[i] = v
    return y


def test_vmap_write_out_of_range_raises_as_a_loop_over_examples():
    idx = np.array([1, 3, 8])
    with pytest.raises(IndexError):
        [put(X, int(i), 5.0) for i in idx]
    with pytest.raises(IndexError, match="out of bounds"):
        s2s.vmap(put, in_axes=(None, 0, None))(X, idx, 5.0)
    np.testing.assert_array_equal(s2s.vmap(put_guarded, in_axes=(None, 0, None))(X, idx, 5.0),
                                  [put_guarded(X, int(i), 5.0) for i in idx])
