"""passes/batched_products.py: jit(vmap(f)) of `np.dot(M, v)`, `M` a global 2-D array, runs
`np.dot(V, M.T)` itself, without the batching helpers, with the values of the helpers' product;
a rebound `M` (another shape, another rank) is a new version; `M` reshaped in place to 3-D takes
the helpers."""
from __future__ import annotations

import numpy as np
import pytest

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
    assert "return xp.dot(v, M_1.T) if M_1.ndim == 2 else rt.vmap_out(" in src  # (the helpers: a 3-D M)


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


S = np.arange(27.0).reshape(9, 3) / 7.0  # reshaped in place to (3, 3, 3) by the test below


def apply_s(v):
    return np.dot(S, v)


def test_a_matrix_reshaped_in_place_to_3d_is_multiplied_as_numpy_does():
    """`S.shape = (3, 3, 3)` keeps the global's identity (the key's watch sees no change): the
    folded `xp.dot(v, S.T)` would contract another axis (same shape, other numbers), so the
    version tests `S.ndim` when it runs."""
    vs = np.random.default_rng(3).normal(size=(5, 3))
    j, plain = s2s.jit(s2s.vmap(apply_s)), s2s.vmap(apply_s)
    try:
        for _ in range(2):
            np.testing.assert_allclose(j(vs), np.stack([np.dot(S, v) for v in vs]), rtol=1e-12)
        S.shape = (3, 3, 3)
        for _ in range(2):
            want = np.stack([np.dot(S, v) for v in vs])
            np.testing.assert_allclose(plain(vs), want, rtol=1e-12)
            np.testing.assert_allclose(j(vs), want, rtol=1e-12)
        S.shape = (27,)  # a vector: one dot per example, which (5, 3) vectors cannot make
        with pytest.raises(ValueError):
            j(vs)
        S.shape = (9, 3)
        np.testing.assert_allclose(j(vs), np.stack([np.dot(S, v) for v in vs]), rtol=1e-12)
    finally:
        S.shape = (9, 3)


def test_a_large_batch_with_a_matrix_reshaped_in_place():
    """The large-batch product (`rt.batched_matrix_dot`) tests `S.ndim` in the helper."""
    vs = np.random.default_rng(4).normal(size=(30000, 3))
    j = s2s.jit(s2s.vmap(apply_s))
    try:
        np.testing.assert_allclose(j(vs), vs @ S.T, rtol=1e-12)
        S.shape = (3, 3, 3)
        np.testing.assert_allclose(j(vs), np.einsum("abj,nj->nab", S, vs), rtol=1e-12)
    finally:
        S.shape = (9, 3)
