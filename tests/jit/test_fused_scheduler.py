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


def test_the_decision_follows_how_each_way_fared():
    d = scheduler.Decision()
    assert d.threaded()  # helpers first,
    d.record(True, 3.0)
    assert not d.threaded()  # then the caller alone, to measure both
    d.record(False, 1.0)
    d.record(True, 100.0)  # (clipped: one stall is not a verdict on its own)
    assert d.shared == pytest.approx(3.0 + 0.25 * (scheduler.CLIP * 3.0 - 3.0))
    picks = [d.threaded() for _ in range(3 * scheduler.PROBE)]
    assert picks.count(True) == 3 and picks.index(True) < scheduler.PROBE  # solo, probing every PROBE-th call
    for _ in range(20):
        d.record(True, 0.5)  # the probes find the helpers help again
    assert d.shared < 0.6 and [d.threaded() for _ in range(scheduler.PROBE)].count(False) == 1  # (the probe)
    d.solo = d.shared / scheduler.GAIN * 0.99  # threads not a fifth faster: alone (they cost CPU time)
    assert [d.threaded() for _ in range(scheduler.PROBE)].count(True) == 1


def test_the_caller_alone_while_helpers_make_calls_slower(pool):
    p = pool(_Pool())
    block = _block([])
    d = scheduler.decision(block)
    d.shared, d.solo = 2.0, 1.0  # threaded calls have been slower per element than the caller alone
    x = np.arange(1000.0)
    offered = []
    for _ in range(scheduler.PROBE):
        out = np.empty_like(x)
        before = len(p.pending)
        assert kernels._run(block, None, len(x), out, [x], size=100) == _want(x)
        assert np.array_equal(out, 2.0 * x)
        offered.append(len(p.pending) - before)
    assert offered.count(1) == 1 and offered.count(0) == scheduler.PROBE - 1  # only the probe offered blocks


def test_each_kernel_decides_for_itself(pool):
    pool(_Pool())
    a, b = _block([]), _block([])
    scheduler.decision(a).shared, scheduler.decision(a).solo = 2.0, 1.0
    assert scheduler.decision(b).threaded() and scheduler.decision(b) is not scheduler.decision(a)
