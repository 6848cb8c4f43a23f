"""The fused kernels' block scheduler (emit/scheduler.py): blocks shared with helper threads, the
caller waiting only for blocks a helper took (never for a helper that has not started), and the
running decision that sends blocks to the caller alone while helpers make calls slower, with a
threaded probe every `PROBE` calls; the results are the same blocks in the same order either way.
No assertion here depends on timing: helpers are stood in for by executors that run them when
the test says."""
import os
import threading

import numpy as np
import pytest

from s2s.emit import kernels, scheduler


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
        monkeypatch.setattr(scheduler, "threads", lambda: 2)
        monkeypatch.setattr(scheduler, "DECISION", scheduler.Decision())
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


def test_the_decision_follows_how_threaded_calls_fared():
    d = scheduler.Decision()
    assert d.threaded()  # helpers first
    d.record(wall=3.0, one_thread=1.0)
    d.record(wall=100.0, one_thread=1.0)  # (clipped: one stall is not a verdict on its own)
    assert d.ratio == pytest.approx(0.25 * 3 + 0.25 * (scheduler.CLIP - 0.75))
    assert d.ratio >= 1.0
    picks = [d.threaded() for _ in range(3 * scheduler.PROBE)]
    assert picks == ([False] * (scheduler.PROBE - 1) + [True]) * 3  # solo, probing every PROBE-th call
    for _ in range(10):
        d.record(wall=0.5, one_thread=1.0)  # the probes find the helpers help again
    assert d.ratio < 1.0 and all(d.threaded() for _ in range(5))


def test_the_caller_alone_while_helpers_make_calls_slower(pool):
    p = pool(_Pool())
    scheduler.DECISION.ratio = 2.0  # threaded calls have been slower than one thread
    x = np.arange(1000.0)
    for k in range(1, scheduler.PROBE + 1):
        out = np.empty_like(x)
        assert kernels._run(_block([]), None, len(x), out, [x], size=100) == _want(x)
        assert np.array_equal(out, 2.0 * x)
        assert len(p.pending) == (k == scheduler.PROBE)  # only the probe offered blocks to a helper
