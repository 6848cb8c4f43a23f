"""Gradients of loops that nest, branch and jump (issue 46 section 2): under jit, shape folding
knows what reverse mode restores from its tape (`shapefold.record_lists`: a pop into a saved
variable is one of its own earlier values), the ranges it pops back (`r2 = ctl.pop()` read by
`rt.reversed_range`) and an integer parameter's elements as indices; `passes/records.py` then
drops the saves whose restores nobody reads. Values against the plain function's gradient
(s2s without jit), central differences and, for cs231n's `svm_loss_naive`, the author's own
hand-written gradient; the generated code shows what left the tape."""
import numpy as np
import pytest
from helpers_compare import assert_trees_close, fd_grad

import s2s


def svm_loss_naive(W, X, y, reg):
    """cs231n's structured SVM loss with loops (the dW the author computes alongside is dropped:
    s2s differentiates the loss)."""
    num_classes = W.shape[1]
    num_train = X.shape[0]
    loss = 0.0
    for i in range(num_train):
        scores = X[i].dot(W)
        correct_class_score = scores[y[i]]
        for j in range(num_classes):
            if j == y[i]:
                continue
            margin = scores[j] - correct_class_score + 1
            if margin > 0:
                loss += margin
    loss /= num_train
    loss += reg * np.sum(W * W)
    return loss


def svm_hand_gradient(W, X, y, reg):
    """The author's backward, written alongside the loss in the same loops."""
    dW = np.zeros(W.shape)
    num_train = X.shape[0]
    for i in range(num_train):
        scores = X[i].dot(W)
        correct_class_score = scores[y[i]]
        for j in range(W.shape[1]):
            if j == y[i]:
                continue
            if scores[j] - correct_class_score + 1 > 0:
                dW[:, j] += X[i]
                dW[:, y[i]] -= X[i]
    return dW / num_train + 2 * reg * W


def _svm_args(n=12, d=7, c=4, seed=0):
    r = np.random.default_rng(seed)
    return r.normal(size=(d, c)) * 0.5, r.normal(size=(n, d)), r.integers(0, c, n), 0.1


def _loop_code(fn, *args) -> str:
    src = s2s.source(fn, *args).split("return any_shape(")[1].split("\n# ")[0]
    return "\n".join(line for line in src.split("\n") if not line.strip().startswith("#"))


def test_svm_gradient_matches_the_hand_written_one_and_central_differences():
    W, X, y, reg = _svm_args()
    g = s2s.jit(s2s.grad(svm_loss_naive))
    got = g(W, X, y, reg)
    assert_trees_close(got, svm_hand_gradient(W, X, y, reg), rtol=1e-12, atol=1e-14)
    assert_trees_close(got, s2s.grad(svm_loss_naive)(W, X, y, reg), rtol=1e-13, atol=1e-15)
    assert_trees_close(got, fd_grad(lambda w: svm_loss_naive(w, X, y, reg), W), rtol=1e-6, atol=1e-8)


def test_svm_gradient_loses_its_helpers_and_dead_saves():
    """The margin's and the running loss's unbroadcasts fold (the restored values' shapes are
    their own), so `loss` and `t7` are saved no more; `rt.tree_add` of two numbers is `+`."""
    args = _svm_args()
    code = _loop_code(s2s.jit(s2s.grad(svm_loss_naive)), *args)
    assert "rt.unbroadcast" not in code and "rt.tree_add" not in code
    assert "rt.shape_stub(loss)" not in code and "loss = tape.pop()" not in code
    plain = s2s.source(s2s.grad(svm_loss_naive))  # (without shapes nothing folds: all are saved)
    assert code.count("tape.append(") < plain.count("tape.append(")
    for seed in (1, 2):  # other draws: other branches taken
        W, X, y, reg = _svm_args(n=9, seed=seed)
        assert_trees_close(s2s.jit(s2s.grad(svm_loss_naive))(W, X, y, reg), svm_hand_gradient(W, X, y, reg),
                           rtol=1e-12, atol=1e-14)


def test_svm_gradient_for_other_shapes():
    """A second shape runs the version for every shape (no folds), one example included."""
    g = s2s.jit(s2s.grad(svm_loss_naive))
    W, X, y, reg = _svm_args()
    g(W, X, y, reg)
    for n in (1, 3):
        W2, X2, y2, _ = _svm_args(n=n, d=5, c=3, seed=4)
        assert_trees_close(g(W2, X2, y2, reg), svm_hand_gradient(W2, X2, y2, reg), rtol=1e-12, atol=1e-14)


def bool_labels(W, X, y):
    """`scores[y[i]]` with `y` boolean: NumPy reads `scores[True]` as a new axis, not an item;
    an integer index's fold must not take it."""
    loss = 0.0
    for i in range(X.shape[0]):
        scores = X[i].dot(W)
        pick = scores[y[i]]
        loss = loss + np.sum(np.tanh(pick) * scores[0])
    return loss


