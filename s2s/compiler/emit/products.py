"""Large matrix products shared among threads: `a @ b` computed block of rows by block of rows,
the blocks handed out to the calling thread and the pool's helpers (`scheduler.run`).

A jit version whose shapes are known writes a product of two matrices with at least
`shapefold.SPLIT_MIN` multiply-adds as a call of a `Product` (`shapefold.array_methods`); BLAS releases the GIL, so
with BLAS on one thread (`OPENBLAS_NUM_THREADS=1`, as a process per core runs it) two cores
halve the time, as XLA's own thread pool does for JAX, which uses every core: so do the rows
here (`cores.most_threads`: every usable core up to 32, or S2S_THREADS), at least `ROWS_MIN` a
block. Each block is the same BLAS routine on a block of `a`'s rows, so each element is the same
dot product over `k`. Whether the threads
help is measured, call by call, by the scheduler's `Decision`. A BLAS that runs threads of its
own (`cores.blas_threads()`, asked at each call: a `threadpool_limits(1)` around a loop counts)
already uses the cores, and splitting on top of it puts several threads on each core, so then
the product is one BLAS call, never split (issue 46: on 13 cores the split product made W5's
gradient 1.36x the hand-written one). Measured on one BLAS thread,
2 cores: 1024x512 by 512x512 7.4 -> 3.8 ms, 128x784 by 784x256 0.68 -> 0.48 ms, 256x128 by
128x128 0.13 -> 0.16 ms (below `SPLIT_MIN`: the hand-off costs more than it saves).
"""
from __future__ import annotations

import numpy as np

from . import cores, scheduler

ROWS_MIN = 32        # rows of a block (fewer: BLAS's own blocking loses more than threads gain)
# multiply-adds of a block: a helper's hand-off costs tens of µs (more where a vCPU sleeps), so on
# the 13-core machine a 128x784 by 784x256 product ran 1.35x faster in 4 blocks, 1.14x in 8 and
# 0.82x in 13; 1024x512 by 512x512 5.0x in 13 (issue 46)
WORK_MIN = 6 << 20
_DTYPES = frozenset("fdFD")


class Product:
    """`a @ b` of two matrices, its rows shared among threads when they are NumPy arrays of one
    of BLAS's dtypes; any other operands (another backend, another rank) are multiplied as they
    are. One object per product in the code, so that each keeps its own decision."""

    def __init__(self, name: str):
        self.name = name
        self.rows = self._rows  # (a bound method made once: the scheduler keys this product's decision on it)

    def __call__(self, a, b):
        if type(a) is not np.ndarray or type(b) is not np.ndarray or a.ndim != 2 or b.ndim != 2 \
                or a.dtype.char not in _DTYPES or b.dtype.char not in _DTYPES:
            return a @ b
        m = a.shape[0]
        parts = min(scheduler.threads(), m // ROWS_MIN, m * a.shape[1] * b.shape[1] // WORK_MIN)
        if parts < 2 or a.shape[1] != b.shape[0] or cores.blas_is_threaded():
            return a @ b  # (a mismatch raises there, with NumPy's message)
        out = np.empty((m, b.shape[1]), np.result_type(a.dtype, b.dtype))
        scheduler.run(self.rows, m, -(-m // parts), out, (a, b), whole=True)
        return out

    def _rows(self, lo, hi, out, a, b):
        np.matmul(a[lo:hi], b, out=out[lo:hi])

    def source(self) -> str:
        """What it computes, for the listing under the generated code."""
        return f"def {self.name}(a, b):\n    return a @ b\n"

    def banner(self) -> str:
        return "s2s.compiler.emit.products: a @ b, blocks of its rows shared among threads"
