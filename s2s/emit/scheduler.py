"""The block scheduler of the fused kernels: the blocks of one call handed out one at a time, from a
shared counter, to the calling thread and the pool's helper threads (not split in fixed shares).

The caller waits only for blocks a helper has taken, never for a helper that has not started: on
a loaded machine a helper the system does not run for a few milliseconds finds the counter spent
when it starts and touches nothing. A helper that took a block and is then not scheduled still
keeps the caller waiting, so the scheduler keeps a running mean of how threaded calls fared
(`Decision`): each threaded call's wall time against what the caller's own blocks say one thread
would have taken. While that mean says the helpers made calls slower, blocks run on the caller
alone, and every `PROBE`-th call tries the helpers again (no fixed sleep: the decision follows the
load, and one slow call does not switch threads off for a second).
"""
from __future__ import annotations

import itertools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

PROBE = 8          # while solo, every PROBE-th call runs threaded to measure again
WEIGHT = 0.25      # weight of the newest threaded call in the running mean
CLIP = 4.0         # a call's slowdown counts at most this much (one stall is not a verdict)
_POOL = None
_POOL_PID = None   # a forked child makes its own pool (the parent's threads do not exist there)


def threads() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


class Decision:
    """Whether the next call shares its blocks with helpers: `ratio` is the running mean of
    threaded calls' wall time / the one-thread estimate (below 1: the helpers helped)."""

    def __init__(self):
        self.ratio = 0.0
        self.solo_calls = 0

    def threaded(self) -> bool:
        if self.ratio < 1.0:
            return True
        self.solo_calls += 1
        if self.solo_calls >= PROBE:
            self.solo_calls = 0
            return True
        return False

    def record(self, wall: float, one_thread: float):
        r = min(wall / one_thread, CLIP) if one_thread > 0 else CLIP
        self.ratio += WEIGHT * (r - self.ratio)


DECISION = Decision()


def run(block, n: int, size: int, out, flat, buffers=tuple):
    """`block(lo, hi, out, *buffers(), *flat)` over [0, n) in `size`-element pieces; the per-block
    results in block order. `buffers()`: the calling thread's scratch buffers (a tuple to splice)."""
    global _POOL, _POOL_PID
    starts = range(0, n, size)
    total = len(starts)
    helpers = min(threads(), total) - 1
    if helpers <= 0 or not DECISION.threaded():
        bufs = buffers()
        return [block(lo, min(n, lo + size), out, *bufs, *flat) for lo in starts]
    if _POOL is None or _POOL_PID != os.getpid():
        _POOL, _POOL_PID = ThreadPoolExecutor(threads() - 1, thread_name_prefix="s2s-fused"), os.getpid()
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
    for _ in range(helpers):
        _POOL.submit(work)
    mine = work()
    own = time.perf_counter() - begin
    all_done.wait()
    if errors:
        raise errors[0]
    if mine:
        DECISION.record(time.perf_counter() - begin, own / mine * total)
    return parts
