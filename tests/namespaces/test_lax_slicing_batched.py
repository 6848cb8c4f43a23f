"""s2s.lax's slicing (dynamic_slice, dynamic_update_slice, dynamic_index_in_dim, index_in_dim,
slice_in_dim, slice, pad, concatenate), lax.erf and nn.gelu(approximate=False) under
vmap(grad(f)) and grad(vmap(f)): checked against a Python loop over the examples, and grad(f)
itself against central differences."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s import lax, nn

RNG = np.random.default_rng(7)
XS = RNG.normal(size=(4, 5, 6))  # four examples of 5x6 matrices


CASES = {
    "dynamic_slice": lambda x: np.sum(np.sin(lax.dynamic_slice(x, (1, 4), (3, 4))) ** 2),
    "dynamic_slice_in_dim": lambda x: np.sum(np.sin(lax.dynamic_slice_in_dim(x, 2, 3, axis=1)) ** 2),
    "dynamic_update_slice": lambda x: np.sum(np.sin(lax.dynamic_update_slice(x, x[:2, :3] ** 2, (3, 2))) ** 2),
    "dynamic_update_slice_in_dim": lambda x: np.sum(
        np.cos(lax.dynamic_update_slice_in_dim(x, np.tanh(x[:, :2]), 3, axis=1)) * x),
    "dynamic_index_in_dim": lambda x: np.sum(np.sin(lax.dynamic_index_in_dim(x, 4, axis=1, keepdims=False)) ** 2),
    "index_in_dim": lambda x: np.sum(np.sin(lax.index_in_dim(x, -2, axis=0)) * x[:1]),
    "slice_in_dim": lambda x: np.sum(np.sin(lax.slice_in_dim(x, 1, 6, 2, axis=1)) ** 2),
    "slice": lambda x: np.sum(np.exp(lax.slice(x, (0, 1), (4, 6), (2, 2)))),
    "pad": lambda x: np.sum(np.sin(lax.pad(x, 0.5, ((1, 2, 1), (0, -1, 0)))) ** 2),
    "pad_negative": lambda x: np.sum(np.sin(lax.pad(x, -0.25, ((-1, 2, 0), (2, 0, 2)))) ** 2),
    "concatenate": lambda x: np.sum(np.sin(lax.concatenate([x, x[:, :2] * 3.0], 1)) ** 2),
    "erf": lambda x: np.sum(lax.erf(x) ** 2 * x),
    "gelu_exact": lambda x: np.sum(nn.gelu(x, approximate=False) ** 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_of_grad_and_grad_of_vmap_match_the_loop(name):
    f = CASES[name]
    np.testing.assert_allclose(s2s.grad(f)(XS[0]), fd_grad(f, XS[0]), rtol=1e-6, atol=1e-7)
    loop = np.array([s2s.grad(f)(x) for x in XS])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(XS), loop, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(s2s.grad(lambda xs: np.sum(s2s.vmap(f)(xs)))(XS), loop, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(s2s.vmap(f)(XS), [f(x) for x in XS], rtol=1e-12)


def slice_at(x, i, j):
    return np.sum(np.sin(lax.dynamic_slice(x, (i, j), (2, 3))) ** 2)


def update_at(x, u, i):
    return np.sum(np.sin(lax.dynamic_update_slice(x, u * x[:2, :2], (i, i))) ** 2)


def test_start_indices_that_differ_per_example():
    starts = np.array([0, 1, 3, 9])  # 9 is clamped so the block fits, as JAX does
    loop = np.array([s2s.grad(slice_at)(x, i, 2 * i) for x, i in zip(XS, starts)])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(slice_at))(XS, starts, 2 * starts), loop, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(s2s.grad(lambda xs: np.sum(s2s.vmap(slice_at)(xs, starts, 2 * starts)))(XS), loop,
                               rtol=1e-10, atol=1e-12)
    us = RNG.normal(size=(4, 2, 2))
    loop = np.array([s2s.grad(update_at, argnums=(0, 1))(x, u, i) for x, u, i in zip(XS, us, starts)], dtype=object)
    got = s2s.vmap(s2s.grad(update_at, argnums=(0, 1)))(XS, us, starts)
    for k in range(4):
        np.testing.assert_allclose(got[0][k], loop[k][0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got[1][k], loop[k][1], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(loop[k][1], fd_grad(lambda u: update_at(XS[k], u, starts[k]), us[k]), rtol=1e-6,
                                   atol=1e-7)
