"""Reverse mode through `x[:, i]` reads and writes in a loop: the cotangent of `x` is updated in
place, with one copy before the backward loop (not `rt.fresh` per iteration), and under vmap the
batched read (rt.example_getitem, as in grad(vmap(f))) adds its slot's cotangent in place
(rt.example_add_at) where it once built a zeros array the size of `x` per iteration: both were
quadratic in the loop's length. Against a loop of grad over the examples, hand-derived values,
central differences to second order, and counts of the copies and zeros arrays."""
import numpy as np
import pytest
from helpers_vmap import assert_stacked

import s2s
from s2s import runtime as rt
from s2s.runtime import batch
from s2s.test_util import check_grads


def column_writes(x, w):
    y = x * 1.0
    for i in range(x.shape[1]):
        y[:, i] = np.tanh(y[:, i] * w[i])
    return np.sum(y)


def columns_then_sum(x, w):
    s = 0.0
    for i in range(x.shape[1]):
        s = s + np.sum(np.tanh(x[:, i] * w[i]))
    return s + np.sum(x)


def columns(x, w):
    s = 0.0
    for i in range(x.shape[1]):
        s = s + np.sum(np.tanh(x[:, i] * w[i]))
    return s


def picked(x, idx):
    s = 0.0
    for i in range(idx.shape[0]):
        s = s + np.sum(np.sin(x[:, idx[i]]) * (i + 1.0))
    return s


def items(xs):
    s = 0.0
    for i in range(len(xs)):
        s = s + np.sum(xs[i] ** 2 * (i + 1.0))
    return s


def g_columns(xs, w):
    return np.sum(s2s.vmap(columns, in_axes=(0, None))(xs, w))


def g_picked(xs, idx):
    return np.sum(s2s.vmap(picked)(xs, idx))


def g_items(xs):
    return np.sum(s2s.vmap(items)(xs))


RNG = np.random.default_rng(5)
XS = RNG.normal(size=(4, 3, 6))
W = RNG.normal(size=6)


def test_grad_of_vmap_of_a_column_loop_matches_loop_of_grad():
    gx, gw = s2s.grad(g_columns, (0, 1))(XS, W)
    assert_stacked(gx, [s2s.grad(columns)(x, W) for x in XS])
    np.testing.assert_allclose(gw, sum(s2s.grad(columns, 1)(x, W) for x in XS), rtol=1e-12)


def test_grad_of_vmap_of_a_column_loop_to_second_order():
    check_grads(g_columns, (XS[:2, :, :4], W[:4]), order=2, modes=("fwd", "rev"))


def test_per_example_columns_match_loop_of_grad():
    """The column index differs per example (batched index: the scatter of rt.example_add_at)."""
    idx = np.array([[0, 2, 2], [5, 1, 0], [3, 3, 3], [4, 0, 1]])
    got = s2s.grad(g_picked)(XS, idx)
    assert_stacked(got, [s2s.grad(picked)(x, k) for x, k in zip(XS, idx)])
    check_grads(lambda x: g_picked(x, idx), (XS,), order=2, modes=("fwd", "rev"))


def test_items_of_a_batched_list_match_loop_of_grad():
    """`xs[i]` of a list: the adjoint is a list, added to item by item (no in-place form)."""
    xs = [RNG.normal(size=(4, 3)), RNG.normal(size=(4, 2))]
    got = s2s.grad(g_items)(xs)
    want = [s2s.grad(items)([xs[0][b], xs[1][b]]) for b in range(4)]
    for k in range(2):
        assert_stacked(got[k], [w[k] for w in want])


