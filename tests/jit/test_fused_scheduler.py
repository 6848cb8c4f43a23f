"""The fused kernels' block scheduler (emit/scheduler.py): blocks shared with helper threads, the
caller waiting only for blocks a helper took (never for a helper that has not started), and each
kernel's running decision that sends blocks to the caller alone while its threaded calls are not
faster per element, with a probe of the other way every `PROBE` calls; the results are the same
blocks in the same order either way. No assertion here depends on timing: helpers are stood in
for by executors that run them when the test says."""
import os
import threading

import numpy as np
import pytest

from s2s.compiler.emit import cores, kernels, scheduler


class _Pool:
    """An executor whose work runs only when the test calls `release` (a helper the system has not
    scheduled yet), or right away in a thread (`now=True`)."""

    def __init__(self, now=False):
        self.now, self.pending, self.threads = now, [], []

    def submit(self, fn):
        if self.now:
            t = threading.Thread(target=fn)
            t.start()
            self.threads.append(t)
        else:
            self.pending.append(fn)

    def release(self):
        return [fn() for fn in self.pending]


def _block(log):
    def block(lo, hi, out, x):
        log.append(threading.current_thread() is threading.main_thread())
        out[lo:hi] = 2.0 * x[lo:hi]
        return float(np.sum(x[lo:hi]))
    return block


@pytest.fixture
def pool(monkeypatch):
    def use(p):
        monkeypatch.setattr(scheduler, "_POOL", p)
        monkeypatch.setattr(scheduler, "_POOL_PID", os.getpid())
        monkeypatch.setattr(scheduler, "threads", lambda kernel=False: 2)
        monkeypatch.setattr(cores, "blas_threads", lambda: 1)  # (a threaded BLAS leaves no core to helpers)
        monkeypatch.setattr(scheduler, "DECISIONS", {})
        return p
    return use


def _want(x):
    return [float(np.sum(x[lo:lo + 100])) for lo in range(0, len(x), 100)]


def test_a_helper_that_has_not_started_does_not_hold_the_caller(pool):
    p = pool(_Pool())
    x = np.arange(1000.0)
    log: list = []
    out = np.empty_like(x)
    parts = kernels._run(_block(log), None, len(x), out, [x], size=100)  # returns: nothing waits for the helper
    assert parts == _want(x) and np.array_equal(out, 2.0 * x) and log == [True] * 10
    out[:] = -1.0
    assert p.release() == [0]  # the helper, run late, finds every block taken and writes nothing
    assert np.all(out == -1.0) and log == [True] * 10


def test_blocks_shared_with_a_running_helper(pool):
    p = pool(_Pool(now=True))
    x = np.arange(100_000.0)
    out = np.empty_like(x)
    parts = scheduler.run(_block([]), len(x), 100, out, [x])
    for t in p.threads:
        t.join()
    assert parts == _want(x) and np.array_equal(out, 2.0 * x)


def test_an_error_in_a_helper_block_reaches_the_caller(pool):
    pool(_Pool(now=True))

    def block(lo, hi, out, x):
        if threading.current_thread() is not threading.main_thread():
            raise FloatingPointError("in a helper")
        threading.Event().wait(0.001)  # (lets the helper take a block)
        return 0.0
    x = np.zeros(10_000)
    for _ in range(20):  # the helper takes a block in some call: its error is raised there
        try:
            scheduler.run(block, len(x), 100, x, [x])
        except FloatingPointError as e:
            assert str(e) == "in a helper"
            return
    pytest.fail("the helper never took a block")


def _probes(d, calls):
    """The calls among the next `calls` that go the way `d` does not choose."""
    picks = [d.threaded() for _ in range(calls)]
    return [k for k, p in enumerate(picks) if p != d.best]


def test_the_decision_follows_how_each_way_fared():
    d = scheduler.Decision()
    assert d.threaded()  # helpers first,
    d.record(True, 3.0)
    assert not d.threaded()  # then the caller alone, to measure both
    d.record(False, 1.0)
    p = scheduler.PROBE
    assert _probes(d, 7 * p) == [p - 1, 3 * p - 1, 7 * p - 1] and not d.best  # solo; probes back off
    assert _probes(d, 3 * scheduler.LAST_PROBE) == [k * scheduler.LAST_PROBE - 1 for k in (1, 2, 3)]
    d.record(True, 0.01)  # one lucky threaded call is no verdict
    assert d.estimate(True) == 3.0 and not d.threaded()
    for _ in range(scheduler.KEEP):
        d.record(True, 0.5)  # the probes find the helpers help again: threaded, probed soon again
    assert d.estimate(True) == 0.5 and _probes(d, p) == [p - 1] and d.best
    for _ in range(scheduler.KEEP):
        d.record(False, 0.5 / scheduler.GAIN * 0.99)  # threads not a fifth faster: alone (they cost CPU time)
    assert _probes(d, p) == [p - 1] and not d.best


