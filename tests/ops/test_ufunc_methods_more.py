"""ufunc methods inside transformed functions: np.maximum.accumulate / np.minimum.accumulate (the
running extremes), np.add.reduceat, np.multiply.at (repeated indices, zero factors), and
np.add.reduce/accumulate/outer/at, under grad, jvp, vmap, vmap(grad) and grad(vmap); checked
against central differences and a Python loop over the examples."""
import numpy as np
import pytest

import s2s

RNG = np.random.default_rng(11)
H = 1e-6
IDX = np.array([0, 2, 2, 3, 0])


def running_max(x):
    return np.sum(np.sin(np.maximum.accumulate(x)) * x)


def running_min_rows(x):
    return np.sum(np.cos(np.minimum.accumulate(x.reshape(3, 4), axis=1)) ** 2)


def running_max_columns(x):
    return np.sum(np.maximum.accumulate(x.reshape(3, 4)) ** 3)


def segment_sums(x):
    return np.sum(np.sin(np.add.reduceat(x, np.array([0, 3, 3, 7, 2]))) ** 2)


def segment_sums_axis1(x):
    return np.sum(np.exp(np.add.reduceat(x.reshape(3, 4), np.array([0, 1, 3]), axis=1)))


def scales_at(x):
    y = np.tanh(x[:6])
    np.multiply.at(y, IDX, x[6:11])
    return np.sum(np.sin(y))


def scales_at_with_a_zero(x):
    y = x[:4] * 1.0
    np.multiply.at(y, np.array([1, 1, 3]), np.array([2.0, 0.0, -1.5]) * x[4:7])
    return np.sum(y * x[8:12])


def scales_rows_at(x):
    y = x.reshape(3, 4) ** 2
    np.multiply.at(y, np.array([0, 2, 0]), x[:4])
    return np.sum(np.sin(y))


def already_supported(x):
    z = np.zeros(5)
    np.add.at(z, IDX, x[:5])
    return (np.sum(np.add.reduce(x.reshape(3, 4))) + np.sum(np.sin(np.add.accumulate(x)))
            + np.sum(np.multiply.outer(x[:3], x[3:5]) ** 2) + np.sum(z ** 3))


FUNCTIONS = [running_max, running_min_rows, running_max_columns, segment_sums, segment_sums_axis1, scales_at,
             scales_at_with_a_zero, scales_rows_at, already_supported]


def fd(f, x):
    return np.array([(f(x + H * e) - f(x - H * e)) / (2 * H) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_grad_and_jvp_match_central_differences(f):
    x = RNG.normal(size=12)
    want = fd(f, x)
    np.testing.assert_allclose(s2s.grad(f)(x), want, rtol=1e-6, atol=1e-7)
    v = RNG.normal(size=12)
    y, t = s2s.jvp(f, (x,), (v,))
    np.testing.assert_allclose(y, f(x), rtol=1e-12)
    np.testing.assert_allclose(t, want @ v, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_vmap_and_per_example_gradients_match_the_loop(f):
    xs = RNG.normal(size=(4, 12))
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-12)
    loop = np.array([s2s.grad(f)(x) for x in xs])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), loop, rtol=1e-10, atol=1e-12)
    grad_of_vmap = s2s.grad(lambda a: np.sum(s2s.vmap(f)(a)))  # (np.add.at: rt.batched_add_at's per-example rules)
    np.testing.assert_allclose(grad_of_vmap(xs), loop, rtol=1e-10, atol=1e-12)


def test_values_are_numpys():
    x = RNG.normal(size=(3, 4))
    np.testing.assert_array_equal(s2s.jit(lambda a: np.maximum.accumulate(a, axis=1))(x),
                                  np.maximum.accumulate(x, axis=1))
    idx = np.array([0, 3, 1, 2])
    np.testing.assert_allclose(s2s.jit(lambda a: np.add.reduceat(a, idx, axis=1))(x), np.add.reduceat(x, idx, axis=1),
                               rtol=1e-14)

    def mul_at(a):
        y = a * 1.0
        np.multiply.at(y, (np.array([0, 0, 2]), np.array([1, 1, 3])), a[0, :3])
        return y

    want = x.copy()
    np.multiply.at(want, (np.array([0, 0, 2]), np.array([1, 1, 3])), x[0, :3])
    np.testing.assert_allclose(s2s.jit(mul_at)(x), want, rtol=1e-14)


def scales_shared(y, v):
    z = y * 1.0
    np.multiply.at(z, IDX, v)
    return np.sum(np.sin(z) * y)


def test_multiply_at_with_only_some_arguments_batched():
    y, vs = RNG.normal(size=5), RNG.normal(size=(3, 5))
    loop = [s2s.grad(scales_shared, argnums=(0, 1))(y, v) for v in vs]
    for got in (s2s.vmap(s2s.grad(scales_shared, argnums=(0, 1)), in_axes=(None, 0))(y, vs),):
        for k in range(3):
            np.testing.assert_allclose(got[0][k], loop[k][0], rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(got[1][k], loop[k][1], rtol=1e-10, atol=1e-12)
    whole = s2s.grad(lambda a, b: np.sum(s2s.vmap(scales_shared, in_axes=(None, 0))(a, b)), argnums=(0, 1))(y, vs)
    np.testing.assert_allclose(whole[0], sum(g[0] for g in loop), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(whole[1], [g[1] for g in loop], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(loop[0][1], fd(lambda v: scales_shared(y, v), vs[0]), rtol=1e-6, atol=1e-7)


def scales_per_example_index(x, i):
    y = x * 1.0
    np.multiply.at(y, i, 2.0 * x[:2])
    return np.sum(y ** 2)


def test_multiply_at_with_an_index_per_example_runs_each_example():
    xs, idx = RNG.normal(size=(3, 4)), np.array([[0, 0], [1, 3], [2, 2]])
    np.testing.assert_allclose(s2s.vmap(scales_per_example_index)(xs, idx),
                               [scales_per_example_index(x, i) for x, i in zip(xs, idx)], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(scales_per_example_index))(xs, idx),
                               [s2s.grad(scales_per_example_index)(x, i) for x, i in zip(xs, idx)], rtol=1e-10)
