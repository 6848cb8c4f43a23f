"""np.gradient with a spacing per axis, `np.gradient(f, dx, dy)` (issue 44, family 2): the rules read
a second spacing as `axis=`, so grad, jvp and vmap of `np.gradient(f, 2.0, 3.0, axis=(1, 0))` were
silently wrong (jit, which calls NumPy, was right) and `np.gradient(f, dx, dy)` crashed inside s2s.
It is now a tuple of single-axis calls; without `axis=`, `f`'s rank must be the number of spacings,
as NumPy requires. Values against NumPy, derivatives against central differences, vmap against a
loop; and vmap of a 1-D `f` with sample points that differ per example (which crashed)."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

RNG = np.random.default_rng(11)
W = [RNG.standard_normal((3, 4)) for _ in range(2)]
X0 = RNG.standard_normal((3, 4))
COORDS = np.array([0.0, 1.0, 1.5, 3.0])


def two_scalars(f):
    gy, gx = np.gradient(f, 0.5, 2.0)
    return np.sum(W[0] * gy) + np.sum(W[1] * np.sin(gx))


def two_scalars_second_order(f):
    gs = np.gradient(f, 0.5, 2.0, edge_order=2)
    return np.sum(W[0] * gs[0] ** 2) + np.sum(W[1] * gs[1])


def axes_reversed(f):
    ga, gb = np.gradient(f, 2.0, 3.0, axis=(1, 0))
    return np.sum(W[1] * ga ** 2) + np.sum(W[0] * np.sin(gb))


def coordinates_and_scalar(f):
    ga, gb = np.gradient(f, COORDS, 0.5, axis=(1, -2))
    return np.sum(W[1] * np.sin(ga)) + np.sum(W[0] * gb ** 2)


def coordinates_per_axis(f):
    gy, gx = np.gradient(f, np.array([0.0, 0.5, 2.0]), COORDS, edge_order=2)
    return np.sum(W[0] * gy * gx)


FNS = [two_scalars, two_scalars_second_order, axes_reversed, coordinates_and_scalar, coordinates_per_axis]


@pytest.mark.parametrize("f", FNS, ids=lambda f: f.__name__)
def test_value_grad_jvp_vmap(f):
    np.testing.assert_allclose(s2s.jit(f)(X0), f(X0), rtol=1e-12)
    want = fd_grad(f, X0)
    np.testing.assert_allclose(s2s.grad(f)(X0), want, rtol=1e-6, atol=1e-8)
    d = RNG.standard_normal(X0.shape)
    np.testing.assert_allclose(s2s.jvp(f, (X0,), (d,))[1], np.sum(want * d), rtol=1e-6, atol=1e-8)
    xs = np.stack([X0, 2.0 * X0 - 1.0])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), [fd_grad(f, x) for x in xs], rtol=1e-6, atol=1e-8)


def spacings_for_another_rank(f):
    return np.sum(np.gradient(f, 0.5, 2.0, 3.0)[0])


def axes_and_spacings_differ(f):
    return np.sum(np.gradient(f, 0.5, 2.0, axis=(0,))[0])


def repeated_axis(f):
    return np.sum(np.gradient(f, 0.5, 2.0, axis=(1, 1))[0])


@pytest.mark.parametrize("f, error", [(spacings_for_another_rank, TypeError), (axes_and_spacings_differ, TypeError),
                                      (repeated_axis, ValueError)], ids=["rank", "axes", "repeated"])
def test_numpy_s_error(f, error):
    with pytest.raises(error):
        f(X0)
    for run in (lambda: s2s.jit(f)(X0), lambda: s2s.grad(f)(X0), lambda: s2s.vmap(f)(np.stack([X0, X0]))):
        with pytest.raises(error):
            run()


def per_example_points(f, t):
    return np.sum(np.sin(np.gradient(f, t)))


def test_vmap_with_sample_points_per_example():
    fs = np.stack([X0[0], X0[1]])
    ts = np.stack([COORDS, COORDS * 2.0 + 0.1 * X0[2]])
    np.testing.assert_allclose(s2s.vmap(per_example_points)(fs, ts),
                               [per_example_points(f, t) for f, t in zip(fs, ts)], rtol=1e-12)