def test_the_caller_alone_while_helpers_make_calls_slower(pool):
    p = pool(_Pool())
    block = _block([])
    d = scheduler.decision(block)
    d.record(True, 2.0)
    d.record(False, 1.0)  # threaded calls have been slower per element than the caller alone
    x = np.arange(1000.0)
    offered = []
    for _ in range(3 * scheduler.PROBE):
        out = np.empty_like(x)
        before = len(p.pending)
        assert kernels._run(block, None, len(x), out, [x], size=100) == _want(x)
        assert np.array_equal(out, 2.0 * x)
        offered.append(len(p.pending) - before)
    assert offered.count(1) == 2 and offered.count(0) == 3 * scheduler.PROBE - 2  # only the probes offered blocks


def test_each_kernel_decides_for_itself(pool):
    pool(_Pool())
    a, b = _block([]), _block([])
    scheduler.decision(a).record(True, 2.0)
    scheduler.decision(a).record(False, 1.0)
    assert not scheduler.decision(a).threaded() and scheduler.decision(b).threaded()


@pytest.mark.parametrize("reduce", [None, "sum"])
def test_a_numba_driver_claims_every_block_once(pool, reduce):
    """A numba kernel's driver runs the blocks it claims from the shared counter without the GIL;
    with a running helper, every block is written once and the per-block sums come in block order."""
    pytest.importorskip("numba")
    import gast

    from s2s.compiler.emit import numba_kernels
    if not numba_kernels.available():
        pytest.skip("S2S_NO_NUMBA")
    p = pool(_Pool(now=True))
    expr = gast.parse("x * 2.0 + 1.0", mode="eval").body
    src = numba_kernels.kernel_source("fused_t", ["x"], (True,), expr, reduce)
    block = numba_kernels.load("fused_t", src)
    x = np.arange(1_000_003.0)
    for _ in range(3):
        out = None if reduce else np.full_like(x, np.nan)
        parts = scheduler.run(block, len(x), 1000, out, [x], blocks=numba_kernels.blocks_of(block))
        want = [float(np.sum(x[lo:lo + 1000] * 2.0 + 1.0)) if reduce else 0.0 for lo in range(0, len(x), 1000)]
        assert len(parts) == len(want) and np.allclose(parts, want, rtol=1e-15, atol=0)
        if not reduce:
            assert np.array_equal(out, x * 2.0 + 1.0)
    for t in p.threads:
        t.join()


def test_a_numba_kernel_runs_its_blocks_through_its_driver(pool, monkeypatch):
    """A jit version's numba kernel hands the scheduler its driver (`blocks`), so its threads claim
    blocks without the GIL; a NumPy block kernel hands none. Both compute the expression."""
    pytest.importorskip("numba")
    from s2s.compiler.emit import numba_kernels
    if not numba_kernels.available():
        pytest.skip("S2S_NO_NUMBA")
    import s2s
    pool(_Pool(now=True))
    drivers = []
    real = scheduler.run

    def run(block, n, size, out, flat, buffers=tuple, blocks=None, *rest):
        drivers.append(blocks is not None)
        return real(block, n, size, out, flat, buffers, blocks, *rest)

    monkeypatch.setattr(scheduler, "run", run)

    def affine(x):
        return np.sum(x * 2.0 + 1.0)

    def tanh2(x):
        return np.sum(np.tanh(x) * 2.0)  # (tanh: NumPy's SIMD loop wins, the NumPy block kernel runs)

    x = np.linspace(0.1, 1.0, 3 * kernels.THRESHOLD + 7)
    np.testing.assert_allclose(s2s.jit(affine)(x), np.sum(x * 2.0 + 1.0), rtol=1e-12)
    assert drivers == [True]
    drivers.clear()
    np.testing.assert_allclose(s2s.jit(tanh2)(x), np.sum(np.tanh(x) * 2.0), rtol=1e-12)
    assert drivers == [False]


@pytest.mark.parametrize("env, whole, want", [(None, False, 8), (None, True, 13), ("11", False, 11), ("11", True, 11)])
def test_a_call_reads_s2s_threads_once(monkeypatch, env, whole, want):
    """A kernel's blocks on at most 8 threads, a product's on every core up to 32, unless
    S2S_THREADS says how many: one read of it per call, for either."""
    reads = []
    real = cores._set_threads
    monkeypatch.setattr(cores, "_set_threads", lambda: reads.append(1) or real())
    monkeypatch.setattr(cores, "usable_cores", lambda: 13)
    monkeypatch.setattr(cores, "idle_cores", lambda: 13)
    monkeypatch.setattr(scheduler, "DECISIONS", {})
    if env is None:
        monkeypatch.delenv("S2S_THREADS", raising=False)
    else:
        monkeypatch.setenv("S2S_THREADS", env)
    assert scheduler.threads(kernel=not whole) == want and len(reads) == 1
    x, out = np.arange(1000.0), np.empty(1000)
    helpers = []
    monkeypatch.setattr(scheduler, "decision", lambda block: helpers.append(1) or scheduler.Decision())
    monkeypatch.setattr(scheduler.Decision, "threaded", lambda self: False)  # (the caller alone: no pool)
    parts = scheduler.run(_block([]), 1000, 100, out, (x,), whole=whole)
    assert len(reads) == 2 and helpers == [1]
    np.testing.assert_array_equal(out, 2.0 * x)
    assert sum(parts) == x.sum()