def test_jacrev_batches_the_in_place_backward():
    """jacrev of a vmapped function runs its backward sweep (calling rt.example_add_at) batched over the
    output basis: the helper's batching rule. Row b of the Jacobian is example b's gradient."""
    def rows(xs, w):
        return s2s.vmap(columns, in_axes=(0, None))(xs, w)
    jac = s2s.jacrev(rows)(XS, W)
    want = np.zeros((4,) + XS.shape)
    for b in range(4):
        want[b, b] = s2s.grad(columns)(XS[b], W)
    np.testing.assert_allclose(jac, want, rtol=1e-12, atol=1e-12)


def test_backward_builds_no_zeros_per_iteration(monkeypatch):
    """The backward sweep never scatters a column into fresh zeros (rt.example_getitem_t): one
    accumulator, added to in place, however many columns the loop visits."""
    calls = []

    def counted(*args):
        calls.append(1)
        return real(*args)
    real = batch.example_getitem_t
    monkeypatch.setattr(batch, "example_getitem_t", counted)
    monkeypatch.setattr(rt, "example_getitem_t", counted)
    xs = RNG.normal(size=(4, 3, 40))
    gx = s2s.grad(g_columns)(xs, np.ones(40))
    np.testing.assert_allclose(gx, 1.0 - np.tanh(xs) ** 2, rtol=1e-12)
    assert calls == []
    assert "rt.example_add_at(" in s2s.source(s2s.grad(g_columns).compiled.__globals__["bwd_vmap_columns"])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_in_place_add_keeps_the_cotangent_dtype(dtype):
    xs = XS.astype(dtype)
    gx = s2s.grad(g_columns)(xs, W.astype(dtype))
    assert gx.dtype == dtype
    want = np.stack([s2s.grad(columns)(x, W.astype(dtype)) for x in xs])
    np.testing.assert_allclose(gx, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


def _counting(monkeypatch, name):
    calls = []
    real = getattr(rt, name)

    def counted(*args):
        calls.append(1)
        return real(*args)
    monkeypatch.setattr(rt, name, counted)
    return calls


@pytest.mark.parametrize("f", [columns, columns_then_sum, column_writes], ids=lambda f: f.__name__)
def test_plain_grad_copies_the_adjoint_once(f, monkeypatch):
    """grad(f) of a loop over 40 columns: one rt.fresh (before the backward loop), values by hand."""
    x, w = RNG.normal(size=(3, 40)), RNG.normal(size=40)
    calls = _counting(monkeypatch, "fresh")
    got = s2s.grad(f)(x, w)
    want = (1.0 - np.tanh(x * w) ** 2) * w + (1.0 if f is columns_then_sum else 0.0)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert len(calls) <= 1


@pytest.mark.parametrize("f", [columns, columns_then_sum, column_writes], ids=lambda f: f.__name__)
def test_plain_grad_of_column_loops_to_second_order(f):
    check_grads(f, (RNG.normal(size=(3, 4)), RNG.normal(size=4)), order=2, modes=("fwd", "rev"))


def g_column_writes(xs, w):
    return np.sum(s2s.vmap(column_writes, in_axes=(0, None))(xs, w))


def test_grad_of_vmap_of_column_writes_matches_loop_of_grad(monkeypatch):
    calls = _counting(monkeypatch, "fresh")
    got = s2s.grad(g_column_writes)(XS, W)
    assert len(calls) <= 1
    assert_stacked(got, [s2s.grad(column_writes)(x, W) for x in XS])


def test_grad_of_vmap_of_column_writes_to_second_order():
    check_grads(g_column_writes, (XS[:2, :, :3], W[:3]), order=2, modes=("fwd", "rev"))


def test_a_loop_that_replaces_the_adjoint_still_copies_per_iteration():
    """A loop whose body rebinds the adjoint to a value it does not own (here `s = s * x`, whose
    cotangent is a new product each time) keeps its per-iteration copy: values vs differences."""
    def f(x):
        s = x * 1.0
        for i in range(3):
            s = s * x
            s[0] = s[1] * 2.0
        return np.sum(s)
    check_grads(f, (RNG.normal(size=4),), order=2, modes=("fwd", "rev"))
