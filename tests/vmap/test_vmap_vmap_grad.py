"""vmap(vmap(grad(f))): per-example gradients over two batch axes, through per-example control
flow (branches, loops with per-example trip counts), against a double Python loop."""
import numpy as np
import pytest

import s2s


def looped(w, x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sin(x[i] * w[i])
    return s


def branchy(w, x):
    y = x * w
    if np.sum(y) > 0:
        y = y * 2.0
    return np.sum(y ** 2)


def until(w, x):
    y = w * 1.0
    while np.sum(y) < 3.0:
        y = y * 1.5 + x
    return np.sum(y ** 2)


def dense(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


RNG = np.random.default_rng(0)
A = np.abs(RNG.normal(size=(4, 5, 3))) + 0.1
B = np.abs(RNG.normal(size=(4, 5, 3)))


def double_loop(g, w, x, ax_w=(0, 0), ax_x=(0, 0)):
    """out[i, j] = g(w_ij, x_ij) where each argument is indexed per its (outer, inner) axes."""
    def pick(a, axes, i, j):
        if axes[0] is not None:
            a = np.take(a, i, axis=axes[0])
        if axes[1] is not None:
            a = np.take(a, j, axis=axes[1])
        return a
    n0 = (w.shape[ax_w[0]] if ax_w[0] is not None else x.shape[ax_x[0]])
    n1 = 5
    return np.array([[g(pick(w, ax_w, i, j), pick(x, ax_x, i, j)) for j in range(n1)] for i in range(n0)])


@pytest.mark.parametrize("f", [looped, branchy, until, dense])
def test_vmap_vmap_grad_equals_a_double_loop(f):
    x = RNG.normal(size=(4, 5, 2, 3)) if f is dense else B
    got = s2s.vmap(s2s.vmap(s2s.grad(f)))(A, x)
    np.testing.assert_allclose(got, double_loop(s2s.grad(f), A, x), rtol=1e-12, atol=1e-14)


def test_shared_and_moved_axes():
    w = A[0]  # (5, 3): shared across the outer batch, mapped by the inner one
    x = np.moveaxis(B, 1, 2)  # (4, 3, 5): outer axis 0, inner axis -1 of each example
    got = s2s.vmap(s2s.vmap(s2s.grad(until), in_axes=(0, -1)), in_axes=(None, 0))(w, x)
    want = np.array([[s2s.grad(until)(w[j], x[i, :, j]) for j in range(5)] for i in range(4)])
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_out_axes_and_value_and_grad():
    v = s2s.vmap(s2s.vmap(s2s.value_and_grad(branchy), out_axes=1), out_axes=0)(A, B)
    val, grad = v
    want_v = np.array([[branchy(A[i, j], B[i, j]) for j in range(5)] for i in range(4)])
    want_g = np.array([[s2s.grad(branchy)(A[i, j], B[i, j]) for j in range(5)] for i in range(4)])
    np.testing.assert_allclose(val, want_v, rtol=1e-12)
    np.testing.assert_allclose(grad, np.moveaxis(want_g, 2, 1), rtol=1e-12)  # inner batch at axis 1 of each


def test_argnums_tuple():
    gw, gx = s2s.vmap(s2s.vmap(s2s.grad(until, argnums=(0, 1))))(A, B)
    want = [[s2s.grad(until, argnums=(0, 1))(A[i, j], B[i, j]) for j in range(5)] for i in range(4)]
    np.testing.assert_allclose(gw, np.array([[p[0] for p in r] for r in want]), rtol=1e-12)
    np.testing.assert_allclose(gx, np.array([[p[1] for p in r] for r in want]), rtol=1e-12)


def test_mismatched_sizes_still_name_the_arguments():
    with pytest.raises(s2s.S2SError, match="size"):
        s2s.vmap(s2s.vmap(s2s.grad(until)))(A, B[:3])
