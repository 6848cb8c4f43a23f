"""np.tril and np.triu of a 1-D array (issue 44, family 2): NumPy reads a vector as a row broadcast
to a square, `np.tril(v)` is `(n, n)`. Under vmap each example was taken as a row of one matrix of
the examples (a result of shape (n,), not (n, n)), and grad crashed writing the square cotangent
into the vector's. Values against NumPy and a loop over examples, derivatives against central
differences, at several diagonals `k`."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

RNG = np.random.default_rng(3)
V = RNG.standard_normal(4)
W = RNG.standard_normal((4, 4))


def lower(v):
    return np.sum(W * np.sin(np.tril(v)))


def upper_above(v):
    return np.sum(W * np.triu(v, 1) ** 2)


def lower_below(v):
    return np.sum(np.tril(v * 2.0, k=-1) @ W)


def upper_far(v):
    return np.sum(W * np.cos(np.triu(v, k=-5)))


FNS = [lower, upper_above, lower_below, upper_far]


@pytest.mark.parametrize("f", FNS, ids=lambda f: f.__name__)
def test_tri_of_a_vector(f):
    np.testing.assert_allclose(s2s.jit(f)(V), f(V), rtol=1e-12)
    want = fd_grad(f, V)
    np.testing.assert_allclose(s2s.grad(f)(V), want, rtol=1e-6, atol=1e-8)
    d = RNG.standard_normal(4)
    np.testing.assert_allclose(s2s.jvp(f, (V,), (d,))[1], want @ d, rtol=1e-6, atol=1e-8)
    vs = np.stack([V, V[::-1] - 0.5, 2.0 * V])
    np.testing.assert_allclose(s2s.vmap(f)(vs), [f(v) for v in vs], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(vs), [fd_grad(f, v) for v in vs], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn", [np.tril, np.triu])
def test_vmap_gives_the_squares(fn):
    def square(v):
        return fn(v, 1)
    vs = RNG.standard_normal((3, 4))
    got = s2s.vmap(square)(vs)
    assert got.shape == (3, 4, 4)
    np.testing.assert_allclose(got, [fn(v, 1) for v in vs], rtol=0)
