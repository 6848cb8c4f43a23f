"""Derivatives over the control-flow corpus (tests/corpus.py), plus no-unrolling and long-loop checks."""

import copy
import math
import time

import numpy as np
import pytest
from corpus import CORPUS

import s2s
from s2s.test_util import check_grads

SEEDS = (0, 1, 2)
IDS = [fn.__name__ for fn, _ in CORPUS]


def _args(make_args, seed):
    return make_args(np.random.default_rng(seed))


def test_corpus_is_large_and_uniquely_named():
    assert len(CORPUS) >= 65
    assert len(set(IDS)) == len(IDS)


def test_corpus_arguments_are_float64():
    for fn, make_args in CORPUS:
        for a in _args(make_args, 0):
            assert isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype == np.float64), fn.__name__


@pytest.mark.parametrize("fn, make_args", CORPUS, ids=IDS)
def test_check_grads(fn, make_args):
    for seed in SEEDS:
        check_grads(fn, _args(make_args, seed), order=1, modes=("rev",))


@pytest.mark.parametrize("fn, make_args", CORPUS, ids=IDS)
def test_check_grads_order2_both_modes(fn, make_args):
    """Forward and reverse mode, and every composition of two of them, against finite differences."""
    check_grads(fn, _args(make_args, 0), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("fn, make_args", CORPUS, ids=IDS)
def test_value_and_grad_value(fn, make_args):
    for seed in SEEDS:
        args = _args(make_args, seed)
        want = fn(*copy.deepcopy(args))
        value, _ = s2s.value_and_grad(fn)(*args)
        np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-12, err_msg=f"seed {seed}")


@pytest.mark.parametrize("fn, make_args", CORPUS, ids=IDS)
def test_grad_matches_value_and_grad_and_keeps_arguments(fn, make_args):
    args = _args(make_args, 0)
    before = copy.deepcopy(args)
    g = s2s.grad(fn)(*args)
    _, g2 = s2s.value_and_grad(fn)(*args)
    np.testing.assert_allclose(g, g2, rtol=1e-12, atol=1e-12)
    assert np.shape(g) == np.shape(args[0])
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)  # the gradient must not modify its inputs


# ---------------------------------------------------------------- no unrolling


def loop_10(x):
    s = 0.0
    for i in range(10):
        s = s + np.sin(x * i) * x
    return s


def loop_1000(x):
    s = 0.0
    for i in range(1000):
        s = s + np.sin(x * i) * x
    return s


def while_short(x):
    while x < 10.0:
        x = x * 1.01
    return x


def test_source_does_not_grow_with_trip_count():
    short = s2s.source(s2s.grad(loop_10))
    long = s2s.source(s2s.grad(loop_1000))
    assert len(short.splitlines()) == len(long.splitlines())
    assert "range(1000)" in long
    assert len(long.splitlines()) < 200
    # a while loop with a long data-dependent trip count compiles to the same code at any input
    g = s2s.grad(while_short)
    assert math.isclose(g(9.95), 1.01, rel_tol=1e-12)  # one trip
    src = s2s.source(g)
    assert math.isclose(g(0.01), 1.01 ** 695, rel_tol=1e-9)  # 695 trips
    assert s2s.source(g) == src
    assert len(src.splitlines()) < 100


def test_loop_gradients_of_long_range_are_right():
    x = 0.3
    want = sum(np.sin(x * i) + x * i * np.cos(x * i) for i in range(1000))
    assert math.isclose(s2s.grad(loop_1000)(x), want, rel_tol=1e-10)


# ---------------------------------------------------------------- a long scalar loop

N_LONG = 100_000


def long_scalar_loop(x):
    y = x
    for i in range(N_LONG):
        y = y + 1e-5 * np.sin(y)
    return y


def test_long_scalar_loop_is_fast_and_right():
    x = 0.7
    t0 = time.perf_counter()
    g = s2s.grad(long_scalar_loop)(x)
    elapsed = time.perf_counter() - t0
    # forward-mode derivative by hand: dy_{k+1} = dy_k * (1 + 1e-5 cos(y_k))
    y, dy = x, 1.0
    for _ in range(N_LONG):
        dy = dy * (1.0 + 1e-5 * math.cos(y))
        y = y + 1e-5 * math.sin(y)
    assert elapsed < 10.0, f"gradient of a {N_LONG}-iteration loop took {elapsed:.1f} s"
    assert math.isclose(float(g), dy, rel_tol=1e-9)
    value, g2 = s2s.value_and_grad(long_scalar_loop)(x)
    assert math.isclose(float(value), y, rel_tol=1e-9)
    assert math.isclose(float(g2), dy, rel_tol=1e-9)
