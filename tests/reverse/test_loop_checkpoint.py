"""grad(f, checkpoint=...) (issue 30): the top-level loops of f run without records, keeping the
state they carry every k-th step; the backward sweep runs each segment again with records. The
derivative is the one without checkpointing, exactly; the record (`memory.tape_record`) and the
schedule's own count of replayed steps say what it keeps and what it recomputes, and tracemalloc
(NumPy reports its allocations to it) the peak."""
import math
import tracemalloc

import numpy as np
import pytest
from corpus import CORPUS

import s2s
from s2s.api import cli, memory
from s2s.compiler import driver
from s2s.runtime import Checkpoints
from s2s.runtime.checkpoints import Plan

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
    assert ck.k == k and len(ck.snaps) == -(-T // k)         # ceil(T / ceil(sqrt T)) snapshots
    assert ck.replayed == T                                    # one forward sweep more, in all
    rec = memory.tape_record(rnn, *args, argnums=0, checkpoint="auto")
    assert rec.arrays == len(ck.snaps) - 1                     # the first is the argument h itself
    assert rec.nbytes == rec.arrays * 2 * 3 * 8


@pytest.mark.parametrize("n", [10, 1000, 5000])
def test_while_loop_online_schedule(n):
    x = np.full(4, 0.5)
    ck = schedule(two_loops, (x, n), "auto")
    assert ck.steps == n and ck.replayed == n
    assert len(ck.snaps) <= max(2, 2 * math.isqrt(n)) and len(ck.snaps) >= math.isqrt(n) // 2


def test_budget_bounds_the_snapshots():
    args = rnn_args(1000, 2, 3, 2)
    state = 2 * 3 * 8
    ck = schedule(rnn, args, 40 * state)                 # 40 states: segments of 20, 20 snapshots
    assert ck.k == 20 and len(ck.snaps) <= 20 and ck.replayed <= 3 * 1000
    ck = schedule(decay, (np.linspace(-1.0, 1.0, 6), 0.99), 10 * 6 * 8)
    assert len(ck.snaps) <= 5 and ck.replayed == ck.steps


def simulate(T, budget_states):
    """Run a schedule's plan by hand: the order steps are reversed in, the most snapshots alive at
    once, and the steps run again."""
    ck = Checkpoints(T, budget_states * 8)
    for i in range(T):
        ck.save((np.zeros(1),))
    plan, reversed_steps, most = Plan(ck, consume=True), [], 0
    for act in plan:
        for d in act.drops:
            del plan.snaps[d]
        assert act.start in plan.snaps                   # every action starts from a snapshot
        if act.advance:
            ck.replayed += act.stop - act.start
            plan.snaps[act.stop] = ()
        else:
            ck.replayed += act.stop - act.start
            assert act.stop - act.start <= ck.k          # a segment's records: at most L states
            reversed_steps.extend(range(act.stop - 1, act.start - 1, -1))
        most = max(most, len(plan.snaps))
    return ck, reversed_steps, most


@pytest.mark.parametrize("T, states", [(4096, 64), (4096, 20), (65536, 64), (65536, 600), (100, 7), (10, 100)])
def test_binomial_schedule(T, states):
    ck, order, most = simulate(T, states)
    assert order == list(range(T - 1, -1, -1))           # every step reversed once, last first
    assert most + ck.k <= states                         # snapshots and one segment's records: the budget
    r = 1
    while math.comb(ck.slots + r, ck.slots) < -(-T // ck.k):
        r += 1
    assert ck.replayed <= (r + 1) * T                    # each step run at most r more times (revolve)
    if (T, states) in ((4096, 64), (65536, 600)):
        assert ck.replayed <= 3 * T                      # the bound: at most 3 forward sweeps more


def test_a_small_budget_runs_in_bounded_memory():
    T = 1024
    args = rnn_args(T)
    state = B * H * 8
    g = s2s.grad(rnn, argnums=(0, 1), checkpoint=24 * state)
    ref = s2s.grad(rnn, argnums=(0, 1))(*args)
    for a, b in zip(g(*args), ref):
        np.testing.assert_array_equal(a, b)
    assert peak_states(g, args) <= 24 + 12               # the budget, and a step's temporaries


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
    assert "rt.checkpoint_save(ckpt0, h)" in src and "rt.checkpoint_plan(ckpt0, True)" in src
    assert "rt.checkpoint_advance(act0, r0)" in src and "rt.checkpoint_store(act0, h)" in src
    assert cli.main(["dump", f"{__file__}:decay", "--checkpoint", "auto"]) == 0
    out = capsys.readouterr().out
    assert "an online schedule" in out and "rt.checkpoint_restore" in out
    assert cli.main(["dump", f"{__file__}:rnn", "--checkpoint", "65536"]) == 0
    assert "binomial (revolve) schedule picks within 65536 bytes" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["sqrt", -1, 0, True, [1]])
def test_bad_option(bad):
    with pytest.raises(s2s.S2SError, match="checkpoint"):
        s2s.grad(rnn, checkpoint=bad)


def test_composes_with_jit_and_vmap():
    args = rnn_args(40, 3, 4, 2)
    ref = s2s.grad(rnn)(*args)
    np.testing.assert_array_equal(s2s.jit(s2s.grad(rnn, checkpoint="auto"))(*args), ref)
    ws = np.stack([args[0], 2 * args[0]])
    per = s2s.vmap(s2s.grad(rnn, checkpoint="auto"), in_axes=(0, None, None, None))(ws, *args[1:])
    for k in range(2):
        np.testing.assert_allclose(per[k], s2s.grad(rnn)(ws[k], *args[1:]), rtol=1e-12, atol=1e-14)
    x = np.linspace(-1.0, 1.0, 5)
    np.testing.assert_array_equal(s2s.jit(s2s.grad(decay, checkpoint="auto"))(x, 0.9), s2s.grad(decay)(x, 0.9))
