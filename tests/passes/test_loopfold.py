"""Vectorized loops decided when a jit version is compiled (s2s/compiler/passes/loopfold.py): the
branch the run-time decision would pick is the only one left, a short loop's per-example window
dots are one `rt.windows_vecdot` call, and windows of known bounds are `rt.windows_at`. Every
result is compared with a Python loop over the examples and, bit for bit, with vmap's (which
decides at run time); the helpers with the helpers they stand for."""

import numpy as np
import pytest

import s2s
from s2s import runtime as rt

R = np.random.default_rng(11)


def convolve(x, w):
    output = []
    for i in range(1, len(x) - 1):
        output.append(np.dot(x[i - 1:i + 2], w))
    return np.array(output)


def window_sums(x, w):
    out = []
    for i in range(len(x) - 2):
        out.append(np.sum(x[i:i + 3] * w))
    return np.array(out)


def doubled_windows(x, w):
    y = x * 2.0
    out = []
    for i in range(1, len(y) - 1):
        out.append(np.dot(y[i - 1:i + 2], w))
    return np.array(out)


def row_writes(x, w):
    out = np.zeros((len(x) - 2, 3))
    for i in range(len(x) - 2):
        out[i] = x[i:i + 3] * w
    return out


def _layouts(b, n):
    """x in four layouts (C order, a row view, a strided view, Fortran order) and w per example."""
    w = R.normal(size=(b, 3))
    return [("contiguous", R.normal(size=(b, n)), w),
            ("row view", R.normal(size=(b + 2, n))[1:b + 1], w),
            ("strided", R.normal(size=(b, 2 * n))[:, ::2], R.normal(size=(b, 6))[:, ::2]),
            ("fortran", np.asfortranarray(R.normal(size=(b, n))), np.asfortranarray(w))]


def _code(f, *args):
    """The jit version's source for `args`, without its comments (the user's lines)."""
    return "\n".join(line for line in s2s.source(f, *args).splitlines() if not line.lstrip().startswith("#"))


def _loop(f, x, w):
    return np.stack([f(x[e], w[e]) for e in range(len(x))])


# trip counts n - 2: none, one (a single window), three (below MIN_TRIPS), MIN_TRIPS, 998
@pytest.mark.parametrize("n", [2, 3, 5, 2 + rt.MIN_TRIPS, 1000])
@pytest.mark.parametrize("layout", range(4), ids=["contiguous", "row view", "strided", "fortran"])
def test_jit_vmap_convolve_is_vmaps_bits_and_the_examples_loop(n, layout):
    name, x, w = _layouts(4, n)[layout]
    want = s2s.vmap(convolve)(x, w)
    f = s2s.jit(s2s.vmap(convolve))
    got = f(x, w)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.tobytes() == want.tobytes(), name
    if n > 2:
        np.testing.assert_allclose(got, _loop(convolve, x, w), rtol=1e-13, atol=1e-14)
        assert f(x, w).tobytes() == got.tobytes()  # (the fast path's call)


@pytest.mark.parametrize("n, short", [(4, True), (2 + rt.MIN_TRIPS - 1, True), (2 + rt.MIN_TRIPS, False),
                                      (1000, False)])
def test_the_decision_is_taken_when_compiled(n, short):
    x, w = R.normal(size=(3, n)), R.normal(size=(3, 3))
    code = _code(s2s.jit(s2s.vmap(convolve)), x, w)
    assert "loop_vectorizes" not in code and "for " not in code and "xp.arange" not in code
    assert f"rt.windows_at(x,1,0,1,{n - 2},3,1)" in "".join(code.split())
    assert ("rt.windows_vecdot(" in code) == short and ("batched_batched_dot" in code) != short


def test_a_single_window_runs_as_the_loop():
    x, w = R.normal(size=(3, 3)), R.normal(size=(3, 3))
    code = _code(s2s.jit(s2s.vmap(convolve)), x, w)
    assert "loop_vectorizes" not in code and "for i in range(" in code
    assert s2s.jit(s2s.vmap(convolve))(x, w).tobytes() == s2s.vmap(convolve)(x, w).tobytes()


