"""Keep freed memory in the process while jit-compiled code runs (glibc's malloc settings).

A gradient's forward sweep keeps each step's values on its tape, so one call grows the C heap by
its whole record and frees it when it returns. glibc then hands the top of the heap back to the
system (all but 128 KiB), and the next call takes it again page by page: a page fault per 4 KiB,
microseconds each on a loaded virtual machine, which cost an Elman RNN's gradient (28 steps of
64 x 128 states) about 40% of its time. Keeping `top_pad` bytes at the top of the heap (glibc's
M_TOP_PAD) and taking arrays below 32 MiB from the heap (M_MMAP_THRESHOLD, the most glibc's own
adaptive threshold reaches, which setting M_TOP_PAD would otherwise freeze at 128 KiB) lets each
call reuse the pages the last one freed, as the caching allocators of XLA and PyTorch do.

`keep_freed` applies this once per process, at the first call of a `jit` function, on Linux
with glibc; `s2s.config.update("heap_top_pad", 0)` (or `S2S_HEAP_TOP_PAD=0`) before that call
leaves the allocator as it is.
"""
from __future__ import annotations

import ctypes
import sys

_M_TOP_PAD = -2  # (glibc's malloc.h)
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20

_state: list = []  # [applied: bool] once decided


def keep_freed(top_pad: int) -> bool:
    """Ask glibc to keep `top_pad` bytes of freed memory at the top of the heap, and to take
    arrays below `MMAP_THRESHOLD` from the heap, once per process; whether it is in effect."""
    if _state:
        return _state[0]
    applied = False
    if top_pad > 0 and sys.platform.startswith("linux"):
        mallopt = _mallopt()
        if mallopt is not None:
            applied = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TOP_PAD, top_pad))
    _state.append(applied)
    return applied


def _mallopt():
    """glibc's `mallopt`, or None (another C library, or none found)."""
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018  (glibc only: musl's mallopt does nothing)
        fn = libc.mallopt
    except (OSError, AttributeError):
        return None
    fn.argtypes = (ctypes.c_int, ctypes.c_int)
    fn.restype = ctypes.c_int
    return fn
