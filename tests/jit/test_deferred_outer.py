"""Deferred outer products (passes/accumulate.py, runtime/deferred_sums.py): a loop's
`acc = acc + rt.dot_vjp_b(v, a, b)` or `acc + xp.outer(a, v)` keeps `a` and `v` as rows and adds
them as matrix products. The code it makes, its values against the loop as written (blocks of
rows, no iteration, terms the runtime adds at once), the loops it leaves alone, and jit(grad) of
cs231n's per-example losses against the unjitted gradient and central differences."""
import textwrap

import gast
import numpy as np
import pytest
from course_losses import svm_first, svm_loss_and_dw
from helpers_compare import assert_trees_close, fd_grad

import s2s
from s2s import runtime as rt
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import accumulate
from s2s.runtime import deferred_sums


def _run(src, shapes=None):
    fn = gast.parse(textwrap.dedent(src)).body[0]
    before = to_source(fn)
    fn.body, changed = accumulate.PASS(fn.body, {a.id for a in fn.args.args}, {"name_shapes": shapes or {}})
    return before, to_source(fn), changed


def _call(src, *args):
    ns = {"xp": np, "rt": rt}
    exec(src, ns)  # noqa: S102 - the test's own generated function
    return ns["f"](*args)


LOOP = """
def f(xs, gs, w, acc, marks):
    r = range(len(xs))
    for i in r:
        a = xs[i]
        g = gs[i] * 2.0
        marks[i] = 1.0
        acc = acc + rt.dot_vjp_b(g, a, w)
        g[0] = 5.0
    return acc, marks
"""


def _args(n, d=7, c=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(n, c)), rng.normal(size=(d, c)), rng.normal(size=(d, c)), \
        np.zeros(n)


def test_outer_accumulation_keeps_rows_and_equals_the_loop():
    before, after, changed = _run(LOOP)
    assert changed
    assert "rows_0 = rt.deferred_rows(r)" in after
    assert "acc = rt.defer_dot_vjp_b(rows_0, acc, g, a, w)" in after.split("for i in")[1]
    assert after.split("for i in")[1].split("\n    acc = ")[1].startswith("rt.add_deferred(rows_0, acc)")
    # more iterations than a block (blocks added inside the loop), fewer, one, none
    for n in (3 * deferred_sums.OUTER_BLOCK + 5, deferred_sums.OUTER_BLOCK, 5, 1, 0):
        got, want = _call(after, *_args(n)), _call(before, *_args(n))
        assert_trees_close(got, want, rtol=1e-13, atol=1e-13)
        if n == 0:
            assert got[0] is not None and np.array_equal(got[0], want[0])
    # the loop writes into `g` after the term: the rows are copies taken at the term
    xs, gs, w, acc, marks = _args(40)
    expected = acc + sum(np.outer(xs[i], gs[i] * 2.0) for i in range(40))
    assert_trees_close(_call(after, xs, gs, w, acc, marks)[0], expected, rtol=1e-13, atol=1e-13)


def test_terms_the_runtime_adds_at_once():
    _, after, _ = _run(LOOP)
    xs, gs, w, acc, marks = _args(50)
    # int rows (not float64): each term added as the loop adds it, and the same sum
    xi, gi = np.arange(50 * 7).reshape(50, 7) % 5, np.arange(50 * 3).reshape(50, 3) % 4
    want = acc + sum(np.outer(xi[i], gi[i] * 2.0) for i in range(50))
    assert_trees_close(_call(after, xi, gi, w, acc, marks)[0], want, rtol=1e-13)
    # a matrix row (`a` of 2 axes): dot_vjp_b's own rule, no rows
    xs3 = np.random.default_rng(1).normal(size=(50, 2, 7))
    gs3 = np.random.default_rng(2).normal(size=(50, 2, 3))
    want = acc + sum(xs3[i].T @ (gs3[i] * 2.0) for i in range(50))
    assert_trees_close(_call(after, xs3, gs3, w, acc, marks)[0], want, rtol=1e-13)
    # a term of another length than the rows so far: added at once, the rows kept as they are
    rows = rt.deferred_rows(range(10))
    total = np.zeros((7, 3))
    for k in range(4):
        total = rt.defer_outer(rows, total, np.full(7, k + 1.0), np.full(3, k + 2.0))
    assert np.array_equal(total, np.zeros((7, 3))) and rows.k == 4
    other = rt.defer_outer(rows, np.zeros((5, 3)), np.ones(5), np.ones(3))
    assert np.array_equal(other, np.ones((5, 3))) and rows.k == 4
    total = rt.add_deferred(rows, total)
    assert np.array_equal(total, np.full((7, 3), sum((k + 1.0) * (k + 2.0) for k in range(4))))