@pytest.mark.parametrize("n", [5, 2 + rt.MIN_TRIPS, 40])
def test_a_short_loop_of_other_operations_stays_the_loop(n):
    """A window's sum of products is not a dot the vectorized branch would give the same bits: a
    short loop runs as written (no decision left), a long one vectorized."""
    x, w = R.normal(size=(3, n)), R.normal(size=(3, 3))
    f = s2s.jit(s2s.vmap(window_sums))
    code = _code(f, x, w)
    assert "loop_vectorizes" not in code
    assert ("for i in range" in code) == (n - 2 < rt.MIN_TRIPS)
    got = f(x, w)
    assert got.tobytes() == s2s.vmap(window_sums)(x, w).tobytes()
    np.testing.assert_allclose(got, _loop(window_sums, x, w), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("n", [5, 40])
def test_the_plain_jit_of_the_loop(n):
    """Without vmap: a short loop is the loop as written (the function's own bits), a long one
    the vectorized branch, windows taken by `rt.windows_at`."""
    x, w = R.normal(size=n), R.normal(size=3)
    f = s2s.jit(convolve)
    code = _code(f, x, w)
    assert "loop_vectorizes" not in code
    got = f(x, w)
    if n - 2 < rt.MIN_TRIPS:
        assert "for i in range" in code and got.tobytes() == convolve(x, w).tobytes()
    else:
        assert "rt.windows_at(x,0,0,1,38,3)" in "".join(code.split())
        np.testing.assert_allclose(got, convolve(x, w), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("fn", [doubled_windows, row_writes], ids=["local array", "writes an array"])
def test_decisions_on_values_known_only_when_run_stay(fn):
    """Windows of an array computed in the function, or a loop writing an array (whether it shares
    memory with what the loop reads is known at run time): the decision stays in the code."""
    x, w = R.normal(size=(3, 12)), R.normal(size=(3, 3))
    f = s2s.jit(s2s.vmap(fn))
    assert "loop_vectorizes" in _code(f, x, w)
    got = f(x, w)
    assert got.tobytes() == s2s.vmap(fn)(x, w).tobytes()
    np.testing.assert_allclose(got, _loop(fn, x, w), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("count, start, step, length", [(2, 0, 1, 3), (7, 1, 2, 2), (30, 3, 1, 5)])
@pytest.mark.parametrize("layout", range(4), ids=["contiguous", "row view", "strided", "fortran"])
def test_windows_at_is_the_view_loop_windows_takes(count, start, step, length, layout):
    n = start + step * (count - 1) + length + 1
    x = _layouts(3, n)[layout][1]
    lo = np.arange(start, start + step * count, step)
    for lead, want in ((0, rt.loop_windows(x[1], slice(lo, lo + length), True)),
                       (1, rt.batched_loop_windows((True, False, False, False, False), x, slice(lo, lo + length), True))):
        got = rt.windows_at(x[1] if not lead else x, 0 + lead, start, step, count, length, lead)
        assert got.shape == want.shape and got.strides == want.strides and not got.flags.writeable
        np.testing.assert_array_equal(got, want)
        assert np.shares_memory(got, x)
    g = R.normal(size=(3, count, length))
    want_t = rt.batched_loop_windows_t((True, False, False, False, False), g, x, slice(lo, lo + length), True)
    np.testing.assert_array_equal(rt.windows_at_t(g, x, 1, start, step, count, length, 1), want_t)


@pytest.mark.parametrize("length", [1, 3, 8, 33, 200])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.complex128])
def test_windows_vecdot_gives_each_dot_the_loops_bits(length, dtype):
    b, count = 5, 6
    x = R.normal(size=(b, 2 * (count + length))).astype(dtype)[:, ::2]
    w = R.normal(size=(b, length)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x, w = x + 1j * R.normal(size=x.shape), w - 2j * R.normal(size=w.shape)
    wins = rt.windows_at(x, 1, 0, 1, count, length, 1)
    want = rt.batched_array((True,), [rt.batched_dot((True, True), rt.example_getitem(x, slice(j, j + length)), w)
                                      for j in range(count)])
    got = rt.windows_vecdot(wins, w)
    assert got.shape == want.shape == (b, count) and got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()
    assert got.base is None or got.flags.owndata or not np.shares_memory(got, x)
