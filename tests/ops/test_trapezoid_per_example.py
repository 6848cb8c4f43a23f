"""vmap of np.trapezoid with sample points that differ per example (issue 44, family 2):
`np.trapezoid(y, t)` with a 1-D `t` along the last axis of a 2-D `y` crashed under vmap (the batch
axis of `t` met `y`'s rows), and so did a per-example spacing. Each example is one call now; the
shared points, spacings and axes keep the one call for all. Values against a loop over examples,
and vmap of grad in y (the points carry no derivative) against the weights written out."""
import numpy as np
import pytest

import s2s

RNG = np.random.default_rng(8)
YS = RNG.standard_normal((3, 2, 4))
TS = np.sort(RNG.uniform(0.0, 3.0, (3, 4)), axis=1)


def along_points(y, t):
    return np.sum(np.sin(np.trapezoid(y, t)))


def along_rows(y, t):
    return np.sum(np.trapezoid(y * y, t[:2], axis=0))


def spacing(y, t):
    return np.sum(np.trapezoid(y, dx=t[1] - t[0], axis=-1) ** 2)


def shared_axis(y, t):
    return np.sum(np.trapezoid(y, None, 0.5, -2) * t[0])


@pytest.mark.parametrize("f", [along_points, along_rows, spacing, shared_axis], ids=lambda f: f.__name__)
def test_vmap_is_the_loop(f):
    np.testing.assert_allclose(s2s.vmap(f)(YS, TS), [f(y, t) for y, t in zip(YS, TS)], rtol=1e-12)


def _weights(t):
    d = np.diff(t)
    return 0.5 * (np.concatenate([d, [0.0]]) + np.concatenate([[0.0], d]))


def test_vmap_of_grad_in_y():
    got = s2s.vmap(s2s.grad(along_points))(YS, TS)
    want = [np.cos(np.trapezoid(y, t))[:, None] * _weights(t) for y, t in zip(YS, TS)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
