"""Shapes through an inlined call's record (passes/shapefold.py, `record_unpacks`): the names a
backward sweep unpacks from its copy of the forward sweep's record, `(...) = rt.private(saved0,
True)`, have the shapes of the names the record holds, its tape's pops restore the forward
sweep's pushes, and the loop index and the labels `y[i]` stay ints; so the helpers of the backward
loop of a loss written as `f(...)[0]` fold as those of `f` alone do. Values against the unjitted
gradient, central differences and the author's own gradient."""
import numpy as np
from course_losses import softmax_first, softmax_loss_and_dw, svm_first, svm_loss_and_dw
from helpers_compare import assert_trees_close, fd_grad

import s2s


def _backward_loop(code: str) -> list[str]:
    loop = code[code.index("for bwd_"):]
    return [ln for ln in loop[:loop.index("\n    del")].splitlines() if not ln.strip().startswith("#")]


def test_backward_loop_of_an_inlined_call_folds_its_helpers(monkeypatch):
    monkeypatch.setenv("S2S_NO_NUMBA", "1")  # (the backward loop as Python, not an array loop kernel)
    s2s.clear_caches()  # (a version another test compiled with numba on would be reused)
    rng = np.random.default_rng(5)
    W, X, y = rng.normal(size=(11, 4)) * 0.3, rng.normal(size=(40, 11)), rng.integers(0, 4, 40)
    g = s2s.jit(s2s.grad(svm_first))
    got = g(W, X, y, 0.1)
    loop = _backward_loop(s2s.source(g, W, X, y, 0.1))
    text = "\n".join(loop)
    # the scores' cotangent is the margins' one, as in svm_loss_naive alone: no unbroadcast against
    # the restored scores or correct_class_score (they were `rt.unbroadcast(b_t7, scores)`)
    assert "rt.fresh(" in text and "_scores)" not in text.replace("rt.fresh(", ""), text
    assert not any("rt.unbroadcast(" in ln and "correct_class_score" in ln for ln in loop), text
    assert_trees_close(got, s2s.grad(svm_first)(W, X, y, 0.1), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, svm_loss_and_dw(W, X, y, 0.1)[1], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, fd_grad(lambda w: svm_first(w, X, y, 0.1), W), rtol=1e-5, atol=1e-7)


def test_softmax_backward_loop_folds_the_max_and_the_zeros(monkeypatch):
    monkeypatch.setenv("S2S_NO_NUMBA", "1")  # (the backward loop as Python, not an array loop kernel)
    s2s.clear_caches()  # (a version another test compiled with numba on would be reused)
    rng = np.random.default_rng(7)
    W, X, y = rng.normal(size=(9, 5)) * 0.3, rng.normal(size=(40, 9)), rng.integers(0, 5, 40)
    g = s2s.jit(s2s.grad(softmax_first))
    got = g(W, X, y, 0.1)
    loop = _backward_loop(s2s.source(g, W, X, y, 0.1))
    text = "\n".join(loop)
    # the probabilities' cotangent starts as float64 zeros of their shape, and neither the scores'
    # cotangent nor the max's is unbroadcast against the restored scores
    assert "rt.zeros_like_tree" not in text and "xp.zeros((5,))" in text, text
    assert not any("rt.unbroadcast(" in ln and "_scores" in ln for ln in loop), text
    assert "rt.max_vjp(" in text and "rt.tree_add(" not in text, text
    assert_trees_close(got, s2s.grad(softmax_first)(W, X, y, 0.1), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, softmax_loss_and_dw(W, X, y, 0.1)[1], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(got, fd_grad(lambda w: softmax_first(w, X, y, 0.1), W), rtol=1e-5, atol=1e-7)


def test_one_example_and_float32():
    """One iteration (the record's copies are the loop's only values), and float32 arrays, whose
    version keeps its helpers' dtype."""
    rng = np.random.default_rng(6)
    W, X, y = rng.normal(size=(7, 3)), rng.normal(size=(1, 7)), np.array([2])
    g = s2s.jit(s2s.grad(svm_first))
    np.testing.assert_allclose(g(W, X, y, 0.1), svm_loss_and_dw(W, X, y, 0.1)[1], rtol=1e-12, atol=1e-14)
    W32, X32 = W.astype(np.float32), rng.normal(size=(6, 7)).astype(np.float32)
    y6 = rng.integers(0, 3, 6)
    got, want = g(W32, X32, y6, 0.1), s2s.grad(svm_first)(W32, X32, y6, 0.1)
    assert got.dtype == want.dtype == np.float32
    assert_trees_close(got, want, rtol=1e-5, atol=1e-6)
