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
    everything alive, would make compile time grow faster than the program. What the block
    leaves alive (the generated code, its records, the caches: some 300,000 objects for a
    1,600-line `grad`) is moved to the oldest generation as it ends (`gc.freeze` then
    `gc.unfreeze`, where nothing was frozen before), as if it had survived the young
    generations' passes, which would each walk all of it to find little garbage (the compiler
    makes almost no reference cycles); the collector's settings are left as they were."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if not gc.get_freeze_count():  # (unfreeze would also thaw what the user froze)
                gc.freeze()
                gc.unfreeze()
            gc.enable()

