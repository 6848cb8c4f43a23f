"""A reverse sweep's backward loop as an array loop kernel (issue 46, `passes/arraypops.py`,
`emit/numba_arraypops.py`): the loop pops several values an iteration off its tape, restores
slots of arrays (`a[j] = tape.pop()`), calls the runtime helpers a reverse sweep calls and adds
deferred outer products. cs231n's `svm_loss_naive` and `softmax_loss_naive` (the corpus's files)
run both sweeps as kernels; their gradients equal the unjitted ones, the authors' dW and central
differences, with and without numba. Loops built by hand check what the kernel must keep of
Python's objects: a popped array something else holds gets the loop's writes, one object popped
as two names stays one, an argument written into is written, and where the kernel cannot stand
for the loop (an object popped in two iterations, a view, an index out of bounds half-way) the
Python loop runs and leaves exactly what the loop alone leaves."""
import copy

import gast
import numpy as np
import pytest
from course_losses import softmax_first, softmax_loss_and_dw, svm_first, svm_loss_and_dw
from helpers_compare import fd_grad

import s2s
from s2s.compiler.emit import numba_arrayloops, numba_kernels
from s2s.compiler.passes import arrayloop

needs_numba = pytest.mark.skipif(not numba_kernels.available(), reason="numba not installed or S2S_NO_NUMBA set")
N = arrayloop.MIN_TRIPS + 8


def _args(n=N, d=30, c=10, seed=0):
    r = np.random.default_rng(seed)
    return r.normal(size=(d, c)) * 0.1, r.normal(size=(n, d)), r.integers(0, c, n), 0.1


def _compiled_calls(monkeypatch) -> list:
    """The array loops that ran compiled from here on (name, trips): their Python loop did not run."""
    seen = []
    real_call, real_python = numba_arrayloops.ArrayLoop.__call__, numba_arrayloops.ArrayLoop._python

    def python(self, xp, args):
        self._ran_python = True
        return real_python(self, xp, args)

    def call(self, xp, *args):
        self._ran_python = False
        out = real_call(self, xp, *args)
        if not self._ran_python:
            seen.append((self.name, len(self._range(xp, *args))))
        return out
    monkeypatch.setattr(numba_arrayloops.ArrayLoop, "_python", python)
    monkeypatch.setattr(numba_arrayloops.ArrayLoop, "__call__", call)
    return seen


@needs_numba
@pytest.mark.parametrize("loss, author", [(svm_first, svm_loss_and_dw), (softmax_first, softmax_loss_and_dw)],
                         ids=["svm", "softmax"])
def test_both_sweeps_of_the_course_losses_are_kernels(loss, author, monkeypatch):
    args = _args(seed=1)
    seen = _compiled_calls(monkeypatch)
    g = s2s.jit(s2s.grad(loss))
    got = g(*args)
    assert seen == [("aloop_0", N), ("aloop_1", N)]  # the forward sweep, then the backward one
    src = s2s.source(g, *args)
    assert src.count("# array loop kernel aloop_") == 2 and "dfr" in src  # (the deferred product's rows)
    np.testing.assert_allclose(got, s2s.grad(loss)(*args), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, author(*args)[1], rtol=1e-10, atol=1e-13)
    W, X, y, reg = args
    np.testing.assert_allclose(got, fd_grad(lambda w: loss(w, X, y, reg), W), rtol=1e-5, atol=1e-7)
    for _ in range(2):  # again: the same bits, the tape and the record rebuilt each call
        np.testing.assert_array_equal(g(*args), got)
    value, grad = s2s.jit(s2s.value_and_grad(loss))(*args)
    assert value == pytest.approx(loss(*args), rel=1e-13)
    np.testing.assert_array_equal(grad, got)


