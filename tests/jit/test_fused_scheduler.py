"""The fused kernels' block scheduler (emit/kernels.py `_run`): blocks shared with helper threads,
and run on the caller alone for a while after a call the helpers made slower than one thread (a
helper not scheduled on a loaded machine keeps the caller waiting); the results are the same
blocks in the same order either way."""
import threading
import time

import numpy as np

from s2s.emit import kernels


def _block(log):
    def block(lo, hi, out, x):
        log.append(threading.current_thread() is threading.main_thread())
        time.sleep(0.002 if log[-1] else 0.05)  # (the helper: one the system does not run for a while)
        out[lo:hi] = 2.0 * x[lo:hi]
        return float(np.sum(x[lo:hi]))
    return block


def test_a_slow_helper_sends_the_blocks_to_the_caller_alone(monkeypatch):
    monkeypatch.setattr(kernels, "_SOLO_UNTIL", 0.0)
    monkeypatch.setattr(kernels, "_threads", lambda: 2)
    x = np.arange(1000.0)
    log: list = []
    out = np.empty_like(x)
    parts = kernels._run(_block(log), None, len(x), out, [x], size=100)
    assert not all(log)  # the helper took a block
    assert parts == [float(np.sum(x[lo:lo + 100])) for lo in range(0, 1000, 100)] and np.array_equal(out, 2.0 * x)
    assert kernels._SOLO_UNTIL > time.monotonic()  # ... and made the call slower than one thread
    log.clear()
    out = np.empty_like(x)
    assert kernels._run(_block(log), None, len(x), out, [x], size=100) == parts and np.array_equal(out, 2.0 * x)
    assert log == [True] * 10  # every block on the caller
    monkeypatch.setattr(kernels, "_SOLO_UNTIL", time.monotonic() - 1.0)  # the while is over: helpers again
    log.clear()
    kernels._run(_block(log), None, len(x), np.empty_like(x), [x], size=100)
    assert not all(log)
