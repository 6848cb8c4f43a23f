"""Array loop kernels (jit with numba, `s2s.compiler.passes.arrayloop`, `s2s.compiler.emit.numba_arrayloops`): a
loop over array state -- a recurrence, the forward sweep of an RNN's gradient pushing its states,
the backward sweep popping them -- runs as one compiled loop and gives the unjitted function's
values to a few ulp (its own `tanh`: within 1 ulp of the exact value, 2 of NumPy's; products
by BLAS). Loops that do not qualify (`break`, a scalar loop), short loops, float32, other argument
types and `S2S_NO_NUMBA` run the Python loop, with its values bitwise. Without numba only the
Python-loop checks run (CI runs this file both ways)."""
import math
import sys

import gast
import numpy as np
import pytest
from helpers_compare import assert_same_computation, assert_trees_close
from paths import BENCH

import s2s
from s2s.compiler.emit import numba_arrayloops, numba_kernels
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import arrayloop

sys.path.insert(0, str(BENCH))
from bench_programs import rnn_hand, rnn_loss  # noqa: E402  (X1's program and its hand-written gradient)

needs_numba = pytest.mark.skipif(not numba_kernels.available(), reason="numba not installed or S2S_NO_NUMBA set")
T = 2 * arrayloop.MIN_TRIPS + 5


def recurrence(w, xs, h):
    for t in range(xs.shape[0]):
        h = np.tanh(w @ h + xs[t])
    return h


def pushes_and_pops(xs, w):
    states = []
    h = xs[0] * 0.0
    for t in range(xs.shape[0]):
        states.append(h)
        h = np.tanh(h @ w + xs[t])
    g = h * 0.0 + 1.0
    for t in range(xs.shape[0]):
        prev = states.pop()
        g = (g * (1.0 - prev * prev)) @ w.T
    return h, g, len(states)


def with_break(w, xs, h):
    for t in range(xs.shape[0]):
        h = np.tanh(w @ h + xs[t])
        if t > 40:
            break
    return h


def with_continue(w, xs, h):
    for t in range(xs.shape[0]):
        if t % 2 == 1:
            continue
        h = np.tanh(w @ h + xs[t])
    return h


def growing_items(x):
    items = []
    s = x[0] * 0.0
    for t in range(x.shape[0]):
        items.append(x[:t + 1] * 2.0)  # another shape every iteration: the kernel stops, Python runs
        s = s + x[t]
    return s, items


def runs_past_the_end(w, xs, h):
    for t in range(xs.shape[0]):
        h = np.tanh(w @ h + xs[t + 1])
    return h


def _rnn_args(t, b=4, n=6, hid=5):
    rng = np.random.default_rng(3)
    params = (rng.normal(size=(n, hid)) / np.sqrt(n), rng.normal(size=(hid, hid)) / np.sqrt(hid),
              0.1 * rng.normal(size=hid))
    return params, rng.normal(size=(t, b, n)), np.zeros((b, hid))


def _recurrence_args(t=T, n=16, dtype=np.float64):
    rng = np.random.default_rng(4)
    return ((rng.normal(size=(n, n)) / np.sqrt(n)).astype(dtype), rng.normal(size=(t, n)).astype(dtype),
            np.zeros(n, dtype))


def _kernels(j, *args) -> int:
    return s2s.source(j, *args).count("# array loop kernel aloop_")


def _calls(monkeypatch) -> list:
    """The array loops' kernel calls from here on (name, trips)."""
    seen = []
    real = numba_arrayloops.ArrayLoop._arguments

    def spy(self, args, n):
        found = real(self, args, n)
        if found is not None:
            seen.append((self.name, n))
        return found
    monkeypatch.setattr(numba_arrayloops.ArrayLoop, "_arguments", spy)
    return seen


