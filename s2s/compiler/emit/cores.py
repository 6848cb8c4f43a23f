"""How many threads BLAS runs right now, so that s2s's own helper threads never add to them:
a product split among s2s's threads, each half calling a BLAS that itself runs a thread per
core, puts several threads on every core (issue 46: 1.36x the hand-written gradient on 13 cores).

The answer comes from threadpoolctl when it is installed (the `fast` extra), which asks the
loaded BLAS itself and so sees `threadpool_limits(1)` entered around a training loop; else from
the environment variables BLAS reads when it starts (OPENBLAS_NUM_THREADS, MKL_NUM_THREADS,
OMP_NUM_THREADS, the first one set); else BLAS is taken to run a thread on every usable core.
Finding BLAS (importing threadpoolctl, scanning the loaded libraries: 15 ms) happens once, at
the first question; each question after it is one call into BLAS (3 us on the 2-core machine),
asked once per large product, never per block.
"""
from __future__ import annotations

import os

ENV_VARS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
MOST = 32  # s2s's threads for one call at most, S2S_THREADS unset (a pool this large costs nothing idle)
# a fused kernel's threads at most, S2S_THREADS unset: its blocks are bound by the memory's
# bandwidth, which a few cores fill (13-core machine, W4 SELU on 10^6 elements: 0.09x hand on 6 or
# 8 threads, 0.11x on 10, 0.12x on 13, where the products of W5 gain up to 13)
KERNEL_MOST = 8
_UNSET = object()
_blas = _UNSET  # threadpoolctl's controllers of the loaded BLAS libraries (None: no threadpoolctl)
_raisable = _UNSET  # NumPy's OpenBLAS, where a product may raise its threads (None: not that BLAS)
_from_env = None  # the environment's answer, read once (BLAS reads it once, when it loads)


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask, where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def most_threads(kernel: bool = False) -> int:
    """The threads s2s's kernels and products may share one call among: `S2S_THREADS` when set to
    a positive number (several processes a machine, each with its share), else every usable core
    up to `MOST`, and up to `KERNEL_MOST` for a fused (memory-bound) `kernel`'s call (one read of
    S2S_THREADS either way). A product's rows are work for every core, as XLA gives JAX's `dot`; a
    kernel's blocks are bounded by the memory bandwidth, and its per-call decision keeps the
    caller alone where threads do not pay."""
    return _set_threads() or min(usable_cores(), KERNEL_MOST if kernel else MOST)


def _set_threads() -> int:
    """`S2S_THREADS` where set to a positive number, else 0."""
    value = os.environ.get("S2S_THREADS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else 0


def blas_threads() -> int:
    """The threads the loaded BLAS runs for one call now (at least 1)."""
    libs = blas_libraries()
    if libs:
        try:
            return max(1, max(int(lib.num_threads) for lib in libs))
        except Exception:  # noqa: BLE001 - a library threadpoolctl cannot ask: the environment says
            pass
    return env_blas_threads()


def idle_cores() -> int:
    """The cores s2s's helper threads and the caller may share a kernel's blocks among, in a
    version that may call BLAS: those a threaded BLAS leaves. A kernel never runs during a BLAS
    call of its generated function, but OpenBLAS's workers keep spinning after each call (a
    512x512 product on 2 threads: its worker burns 0.4 of a core for the next 50 ms on the loaded
    2-core machine), so a core BLAS uses is not free for a kernel between two products; the
    caller's own core is (BLAS runs one of its threads on the caller). A version that makes no
    BLAS call gives its kernels `most_threads()` (emit/blas_calls.py)."""
    return max(1, usable_cores() - blas_threads() + 1)


def blas_is_threaded() -> bool:
    """Whether one BLAS call already runs on more than one core (then splitting it is oversubscription)."""
    return blas_threads() > 1


def env_blas_threads() -> int:
    """What the environment tells BLAS to run: the first of `ENV_VARS` set to a positive number,
    at most the usable cores; every usable core when none is."""
    global _from_env
    if _from_env is None:
        cores = usable_cores()
        _from_env = cores
        for name in ENV_VARS:
            value = os.environ.get(name, "").strip().split(",")[0]  # (OMP's list form: the outer level)
            if value.isdigit() and int(value) > 0:
                _from_env = min(int(value), cores)
                break
    return _from_env


def blas_libraries():
    """threadpoolctl's controllers of the BLAS libraries loaded now (found once; None without
    threadpoolctl, or where it finds no BLAS)."""
    global _blas
    if _blas is _UNSET:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _blas = None
        else:
            try:
                found = [lib for lib in ThreadpoolController().lib_controllers if lib.user_api == "blas"]
            except Exception:  # noqa: BLE001 - a system threadpoolctl cannot inspect: the environment says
                found = []
            _blas = found or None
    return _blas


def raisable_blas():
    """threadpoolctl's controller of the OpenBLAS NumPy calls where it runs its own pthreads pool
    (one process-wide thread count, which `set_num_threads` changes in about a microsecond), else
    None (no threadpoolctl, another BLAS, an OpenMP build, several OpenBLAS libraries of which
    none is NumPy's). A product on one BLAS thread raises that count for its own call: OpenBLAS's
    workers wait spinning, so they start in microseconds where a Python helper thread woken on
    another core takes tens to hundreds (issue 46: 128x784 by 784x256 ran 3.8x faster on 13 of
    OpenBLAS's threads, 1.35x at best split in rows among s2s's)."""
    global _raisable
    if _raisable is _UNSET:
        libs = [lib for lib in blas_libraries() or () if getattr(lib, "internal_api", None) == "openblas"
                and getattr(lib, "threading_layer", None) == "pthreads"]
        numpys = [lib for lib in libs if "numpy" in str(getattr(lib, "filepath", ""))]
        _raisable = (numpys or libs)[0] if len(numpys or libs) == 1 else None
    return _raisable


def forget() -> None:
    """Find BLAS and read the environment again at the next question (tests; a BLAS loaded late)."""
    global _blas, _from_env, _raisable
    _blas, _from_env, _raisable = _UNSET, None, _UNSET
