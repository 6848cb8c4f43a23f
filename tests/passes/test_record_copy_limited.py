"""A backward sweep copies only the parts of its record it writes into (issue 46 section 2,
transforms/record_writes.py): `rt.private(saved, positions)` copies the arrays under those
positions (the restored `margins` of cs231n's naive SVM loss and the tape it is popped from) and
any array sharing memory with them, and shares the rest (`X`, read only). A vjp_fn called twice
gives the same cotangents and leaves the record and the caller's arrays as they were. Values
against central differences and the author's own gradient."""
import tracemalloc

import numpy as np
import pytest
from course_losses import softmax_first, softmax_loss_and_dw, svm_first, svm_loss_and_dw
from helpers_compare import assert_trees_close, fd_grad

import s2s
from s2s import runtime as rt


def _data(seed, n=40, d=11, c=4):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(d, c)) * 0.3, rng.normal(size=(n, d)), rng.integers(0, c, n)


def _private_call(code: str) -> str:
    line = next(ln for ln in code.splitlines() if "rt.private(saved" in ln)
    return line[line.index("rt.private("):]


@pytest.mark.parametrize("loss, author", [(svm_first, svm_loss_and_dw), (softmax_first, softmax_loss_and_dw)])
def test_only_the_restored_parts_are_copied(loss, author):
    W, X, y = _data(5)
    g = s2s.jit(s2s.grad(loss))
    got = g(W, X, y, 0.1)
    call = _private_call(s2s.source(g, W, X, y, 0.1))
    assert "True" not in call and "(" in call[len("rt.private("):], call  # positions, not every array
    np.testing.assert_allclose(got, author(W, X, y, 0.1)[1], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(got, fd_grad(lambda w: loss(w, X, y, 0.1), W), rtol=1e-5, atol=1e-7)


def test_the_backward_sweep_does_not_copy_the_input_it_only_reads():
    """X (4.8 MB) is read by the backward sweep, never written: the sweep allocates far less."""
    W, X, y = _data(6, n=200, d=3000, c=10)
    for g in (s2s.grad(svm_first), s2s.jit(s2s.grad(svm_first))):
        g(W, X, y, 0.1)  # (first call: the code is compiled)
        tracemalloc.start()
        try:
            got = g(W, X, y, 0.1)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < X.nbytes * 0.6, (peak, X.nbytes)  # (a copy of X alone would be X.nbytes)
        np.testing.assert_allclose(got, svm_loss_and_dw(W, X, y, 0.1)[1], rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("loss", [svm_first, softmax_first])
def test_vjp_fn_twice_gives_the_same_and_changes_nothing(loss):
    W, X, y = _data(7)
    X0, W0 = X.copy(), W.copy()
    value, vjp_fn = s2s.vjp(loss, W, X, y, 0.1)
    first = vjp_fn(1.0)
    second = vjp_fn(1.0)
    assert_trees_close(first[:2], second[:2], rtol=0, atol=0)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(W, W0)
    assert value == loss(W, X, y, 0.1)
    np.testing.assert_allclose(first[0], fd_grad(lambda w: loss(w, X, y, 0.1), W), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(first[1], fd_grad(lambda x: loss(W, x, y, 0.1), X), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(vjp_fn(2.0)[0], 2.0 * first[0], rtol=1e-12)


def test_under_vmap_and_jit():
    """Per-example gradients of the loss (one W per example) under vmap and jit: each the loop's."""
    W, X, y = _data(8, n=12)
    Ws = np.stack([W, 2.0 * W, -W])
    f = s2s.grad(svm_first)
    want = np.stack([f(w, X, y, 0.1) for w in Ws])
    for g in (s2s.vmap(f, in_axes=(0, None, None, None)), s2s.jit(s2s.vmap(f, in_axes=(0, None, None, None)))):
        assert_trees_close(g(Ws, X, y, 0.1), want, rtol=1e-10, atol=1e-13)
        assert_trees_close(g(Ws, X, y, 0.1), want, rtol=1e-10, atol=1e-13)


def test_private_shares_what_it_is_not_told_to_copy():
    big = np.arange(12.0).reshape(3, 4)
    restored = np.ones(3)
    tape = [np.zeros(2), 1.5]
    record = (big, tape, restored, 2.0)
    copy = rt.private(record, (1, 2))
    assert copy[0] is big and copy[3] == 2.0
    assert copy[1] is not tape and copy[1][0] is not tape[0] and copy[2] is not restored
    copy[2][0] = 9.0
    copy[1][0][0] = 9.0
    copy[1].pop()
    assert restored[0] == 1.0 and tape[0][0] == 0.0 and len(tape) == 2


def test_private_copies_what_shares_memory_with_a_copied_array():
    """A view of a restored array (or its base) is copied too, and stays a view of the copy, so a
    restore into one shows in the other as it does in the forward sweep."""
    base = np.arange(6.0)
    view = base[2:]
    for record, positions, b, v in (((base, view), (0,), 0, 1), ((base, view), (1,), 0, 1),
                                    ((view, [base]), (1,), None, 0)):
        copy = rt.private(record, positions)
        cb = copy[1][0] if b is None else copy[b]
        cv = copy[v]
        assert cb is not base and cv is not view
        cb[3] = -1.0
        assert cv[1] == -1.0 and base[3] == 3.0 and view[1] == 3.0
