"""Loop vectorization (s2s/compiler/passes/loopvec.py): independent `for i in range(...)` loops run as their
body batched over the index vector, under jit and inside vmap. Every result is checked against
the plain loop (the function called as written) and, for vmap, against a Python loop over the
examples; derivatives through vectorized loops against finite differences and per-example grads."""

import copy
import re
import textwrap

import gast
import loopvec_funcs as F
import numpy as np
import pytest

import s2s
from s2s.compiler import driver
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.ir.core import CoreFn
from s2s.compiler.passes import loopvec
from s2s.errors import S2SError
from s2s.test_util import check_grads

R = np.random.default_rng(7)
X7, Y4, W3 = R.normal(size=7), R.normal(size=4), R.normal(size=3)
M53 = R.normal(size=(5, 3))

# (function, arguments, exact): exact results wherever no dot product is vectorized (a vectorized
# dot runs as one matmul: BLAS may sum the three products in another order)
CASES = [
    (F.convolve, (X7, W3), False),
    (F.convolve, (X7[:3], W3), False),       # one iteration
    (F.convolve, (X7[:2], W3), True),        # no iteration: np.array([])
    (F.window_sums, (X7,), True),            # windows clipped at the end: the loop runs as written
    (F.pair_products, (X7,), True),          # step 2
    (F.reversed_affine, (X7,), True),        # negative step
    (F.scatter, (X7,), True),
    (F.index_branch, (X7,), True),           # the index feeds an if
    (F.value_branch, (X7,), True),           # a per-index if
    (F.outer_plus, (X7, Y4), True),          # nested loops
    (F.scaled_rows, (M53, W3), True),        # rows written whole
    (F.row_fill, (M53, X7[:5]), True),       # a scalar filling each row
    (F.row_slices, (M53, W3), True),         # a slice after the index in the key
    (F.running_sum, (X7,), True),            # carried: stays a loop
    (F.first_n, (X7, 0), True),
    (F.first_n, (X7, 1), True),
    (F.first_n, (X7, 4), True),
]


def _ids(cases):
    return [f"{c[0].__name__}-{k}" for k, c in enumerate(cases)]


def _same(got, want, exact):
    assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == np.asarray(want).dtype
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_docstring_example():
    doc = loopvec.__doc__
    before, after = (textwrap.dedent(re.search(label + r"::\n\n((?:    .*\n|\n)+)", doc).group(1))
                     for label in ("Before", "After"))
    fn = gast.parse("def f(x, w, t1):\n" + textwrap.indent(before, "    ")).body[0]
    body, changed = loopvec.PASS(fn.body, {"x", "w", "t1"},
                                 {"vectorize": driver._vectorizer(CoreFn("f", fn, {}, "ex.py"))})
    assert changed
    want = gast.parse("def f(x, w, t1):\n" + textwrap.indent(after, "    ")).body[0]
    assert to_source(fn) == to_source(want)
    # and the rewritten code computes what the loop computes
    x, w = R.normal(size=9), R.normal(size=3)
    ns = {"xp": np, "rt": s2s.runtime}
    exec(to_source(fn).replace("def f(x, w, t1):", "def g(x, w, t1):") + "    return t6\n", ns)
    _same(ns["g"](x, w, len(x) - 1), F.convolve(x, w), False)


@pytest.mark.parametrize("fn, args, exact", CASES, ids=_ids(CASES))
def test_jit_equals_the_loop(fn, args, exact):
    jf = s2s.jit(fn)
    _same(jf(*args), fn(*args), exact)
    assert ("loop_vectorizes" in s2s.source(jf)) == (fn.__name__ in F.VECTORIZED)


def _examples(args, axes, b=3):
    """Batched arguments (batch on each mapped argument's `axes` entry) and the per-example ones."""
    batched, per = [], [[] for _ in range(b)]
    for a, ax in zip(args, axes):
        if ax is None:
            batched.append(a)
            for p in per:
                p.append(a)
            continue
        rows = [a * (1.0 + 0.5 * k) - 0.25 * k for k in range(b)]
        batched.append(np.stack(rows, axis=ax))
        for p, r in zip(per, rows):
            p.append(r)
    return batched, per