@needs_numba
def test_rnn_gradient_sweeps_are_two_kernels_with_the_unjitted_values(monkeypatch):
    """X1 (issue 29): the forward sweep (tape pushes) and the backward sweep (pops, deferred sums)
    each one kernel; the gradient equals the unjitted one and the hand-written BPTT to a few ulp
    per step (own tanh, SciPy's BLAS against NumPy's, sums deferred)."""
    args = _rnn_args(T)
    g = s2s.jit(s2s.grad(rnn_loss))
    seen = _calls(monkeypatch)
    got = g(*args)
    assert sorted(seen) == [("aloop_0", T), ("aloop_1", T)] and _kernels(g, *args) == 2
    for a, b in zip(got, s2s.grad(rnn_loss)(*args)):
        assert_same_computation(a, b, trips=T)
    assert_trees_close(got, rnn_hand(*args), rtol=1e-11, atol=1e-13)
    body = "\n".join(line for line in s2s.source(g, *args).split("\n") if not line.lstrip().startswith("#"))
    assert "xp.concatenate" not in body and "for t in" not in body  # the sums' lists: one item each
    for _ in range(3):  # again, through the compiled kernels, the tape passed on without a copy
        assert_trees_close(g(*args), got, rtol=0, atol=0)


@needs_numba
def test_a_recurrence_is_one_kernel(monkeypatch):
    args = _recurrence_args()
    j = s2s.jit(recurrence)
    seen = _calls(monkeypatch)
    assert_same_computation(j(*args), recurrence(*args), trips=T)
    assert seen == [("aloop_0", T)] and _kernels(j, *args) == 1


@needs_numba
def test_lists_pushed_and_popped_across_kernels(monkeypatch):
    xs, w = np.random.default_rng(5).normal(size=(T, 3, 4)), np.random.default_rng(6).normal(size=(4, 4)) / 2
    j = s2s.jit(pushes_and_pops)
    seen = _calls(monkeypatch)
    got, want = j(xs, w), pushes_and_pops(xs, w)
    assert len(seen) == 2 and got[2] == want[2] == 0
    assert_same_computation(got[0], want[0], trips=T)
    assert_same_computation(got[1], want[1], trips=2 * T)


def test_short_loops_and_float32_run_the_python_loop(monkeypatch):
    """Fewer than MIN_TRIPS iterations known from the shapes: no kernel at all; float32 (NumPy
    keeps float32, numba would compute in float64): the Python loop, bitwise."""
    compiled = []
    monkeypatch.setattr(numba_kernels, "load", lambda name, src: compiled.append(name))
    short = _recurrence_args(t=arrayloop.MIN_TRIPS - 1)
    j = s2s.jit(recurrence)
    np.testing.assert_array_equal(j(*short), recurrence(*short))
    assert _kernels(j, *short) == 0
    single = _recurrence_args(dtype=np.float32)
    got = s2s.jit(recurrence)(*single)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, recurrence(*single))
    assert compiled == []


def onto(w, xs, h, states):
    for t in range(xs.shape[0]):
        states.append(h)
        h = np.tanh(w @ h + xs[t])
    return h


def test_lists_from_outside_keep_the_python_loop():
    """A list the caller passed (it sees its items: the arrays themselves, not rows of a copy)."""
    args = _recurrence_args()
    j = s2s.jit(onto)
    got, want = [], []
    np.testing.assert_array_equal(j(*args, got), onto(*args, want))
    assert got[0] is args[2] and all(np.array_equal(a, b) for a, b in zip(got, want)) and len(got) == T
    assert _kernels(j, *args, []) == 0


def test_break_and_continue_keep_the_python_loop():
    args = _recurrence_args()
    for f in (with_break, with_continue):
        j = s2s.jit(f)
        np.testing.assert_array_equal(j(*args), f(*args))
        assert _kernels(j, *args) == 0