@pytest.mark.parametrize("loss", [svm_first, softmax_first], ids=["svm", "softmax"])
def test_without_numba_the_python_loops_give_the_same_gradient(loss, monkeypatch):
    args = _args(seed=2)
    want = s2s.grad(loss)(*args)
    monkeypatch.setenv("S2S_NO_NUMBA", "1")
    monkeypatch.setattr(numba_kernels, "load", lambda name, src: pytest.fail("numba was used"))
    got = s2s.jit(s2s.grad(loss))(*args)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    W, X, y, reg = args
    np.testing.assert_allclose(got, fd_grad(lambda w: loss(w, X, y, reg), W), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("loss", [svm_first, softmax_first], ids=["svm", "softmax"])
def test_a_vjp_fn_called_twice(loss):
    args = _args(seed=3)
    out, pull = s2s.vjp(s2s.jit(loss), *args)
    first, again, twice = pull(1.0)[0], pull(1.0)[0], pull(2.0)[0]
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(twice, 2 * first, rtol=1e-14, atol=0)
    np.testing.assert_allclose(first, s2s.jit(s2s.grad(loss))(*args), rtol=1e-12, atol=1e-14)
    assert out == pytest.approx(loss(*args), rel=1e-13)


# ---- loops built by hand: the kernel against the Python loop, object for object ------------------

def _loop(src: str, ranks: dict, outside: set):
    """The array loop of `src` (a `for` statement), with the names' ranks, as the pass makes it."""
    loop = gast.parse(src).body[0]
    names = {n.id for n in gast.walk(loop) if isinstance(n, gast.Name)} - {"xp", "rt", loop.target.id}
    found = arrayloop._kernel_of(loop, names, outside, {k: (None,) * r for k, r in ranks.items()}, set(), True)
    assert found is not None, "the loop should qualify"
    params, results, roles, python_floats, sites = found
    return numba_arrayloops.ArrayLoop("test_pops", params, results, roles, python_floats, loop, sites)


def _run_both(kernel, state: dict, held_keys=()):
    """Run `kernel` on `state` (its arguments by name, and objects held elsewhere) and its Python
    loop on a deep copy; returns (kernel's results, the state after, the Python loop's results,
    its state after, whether the kernel ran)."""
    other = copy.deepcopy(state)
    ran = {"python": False}
    real = kernel._python

    def python(xp, args):
        ran["python"] = True
        return real(xp, args)
    kernel._python = python
    got = kernel(np, *[state[p] for p in kernel.params])
    kernel._python = real
    want = real(np, [other[p] for p in kernel.params])
    return got, state, want, other, not ran["python"]


def _same(a, b):
    if isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b or (a != a and b != b)


def _tape_of(r, n, arrays_per_iteration, numbers=True):
    """A tape as a forward loop leaves it: per iteration its arrays, then a number."""
    tape = []
    for k in range(n):
        tape += [r.normal(size=4) for _ in range(arrays_per_iteration)]
        if numbers:
            tape.append(np.float64(r.normal()))
    return tape


RESTORE = """
for i in r:
    m[j] = tape.pop()
    m = tape.pop()
    s = s + m.sum()
"""


@needs_numba
def test_a_popped_array_held_elsewhere_gets_the_loop_s_writes():
    """`m[j] = tape.pop()` writes into the array the iteration before popped (the first time, into
    the argument `m`): the kernel writes into its rows, then into the arrays another list holds,
    and into the argument; what the tape still holds stays."""
    r = np.random.default_rng(0)
    kernel = _loop(RESTORE, {"m": 1, "s": 0}, {"s"})
    tape = [np.float64(9.0)] + _tape_of(r, N, 1)  # (an item below the loop's: left on the tape)
    state = {"r": range(N), "m": r.normal(size=4), "j": 2, "s": 0.0, "tape": tape, "held": list(tape[1::2])}
    got, after, want, other, compiled = _run_both(kernel, state)
    assert compiled
    _same(got, want)
    _same(after["tape"], other["tape"])
    _same(after["held"], other["held"])  # (each written at index 2 by the next iteration)
    _same(after["m"], other["m"])
    assert all(h[2] == other["held"][k][2] for k, h in enumerate(after["held"]))
    assert len(after["tape"]) == 1


TWINS = """
for i in r:
    a[j] = tape.pop()
    s = s + b.sum()
    a = tape.pop()
    b = tape.pop()
"""


@needs_numba
def test_one_object_popped_as_two_names_stays_one():
    """The tape holds each iteration's array twice (`ds = probs`): the store through `a` shows in
    `b`, in the kernel as in Python, and so for the arguments `a` and `b`, one array."""
    r = np.random.default_rng(1)
    kernel = _loop(TWINS, {"a": 1, "b": 1, "s": 0}, {"s"})
    tape = []
    for _ in range(N):
        x = r.normal(size=4)
        tape += [x, x, np.float64(r.normal())]
    first = r.normal(size=4)
    state = {"r": range(N), "a": first, "b": first, "j": 1, "s": 0.0, "tape": tape}
    got, after, want, other, compiled = _run_both(kernel, state)
    assert compiled
    _same(got, want)
    _same(after["a"], other["a"])
    assert after["a"] is after["b"]


@needs_numba
def test_an_object_popped_in_two_iterations_or_a_view_keeps_the_python_loop():
    r = np.random.default_rng(2)
    kernel = _loop(TWINS, {"a": 1, "b": 1, "s": 0}, {"s"})
    tape = []
    prev = r.normal(size=4)
    for _ in range(N):  # (b of one iteration is a of the next)
        x = r.normal(size=4)
        tape += [prev, x, np.float64(r.normal())]
        prev = x
    first = r.normal(size=4)
    state = {"r": range(N), "a": first, "b": first.copy(), "j": 0, "s": 0.0, "tape": tape}
    got, after, want, other, compiled = _run_both(kernel, state)
    assert not compiled
    _same(got, want)
    _same(after["tape"], other["tape"])
    base = r.normal(size=(N, 4))
    tape = []
    for k in range(N):
        tape += [base[k], base[k].copy(), np.float64(1.0)]  # (a view of `base`)
    state = {"r": range(N), "a": first.copy(), "b": first.copy(), "j": 0, "s": 0.0, "tape": tape, "base": base}
    got, after, want, other, compiled = _run_both(kernel, state)
    assert not compiled
    _same(got, want)
    _same(after["base"], other["base"])


LABELS = """
for i in r:
    j = y[i]
    m[j] = tape.pop()
    m = tape.pop()
    s = s + m.sum()
"""


@needs_numba
def test_an_index_out_of_bounds_half_way_raises_the_loop_s_error_with_its_state():
    """The kernel raises at iteration 20; nothing it was given has changed, and the Python loop
    runs, raises NumPy's IndexError at the same iteration and leaves what it leaves."""
    r = np.random.default_rng(3)
    kernel = _loop(LABELS, {"m": 1, "s": 0}, {"s"})
    y = r.integers(0, 4, N)
    y[20] = 7
    state = {"r": range(N), "y": y, "m": r.normal(size=4), "s": 0.0, "tape": _tape_of(r, N, 1)}
    other = copy.deepcopy(state)
    with pytest.raises(IndexError):
        kernel(np, *[state[p] for p in kernel.params])
    with pytest.raises(IndexError):
        kernel._python(np, [other[p] for p in kernel.params])
    _same(state["tape"], other["tape"])
    _same(state["m"], other["m"])
    assert len(state["tape"]) == 2 * N - 41  # (20 iterations, and the pop of the 21st)


def test_a_division_keeps_python_floats_python_s():
    """A number popped that reaches a division must be NumPy's: Python's raises where the
    kernel's would give inf (the pass marks the site; the kernel refuses a Python float there)."""
    loop = gast.parse("for i in r:\n    t = tape.pop()\n    u = tape.pop()\n    s = s + u / t\n").body[0]
    found = arrayloop._kernel_of(loop, {"r", "tape", "s", "t", "u"}, {"s"}, {"s": (), "t": (), "u": ()}, set(), True)
    assert found is not None
    sites = [s for s in found[4] if s[2] == "pop"]
    assert [s[4][3] for s in sites] == [True, True]


DEFER_WRITTEN = """
for i in r:
    t = X[i]
    v = t[0:3] * 2.0
    acc = rt.defer_dot_vjp_b(rows, acc, v, t, W)
    X[i] = tape.pop()
    u = tape.pop()
    s = s + u
"""


@needs_numba
def test_a_deferred_product_of_rows_the_loop_writes_keeps_copies():
    """The rows `X[i]` of a deferred product are the values the loop saw, not those after its
    stores into `X` (the kernel keeps copies of them); the total is the loop's up to rounding."""
    from s2s.runtime import deferred_sums
    r = np.random.default_rng(4)
    kernel = _loop(DEFER_WRITTEN, {"X": 2, "W": 2, "acc": 2, "s": 0, "t": 1, "v": 1, "u": 0}, {"acc", "s"})
    assert [s[3][4] for s in kernel._plan.sites if s[2] == "defer"] == [None]  # (copies, not X's rows)
    X, W = r.normal(size=(N, 5)), r.normal(size=(5, 3))
    tape = []
    for _ in range(N):
        tape += [np.float64(r.normal()), r.normal(size=5)]
    state = {"r": range(N), "X": X, "W": W, "acc": np.zeros((5, 3)), "s": 0.0, "tape": tape,
             "rows": deferred_sums.deferred_rows(range(N))}
    got, after, want, other, compiled = _run_both(kernel, state)
    assert compiled
    acc_want = deferred_sums.add_deferred(other["rows"], want[0])
    np.testing.assert_allclose(got[0], acc_want, rtol=1e-13, atol=1e-14)
    assert got[1] == want[1]
    _same(after["X"], other["X"])