# (vmap of a loop that appends nothing gives np.array([]) of shape (0,), not (B, 0): a gap of
# vmap's batched lists, whatever loopvec does; the loop vectorized without windows is right)
VMAP_CASES = [(fn, args, exact, tuple(0 if isinstance(a, np.ndarray) else None for a in args))
              for fn, args, exact in CASES if not (fn is F.convolve and len(args[0]) < 3)]
VMAP_CASES += [
    (F.convolve, (X7, W3), False, (0, None)),
    (F.convolve, (X7, W3), False, (None, 0)),
    (F.convolve, (X7, W3), False, (1, 1)),
    (F.outer_plus, (X7, Y4), True, (None, 0)),
    (F.scaled_rows, (M53, W3), True, (1, None)),
    (F.scaled_rows, (M53, W3), True, (None, 0)),
]


@pytest.mark.parametrize("fn, args, exact, axes", VMAP_CASES, ids=_ids(VMAP_CASES))
def test_vmap_equals_a_loop_over_examples(fn, args, exact, axes):
    batched, per = _examples(args, axes)
    want = np.stack([fn(*p) for p in per])
    vf = s2s.vmap(fn, in_axes=axes)
    _same(vf(*batched), want, exact)
    _same(s2s.jit(vf)(*batched), want, exact)


def test_vmap_of_the_seed_convolution_has_no_loop():
    src = s2s.source(s2s.vmap(F.convolve))
    vec = src.split("if loop_vectorized0:")[1].split("else:")[0]
    assert "rt.batched_loop_windows" in vec and "for " not in vec and "rt.map_examples" not in vec


def test_per_example_range_stays_a_masked_loop():
    def prefix_double(x, n):
        out = np.zeros_like(x)
        for i in range(n):
            out[i] = x[i] * 2.0
        return out

    ns = np.array([0, 1, 3])
    vf = s2s.vmap(prefix_double, in_axes=(None, 0))
    assert "loop_vectorizes" not in s2s.source(vf)
    np.testing.assert_array_equal(vf(X7, ns), np.stack([prefix_double(X7, int(n)) for n in ns]))
    with pytest.raises(S2SError, match="append to a list"):  # lists of different lengths: vmap refuses
        s2s.vmap(F.first_n, in_axes=(None, 0))(X7, ns)


def test_ragged_windows_run_the_loop_under_vmap():
    xs = np.stack([X7, 2 * X7])
    want = np.stack([F.window_sums(x) for x in xs])
    np.testing.assert_array_equal(s2s.vmap(F.window_sums)(xs), want)


def test_window_of_per_example_bounds_in_plain_vmap():
    def take(x, k):
        return np.sum(x[k:k + 3] * 2.0)

    ks = np.array([0, 2, 4])
    xs = np.stack([X7, X7 + 1, X7 - 1])
    want = np.array([take(x, int(k)) for x, k in zip(xs, ks)])
    np.testing.assert_array_equal(s2s.vmap(take)(xs, ks), want)


def test_windows_of_different_lengths_per_example_name_the_line():
    def grow(x, k):
        return np.sum(x[0:k])

    with pytest.raises(S2SError, match=r"test_loopvec.py:\d+: a slice whose bounds differ per example"):
        s2s.vmap(grow)(np.stack([X7, X7]), np.array([2, 3]))


def test_carried_and_impure_loops_stay():
    def carried_list(x):
        out = [0.0]
        for i in range(len(x)):
            out.append(x[i] + out[-1])
        return np.array(out)

    def reads_written(x):
        out = np.zeros_like(x)
        for i in range(1, len(x)):
            out[i] = out[i - 1] + x[i]
        return out

    def index_after(x):
        out = []
        for i in range(len(x)):
            out.append(x[i])
        return np.array(out) * i

    for fn in (carried_list, reads_written, index_after, F.running_sum):
        jf = s2s.jit(fn)
        assert "loop_vectorizes" not in s2s.source(jf), fn.__name__
        np.testing.assert_array_equal(jf(X7), fn(X7))


@pytest.mark.parametrize("fn, args", [(F.conv_loss, (X7, W3)), (F.scatter_loss, (X7,))],
                         ids=["conv_loss", "scatter_loss"])
