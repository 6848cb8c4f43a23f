"""np.atleast_1d/2d/3d of several arrays and np.broadcast_arrays' `subok=` (issue 44, family 2):
the declaration of `atleast_1d` binds one array and then `axis`, so `np.atleast_1d(s, v)` read `v`
as an axis: jvp was silently wrong, grad crashed and vmap returned one array for two.
`np.broadcast_arrays(a, b, subok=True)` raised an internal TypeError (the composite has no `subok`,
which changes nothing for ndarrays). Each is now the tuple of one-array calls / the call without
`subok`; values against NumPy and a loop over examples, derivatives against central differences."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

RNG = np.random.default_rng(21)
X = RNG.standard_normal((3, 4))


def first_and_whole(x):
    s, a = np.atleast_1d(x[0, 0], x)
    return np.sum(np.sin(s)) + np.sum(a ** 2)


def row_and_number(x):
    r, n = np.atleast_2d(x[0], x[1, 0])
    return np.sum(r * np.arange(4.0)) + np.sum(np.cos(n))


def three_ranks(x):
    a, b, c = np.atleast_3d(x, x[0], x[0, 0])
    return np.sum(a ** 2) + np.sum(np.sin(b)) * np.sum(c)


def broadcast_subok(x):
    a, b = np.broadcast_arrays(x[:, :1], x[0], subok=True)
    return np.sum(a * np.sin(b))


@pytest.mark.parametrize("f", [first_and_whole, row_and_number, three_ranks, broadcast_subok],
                         ids=lambda f: f.__name__)
def test_several_arrays(f):
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)
    want = fd_grad(f, X)
    np.testing.assert_allclose(s2s.grad(f)(X), want, rtol=1e-6, atol=1e-8)
    d = RNG.standard_normal(X.shape)
    np.testing.assert_allclose(s2s.jvp(f, (X,), (d,))[1], np.sum(want * d), rtol=1e-6, atol=1e-8)
    xs = np.stack([X, 1.0 - X])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-12)


def test_the_shapes_are_numpy_s():
    def shapes(x):
        return np.atleast_1d(x[0, 0], x), np.atleast_3d(x[0], x)
    got, want = s2s.jit(shapes)(X), shapes(X)
    assert [[np.shape(a) for a in part] for part in got] == [[np.shape(a) for a in part] for part in want]
