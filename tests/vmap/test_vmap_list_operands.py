"""A list of per-example values meeting an array in arithmetic (`np.ones(2) * [a, b]`) is NumPy's
array of the list per example. vmap once stacked it with the batch axis second, so square shapes
gave silently wrong numbers; checked against a loop over examples and central differences."""

import numpy as np
import pytest

import s2s


def times_range(x):
    c = [x[0], x[1]]
    return c * np.arange(1.0, 3.0)


def minus_numpy_scalar(x):
    c = [x[0], x[1] * 2.0]
    return c - np.float64(2.0)


def both_sides(x):
    c = [x[0], np.sin(x[1])]
    return np.ones(2) * c + c * np.arange(2.0)


def literal_operand(x):
    return np.zeros(2) + [x[0], x[1] * 2.0]


def weighted(w, x):
    c = [x[0] * w[0], np.sin(x[1]) * w[1]]
    return np.sum(np.ones(2) * c + c * np.arange(2.0)) + np.sum(c - np.float64(2.0))


def loss(w, xs):
    return np.sum(s2s.vmap(weighted, in_axes=(None, 0))(w, xs) ** 2)


XS = np.array([[1.0, 2.0], [3.0, 4.0]])  # square: the batch and list axes have the same length
W = np.array([0.5, -1.5])


def _fd(f, w, eps=1e-6):
    return np.array([(f(w + eps * e) - f(w - eps * e)) / (2 * eps) for e in np.eye(w.size)])


@pytest.mark.parametrize("f", [times_range, minus_numpy_scalar, both_sides, literal_operand])
def test_vmap_matches_the_loop(f):
    np.testing.assert_allclose(s2s.vmap(f)(XS), np.stack([f(x) for x in XS]), rtol=1e-12)


@pytest.mark.parametrize("f", [times_range, minus_numpy_scalar, both_sides, literal_operand])
def test_vmap_of_the_jacobian_matches_the_loop(f):
    want = np.stack([s2s.jacrev(f)(x) for x in XS])
    np.testing.assert_allclose(s2s.vmap(s2s.jacrev(f))(XS), want, rtol=1e-12)
    np.testing.assert_allclose(want, np.stack([_fd(f, x).T for x in XS]), rtol=1e-6, atol=1e-8)


def test_gradient_through_the_vmap_matches_differences():
    def ref(w):
        return np.sum(np.array([weighted(w, x) for x in XS]) ** 2)
    want = _fd(ref, W)
    np.testing.assert_allclose(s2s.vmap(weighted, in_axes=(None, 0))(W, XS), [weighted(W, x) for x in XS])
    np.testing.assert_allclose(s2s.grad(loss)(W, XS), want, rtol=1e-6)
    np.testing.assert_allclose(s2s.jacfwd(loss)(W, XS), want, rtol=1e-6)


# A list of per-example arrays given to a NumPy reduction or elementwise function (issue 45's
# audit: `np.max([a, b], axis=0)`, `np.maximum.reduce([a, b])`): NumPy makes the list an array
# whose first axis is the list's; vmap gave a result of the list's length, not the batch's.
REDUCED = {
    "max_axis0": lambda x: np.sum(np.max([x * 2.0, x + 1.5], axis=0)),
    "sum_axis0": lambda x: np.sum(np.sum([x * 2.0, np.sin(x)], axis=0) ** 2),
    "sum_all": lambda x: np.sum([x * 2.0, x + 1.5]),
    "mean_axis1": lambda x: np.sum(np.mean([x * 2.0, x ** 2], axis=1) * np.array([1.0, 3.0])),
    "maximum_reduce": lambda x: np.sum(np.maximum.reduce([x * 2.0, x + 1.5])),
    "max_of_numbers": lambda x: np.max([np.sum(x), 0.5]) + np.min([np.sum(x * x), 4.0]),
    "exp_of_list": lambda x: np.sum(np.exp([x * 0.5, x + 0.5]) * np.array([[1.0], [2.0]])),
}


def _cd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("name", sorted(REDUCED))
def test_a_numpy_function_of_a_list_of_per_example_arrays(name):
    f = REDUCED[name]
    xs = np.array([[0.3, -0.7, 1.1], [-0.2, 0.9, -1.3], [1.4, 0.25, -0.5], [0.6, -0.1, 0.2]])  # 4 examples, lists of 2
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), [_cd(f, x) for x in xs], rtol=1e-6, atol=1e-8)
    total = lambda x: np.sum(s2s.vmap(f)(x))  # noqa: E731
    np.testing.assert_allclose(s2s.grad(total)(xs), _cd(lambda x: sum(f(e) for e in x), xs), rtol=1e-6, atol=1e-8)