@needs_numba
def test_short_trip_count_at_run_time_and_zero_trips(monkeypatch):
    """A trip count known only when it runs: the kernel below MIN_TRIPS is the Python loop; with
    MIN_TRIPS 0, a loop of no iterations (the kernel fails, the Python loop runs) keeps the values
    bound before."""
    def count(w, xs, h, n):
        for t in range(n):
            h = np.tanh(w @ h + xs[t])
        return h
    w, xs, h = _recurrence_args()
    j = s2s.jit(count)
    seen = _calls(monkeypatch)
    np.testing.assert_array_equal(j(w, xs, h, 5), count(w, xs, h, 5))
    assert seen == [] and _kernels(j, w, xs, h, 5) == (1 if numba_kernels.available() else 0)
    monkeypatch.setattr(numba_arrayloops, "MIN_TRIPS", 0)
    np.testing.assert_array_equal(j(w, xs, h, 0), h)
    assert seen == [("aloop_0", 0)]
    assert_same_computation(j(w, xs, h, T), count(w, xs, h, T), trips=T)


def last_step(w, xs, h, n):
    y = None
    for t in range(n):
        y = w @ h * 0.5 + xs[t]
        h = np.tanh(y)
    return h, y


def test_results_a_loop_of_no_iterations_leaves():
    """A name the loop assigns before reading it, read after: zero trips leave its value before
    the loop (the Python loop gets it); many trips its last one."""
    w, xs, h = _recurrence_args()
    j = s2s.jit(last_step)
    got = j(w, xs, h, 0)
    assert got[1] is None and got[0] is h
    for a, b in zip(j(w, xs, h, T), last_step(w, xs, h, T)):
        assert_same_computation(a, b, trips=T)
    assert _kernels(j, w, xs, h, T) == (1 if numba_kernels.available() else 0)


@needs_numba
def test_appended_shapes_that_change_run_the_python_loop():
    x = np.random.default_rng(7).normal(size=(T, 3))
    j = s2s.jit(growing_items)
    (s, items), (s0, items0) = j(x), growing_items(x)
    assert _kernels(j, x) == 1
    np.testing.assert_array_equal(s, s0)
    assert len(items) == len(items0) == T and all(np.array_equal(a, b) for a, b in zip(items, items0))


@needs_numba
def test_errors_are_the_python_loops():
    args = _recurrence_args()
    with pytest.raises(IndexError):
        runs_past_the_end(*args)
    with pytest.raises(IndexError, match="out of bounds"):  # NumPy's message: the Python loop ran
        s2s.jit(runs_past_the_end)(*args)


def test_switched_off(monkeypatch):
    """`S2S_NO_NUMBA=1` after the version was compiled with a kernel: the Python loop, bitwise."""
    args = _recurrence_args()
    j = s2s.jit(recurrence)
    j(*args)
    monkeypatch.setenv("S2S_NO_NUMBA", "1")
    monkeypatch.setattr(numba_kernels, "load", lambda name, src: pytest.fail("numba was used"))
    np.testing.assert_array_equal(j(*args), recurrence(*args))


def test_lists_only_concatenated_get_one_item_on_either_path():
    """The pass alone (no numba needed): a deferred sum's lists become one-item lists whose item
    is the concatenation, and the Python loop (numba absent here) fills them the same way."""
    src = '''
def f(xs, w, n):
    sum_0 = []
    h = xs[0]
    for t in range(n):
        h = xp.tanh(h @ w + xs[t])
        sum_0.append(h)
    if sum_0:
        cat = xp.concatenate(sum_0)
    return cat, h
'''
    fn = gast.parse(src).body[0]
    known = {"arrayloops": [], "arrays": {"xs": ("d", 3), "w": ("d", 2)}, "name_shapes": {"h": (2, 3)}}
    fn.body, changed = arrayloop.PASS(fn.body, {"xs", "w", "n"}, known)
    assert changed and len(known["arrayloops"]) == 1
    name, params, results, roles, python_floats, loop, sites = known["arrayloops"][0]
    assert roles == {"h": "value", "n": "range", "sum_0": "concat", "w": "value", "xs": "value"}
    assert results == ["h"] and not python_floats and sites == []
    code = to_source(fn)
    assert "cat = sum_0[0]" in code and "concatenate" not in code and "for " not in code
    kernel = numba_arrayloops.ArrayLoop(*known["arrayloops"][0])
    xs, w = np.random.default_rng(8).normal(size=(5, 2, 3)), np.eye(3) * 0.5
    for n in (0, 4):
        lst = []
        (h,) = kernel(np, *[{"xs": xs, "w": w, "sum_0": lst, "h": xs[0], "n": n}[p] for p in params])
        want, hs = xs[0], []
        for t in range(n):
            want = np.tanh(want @ w + xs[t])
            hs.append(want)
        np.testing.assert_array_equal(h, want)
        assert len(lst) == min(n, 1) and all(np.array_equal(a, np.concatenate(hs)) for a in lst)


