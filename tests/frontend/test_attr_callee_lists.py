"""A callee looping over a list of objects whose attributes the caller stored (issue 45, deepnet's
penalties: `REG.W = W; l2_regularization([REG])` with `for layer in layers: if hasattr(layer,
'W'): ... layer.W`). frontend/attr_callee_lists.py unrolls the loop over the call's list display.
grad matches central differences of the plain function, jvp matches grad·t, jit and vmap(grad)
match the plain function and a loop; a later call with another list, another object bound to the
global, or another caller sees its own objects; what s2s cannot match with the stored object
(a list in a local, `hasattr` of an attribute an item lacks, a `break`) stays an S2SError."""
import numpy as np
import pytest
from helpers_compare import fd_grad as central  # (central differences)
from hypothesis import given, settings
from hypothesis import strategies as st

import s2s
from s2s.errors import S2SError


class Layer:
    def __init__(self, W):
        self.W = W


class Plain:
    """A layer without weights: `hasattr(layer, 'W')` is False."""


def l2_penalty(layers, lam=0.001):
    reg = 0.0
    for layer in layers:
        if hasattr(layer, "W"):
            reg += 0.5 * lam * np.sum(layer.W * layer.W)
    return reg


def l1_penalty(lam, layers):
    reg = 0.0
    for layer in layers:
        reg += lam * np.sum(np.abs(layer.W))
    return reg


A = Layer(np.array([[0.5, -1.0], [2.0, 0.3]]))
B = Layer(np.array([1.0, -2.0, 0.7]))
NOW = Plain()
C = Layer(np.zeros((2, 2)))
D = Layer(np.zeros(3))
E = Layer(np.zeros(2))


def loss(W):
    A.W = W
    return l2_penalty([A, B], lam=0.3) + np.sum(np.sin(A.W))


def loss_tuple_positional(W):
    A.W = W * 2.0
    return l1_penalty(0.7, (B, A)) * np.sum(W)


def loss_both(W, V):
    C.W = W
    D.W = V
    return l2_penalty(layers=[D, C, D]) * 10.0


def plain_loss(W):
    return 0.5 * 0.3 * (np.sum(W * W) + np.sum(B.W * B.W)) + np.sum(np.sin(W))


def _w(seed):
    return np.random.default_rng(seed).normal(size=(2, 2))


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_grad_matches_central_differences(seed):
    W = _w(seed)
    for f in (loss, loss_tuple_positional):
        np.testing.assert_allclose(s2s.grad(f)(W), central(f, W), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.grad(loss)(W), s2s.grad(plain_loss)(W), rtol=1e-12)


def test_grad_of_two_stored_objects_and_the_object_holds_the_primal():
    W, V = _w(1), np.random.default_rng(2).normal(size=3)
    gW, gV = s2s.grad(loss_both, argnums=(0, 1))(W, V)
    assert type(C.W) is np.ndarray and np.array_equal(C.W, W) and np.array_equal(D.W, V)
    np.testing.assert_allclose(gW, central(lambda w: loss_both(w, V), W), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gV, central(lambda v: loss_both(W, v), V), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gV, 2 * 0.001 * 10.0 * V, rtol=1e-12)  # (D twice in the list)


@pytest.mark.parametrize("seed", [0, 3, 7])
def test_jvp_matches_grad_dot_tangent(seed):
    W, t = _w(seed), _w(seed + 100)
    for f in (loss, loss_tuple_positional):
        value, tangent = s2s.jvp(f, (W,), (t,))
        np.testing.assert_allclose(value, f(W), rtol=1e-12)
        np.testing.assert_allclose(tangent, np.sum(s2s.grad(f)(W) * t), rtol=1e-10)


def test_jit_matches_plain():
    for seed in range(3):
        W = _w(seed)
        for f in (loss, loss_tuple_positional):
            np.testing.assert_allclose(s2s.jit(f)(W), f(W), rtol=1e-12)


def test_vmap_of_grad_matches_a_loop():
    Ws = np.stack([_w(s) for s in range(4)])
    for f in (loss, loss_tuple_positional):
        got = s2s.vmap(s2s.grad(f))(Ws)
        np.testing.assert_allclose(got, np.stack([s2s.grad(f)(w) for w in Ws]), rtol=1e-12)


def test_another_object_or_list_after_the_first_call_is_not_stale():
    global B
    W = _w(5)
    jl, gl = s2s.jit(loss), s2s.grad(loss)
    first = jl(W)
    np.testing.assert_allclose(first, loss(W), rtol=1e-12)
    old = B
    try:
        B = Layer(np.array([4.0, 5.0]))  # (another object bound to the name the list display reads)
        np.testing.assert_allclose(jl(W), loss(W), rtol=1e-12)
        assert not np.isclose(jl(W), first)
        B.W = np.array([-3.0])  # (the item's attribute changed between calls)
        np.testing.assert_allclose(jl(W), loss(W), rtol=1e-12)
        np.testing.assert_allclose(gl(W), central(loss, W), rtol=1e-6, atol=1e-7)
    finally:
        B = old

    def other(V):  # (the same callee, another caller, another list)
        E.W = V
        return l2_penalty([E, B], lam=2.0)
    V = np.array([0.3, -0.8])
    np.testing.assert_allclose(s2s.grad(other)(V), 2.0 * V, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(loss)(W), central(loss, W), rtol=1e-6, atol=1e-7)


def test_what_cannot_be_matched_stays_refused():
    def via_local(W):
        A.W = W
        layers = [A, B]
        return l2_penalty(layers)

    def item_without_the_attribute(W):
        A.W = W
        return l2_penalty([A, NOW])

    def breaks(layers):
        for layer in layers:
            if layer is None:
                break
            return np.sum(layer.W)
        return 0.0

    def with_break(W):
        A.W = W
        return breaks([A])

    for f in (via_local, item_without_the_attribute, with_break):
        with pytest.raises(S2SError, match="cannot tell apart|hasattr"):
            s2s.grad(f)(_w(0))


def pairs(layers):
    total = 0.0
    for a in layers:
        for b in layers:
            total += np.sum(a.W) * np.sum(b.W)
    return total


def test_a_loop_over_the_list_inside_another_stays_refused():
    def f(W):
        A.W = W
        return pairs([A, B])

    with pytest.raises(S2SError, match="cannot tell apart"):
        s2s.grad(f)(_w(0))


class Flagged:
    def __init__(self):
        self.W = np.array([2.0, 3.0])
        self.scale = 1.5


def scaled_penalty(layers):
    reg = 0.0
    for layer in layers:
        if hasattr(layer, "scale"):
            reg += layer.scale * np.sum(layer.W ** 2)
        else:
            reg += np.sum(layer.W ** 2)
    return reg


F = Flagged()


def flagged_loss(W):
    F.W = W
    return scaled_penalty([F])


def test_hasattr_decided_now_is_checked_on_later_calls():
    W = np.array([0.5, -1.0])
    g = s2s.grad(flagged_loss)
    np.testing.assert_allclose(g(W), 2 * 1.5 * W, rtol=1e-12)
    F.scale = 3.0  # (a new value: the code built with the old one is not reused)
    np.testing.assert_allclose(g(W), 2 * 3.0 * W, rtol=1e-12)
    del F.scale  # (hasattr is False now: s2s refuses rather than reuse the code built with True)
    try:
        with pytest.raises(S2SError, match="hasattr"):
            g(W)
    finally:
        F.scale = 1.5
