"""`a op= v`'s check under jit, where reverse mode keeps it as `rt.inplace_checked` (a forward
sweep that does not read its value): passes/float64.py counts its result float64 where `r` and
`a` are, as rt.inplace's (Prim.checks), so shape folding drops it in softmax_loss_naive's loop
(`scores -= np.max(scores)`, a name bound twice per iteration) and the loop's kernels see
`scores = scores - m`. A check it cannot prove passes (float32, an int array) stays and raises
where NumPy does."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s


def softmax_loss(W, X, y):
    loss = 0.0
    for i in range(X.shape[0]):
        scores = X[i].dot(W)
        scores -= np.max(scores)
        probs = np.exp(scores) / np.sum(np.exp(scores))
        loss -= np.log(probs[y[i]])
    return loss / X.shape[0]


def softmax_loss32(W, X, y):
    loss = 0.0
    for i in range(X.shape[0]):
        scores = X[i].dot(W).astype(np.float32)
        scores -= np.max(scores)
        loss -= np.log(np.exp(scores[y[i]]) / np.sum(np.exp(scores)))
    return loss / X.shape[0]


def int_scores(W, X, y):
    loss = 0.0
    for i in range(X.shape[0]):
        scores = y * 1
        scores -= X[i].dot(W)  # (NumPy: UFuncTypeError, float64 into an int array)
        loss -= np.sum(scores)
    return loss


@pytest.fixture
def args():
    r = np.random.default_rng(3)
    return r.normal(size=(6, 4)) * 0.3, r.normal(size=(5, 6)), r.integers(0, 4, 5)


def test_softmax_check_folds(args):
    g = s2s.jit(s2s.grad(softmax_loss))
    got = g(*args)
    assert "inplace" not in s2s.source(g, *args)
    np.testing.assert_allclose(got, fd_grad(lambda w: softmax_loss(w, *args[1:]), args[0]), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, s2s.grad(softmax_loss)(*args), rtol=1e-12, atol=1e-14)


def test_float32_check_stays(args):
    g = s2s.jit(s2s.grad(softmax_loss32))
    got = g(*args)
    assert "rt.inplace" in s2s.source(g, *args)
    np.testing.assert_allclose(got, fd_grad(lambda w: np.float64(softmax_loss32(w, *args[1:])), args[0], eps=1e-3),
                               rtol=2e-2, atol=2e-3)


@pytest.mark.parametrize("how", ["jit", "grad", "jit_grad"])
def test_int_check_raises(args, how):
    W, X, y = args
    y = y[:4]
    with pytest.raises(TypeError):  # (NumPy's UFuncTypeError)
        int_scores(W, X, y)
    f = {"jit": s2s.jit(int_scores), "grad": s2s.grad(int_scores), "jit_grad": s2s.jit(s2s.grad(int_scores))}[how]
    with pytest.raises(TypeError):
        f(W, X, y)
