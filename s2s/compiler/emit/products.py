"""Large matrix products shared among threads, where BLAS runs on one thread (`OPENBLAS_NUM_THREADS=1`,
`threadpool_limits(1)`, as a process per core runs it) and so leaves cores idle that XLA's thread
pool would give JAX's `dot`.

A jit version whose shapes are known writes a product of two matrices with at least
`shapefold.SPLIT_MIN` multiply-adds as a call of a `Product` (`shapefold.array_methods`). Where
NumPy's BLAS is OpenBLAS with its own pthreads pool (`cores.raisable_blas`), the product raises
OpenBLAS's thread count to `cores.most_threads()` for its one call and sets it back to one: its
workers wait spinning, so they start in microseconds (13-core machine, one BLAS thread: 128x784
by 784x256 1.2 ms to 0.31 ms, 256x128 by 128x128 0.20 to 0.05 ms, 1024x512 by 512x512 12 to 1.4
ms). Else the product's rows are shared in blocks (at least `ROWS_MIN` rows and `WORK_MIN`
multiply-adds each) among the calling thread and the scheduler's helpers, BLAS releasing the GIL
(`scheduler.run`); a Python helper woken on another core takes tens to hundreds of microseconds
to start, so this pays only on larger products (2 cores: 1024x512 by 512x512 7.4 -> 3.8 ms,
128x784 by 784x256 0.68 -> 0.48 ms). Either way each element is a dot product over the same `k`
in BLAS's routine, which may sum a block in another order than the whole (the rounding bound
of docs/jit.md "Large products"), and whether threads help is measured call by call by the
scheduler's `Decision`. A BLAS that already runs threads of its own (`cores.blas_threads()`,
asked at each call) uses the cores: then the product is one BLAS call, never split (issue 46: on
13 cores the split product made W5's gradient 1.36x the hand-written one).
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
    """`a @ b` of two matrices, on OpenBLAS's own threads or its rows shared among s2s's, when they
    are NumPy arrays of one of BLAS's dtypes; any other operands (another backend, another rank)
    are multiplied as they are. One object per product in the code, so that each keeps its own
    decision."""

    def __init__(self, name: str):
        self.name = name
        self.rows = self._rows  # (a bound method made once: the scheduler keys this product's decision on it)

    def __call__(self, a, b):
        if type(a) is not np.ndarray or type(b) is not np.ndarray or a.ndim != 2 or b.ndim != 2 \
                or a.dtype.char not in _DTYPES or b.dtype.char not in _DTYPES:
            return a @ b
        m = a.shape[0]
        if a.shape[1] != b.shape[0] or cores.blas_is_threaded():
            return a @ b  # (a mismatch raises there, with NumPy's message)
        blas = cores.raisable_blas()
        if blas is not None:  # OpenBLAS on one thread: its own workers, raised for this call
            n = scheduler.threads()
            return a @ b if n < 2 else scheduler.decided(self, m, lambda: _raised(blas, n, a, b), lambda: a @ b)
        parts = min(scheduler.threads(), m // ROWS_MIN, m * a.shape[1] * b.shape[1] // WORK_MIN)
        if parts < 2:
            return a @ b
        out = np.empty((m, b.shape[1]), np.result_type(a.dtype, b.dtype))
        scheduler.run(self.rows, m, -(-m // parts), out, (a, b), whole=True)
        return out

    def _rows(self, lo, hi, out, a, b):
        np.matmul(a[lo:hi], b, out=out[lo:hi])

    def source(self) -> str:
        """What it computes, for the listing under the generated code."""
        return f"def {self.name}(a, b):\n    return a @ b\n"

    def banner(self) -> str:
        return "s2s.compiler.emit.products: a @ b, on the cores a one-thread BLAS leaves idle"


def _raised(blas, n: int, a, b):
    """`a @ b` on `n` of OpenBLAS's own threads, its count set back to one (what it was) after."""
    blas.set_num_threads(n)
    try:
        return a @ b
    finally:
        blas.set_num_threads(1)
