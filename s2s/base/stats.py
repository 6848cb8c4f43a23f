"""The compiler's bookkeeping: counters of its work (nodes walked, statements inspected, set
elements copied), kept by s2s itself so a test can check that compile time grows linearly
whatever the machine, and the garbage collector paused while it builds a transform."""
from __future__ import annotations

import collections
import contextlib
import gc

STATS: collections.Counter = collections.Counter()


@contextlib.contextmanager
def paused_gc():
    """Pause the cyclic garbage collector while the block runs (re-entrant). Building a transform
    allocates many small AST nodes and frees few, so the collector's full passes, each over
    everything alive, would make compile time grow faster than the program; what the block
    leaves as garbage is collected after it. (Moving what it leaves alive to the oldest
    generation, `gc.freeze` then `gc.unfreeze`, saved 0.2 s of a 1,600-line `grad`, but asking
    whether the user froze anything, `gc.get_freeze_count`, walks every frozen object: the test
    session's millions made each build seconds.)"""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()

