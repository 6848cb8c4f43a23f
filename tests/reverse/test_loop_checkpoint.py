"""grad(f, checkpoint=...) (issue 30): the top-level loops of f run without records, keeping the
state they carry every k-th step; the backward sweep runs each segment again with records. The
derivative is the one without checkpointing, exactly; the record (`stats.tape_record`) and the
schedule's own count of replayed steps say what it keeps and what it recomputes, and tracemalloc
(NumPy reports its allocations to it) the peak."""
import math
import tracemalloc

import numpy as np
import pytest
from corpus import CORPUS

import s2s
from s2s import cli, driver, stats
from s2s.runtime import Checkpoints

B, H, D = 32, 64, 16


def rnn(w, u, h, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(h @ w + xs[t] @ u)
    return np.sum(h)


cell = s2s.checkpoint(lambda w, u, h, x: np.tanh(h @ w + x @ u))


def rnn_helper(w, u, h, xs):
    for t in range(xs.shape[0]):
        h = cell(w, u, h, xs[t])
    return np.sum(h)


def decay(x, a):
    y = x
    while np.max(np.abs(y)) > 1e-3:
        y = y * a + 1e-4 * np.sin(y)
    return np.sum(y * y)


def two_loops(x, n):
    y = x
    for i in range(n):
        y = np.sin(y) * 1.1
    s = 0.0
    k = 0
    while k < n:
        s = s + np.sum(y * y) * 0.01
        y = y * 0.9
        k = k + 1
    return s


def rnn_args(T, b=B, h=H, d=D, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(h, h)) * 0.1, rng.normal(size=(d, h)) * 0.1, np.zeros((b, h)),
            rng.normal(size=(T, b, d)))


@pytest.mark.parametrize("fn, make", CORPUS, ids=[f.__name__ for f, _ in CORPUS])
def test_corpus_derivatives_are_identical(fn, make):
    args = make(np.random.default_rng(0))
    nums = tuple(range(len(args)))
    ref = s2s.grad(fn, argnums=nums)(*args)
    got = s2s.grad(fn, argnums=nums, checkpoint="auto")(*args)
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("f, args", [
    (decay, (np.linspace(-1.0, 1.0, 7), 0.95)),
    (two_loops, (np.linspace(0.1, 0.5, 3), 37)),
    (rnn, rnn_args(50, 3, 4, 2)),
    (rnn_helper, rnn_args(50, 3, 4, 2)),
], ids=["while", "for_and_while", "rnn", "rnn_checkpointed_helper"])
@pytest.mark.parametrize("option", ["auto", 4096, 10 ** 9])
def test_identical_derivatives_with_every_option(f, args, option):
    ref = s2s.grad(f)(*args)
    np.testing.assert_array_equal(s2s.grad(f, checkpoint=option)(*args), ref)
    value, g = s2s.value_and_grad(f, checkpoint=option)(*args)
    assert value == f(*args)
    np.testing.assert_array_equal(g, ref)
    out, vjp_fn = s2s.vjp(f, *args, checkpoint=option)
    np.testing.assert_array_equal(vjp_fn(1.0)[0], ref)
    np.testing.assert_array_equal(vjp_fn(1.0)[0], ref)  # the record is read, never used up


def schedule(f, args, option):
    """The Checkpoints of f's first loop after a backward sweep, and the record the forward kept."""
    mask = (True,) + (False,) * (len(args) - 1)
    fwd, bwd = driver.split_vjp(f, mask, option)
    _, saved = fwd(*args)
    bwd(saved, 1.0)
    return next(x for x in saved if isinstance(x, Checkpoints))


@pytest.mark.parametrize("T", [100, 400, 4096])
def test_for_loop_keeps_sqrt_T_states_and_replays_once(T):
    args = rnn_args(T, 2, 3, 2)
    ck = schedule(rnn, args, "auto")
    k = math.isqrt(T - 1) + 1
    assert ck.k == k and len(ck.states) == -(-T // k)        # ceil(T / ceil(sqrt T)) snapshots
    assert ck.replayed == T                                    # one forward sweep more, in all
    rec = stats.tape_record(rnn, *args, argnums=0, checkpoint="auto")
    assert rec.arrays == len(ck.states) - 1                    # the first is the argument h itself
    assert rec.nbytes == rec.arrays * 2 * 3 * 8


@pytest.mark.parametrize("n", [10, 1000, 5000])
def test_while_loop_online_schedule(n):
    x = np.full(4, 0.5)
    ck = schedule(two_loops, (x, n), "auto")
    assert ck.steps == n and ck.replayed == n
    assert len(ck.states) <= max(2, 2 * math.isqrt(n)) and len(ck.states) >= math.isqrt(n) // 2


def test_budget_bounds_the_snapshots():
    args = rnn_args(1000, 2, 3, 2)
    state = 2 * 3 * 8
    ck = schedule(rnn, args, 40 * state)
    assert len(ck.states) <= 20 and ck.replayed == 1000
    ck = schedule(decay, (np.linspace(-1.0, 1.0, 6), 0.99), 10 * 6 * 8)
    assert len(ck.states) <= 5 and ck.replayed == ck.steps


def peak_states(fn, args):
    fn(*args)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    fn(*args)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak / (B * H * 8)


@pytest.mark.parametrize("f", [rnn, rnn_helper], ids=["loop", "checkpointed_helper"])
def test_peak_memory_is_order_sqrt_T(f):
    T = 1024
    args = rnn_args(T)
    plain = peak_states(s2s.grad(f, argnums=(0, 1)), args)
    auto = peak_states(s2s.grad(f, argnums=(0, 1), checkpoint="auto"), args)
    assert plain >= T                              # one state per step
    assert auto <= 4 * math.sqrt(T)                # the bound


def test_dump_shows_the_schedule(capsys, tmp_path):
    src = s2s.source(s2s.grad(rnn, checkpoint="auto"))
    assert "checkpointed: the carried state is kept at every ceil(sqrt(T))-th step" in src
    assert "rt.checkpoint_save(ckpt0, h)" in src and "rt.checkpoint_segments(ckpt0)" in src
    assert cli.main(["dump", f"{__file__}:decay", "--checkpoint", "auto"]) == 0
    out = capsys.readouterr().out
    assert "an online schedule" in out and "rt.checkpoint_restore" in out
    assert cli.main(["dump", f"{__file__}:rnn", "--checkpoint", "65536"]) == 0
    assert "within 65536 bytes" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["sqrt", -1, 0, True, [1]])
def test_bad_option(bad):
    with pytest.raises(s2s.S2SError, match="checkpoint"):
        s2s.grad(rnn, checkpoint=bad)