def test_a_boolean_parameter_is_no_index():
    r = np.random.default_rng(5)
    W, X, y = r.normal(size=(3, 4)), r.normal(size=(6, 3)), r.integers(0, 2, 6).astype(bool)
    g = s2s.jit(s2s.grad(bool_labels))
    assert_trees_close(g(W, X, y), s2s.grad(bool_labels)(W, X, y), rtol=1e-13, atol=1e-15)
    assert_trees_close(g(W, X, y), fd_grad(lambda w: bool_labels(w, X, y), W), rtol=1e-6, atol=1e-8)


def nested_while_break(x, w):
    """A data-dependent `while` with an early `break` inside a `for`: the trip counts the
    backward sweep pops are counters, not ranges, and keep their records."""
    s = 0.0
    for i in range(x.shape[0]):
        k = 0
        v = x[i]
        while k < 5:
            v = np.sin(v) * w[k % w.shape[0]]
            if v > 0.7:
                break
            s = s + v * v
            k = k + 1
    return s


def swapped_stack(x, v):
    """A user's own list whose pops take another name's pushes (x's slot gets v's value): no
    record list (no shape stub), so nothing about it is assumed."""
    out = 0.0
    a = x
    b = v
    for _ in range(3):
        stack = []
        stack.append(a)
        stack.append(b)
        a = stack.pop()
        b = stack.pop() * 1.5
        out = out + np.sum(np.sin(a)) + np.sum(b * b)
    return out


@pytest.mark.parametrize("f,shapes", [(nested_while_break, ((6,), (3,))), (swapped_stack, ((4,), (3,)))])
def test_loops_with_jumps_and_user_stacks_against_central_differences(f, shapes):
    r = np.random.default_rng(6)
    x, w = (r.normal(size=s) for s in shapes)
    g = s2s.jit(s2s.grad(f, argnums=(0, 1)))
    got = g(x, w)
    assert_trees_close(got, s2s.grad(f, argnums=(0, 1))(x, w), rtol=1e-13, atol=1e-15)
    assert_trees_close(got[0], fd_grad(lambda a: f(a, w), x), rtol=1e-6, atol=1e-8)
    assert_trees_close(got[1], fd_grad(lambda b: f(x, b), w), rtol=1e-6, atol=1e-8)


def branchy_recurrence(x, a):
    """Nested loops over a matrix's rows and columns with an `if`: a scalar state rebound in the
    inner loop, saved and restored per element."""
    h = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if x[i, j] > 0:
                h = np.tanh(a * h + x[i, j])
            else:
                h = h * 0.5 - x[i, j]
    return h * h


def test_nested_branchy_recurrence():
    r = np.random.default_rng(7)
    x = r.normal(size=(5, 4))
    g = s2s.jit(s2s.grad(branchy_recurrence, argnums=(0, 1)))
    got = g(x, 0.8)
    assert_trees_close(got, s2s.grad(branchy_recurrence, argnums=(0, 1))(x, 0.8), rtol=1e-13, atol=1e-15)
    assert_trees_close(got[0], fd_grad(lambda z: branchy_recurrence(z, 0.8), x), rtol=1e-6, atol=1e-8)
    e = 1e-6
    assert abs(got[1] - (branchy_recurrence(x, 0.8 + e) - branchy_recurrence(x, 0.8 - e)) / (2 * e)) < 1e-6


def test_svm_gradient_keeps_no_tape_and_float32_keeps_its_dtype():
    """`float64.py`: the zeros of float64 cotangents are `xp.zeros((C,))` and `0.0`, so the
    restores of `scores`, `correct_class_score` and `margin` are dead and the tape is gone; a
    float32 version keeps `rt.zeros_like_tree` (its zeros are float32) and the plain grad's dtype."""
    args = _svm_args()
    code = _loop_code(s2s.jit(s2s.grad(svm_loss_naive)), *args)
    assert "tape" not in code and "rt.zeros_like_tree" not in code and "xp.zeros((4,))" in code
    # the scores' cotangent updated item by item and the weights' by an outer product, no helpers
    assert "rt.add_at" not in code and "b_scores[j] = b_scores[j] + " in code and "rt.defer_outer(" in code
    W, X, y, reg = args
    W32, X32 = W.astype(np.float32), X.astype(np.float32)
    g = s2s.jit(s2s.grad(svm_loss_naive))
    got, want = g(W32, X32, y, reg), s2s.grad(svm_loss_naive)(W32, X32, y, reg)
    assert got.dtype == want.dtype == np.float32
    assert_trees_close(got, want, rtol=1e-6, atol=1e-7)
    assert "rt.zeros_like_tree" in _loop_code(g, W32, X32, y, reg)
