"""A reverse sweep's forward loop with its tape as one array loop kernel (issue 46,
`s2s.compiler.passes.arrayloop`'s `_Tape`): cs231n's `svm_loss_naive` pushes seven values an
example (saved variables' old values, shape stubs, an item saved before a store), stores into the
margins it made and reads its labels from an integer array. The kernelized gradient equals the
unjitted one and central differences; with `S2S_NO_NUMBA` (or without numba) the Python loop
runs and gives the same numbers. A vector's sum inside a kernel is NumPy's, bitwise."""
import numpy as np
import pytest
from course_losses import softmax_first, softmax_loss_and_dw, svm_first, svm_loss_and_dw
from helpers_compare import fd_grad

import s2s
from s2s.compiler.emit import numba_arrayloops, numba_kernels
from s2s.compiler.passes import arrayloop

needs_numba = pytest.mark.skipif(not numba_kernels.available(), reason="numba not installed or S2S_NO_NUMBA set")
N = arrayloop.MIN_TRIPS + 8  # examples: the forward loop's trip count


def _args(n=N, d=30, c=10, seed=0):
    r = np.random.default_rng(seed)
    return r.normal(size=(d, c)) * 0.1, r.normal(size=(n, d)), r.integers(0, c, n), 0.1


def _calls(monkeypatch) -> list:
    """The array loops' compiled calls from here on (name, trips)."""
    seen = []
    real = numba_arrayloops.ArrayLoop._arguments

    def spy(self, args, n):
        found = real(self, args, n)
        if found is not None and found[1] not in self._refused:
            seen.append((self.name, n))
        return found
    monkeypatch.setattr(numba_arrayloops.ArrayLoop, "_arguments", spy)
    return seen


@needs_numba
def test_svm_forward_sweep_is_one_kernel_with_the_unjitted_gradient(monkeypatch):
    args = _args()
    g = s2s.jit(s2s.grad(svm_first))
    seen = _calls(monkeypatch)
    got = g(*args)
    assert seen == [("aloop_0", N), ("aloop_1", N)]  # (the backward sweep's loop too: test_backward_kernels.py)
    assert s2s.source(g, *args).count("# array loop kernel aloop_") == 2
    want = s2s.grad(svm_first)(*args)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, svm_loss_and_dw(*args)[1], rtol=1e-12, atol=1e-14)  # the author's dW
    W, X, y, reg = args
    np.testing.assert_allclose(got, fd_grad(lambda w: svm_first(w, X, y, reg), W), rtol=1e-5, atol=1e-7)
    for _ in range(2):  # again: the tape's items rebuilt each call, the gradient the same bits
        np.testing.assert_array_equal(g(*args), got)


@needs_numba
def test_code_built_without_numba_is_not_reused_once_it_is_back_on(monkeypatch):
    """The transform cache is keyed by the engines switched on: a gradient built under
    `S2S_NO_NUMBA=1` (Python loops) is rebuilt with its kernels when numba is on again."""
    args = _args(seed=5)
    with monkeypatch.context() as m:
        m.setenv("S2S_NO_NUMBA", "1")
        without = s2s.jit(s2s.grad(svm_first))(*args)
    seen = _calls(monkeypatch)
    got = s2s.jit(s2s.grad(svm_first))(*args)
    assert seen == [("aloop_0", N), ("aloop_1", N)]
    np.testing.assert_allclose(got, without, rtol=1e-12, atol=1e-14)


@needs_numba
def test_the_value_and_the_tape_s_items_are_the_python_loop_s(monkeypatch):
    """value_and_grad: the loss the kernel's loop adds up (sums of the margins, NumPy's pairwise
    order) is the plain function's, bitwise; the gradient as the Python loop gives it."""
    args = _args(seed=3)
    vg = s2s.jit(s2s.value_and_grad(svm_first))
    seen = _calls(monkeypatch)
    value, grad = vg(*args)
    assert seen and value == svm_first(*args)
    monkeypatch.setenv("S2S_NO_NUMBA", "1")
    value2, grad2 = s2s.jit(s2s.value_and_grad(svm_first))(*args)
    assert value2 == value
    np.testing.assert_allclose(grad, grad2, rtol=1e-12, atol=1e-14)


def test_without_numba_the_python_loop_gives_the_gradient(monkeypatch):
    monkeypatch.setenv("S2S_NO_NUMBA", "1")
    monkeypatch.setattr(numba_kernels, "load", lambda name, src: pytest.fail("numba was used"))
    args = _args(seed=1)
    g = s2s.jit(s2s.grad(svm_first))
    got = g(*args)  # (a version compiled with a kernel earlier in this process runs its Python loop)
    W, X, y, reg = args
    np.testing.assert_allclose(got, fd_grad(lambda w: svm_first(w, X, y, reg), W), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got, s2s.grad(svm_first)(*args), rtol=1e-12, atol=1e-14)


