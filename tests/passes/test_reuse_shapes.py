"""Buffer reuse with shape folding's facts (passes/reuse_shapes.py): a product's result, an
operation between arrays of different shapes and an array read by a reduction take part; the
values stay bitwise those of `grad` without jit (and of the plain function for `jit(f)`), and
near central finite differences."""
import numpy as np
import pytest
from helpers_compare import fd_grad_of

import s2s


def attention(wq, wk, wv, x):
    q, k, v = x @ wq, x @ wk, x @ wv
    s = (q @ k.T) * 0.125
    s = s - s2s.stop_gradient(np.max(s, axis=1, keepdims=True))
    e = np.exp(s)
    a = e / np.sum(e, axis=1, keepdims=True)
    return np.sum((a @ v) ** 2)


def softmax_rows(w, x):
    s = x @ w
    e = np.exp(s - np.max(s, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def product_kept(w, x):
    p = x @ w  # (read again after the elementwise operation: never written into)
    return np.sum(np.tanh(p - np.max(p, axis=1, keepdims=True)) * p)


def _attention_args(order="C"):
    r = np.random.default_rng(7)
    ws = [np.asarray(r.normal(scale=0.4, size=(4, 4)), order=order) for _ in range(3)]
    return ws + [np.asarray(r.normal(size=(6, 4)), order=order)]


@pytest.mark.parametrize("order", ["C", "F"])
def test_attention_gradient_in_place_is_bitwise_grads(order):
    args = _attention_args(order)
    g = s2s.jit(s2s.grad(attention, argnums=(0, 1, 2, 3)))
    body = s2s.source(g, *args).split("return any_shape(")[1]
    assert "s -= " in body and "out=" in body and "b_e += " in body, body  # (s's max subtracted in place; a
    # product's buffer reused; the second term of a cotangent bound twice added into the first)
    got, want = g(*args), s2s.grad(attention, argnums=(0, 1, 2, 3))(*args)
    for k in range(4):
        np.testing.assert_array_equal(got[k], want[k])
        np.testing.assert_allclose(got[k], fd_grad_of(attention, args, k), rtol=1e-6, atol=1e-8)


def test_a_softmax_reuses_its_product_and_keeps_the_plain_values():
    r = np.random.default_rng(8)
    w, x = r.normal(size=(5, 3)), r.normal(size=(7, 5))
    j = s2s.jit(softmax_rows)
    body = s2s.source(j, w, x).split("return any_shape(")[1]
    assert "out=" in body or "-=" in body, body
    np.testing.assert_array_equal(j(w, x), softmax_rows(w, x))


def test_a_product_read_later_is_not_written_into():
    r = np.random.default_rng(9)
    w, x = r.normal(size=(5, 3)), r.normal(size=(7, 5))
    g = s2s.jit(s2s.grad(product_kept, argnums=(0, 1)))
    got, want = g(w, x), s2s.grad(product_kept, argnums=(0, 1))(w, x)
    for k, (a, b) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, fd_grad_of(product_kept, [w, x], k), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(s2s.jit(product_kept)(w, x), product_kept(w, x))


def rebound(w, x):
    t = x @ w
    u = np.exp(t - np.max(t, axis=1, keepdims=True))
    t = x[:, :3]  # (rebound to a view of a parameter: never written into)
    t = t * 2.0 + u
    return np.sum(t * u) + np.sum(np.tanh(t))


def test_a_name_bound_twice_is_written_into_only_while_fresh():
    r = np.random.default_rng(10)
    w, x = r.normal(size=(5, 3)), r.normal(size=(7, 5))
    x0 = x.copy()
    for f in (s2s.jit(rebound), s2s.jit(s2s.grad(rebound, argnums=(0, 1)))):
        f(w, x)
        np.testing.assert_array_equal(x, x0)
    got, want = s2s.jit(s2s.grad(rebound, argnums=(0, 1)))(w, x), s2s.grad(rebound, argnums=(0, 1))(w, x)
    for k, (a, b) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, fd_grad_of(rebound, [w, x], k), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(s2s.jit(rebound)(w, x), rebound(w, x))


def tanh_mlp(w1, w2, x):
    h = np.tanh(x @ w1)
    return np.sum(np.tanh(h @ w2) ** 2)


@pytest.mark.parametrize("order", ["C", "F"])
def test_a_chain_writes_on_into_the_array_a_product_read(order):
    """`h` is read by products and by tanh's derivative `1 - h * h`: both operations of the
    derivative go into `h`'s array (xp.subtract(1, xp.multiply(h, h, out=h), out=h))."""
    r = np.random.default_rng(12)
    args = [np.asarray(a, order=order) for a in (r.normal(size=(4, 5)), r.normal(size=(5, 3)), r.normal(size=(6, 4)))]
    g = s2s.jit(s2s.grad(tanh_mlp, argnums=(0, 1, 2)))
    body = s2s.source(g, *args).split("return any_shape(")[1]
    assert "xp.multiply(h,h,out=h),out=h)" in "".join(body.split()), body
    got, want = g(*args), s2s.grad(tanh_mlp, argnums=(0, 1, 2))(*args)
    for k in range(3):
        np.testing.assert_array_equal(got[k], want[k])
        np.testing.assert_allclose(got[k], fd_grad_of(tanh_mlp, args, k), rtol=1e-6, atol=1e-8)