def test_grad_and_jvp_through_vectorized_loops(fn, args):
    jf = s2s.jit(fn)
    assert "loop_vectorizes" in s2s.source(jf)
    assert "rt.loop_" in s2s.source(s2s.grad(jf))  # grad starts from the vectorized code
    check_grads(jf, args, order=1, modes=("rev", "fwd"))
    check_grads(jf, args, order=2, modes=("rev",))


def test_grad_of_a_function_that_calls_vmap_of_a_vectorized_loop():
    xs, ws = R.normal(size=(3, 7)), R.normal(size=(3, 3))
    check_grads(lambda xs, ws: np.sum(s2s.vmap(F.convolve)(xs, ws) ** 2), (xs, ws), order=1, modes=("rev", "fwd"))
    check_grads(lambda xs: np.sum(s2s.vmap(F.scatter)(xs) ** 2), (xs,), order=1, modes=("rev", "fwd"))


def test_vmap_of_grad_equals_per_example_grads():
    xs, ws = R.normal(size=(4, 7)), R.normal(size=(4, 3))
    got = s2s.vmap(s2s.grad(F.conv_loss, argnums=(0, 1)))(xs, ws)
    want = [s2s.grad(F.conv_loss, argnums=(0, 1))(x, w) for x, w in zip(xs, ws)]
    for k in range(2):
        np.testing.assert_allclose(got[k], np.stack([g[k] for g in want]), rtol=1e-12, atol=1e-12)


def test_switched_off_by_the_environment(monkeypatch):
    monkeypatch.setenv("S2S_NO_LOOPVEC", "1")
    s2s.clear_caches() if hasattr(s2s, "clear_caches") else driver.clear_caches()
    try:
        assert "loop_vectorizes" not in s2s.source(s2s.vmap(F.convolve))
    finally:
        monkeypatch.delenv("S2S_NO_LOOPVEC")
        driver.clear_caches()


def test_an_array_written_through_an_alias_of_one_read_runs_the_loop():
    def shift_into(a, b):
        for i in range(1, len(a)):
            a[i] = b[i - 1] + 1.0
        return a

    jf = s2s.jit(shift_into)
    assert "loop_vectorizes" in s2s.source(jf)
    y = np.zeros(6)
    np.testing.assert_array_equal(jf(y, y), np.arange(6.0))  # each write seen by the next read
    np.testing.assert_array_equal(jf(np.zeros(6), np.zeros(6)), [0.0, 1, 1, 1, 1, 1])


