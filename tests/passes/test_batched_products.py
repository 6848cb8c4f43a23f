"""passes/batched_products.py: jit(vmap(f)) of `np.dot(M, v)`, `M` a global 2-D array, runs
`np.dot(V, M.T)` itself, without the batching helpers, with the values of the helpers' product;
a rebound `M` (another shape, another rank) is a new version."""
from __future__ import annotations

import numpy as np

import s2s

M = np.arange(12.0).reshape(3, 4) / 7.0


def apply(v):
    return np.dot(M, v)


def _reference(vs):
    return np.stack([np.dot(M, v) for v in vs])


def test_the_product_is_written_as_by_hand():
    global M
    vs = np.random.default_rng(0).normal(size=(5, 4))
    j, plain = s2s.jit(s2s.vmap(apply)), s2s.vmap(apply)
    for _ in range(3):
        out = j(vs)
        np.testing.assert_array_equal(out, plain(vs))
        np.testing.assert_allclose(out, _reference(vs), rtol=1e-12)
    src = s2s.source(j, vs)
    assert "xp.dot(v, M" in src and "rt.batched_dot" not in src and "rt.vmap_out" not in src


def test_a_rebound_matrix_gives_a_new_version():
    global M
    saved = M
    try:
        vs = np.random.default_rng(1).normal(size=(5, 4))
        j = s2s.jit(s2s.vmap(apply))
        np.testing.assert_allclose(j(vs), _reference(vs), rtol=1e-12)
        M = np.ones((2, 4)) * 0.5  # another shape
        np.testing.assert_allclose(j(vs), _reference(vs), rtol=1e-12)
        M = np.linspace(0.0, 1.0, 4)  # a vector: a dot product per example, no matrix to fold
        np.testing.assert_allclose(j(vs), _reference(vs), rtol=1e-12)
        M = np.arange(8.0, dtype=np.float32).reshape(2, 4)  # float32
        out = j(vs.astype(np.float32))
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, _reference(vs.astype(np.float32)), rtol=1e-5)
    finally:
        M = saved


def test_out_axes_one_keeps_the_helper():
    vs = np.random.default_rng(2).normal(size=(5, 4))
    j = s2s.jit(s2s.vmap(apply, out_axes=1))
    np.testing.assert_allclose(j(vs), _reference(vs).T, rtol=1e-12)
    np.testing.assert_allclose(j(vs), _reference(vs).T, rtol=1e-12)


def test_jit_of_jacfwd_sees_a_rebound_global():
    """jit of vmap and jit of jacfwd start from the transform's version for the arguments' ranks,
    which the transform checks against its key first (a rebound global)."""
    global M
    saved = M
    try:
        x = np.linspace(0.1, 0.9, 4)
        j = s2s.jit(s2s.jacfwd(lambda v: np.tanh(np.dot(M, v))))
        for m in (saved, np.ones((2, 4)) * 0.25, saved):
            M = m
            for _ in range(2):
                want = (1 - np.tanh(M @ x) ** 2)[:, None] * M
                np.testing.assert_allclose(j(x), want, rtol=1e-12)
    finally:
        M = saved
