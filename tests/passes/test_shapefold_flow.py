"""Shape folding through rebound names and more calls (passes/shapefold.py): a cotangent rebound
in straight-line code (`b_e = b_e + ...`) keeps a known shape from one binding to the next, shapes
follow `xp.transpose`, `xp.maximum`-like calls and `rt.pick`, and for known shapes `rt.tree_add`
is `+` and a `rt.sum_vjp(g, like, axis, True)` added to an array of `like`'s shape is NumPy's
broadcasting. Values against hand-written gradients (issue 29's W9 and W10) and central
differences; the shape of the code for those shapes."""
import numpy as np
from helpers_compare import assert_trees_close

import s2s
from s2s.test_util import check_grads


def attention(params, x):
    wq, wk, wv = params
    s = ((x @ wq) @ (x @ wk).T) * 0.125
    s = s - s2s.stop_gradient(np.max(s, axis=1, keepdims=True))
    e = np.exp(s)
    a = e / np.sum(e, axis=1, keepdims=True)
    return np.sum((a @ (x @ wv)) ** 2)


def attention_hand(params, x):
    wq, wk, wv = params
    q, k, v = x @ wq, x @ wk, x @ wv
    s = (q @ k.T) * 0.125
    e = np.exp(s - s.max(axis=1, keepdims=True))
    a = e / e.sum(axis=1, keepdims=True)
    do = 2.0 * (a @ v)
    da = do @ v.T
    ds = a * (da - np.sum(da * a, axis=1, keepdims=True)) * 0.125
    return x.T @ (ds @ k), x.T @ (ds.T @ q), x.T @ (a.T @ do)


def relu_xent(params, x, y):
    w1, b1, w2, b2 = params
    h = np.maximum(x @ w1 + b1, 0.0)
    z = h @ w2 + b2
    z = z - s2s.stop_gradient(np.max(z, axis=1, keepdims=True))
    return -np.mean(np.sum(y * (z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))), axis=1))


def relu_xent_hand(params, x, y):
    w1, b1, w2, b2 = params
    pre = x @ w1 + b1
    h = np.maximum(pre, 0.0)
    e = np.exp(h @ w2 + b2 - (h @ w2 + b2).max(axis=1, keepdims=True))
    d2 = (e / e.sum(axis=1, keepdims=True) - y) / x.shape[0]
    d1 = (d2 @ w2.T) * (pre > 0)
    return x.T @ d1, d1.sum(axis=0), h.T @ d2, d2.sum(axis=0)


def _body(fn, *args) -> str:
    return s2s.source(fn, *args).split("return any_shape(")[1].split("\n# fused kernel")[0]


def test_attention_gradient_folds_every_broadcasting_helper():
    rng = np.random.default_rng(0)
    args = (tuple(rng.normal(size=(8, 8)) / 3 for _ in range(3)), rng.normal(size=(12, 8)))
    g = s2s.jit(s2s.grad(attention))
    assert_trees_close(g(*args), attention_hand(*args), rtol=1e-12, same_type=True)
    body = _body(g, *args)
    for helper in ("rt.unbroadcast", "rt.sum_vjp", "rt.dot_vjp", "rt.tree_add"):
        assert helper not in body, helper
    assert not any(line.split(" = ")[0] == line.split(" = ")[-1] for line in body.split("\n") if " = " in line)
    check_grads(attention, args, order=1, modes=("rev",))


def test_relu_cross_entropy_gradient_folds_its_biases():
    rng = np.random.default_rng(1)
    params = (rng.normal(size=(6, 5)), rng.normal(size=5), rng.normal(size=(5, 4)), rng.normal(size=4))
    x, y = rng.normal(size=(7, 6)), np.eye(4)[rng.integers(0, 4, size=7)]
    g = s2s.jit(s2s.grad(relu_xent))
    assert_trees_close(g(params, x, y), relu_xent_hand(params, x, y), rtol=1e-12, same_type=True)
    body = _body(g, params, x, y)
    assert "rt.unbroadcast" not in body and "rt.tree_add" not in body
    assert ".sum(axis=0)" in body  # the biases' cotangents: sums over the batch


def rebound_then_broadcast(x, c):
    y = x * 2.0
    y = y + np.sum(y, axis=1, keepdims=True)
    y = y * c
    return np.sum(np.tanh(y))


def test_a_rebound_name_changing_shape_is_followed():
    """`c` broadcasts `y` up (shape (3, 4) then (2, 3, 4)): each binding's own shape is used."""
    rng = np.random.default_rng(2)
    x, c = rng.normal(size=(3, 4)), rng.normal(size=(2, 3, 4))
    g = s2s.jit(s2s.grad(rebound_then_broadcast, argnums=(0, 1)))
    assert_trees_close(g(x, c), s2s.grad(rebound_then_broadcast, argnums=(0, 1))(x, c), rtol=1e-13)
    check_grads(rebound_then_broadcast, (x, c), order=1, modes=("rev",))
    g2 = s2s.jit(s2s.grad(rebound_then_broadcast, argnums=(0, 1)))
    x2, c2 = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))  # other shapes first: another version
    assert_trees_close(g2(x2, c2), s2s.grad(rebound_then_broadcast, argnums=(0, 1))(x2, c2), rtol=1e-13)
