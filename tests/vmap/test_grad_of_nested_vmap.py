"""grad and jvp of a function that calls vmap of a function that itself calls vmap (JAX's advi:
`vmap(elbo)` where elbo calls `vmap(norm.logpdf)`): the inner vmap's helpers, batched by the outer
vmap, are differentiated; against central finite differences."""
import numpy as np
import pytest

import s2s

XS = np.array([[0.7, -0.4, 1.3, 0.2], [0.1, 0.9, -0.8, 0.5], [-1.2, 0.3, 0.6, -0.3]])
P = np.array([[0.3, 0.2, 0.1, 0.5], [1.1, -0.4, 0.6, 0.9]])
V = np.array([[0.3, -1.0, 0.2, 0.7], [0.5, 0.1, -0.6, 0.4]])
H = 1e-6


def inner_mapped(x, m, s):
    return np.sum(s2s.vmap(lambda a, b: np.sin(a) * b)(x, m * s))


def inner_broadcast(x, m, s):  # the inner vmap broadcasts an argument (in_axes None) and moves its output
    out = s2s.vmap(lambda a, b: np.tanh(a * b) + b, in_axes=(0, None), out_axes=0)(x, m)
    return np.sum(out * s)


def inner_moved(x, m, s):  # mapped along axis 1 in, out along axis 1
    grid = np.outer(m, x) * s[:, None]
    out = s2s.vmap(lambda col: np.cos(col) * np.sum(col), in_axes=1, out_axes=1)(grid)
    return np.sum(out ** 2)


def _outer(inner):
    def loss(p, xs):
        return np.mean(s2s.vmap(inner, in_axes=(0, None, None))(xs, p[0], p[1]))
    return loss


def _fd(f, p, v):
    return (f(p + H * v) - f(p - H * v)) / (2 * H)


@pytest.mark.parametrize("inner", [inner_mapped, inner_broadcast, inner_moved], ids=lambda f: f.__name__)
def test_grad_and_jvp_through_a_vmap_inside_a_vmap(inner):
    loss = _outer(inner)
    g = s2s.grad(loss)(P, XS)
    want = np.zeros_like(P)
    for i in np.ndindex(P.shape):
        e = np.zeros_like(P)
        e[i] = 1.0
        want[i] = _fd(lambda p: loss(p, XS), P, e)
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8)
    y, dy = s2s.jvp(lambda p: loss(p, XS), (P,), (V,))
    assert np.isclose(y, loss(P, XS), rtol=1e-12)
    np.testing.assert_allclose(dy, _fd(lambda p: loss(p, XS), P, V), rtol=1e-6, atol=1e-8)
