"""passes/seed_folds.py: under jit, the seed of a float64 scalar output that NumPy computed reads
a NumPy float64 scalar it is computed from, so the output is not computed for the check alone;
the gradients keep their values and types bit for bit (against grad), and every other output
keeps its check."""
from __future__ import annotations

import re

import numpy as np
import pytest

import s2s


def softmax_xent(z, k):
    z = z - np.max(z)
    return np.log(np.sum(np.exp(z))) - z[k]


def _same(a, b):
    assert type(a) is type(b)
    assert np.asarray(a).dtype == np.asarray(b).dtype
    np.testing.assert_array_equal(a, b)


def test_softmax_cross_entropy_seed_folds():
    z = np.random.default_rng(0).normal(size=50)
    j, g = s2s.jit(s2s.grad(softmax_xent)), s2s.grad(softmax_xent)
    for k in (3, 3, 7, 0):
        _same(j(z, k), g(z, k))
        p = np.exp(z - z.max())
        p /= p.sum()
        p[k] -= 1.0
        np.testing.assert_allclose(j(z, k), p, rtol=1e-12, atol=1e-15)
    src = s2s.source(j, z, 3)
    assert re.search(r"rt\.seed\(\w+\)", src) and "xp.log" not in src  # (the loss is not computed)


def test_an_index_array_keeps_the_check():
    """`z[k]` of an int array `k` is an array: grad's error, not a folded seed."""
    z = np.random.default_rng(1).normal(size=10)
    j = s2s.jit(s2s.grad(softmax_xent))
    j(z, 2)
    with pytest.raises(s2s.S2SError, match="scalar output"):
        j(z, np.array([1, 2]))


@pytest.mark.parametrize("x", [3.0, np.float64(3.0), np.array(3.0)])
def test_python_and_numpy_scalars_keep_their_seed_type(x):
    f = lambda x: x * x + 1.0  # noqa: E731
    j, g = s2s.jit(s2s.grad(f)), s2s.grad(f)
    for _ in range(3):
        _same(j(x), g(x))


def test_a_float32_output_keeps_its_seed():
    f = lambda v, k: np.log(np.sum(np.exp(v))) - v[k]  # noqa: E731
    v = np.linspace(0.0, 1.0, 6, dtype=np.float32)
    j, g = s2s.jit(s2s.grad(f)), s2s.grad(f)
    for _ in range(3):
        _same(j(v, 2), g(v, 2))
        assert j(v, 2).dtype == np.float32