def test_a_called_function_is_vectorized_in_its_batched_version():
    def outer(x, w):
        return F.convolve(x, w) * 2.0

    xs, ws = R.normal(size=(3, 9)), R.normal(size=(3, 3))
    want = np.stack([outer(x, w) for x, w in zip(xs, ws)])
    np.testing.assert_allclose(s2s.vmap(outer)(xs, ws), want, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(s2s.vmap(outer, in_axes=(0, None))(xs, ws[0]),
                               np.stack([outer(x, ws[0]) for x in xs]), rtol=1e-13, atol=1e-15)


def _dot_example(x, w):
    return np.dot(x, w)


def test_hessian_through_batched_dots_is_exact():
    """Forward over reverse through vmap's batched dot: the tangent of a dot's cotangent along the
    operand it replaces is zero (it counted that operand's tangent once more: a wrong Hessian)."""
    xs = R.normal(size=(4, 3))
    w = np.array([0.3, -0.2, 0.5])

    def f(w):
        return np.sum(s2s.vmap(_dot_example, in_axes=(0, None))(xs, w) ** 2)

    def g(x):
        return np.sum(s2s.vmap(_dot_example, in_axes=(None, 0))(x, xs) ** 2)

    np.testing.assert_allclose(s2s.jacfwd(s2s.grad(f))(w), 2 * xs.T @ xs, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s2s.jacfwd(s2s.grad(g))(w), 2 * xs.T @ xs, rtol=1e-12, atol=1e-12)
    # the vectorized convolution: loss = |A x|^2 with A the convolution matrix, Hessian 2 A^T A
    x, w3 = R.normal(size=8), R.normal(size=3)
    a = np.array([[w3[k - i] if 0 <= k - i < 3 else 0.0 for k in range(8)] for i in range(6)])
    for h in (s2s.jacfwd(s2s.grad(s2s.jit(F.conv_loss))), s2s.hessian(s2s.jit(F.conv_loss))):
        np.testing.assert_allclose(h(x, w3), 2 * a.T @ a, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fn", [F.index_branch, F.value_branch], ids=["index_branch", "value_branch"])
def test_grad_of_vmap_of_a_vectorized_loop_with_a_masked_if(fn):
    xs = R.normal(size=(3, 7)) + 0.05  # away from the kinks at 0
    check_grads(lambda xs: np.sum(s2s.vmap(fn)(xs) ** 2), (xs,), order=1, modes=("rev", "fwd"))
    got = s2s.vmap(s2s.grad(lambda x: np.sum(fn(x) ** 2)))(xs)
    want = np.stack([s2s.grad(lambda x: np.sum(fn(x) ** 2))(x) for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def windowed_dot(x, w):
    out = []
    for i in range(len(x) - len(w) + 1):
        out.append(np.dot(x[i:i + len(w)], w))
    return np.array(out)


@pytest.mark.parametrize("length", [1, 3, 8, 9, 16])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_batched_window_dots_equal_a_loop(length, dtype):
    """vmap over both arguments: the windows' dots are `length` multiply-adds of slices up to
    8, one matmul above; either way a loop over examples' values."""
    rng = np.random.default_rng(length)
    xs = (rng.normal(size=(5, 40)) * 10).astype(dtype)
    ws = (rng.normal(size=(5, length)) * 10).astype(dtype)
    want = np.stack([windowed_dot(x, w) for x, w in zip(xs, ws)])
    vf = s2s.vmap(windowed_dot)
    got = vf(xs, ws)
    assert "rt.batched_loop_windows" in s2s.source(vf, xs, ws) and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-12)


# Python-int arithmetic in a loop: over the int64 index vector a product that grows wraps and a
# division by zero gives inf, where the loop computes exactly or raises. Such loops stay loops
# (jit(f) gave [0, 0, 0] for 2 ** i past i = 63, and inf where f raised ZeroDivisionError).
def int_powers(y):
    for i in range(len(y)):
        y[i] = 2 ** i
    return y


def int_fifth_powers(y):
    for i in range(len(y)):
        y[i] = i * i * i * i * i
    return y


def scaled_by_argument(y, a):
    for i in range(len(y)):
        y[i] = a * i + 1
    return y


def divided_by_argument(y, d):
    for i in range(len(y)):
        y[i] = (i + 1) / d
    return y


def mod_by_argument(y, m):
    for i in range(len(y)):
        y[i] = (3 * i + 1) % m
    return y


def bounded_int_arithmetic(y, x):
    for i in range(len(y)):
        y[i] = x[i] * (2 * i + 1) + i * i - (i + 3) // 2 + (5 * i) % 7 + i / 4
    return y


@pytest.mark.parametrize("fn,args", [
    (int_powers, (np.zeros(70),)), (int_fifth_powers, (np.zeros(7000),)),
    (scaled_by_argument, (np.zeros(50), 6364136223846793005)), (mod_by_argument, (np.zeros(9), 4)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_growing_int_arithmetic_stays_a_loop(fn, args):
    want = fn(*copy.deepcopy(args))
    jf = s2s.jit(fn)
    np.testing.assert_array_equal(jf(*copy.deepcopy(args)), want)
    assert "xp.arange" not in s2s.source(jf, *args)


def test_division_by_a_zero_argument_raises_as_the_loop():
    with pytest.raises(ZeroDivisionError):
        s2s.jit(divided_by_argument)(np.zeros(5), 0)
    with pytest.raises(ZeroDivisionError):
        s2s.jit(mod_by_argument)(np.zeros(5), 0)
    np.testing.assert_array_equal(s2s.jit(divided_by_argument)(np.zeros(4), 2), [0.5, 1.0, 1.5, 2.0])


def test_bounded_int_arithmetic_is_still_vectorized():
    x = np.random.default_rng(0).normal(size=300)
    jf = s2s.jit(bounded_int_arithmetic)
    assert "xp.arange" in s2s.source(jf, np.zeros(300), x)
    np.testing.assert_array_equal(jf(np.zeros(300), x), bounded_int_arithmetic(np.zeros(300), x))
