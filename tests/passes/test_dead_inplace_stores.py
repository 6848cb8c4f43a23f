"""Dead in-place stores across a call (issue 46, section 2): a user differentiates
`svm_loss_naive(W, X, y, reg)[0]`, the author's function that returns `(loss, dW)` with its own
hand-written gradient `dW` built slice by slice (and a scratch array `ds` filled by item stores).
The caller reads only item 0, so reverse mode asks for the callee's sweeps with only that item:
the forward sweep returns None for `dW`, and neither `dW` nor `ds` is computed, taped or
restored. Checked against central differences and the author's `dW`, in grad and jit(grad), and
kept wherever the value can still be seen (the caller reads `dW`, or the whole tuple, or a view
of a live array)."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s


def svm_loss_naive(W, X, y, reg):
    """A cs231n-style multiclass hinge loss with a loop over examples, returning (loss, dW)."""
    dW = np.zeros(W.shape)
    num_train = X.shape[0]
    loss = 0.0
    for i in range(num_train):
        scores = X[i].dot(W)
        ds = np.zeros(scores.shape)
        margins = np.maximum(0, scores - scores[y[i]] + 1)
        margins[y[i]] = 0
        loss += np.sum(margins)
        ds[margins > 0] = 1
        ds[y[i]] = -np.sum(ds)
        ds /= num_train
        dW += np.outer(X[i], ds)
    loss /= num_train
    loss += 0.5 * reg * np.sum(W * W)
    dW += reg * W
    return loss, dW


def loss_item(W, X, y, reg):
    return svm_loss_naive(W, X, y, reg)[0]


def loss_unpacked(W, X, y, reg):
    loss, grad_unused = svm_loss_naive(W, X, y, reg)
    return loss


def loss_and_dW(W, X, y, reg):
    """Reads both items: dW must be computed (and differentiated) here."""
    out = svm_loss_naive(W, X, y, reg)
    return out[0] + 0.5 * np.sum(out[1] ** 2)


def pass_on(t):
    return t[0] + np.sum(t[1])


def loss_whole(W, X, y, reg):
    """Hands the whole tuple on: nothing is projected away."""
    return pass_on(svm_loss_naive(W, X, y, reg))


def viewed(W, X):
    """Returns `buf` as its second item, and reads it through the view `g` for the first: when
    the caller reads only the first, `buf`'s stores must stay."""
    buf = np.zeros((2, W.shape[1]))
    for i in range(X.shape[0]):
        s = X[i].dot(W)
        buf[i % 2, :] += s * s
    g = buf[0]
    return np.sum(g * g), buf


def viewed_loss(W, X):
    return viewed(W, X)[0]


def stored_through_view(W, X):
    g = np.zeros((2, W.shape[1]))
    h = g[0]
    for i in range(X.shape[0]):
        h[i % 2] = X[i].dot(W)[0]
    return np.sum(g * g), h


def _data(seed=0, n=6, d=5, c=4):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(d, c)), rng.normal(size=(n, d)), rng.integers(0, c, n)


def _code(src):
    return [ln for ln in src.splitlines() if not ln.strip().startswith("#")]


@pytest.mark.parametrize("f", [loss_item, loss_unpacked])
@pytest.mark.parametrize("jitted", [False, True])
def test_unread_item_is_not_computed(f, jitted):
    W, X, y = _data()
    g = s2s.grad(f)
    g = s2s.jit(g) if jitted else g
    got = g(W, X, y, 0.1)
    code = _code(s2s.source(g, W, X, y, 0.1) if jitted else s2s.source(g))
    assert not any("outer" in ln for ln in code), "\n".join(code)  # dW's update is gone
    assert not any("ds" in ln.replace("(", " ").replace(",", " ").split() for ln in code), "\n".join(code)
    assert not any("shape_stub(dW)" in ln or "append(dW)" in ln for ln in code), "\n".join(code)
    np.testing.assert_allclose(got, svm_loss_naive(W, X, y, 0.1)[1], rtol=1e-9, atol=1e-12)
    num = fd_grad(lambda w: f(w, X, y, 0.1), W)
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-7)
    value, grad = s2s.value_and_grad(f)(W, X, y, 0.1)
    assert value == pytest.approx(f(W, X, y, 0.1), rel=1e-12)
    np.testing.assert_allclose(grad, got, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("f", [loss_and_dW, loss_whole])
@pytest.mark.parametrize("jitted", [False, True])
def test_read_item_is_kept(f, jitted):
    W, X, y = _data(1)
    g = s2s.grad(f)
    g = s2s.jit(g) if jitted else g
    got = g(W, X, y, 0.1)
    num = fd_grad(lambda w: f(w, X, y, 0.1), W)
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-6)
    assert s2s.value_and_grad(f)(W, X, y, 0.1)[0] == pytest.approx(f(W, X, y, 0.1), rel=1e-12)


@pytest.mark.parametrize("jitted", [False, True])
def test_unread_item_seen_through_a_view_of_a_read_one_is_kept(jitted):
    W, X, _ = _data(2)
    g = s2s.grad(viewed_loss)
    g = s2s.jit(g) if jitted else g
    got = g(W, X)
    num = fd_grad(lambda w: viewed_loss(w, X), W)
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-6)
    assert np.abs(got).max() > 1e-3  # (a dropped store would give zeros)


@pytest.mark.parametrize("jitted", [False, True])
def test_store_through_a_view_of_a_read_array_reaches_the_base(jitted):
    """A store through a view of an array read afterwards is a store into the base, as in NumPy
    (frontend/view_writes.py; it was refused before): never a store dropped, never a wrong number."""
    W, X, _ = _data(2)
    g = s2s.grad(lambda W, X: stored_through_view(W, X)[0])
    g = s2s.jit(g) if jitted else g
    got = g(W, X)
    np.testing.assert_allclose(got, fd_grad(lambda w: stored_through_view(w, X)[0], W), rtol=1e-5, atol=1e-6)
    assert np.abs(got).max() > 1e-3  # (a dropped store would give zeros)


def test_reduction_of_a_scratch_array_reaching_the_loss_keeps_its_stores():
    """`np.sum(ds)` only reads `ds` (so `ds` stays an array the function owns), and where the sum
    reaches the loss the stores before it stay."""
    def f(w, mask):
        ds = np.zeros(w.shape)
        ds[mask] = 2.0
        t = np.sum(ds)
        ds[0] = 100.0  # read by nothing after: dead
        return np.sum(w * w) * t

    def loss(w, mask):
        return f(w, mask)

    w = np.array([0.5, -1.0, 2.0])
    mask = np.array([True, False, True])
    for g in (s2s.grad(loss), s2s.jit(s2s.grad(loss))):
        got = g(w, mask)
        np.testing.assert_allclose(got, 2 * w * 4.0, rtol=1e-12)
        np.testing.assert_allclose(got, fd_grad(lambda v: loss(v, mask), w), rtol=1e-6)


def test_callee_called_twice_with_different_items():
    """Each call site asks for the items it reads; the caller reading item 1 at another call gets
    the real dW (compared with the author's own)."""
    def f(W, X, y):
        a = svm_loss_naive(W, X, y, 0.1)[0]
        b = svm_loss_naive(W, X, y, 0.2)[1]
        return a + np.sum(b * b)

    W, X, y = _data(3)
    for g in (s2s.grad(f), s2s.jit(s2s.grad(f))):
        got = g(W, X, y)
        np.testing.assert_allclose(got, fd_grad(lambda w: f(w, X, y), W), rtol=1e-5, atol=1e-6)
