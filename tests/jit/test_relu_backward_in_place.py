"""A ReLU's backward in a jit version writes max's derivative into the dead pre-activation's
array (`rt.pick(t1, 0.0, out=t1)`, passes/reuse.py): one array fewer, the same values as `grad`
without jit, ties at 0 included (JAX's convention: half the cotangent goes each way)."""
import numpy as np
import pytest

import s2s
from s2s import runtime as rt


def relu_layer(w, b, x, c):
    return np.sum(np.maximum(x @ w + b, 0.0) * c)


def _args(ties: bool):
    r = np.random.default_rng(11)
    w, b, x, c = r.normal(size=(5, 4)), r.normal(size=4), r.normal(size=(6, 5)), r.normal(size=(6, 4))
    if ties:  # (column 1 of x @ w + b exactly 0, so every row ties there)
        w[:, 1], b[1] = 0.0, 0.0
    return [w, b, x, c]


def _hand(w, b, x, c):
    """d/dw and d/db with max's derivative 1 above 0, 1/2 at 0, 0 below."""
    a = x @ w + b
    d = c * np.where(a > 0, 1.0, np.where(a == 0, 0.5, 0.0))
    return x.T @ d, d.sum(axis=0)


@pytest.mark.parametrize("ties", [False, True])
def test_relu_gradient_in_place_equals_grad_and_hand(ties):
    args = _args(ties)
    before = [a.copy() for a in args]
    g = s2s.jit(s2s.grad(relu_layer, argnums=(0, 1)))
    assert "out=t" in s2s.source(g, *args).split("return any_shape(")[1]
    got, want = g(*args), s2s.grad(relu_layer, argnums=(0, 1))(*args)
    for a, b_, h in zip(got, want, _hand(*args)):
        np.testing.assert_array_equal(a, b_)
        np.testing.assert_allclose(a, h, rtol=1e-12, atol=1e-14)
    for a, b_ in zip(args, before):  # (the arguments are never written into)
        np.testing.assert_array_equal(a, b_)


def test_relu_gradient_near_finite_differences():
    args = _args(False)
    got = s2s.jit(s2s.grad(relu_layer, argnums=(0, 1)))(*args)
    for k in (0, 1):
        fd = np.zeros_like(args[k])
        for i in np.ndindex(fd.shape):
            up, down = [a.copy() for a in args], [a.copy() for a in args]
            up[k][i] += 1e-6
            down[k][i] -= 1e-6
            fd[i] = (relu_layer(*up) - relu_layer(*down)) / 2e-6
        np.testing.assert_allclose(got[k], fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("y", [0.0, 0, "array"])
def test_pick_into_its_operand_is_pick(y):
    x = np.array([[-1.5, 0.0, -0.0, 2.0], [np.nan, np.inf, -np.inf, 1e-300]])
    y = np.array([[0.0, 0.0, 1.0, 2.0], [0.0, 1.0, -np.inf, 0.0]]) if y == "array" else y
    want = rt.pick(x, y)
    got = rt.pick(x.copy(), y, out=(buf := x.copy()))
    assert got is buf
    np.testing.assert_array_equal(got, want)
    same = x.copy()
    np.testing.assert_array_equal(rt.pick(same, y, out=same), want)  # (x itself as the output)
    expect = np.where(x > y, 1.0, np.where(x == y, 0.5, 0.0))
    np.testing.assert_array_equal(want, expect)
