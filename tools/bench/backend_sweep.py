"""Sweep the corpus and the op table through one array backend against NumPy, and summarize.

    python tools/bench/backend_sweep.py dask      # value_and_grad and vjp on Dask (a few minutes)
    python tools/bench/backend_sweep.py cupy      # the same on CuPy (needs a GPU)

Each entry runs tests/support/backend_variants.py's `check_on_backend`; the summary counts entries that
agree with NumPy, and groups the others by error type (an S2SError is a function the backend
lacks, named; anything else is worth a look). CI runs the fake-GPU variant of this sweep
(tests/backends/test_backends.py) and a Dask slice (tests/backends/test_backends_dask_ops.py).
"""
from __future__ import annotations

import collections
import os
import sys
import time
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))

from backend_variants import check_on_backend  # noqa: E402
from corpus import CORPUS  # noqa: E402
from op_specs import SPECS  # noqa: E402


def _dask():
    import dask.array as da

    def put(a):
        return da.from_array(a, chunks=a.shape) if isinstance(a, np.ndarray) else a
    return put, lambda a: np.asarray(a.compute() if hasattr(a, "compute") else a), lambda a: isinstance(a, da.Array)


def _cupy():
    import cupy as cp
    return cp.asarray, lambda a: a.get() if hasattr(a, "get") else np.asarray(a), lambda a: isinstance(a, cp.ndarray)


def main(argv) -> int:
    name = argv[1] if len(argv) > 1 else "dask"
    put, get, is_backend = {"dask": _dask, "cupy": _cupy}[name]()
    warnings.simplefilter("ignore")
    entries = [(f.__name__, f, m) for f, m in CORPUS] + [(s.id, s.fn, s.args) for s in SPECS]
    start, failed = time.perf_counter(), []
    for ident, fn, make in entries:
        try:
            check_on_backend(fn, make(np.random.default_rng(0)), put, get, is_backend)
        except Exception as exc:  # noqa: BLE001 - the sweep reports every failure
            lines = str(exc).strip().splitlines()
            failed.append((ident, type(exc).__name__, lines[-1][:110] if lines else ""))
    kinds = collections.Counter(kind for _, kind, _ in failed)
    print(f"{name}: {len(entries) - len(failed)} of {len(entries)} entries agree with NumPy "
          f"({time.perf_counter() - start:.0f} s); failures by type: {dict(kinds)}")
    for ident, kind, msg in sorted(failed, key=lambda f: (f[1] == "S2SError", f[0])):
        print(f"  {ident}: {kind}: {msg}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
