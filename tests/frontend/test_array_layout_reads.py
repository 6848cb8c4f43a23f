"""A global array reshaped in place (`M.shape = (3, 2)`) stays the same object, so the key's
identity test does not see it; the shape, rank and size the compilation folded in (`M.shape[0]`
as a number) are reads that the per-call check compares (frontend/reads.py), and every transform
gives what the plain function gives now."""
from __future__ import annotations

import numpy as np
import pytest

import s2s

M = np.arange(6.0).reshape(2, 3)
X = np.array([0.3, -0.7, 1.1])


def f(x):
    return x * M.shape[0] + M.ndim + M.size * x[0]


def loss(x):
    return np.sum(np.tanh(x) * M.shape[-1]) + M.ndim * x[1]


def _fd(fun, x, h=1e-6):
    return np.array([(fun(x + h * e) - fun(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.fixture
def restore():
    yield
    M.shape = (2, 3)


@pytest.mark.parametrize("shape", [(3, 2), (6,), (1, 2, 3), (2, 3)])
def test_a_jit_version_reads_the_shape_the_array_has_now(restore, shape):
    j, jg, g, v = s2s.jit(f), s2s.jit(s2s.grad(loss)), s2s.grad(loss), s2s.jit(s2s.vmap(f))
    xs = np.stack([X, 2 * X])
    for _ in range(2):
        np.testing.assert_allclose(j(X), f(X), rtol=1e-12)
        np.testing.assert_allclose(jg(X), g(X), rtol=1e-12)
        np.testing.assert_allclose(v(xs), np.stack([f(x) for x in xs]), rtol=1e-12)
    M.shape = shape
    for _ in range(2):
        np.testing.assert_allclose(j(X), f(X), rtol=1e-12)
        np.testing.assert_allclose(jg(X), _fd(loss, X), rtol=1e-6)
        np.testing.assert_allclose(g(X), _fd(loss, X), rtol=1e-6)
        np.testing.assert_allclose(v(xs), np.stack([f(x) for x in xs]), rtol=1e-12)


def test_an_unchanged_shape_keeps_the_code(restore):
    j = s2s.jit(f)
    j(X)
    fn = s2s.source(j, X)
    M.shape = (2, 3)  # the same shape, set again
    np.testing.assert_allclose(j(X), f(X), rtol=1e-12)
    assert s2s.source(j, X) == fn