def test_scalar_loops_are_left_to_the_loop_kernels():
    src = '''
def f(x, a):
    s = 0.0
    for i in range(x.shape[0]):
        s = s * a + x[i]
    return s
'''
    fn = gast.parse(src).body[0]
    known = {"arrayloops": [], "arrays": {"x": ("d", 1)}}
    _, changed = arrayloop.PASS(fn.body, {"x", "a"}, known)
    assert not changed and known["arrayloops"] == []


@needs_numba
def test_own_tanh_within_two_ulp_of_numpy_and_the_c_library():
    """`_tanh` against NumPy's tanh and the C library's (`math.tanh`): within 2 ulp of each over
    3e5 arguments of every scale, and of the exact value (mpmath, where installed) within 1.25;
    the special values as NumPy's, NaN stays NaN, the sign of zero is kept."""
    f = numba_kernels.load("tanh_check", numba_arrayloops._PRELUDE
                           + "\n\n@numba.njit(error_model='numpy')\ndef tanh_check(x):\n    return _tanh_a(x)\n")
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.normal(size=20000) * s for s in (1e-300, 1e-8, 1e-3, 0.1, 0.5, 0.62, 0.63, 1.0, 3.0, 25.0)])
    x = np.concatenate([x, np.linspace(-0.7, 0.7, 100001)])
    got = f(x)
    for ref in (np.tanh(x), np.array([math.tanh(v) for v in x])):
        assert np.max(np.abs(got - ref) / np.spacing(np.abs(ref))) <= 2.0
    special = np.array([0.0, -0.0, np.inf, -np.inf, 800.0, -800.0, 5e-324, np.nan])
    out = f(special)
    np.testing.assert_array_equal(out[:-1], np.tanh(special[:-1]))
    assert np.array_equal(np.signbit(out[:2]), [False, True]) and np.isnan(out[-1])
    assert abs(f(0.3) - math.tanh(0.3)) <= 2 * np.spacing(math.tanh(0.3))
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    for v, y in zip(x[::150], got[::150]):
        exact = mp.tanh(mp.mpf(float(v)))
        assert abs(float(mp.mpf(float(y)) - exact)) <= 1.25 * np.spacing(abs(float(exact)))


def test_rows_an_array_loop_appended_are_popped_without_a_copy():
    """A list holding, in order, exactly the rows an array loop appended passes that array to the
    popping loop as it is; any other list (reordered, cut, a row replaced) gets stacked anew."""
    stacked = np.arange(24.0).reshape(4, 2, 3)
    rows = numba_arrayloops._rows(stacked)
    assert numba_arrayloops._stacked(rows) is stacked
    assert numba_arrayloops._stacked(rows[::-1]) is None and numba_arrayloops._stacked(rows[1:]) is None
    assert numba_arrayloops._stacked(rows[:2] + [rows[2].copy()] + rows[3:]) is None
    assert numba_arrayloops._stacked([r.copy() for r in rows]) is None
    key = id(rows[0])
    del rows
    assert key not in numba_arrayloops._ROWS  # (forgotten with its first row)