@needs_numba
def test_short_loops_and_float32_keep_the_python_loop(monkeypatch):
    seen = _calls(monkeypatch)
    short = _args(n=arrayloop.MIN_TRIPS - 2, seed=2)
    g = s2s.jit(s2s.grad(svm_first))
    np.testing.assert_allclose(g(*short), s2s.grad(svm_first)(*short), rtol=1e-12, atol=1e-14)
    W, X, y, reg = _args(seed=2)
    W32, X32 = W.astype(np.float32), X.astype(np.float32)
    got = s2s.jit(s2s.grad(svm_first))(W32, X32, y, reg)
    np.testing.assert_allclose(got, s2s.grad(svm_first)(W32, X32, y, reg), rtol=1e-5, atol=1e-6)
    assert seen == []


@needs_numba
def test_a_store_through_an_alias_is_one_kernel_with_shared_items(monkeypatch):
    """softmax_loss_naive's `ds = probs; ds[y[i]] -= 1` writes into the probabilities the tape
    holds twice (as `ds` and as `probs`), and `t6 = t5` pushes one array as two names: the kernel's
    tape holds one object for each pair, as Python's does, and the results `ds` and `probs` are
    one array, so the backward sweep restoring one restores the other. The gradient equals the
    unjitted one, the author's dW and central differences."""
    args = _args(seed=4)
    seen = _calls(monkeypatch)
    g = s2s.jit(s2s.grad(softmax_first))
    got = g(*args)
    assert seen == [("aloop_0", N), ("aloop_1", N)]
    np.testing.assert_allclose(got, s2s.grad(softmax_first)(*args), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, softmax_loss_and_dw(*args)[1], rtol=1e-12, atol=1e-14)
    W, X, y, reg = args
    np.testing.assert_allclose(got, fd_grad(lambda w: softmax_first(w, X, y, reg), W), rtol=1e-5, atol=1e-7)
    for _ in range(2):
        np.testing.assert_array_equal(g(*args), got)


def pushes_an_argument(xs, w):
    """A loop whose tape would hold the argument `w` itself (`v = w`, saved each iteration) while
    the function writes into arrays: the Python loop (the kernel's rows would be copies)."""
    total = 0.0
    out = np.zeros(3)
    for t in range(xs.shape[0]):
        v = w
        h = np.tanh(xs[t] * v)
        h[0] = 0.0
        total = total + np.sum(h * h)
    out[0] = total
    return out[0]


@needs_numba
def test_an_argument_pushed_where_arrays_are_written_keeps_the_python_loop(monkeypatch):
    r = np.random.default_rng(5)
    xs, w = r.normal(size=(N, 3)), r.normal(size=3)
    seen = _calls(monkeypatch)
    g = s2s.jit(s2s.grad(pushes_an_argument, argnums=(0, 1)))
    got = g(xs, w)
    src = s2s.source(g, xs, w)
    assert "append(v)" in src or "append(rt.shape_stub(v))" in src  # (the loop saves `v`, which is `w`)
    assert seen == []
    want = s2s.grad(pushes_an_argument, argnums=(0, 1))(xs, w)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[1], fd_grad(lambda v: pushes_an_argument(xs, v), w), rtol=1e-6, atol=1e-8)


def row_sums(xs):
    total = 0.0
    for t in range(xs.shape[0]):
        row = xs[t] * 2.0
        s = np.sum(row)
        total = total + s + s * row[0]
    return total


@needs_numba
@pytest.mark.parametrize("width", [3, 8, 13, 128, 129, 200, 1000])
def test_a_vector_sum_in_a_kernel_is_numpy_s_bitwise(monkeypatch, width):
    xs = np.random.default_rng(width).normal(size=(N, width)) * 10.0 ** (np.arange(width) % 9 - 4)
    j = s2s.jit(row_sums)
    seen = _calls(monkeypatch)
    assert j(xs) == row_sums(xs)
    assert seen == [("aloop_0", N)]


@needs_numba
def test_a_label_out_of_range_raises_the_python_loop_s_error(monkeypatch):
    """The kernel's IndexError sends the call to the Python loop, which raises the user's own
    error at their line; the tape and the arguments are as before the call."""
    W, X, y, reg = _args(seed=6)
    g = s2s.jit(s2s.grad(svm_first))
    good = g(W, X, y, reg)
    bad = y.copy()
    bad[N - 3] = 10  # (C = 10 classes)
    with pytest.raises(IndexError):
        svm_first(W, X, bad, reg)
    with pytest.raises(IndexError):
        g(W, X, bad, reg)
    seen = _calls(monkeypatch)
    np.testing.assert_array_equal(g(W, X, y, reg), good)
    assert seen == [("aloop_0", N), ("aloop_1", N)]  # (an error of the data does not switch the kernel off)
