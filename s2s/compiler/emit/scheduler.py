"""The block scheduler of the fused kernels: the blocks of one call handed out one at a time, from a
shared counter, to the calling thread and the pool's helper threads (not split in fixed shares).

The caller waits only for blocks a helper has taken, never for a helper that has not started: on
a loaded machine a helper the system does not run for a few milliseconds finds the counter spent
when it starts and touches nothing. A helper that took a block and is then not scheduled still
keeps the caller waiting (and so does one holding the GIL between two blocks), so each kernel keeps
a `Decision`: the medians of the wall time per element of its last threaded calls and of its last
calls on the caller alone, each measured on calls that ran that way. The kernel runs the way whose
median is lower (threaded only where it saves a fifth of the wall time, since it costs more CPU time), and
a probe runs the other way to measure it again, `PROBE` calls after the choice and then at twice
the interval each time up to `LAST_PROBE` (threaded calls cost twice the time where the memory
bandwidth is the limit), so the decision follows the load.
Measured on the loaded 2-core machine (W4, SELU on 10^6 elements): one global estimate from the
caller's own blocks kept threads on at a median 5.6 ms a call against 1.6 ms alone.
"""
from __future__ import annotations

import itertools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import cores

PROBE = 8          # the PROBE-th call after a choice runs the way not chosen, to measure it again,
LAST_PROBE = 64    # then the 2*PROBE-th after that... up to every LAST_PROBE-th (a probe costs a slow call)
KEEP = 5           # calls of each way whose median decides
GAIN = 0.8         # threaded only where its mean wall time is below GAIN times the caller's alone
_POOL = None
_POOL_PID = None   # a forked child makes its own pool (the parent's threads do not exist there)


def threads(kernel: bool = False) -> int:
    """Threads a call's blocks may be shared among at most: `cores.most_threads(kernel)` (every
    usable core up to 32, 8 for a fused kernel's blocks, or S2S_THREADS; `run` takes fewer where a
    threaded BLAS keeps cores busy, `cores.idle_cores`, unless the kernel's version calls no BLAS)."""
    return max(1, cores.most_threads(kernel))


