"""np.unique and the set operations differentiate as selections of their inputs' entries (issue
44: they were declared without a derivative, so grad was silently 0): grad against central
differences at distinct values, against the documented first-occurrence rule with duplicates, jvp
against vjp, jit against the plain function, vmap against a loop, and the refusals."""
import numpy as np
import pytest

import s2s

RNG = np.random.default_rng(44)
X = RNG.permutation(8) * 0.37 - 1.1                  # distinct values
Y = np.concatenate([RNG.permutation(5) * 0.41 + 2.3, X[[5, 2]]])  # shares two values with X
W = np.arange(1.0, 20.0)


def _loss(v):
    v = np.ravel(v)
    return np.sum(v ** 2 * W[:v.size])


def _central(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


CASES = {  # name -> loss of x; Y and X2 are constants (no value of x equals one of them)
    "unique": lambda x: _loss(np.unique(x)),
    "unique_all_flags": lambda x: _loss(np.unique(x, True, True, True)[0]),
    "unique_index_used": lambda x: _loss(np.unique(x, return_index=True)[0]) + np.sum(
        np.unique(x, return_index=True)[1] * 1.0),
    "unique_axis0": lambda x: _loss(np.unique(x.reshape(4, 2), axis=0)),
    "unique_axis1": lambda x: _loss(np.unique(x.reshape(2, 4), axis=1)),
    "unique_unsorted": lambda x: _loss(np.unique(x, sorted=False)),
    "unique_equal_nan": lambda x: _loss(np.unique(x, equal_nan=False)),
    "unique_values": lambda x: _loss(np.unique_values(x)),
    "union1d": lambda x: _loss(np.union1d(x, Y + 10.0)),
    "union1d_second": lambda x: _loss(np.union1d(Y + 10.0, x)),
    "intersect1d": lambda x: _loss(np.intersect1d(x, x[::3])),
    "intersect1d_indices": lambda x: _loss(np.intersect1d(x, x[1::2], return_indices=True)[0]),
    "intersect1d_unique": lambda x: _loss(np.intersect1d(x, x[:3], assume_unique=True)),
    "setdiff1d": lambda x: _loss(np.setdiff1d(x, x[:3])),
    "setdiff1d_unique": lambda x: _loss(np.setdiff1d(x, x[2:5], assume_unique=True)),
    "setxor1d": lambda x: _loss(np.setxor1d(x[:5], x[3:])),
    "setxor1d_unique": lambda x: _loss(np.setxor1d(x[:5], x[3:], assume_unique=True)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_is_central_differences_jvp_and_jit(name):
    f = CASES[name]
    g = s2s.grad(f)(X)
    np.testing.assert_allclose(g, _central(f, X), atol=1e-6)
    assert np.count_nonzero(g) > 0
    t = RNG.standard_normal(X.shape)
    _, jv = s2s.jvp(f, (X,), (t,))
    np.testing.assert_allclose(jv, np.dot(g, t), rtol=1e-10)
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)


@pytest.mark.parametrize("name", ["unique", "unique_axis0", "union1d", "setdiff1d", "setxor1d_unique"])
def test_vmap_and_vmap_grad_match_a_loop(name):
    f = CASES[name]
    xs = np.stack([RNG.permutation(X) for _ in range(3)])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), [s2s.grad(f)(x) for x in xs])


def test_vmap_with_sizes_differing_per_example_is_refused():
    xs = np.stack([X, X])
    xs[1, 1] = xs[1, 0]
    with pytest.raises(s2s.S2SError, match="different shape"):
        s2s.vmap(lambda v: np.unique(v))(xs)


def test_duplicates_give_the_cotangent_to_the_first_occurrence():
    x = np.array([0.5, -1.0, 0.5, 2.0, -1.0, 0.5])
    g = s2s.grad(lambda v: _loss(np.unique(v)))(x)
    # unique = [-1.0 (from 1), 0.5 (from 0), 2.0 (from 3)], weights 1, 2, 3
    np.testing.assert_allclose(g, [2 * 0.5 * 2, 2 * -1.0 * 1, 0, 2 * 2.0 * 3, 0, 0])
    # union1d and intersect1d: a value in both arrays is ar1's
    y = np.array([2.0, 7.0])
    gx, gy = s2s.grad(lambda a, b: np.sum(np.union1d(a, b) * W[:4]), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, [2, 1, 0, 3, 0, 0])
    np.testing.assert_allclose(gy, [0, 4])
    gx, gy = s2s.grad(lambda a, b: np.sum(np.intersect1d(a, b)), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, [0, 0, 0, 1, 0, 0])
    np.testing.assert_allclose(gy, [0, 0])


def test_integer_results_are_numpys():
    x = np.array([0.5, -1.0, 0.5, 2.0, -1.0])

    def f(v):
        _, i, inv, c = np.unique(v, return_index=True, return_inverse=True, return_counts=True)
        return np.sum(v[i] * c) + np.sum(inv * v)

    _, i, inv, c = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    np.testing.assert_allclose(s2s.jit(f)(x), f(x))
    want = inv * 1.0  # (central differences would split the ties: counts are constants here)
    want[i] += c
    np.testing.assert_allclose(s2s.grad(f)(x), want)


def test_nans_follow_equal_nan():
    x = np.array([np.nan, 1.0, np.nan])
    g = s2s.grad(lambda v: np.sum(np.unique(v, equal_nan=False) * W[:3]))(x)
    np.testing.assert_allclose(g, [2, 1, 3])   # each NaN its own value, after 1.0
    g = s2s.grad(lambda v: np.sum(np.unique(v) * W[:2]))(x)
    np.testing.assert_allclose(g, [2, 1, 0])   # one NaN: the first


@pytest.mark.parametrize("fn", [np.unique_counts, np.unique_inverse, np.unique_all])
def test_array_api_forms_refuse_a_derivative(fn):
    with pytest.raises(s2s.S2SError, match=fn.__name__):
        s2s.grad(lambda v: np.sum(fn(v)[0]))(X)
