"""The runtime's fast paths for batched code (broadcasting an unbatched value, the gradient seed,
the cotangent of a dot product of two vectors) give exactly what a Python loop over the examples
gives, with the same dtype and shape."""
import numpy as np
import pytest

import s2s
from s2s.runtime import batch, batch_core

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("x", [np.arange(3.0), np.ones((2, 2), np.float32), 2.5, 3, True, np.float64(1.5),
                               np.array(4.0), np.arange(6).reshape(2, 3).T])
@pytest.mark.parametrize("n", [4, 100])
def test_bcast_copies_like_broadcast_to(x, n):
    got = batch.replicate_batch(x, n)
    want = np.broadcast_to(np.asarray(x), (n,) + np.shape(x)).copy()
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype and got.flags.writeable and got.flags.c_contiguous
    got[0] = 0  # a fresh array: writing into one example leaves the others and x alone
    np.testing.assert_array_equal(got[1:], want[1:])
    np.testing.assert_array_equal(x, want[1])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_seed_keeps_the_dtype(dtype):
    seed = batch_core.batched_seed((True,), np.zeros(3, dtype))
    assert seed.dtype == dtype and seed.shape == (3,)
    np.testing.assert_array_equal(seed, 1)


def td(theta, s1, r, s2):
    v = np.dot(theta, s1)
    return (s2s.stop_gradient(r + np.dot(theta, s2)) - v) ** 2


def dot_scalars(a, b):
    return np.dot(a, b) * a


def inner_vecs(a, b):
    return np.inner(a, b) ** 2


def matmul_vecs(a, b):
    return np.tanh(a @ b)


@pytest.mark.parametrize("fn, shapes, in_axes", [
    (td, [(3,), (5, 3), (5,), (5, 3)], (None, 0, 0, 0)),
    (td, [(5, 3), (5, 3), (5,), (5, 3)], 0),
    (dot_scalars, [(5,), (5,)], 0),
    (dot_scalars, [(5,), ()], (0, None)),
    (inner_vecs, [(5, 4), (4,)], (0, None)),
    (inner_vecs, [(4,), (5, 4)], (None, 0)),
    (matmul_vecs, [(5, 4), (5, 4)], 0),
])
@pytest.mark.parametrize("argnums", [0, 1])
def test_per_example_gradients_of_dot_products_equal_a_loop(fn, shapes, in_axes, argnums):
    args = [RNG.normal(size=s) for s in shapes]
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    g = s2s.grad(fn, argnums=argnums)
    rows = [g(*[a if ax is None else a[i] for a, ax in zip(args, axes)]) for i in range(5)]
    want = np.stack(rows)
    for t in (s2s.vmap(g, in_axes=in_axes), s2s.jit(s2s.vmap(g, in_axes=in_axes))):
        got = t(*args)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
        assert got.shape == want.shape and got.dtype == want.dtype