class Decision:
    """Whether a kernel's next call shares its blocks with helpers: the wall times per element
    of its last `KEEP` threaded calls and of its last `KEEP` calls on the caller alone; each way
    is judged by the median of its own (one stall, or one lucky call, is no verdict)."""

    def __init__(self):
        self.times = {True: [], False: []}
        self.calls = 0
        self.best = None
        self.interval = PROBE
        self.warm = False  # (`decided`: a way's first call may start threads, and is not recorded)

    def estimate(self, threaded: bool):
        t = sorted(self.times[threaded])
        return t[len(t) // 2] if t else None

    def threaded(self) -> bool:
        shared, solo = self.estimate(True), self.estimate(False)
        if shared is None:
            return True
        if solo is None:
            return False
        best = shared < GAIN * solo
        if best != self.best:  # a new choice: probe the other way soon
            self.best, self.interval, self.calls = best, PROBE, 0
        self.calls += 1
        if self.calls >= self.interval:  # each probe that leaves the choice as it was waits twice as long
            self.calls, self.interval = 0, min(2 * self.interval, LAST_PROBE)
            return not best
        return best

    def record(self, threaded: bool, per_element: float):
        t = self.times[threaded]
        t.append(per_element)
        del t[:-KEEP]


DECISIONS: dict = {}  # block function -> its Decision


def decision(block) -> Decision:
    d = DECISIONS.get(block)
    if d is None:
        d = DECISIONS[block] = Decision()
    return d


def decided(key, n: int, threaded, alone):
    """`threaded()` or `alone()`, as `key`'s Decision chooses, its wall time per element (of `n`)
    recorded for that way: a product on BLAS's own threads, whose hand-off is BLAS's."""
    choice = decision(key)
    way = choice.threaded()
    begin = time.perf_counter()
    result = threaded() if way else alone()
    if choice.warm or not way:
        choice.record(way, (time.perf_counter() - begin) / n)
    choice.warm |= way
    return result


def run(block, n: int, size: int, out, flat, buffers=tuple, blocks=None, every_core: bool = False,
        whole: bool = False):
    """`block(lo, hi, out, *buffers(), *flat)` over [0, n) in `size`-element pieces; the per-block
    results in block order. `buffers()`: the calling thread's scratch buffers (a tuple to splice).
    `whole`: a product's blocks: on the caller alone, one block over [0, n) (BLAS's own blocking of
    the whole matrix beats a loop over blocks of rows, 1.2x on the 13-core machine), and threaded,
    up to `threads()`; a kernel's (memory-bound) blocks have `threads(kernel=True)` at most.
    `blocks`: a driver that runs the blocks itself, claiming them from a shared counter without
    the GIL (a numba kernel's, `numba_kernels.kernel_source`). `every_core`: the caller's version
    calls no BLAS, so no BLAS worker spins on a core (`threads()` helpers, not `cores.idle_cores`)."""
    global _POOL, _POOL_PID
    starts = range(0, n, size)
    total = len(starts)
    helpers = min(threads(kernel=not whole), total) - 1  # (one read of S2S_THREADS)
    if helpers > 0 and not every_core:  # only the cores BLAS's own threads leave idle (asked once per call)
        helpers = min(helpers, cores.idle_cores() - 1)
    if helpers <= 0:
        if whole:
            return [block(0, n, out, *flat)]
        if blocks is not None:
            return _driven(blocks, n, size, out, flat, total)
        bufs = buffers()
        return [block(lo, min(n, lo + size), out, *bufs, *flat) for lo in starts]
    choice = decision(block)
    if not choice.threaded():
        begin = time.perf_counter()
        if whole:
            parts = [block(0, n, out, *flat)]
        elif blocks is not None:
            parts = _driven(blocks, n, size, out, flat, total)
        else:
            bufs = buffers()
            parts = [block(lo, min(n, lo + size), out, *bufs, *flat) for lo in starts]
        choice.record(False, (time.perf_counter() - begin) / n)
        return parts
    started = _POOL is None or _POOL_PID != os.getpid()
    if started:  # (this call's time counts the threads' start: not recorded)
        _POOL, _POOL_PID = ThreadPoolExecutor(threads() - 1, thread_name_prefix="s2s-fused"), os.getpid()
    if blocks is not None:
        begin = time.perf_counter()
        parts = _driven(blocks, n, size, out, flat, total, helpers)
        if not started:
            choice.record(True, (time.perf_counter() - begin) / n)
        return parts
    parts = [None] * total
    taken = itertools.count()
    finished = itertools.count(1)  # next() on a count is atomic under the GIL
    all_done = threading.Event()
    errors: list = []

    def work(_=None):
        bufs = buffers()
        mine = 0
        for i in taken:
            if i >= total or errors:
                return mine
            lo = starts[i]
            try:
                parts[i] = block(lo, min(n, lo + size), out, *bufs, *flat)
            except BaseException as e:  # noqa: BLE001 - raised again by the caller
                errors.append(e)
                all_done.set()
                return mine
            mine += 1
            if next(finished) == total:
                all_done.set()
        return mine

    begin = time.perf_counter()
    _share(work, helpers, all_done, errors)
    if not started:
        choice.record(True, (time.perf_counter() - begin) / n)
    return parts


def _share(work, helpers, all_done, errors):
    """`work` on `helpers` pool threads and on the caller; returns once `all_done` is set, raising
    the first error a thread recorded."""
    for _ in range(helpers):
        _POOL.submit(work)
    work()
    all_done.wait()
    if errors:
        raise errors[0]


def _driven(blocks, n, size, out, flat, total, helpers=0):
    """The blocks run by the driver `blocks` on the caller and `helpers` pool threads; the caller
    waits only for blocks a helper claimed (the one that finishes the last block says so)."""
    counts = np.zeros(2, np.int64)
    parts = np.empty(total)
    if not helpers:
        blocks(counts, parts, n, size, out, *flat)
        return parts.tolist()
    all_done = threading.Event()
    errors: list = []

    def work(_=None):
        try:
            if blocks(counts, parts, n, size, out, *flat):
                all_done.set()
        except BaseException as e:  # noqa: BLE001 - raised again by the caller
            errors.append(e)
            all_done.set()

    _share(work, helpers, all_done, errors)
    return parts.tolist()