def test_loops_that_stay_and_exits_that_do_not_matter():
    read_inside = LOOP.replace("g = gs[i] * 2.0", "g = gs[i] * xp.sum(acc)")  # `acc` read besides its sum
    assert "rt.dot_vjp_b(g, a, w)" in _run(read_inside)[1]
    returns = LOOP.replace("        g[0] = 5.0\n", "        if i > 3:\n            return acc, marks\n")
    assert not _run(returns)[2]
    keywords = LOOP.replace("rt.dot_vjp_b(g, a, w)", "rt.dot_vjp_b(g, a, w=w)")
    assert not _run(keywords)[2]
    # `continue` and `break` in the loop: a term the loop skips is not kept
    cont = LOOP.replace("        marks[i] = 1.0\n", "        marks[i] = 1.0\n        if i % 3 == 0:\n            continue\n"
                        "        if i > 70:\n            break\n")
    before, after, changed = _run(cont)
    assert changed and "rt.defer_dot_vjp_b" in after
    assert_trees_close(_call(after, *_args(90)), _call(before, *_args(90)), rtol=1e-13, atol=1e-13)


OUTER = """
def f(xs, gs, acc):
    for i in range(len(xs)):
        acc = xp.outer(xs[i], gs[i]) + acc
    return acc
"""


def test_xp_outer_form():
    src = OUTER.replace("xp.outer(xs[i], gs[i])", "xp.outer(a, g)").replace(
        "    for i in range(len(xs)):\n", "    for i in range(len(xs)):\n        a = xs[i]\n        g = gs[i]\n")
    before, after, changed = _run(src)
    assert changed and "acc = rt.defer_outer(rows_0, acc, a, g)" in after and "rt.deferred_rows(None)" in after
    xs, gs, _, acc, _ = _args(100)
    assert_trees_close(_call(after, xs, gs, acc), _call(before, xs, gs, acc), rtol=1e-13, atol=1e-13)


# cs231n's per-example losses (the course's naive forms, as bench_loops's corpus programs write them)
def svm_loss_naive(W, X, y, reg):
    num_train = X.shape[0]
    loss = 0.0
    for i in range(num_train):
        scores = X[i].dot(W)
        correct_class_score = scores[y[i]]
        margins = np.maximum(0, scores - correct_class_score + 1)
        margins[y[i]] = 0
        loss += np.sum(margins)
    loss /= num_train
    loss += 0.5 * reg * np.sum(W * W)
    return loss


def svm_loss_classes(W, X, y, reg):
    loss = 0.0
    for i in range(X.shape[0]):
        scores = X[i].dot(W)
        correct_class_score = scores[y[i]]
        for j in range(W.shape[1]):
            if j == y[i]:
                continue
            margin = scores[j] - correct_class_score + 1
            if margin > 0:
                loss += margin
    return loss / X.shape[0] + reg * np.sum(W * W)


def softmax_loss_naive(W, X, y, reg):
    loss = 0.0
    for i in range(X.shape[0]):
        scores = X[i].dot(W)
        scores -= np.max(scores)
        probs = np.exp(scores) / np.sum(np.exp(scores))
        loss -= np.log(probs[y[i]])
    loss /= X.shape[0]
    loss += 0.5 * reg * np.sum(W ** 2)
    return loss


@pytest.mark.parametrize("numba", [True, False], ids=["numba", "no-numba"])
@pytest.mark.parametrize("loss", [svm_loss_naive, svm_loss_classes, softmax_loss_naive, svm_first])
def test_jit_grad_of_per_example_losses(loss, numba, monkeypatch):
    if numba:
        pytest.importorskip("numba")
    else:
        monkeypatch.setenv("S2S_NO_NUMBA", "1")
    rng = np.random.default_rng(3)
    n = 2 * deferred_sums.OUTER_BLOCK + 9  # (rows added inside the loop and after it)
    W, X, y = rng.normal(size=(13, 5)) * 0.3, rng.normal(size=(n, 13)), rng.integers(0, 5, n)
    g = s2s.jit(s2s.grad(loss))
    got = g(W, X, y, 0.1)
    src = s2s.source(g, W, X, y, 0.1)
    assert "rt.defer_" in src or "dfr" in src  # (in the Python loop, or as a backward kernel's rows)
    assert_trees_close(got, s2s.grad(loss)(W, X, y, 0.1), rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(got, fd_grad(lambda w: loss(w, X, y, 0.1), W), rtol=1e-5, atol=1e-7)
    if loss is svm_first:  # the author's own gradient
        np.testing.assert_allclose(got, svm_loss_and_dw(W, X, y, 0.1)[1], rtol=1e-12, atol=1e-14)
