"""W2 (`jit(vmap(convolve))`) against the hand-written convolution by the calling thread's CPU
time, in one process, alternating the two (and the jit version alone, called with
`shapes_tested=True`, without the call path): a loaded machine's other processes change wall
time far more than CPU time. `--checkout DIR` times another checkout's s2s (before and after).

    python tools/bench/bench_w2_cpu.py --blas-threads 1 [--checkout DIR]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

TOOLS = Path(__file__).resolve().parent


def _per_call(fn, calls: int) -> float:
    t0 = time.thread_time()
    for _ in range(calls):
        fn()
    return (time.thread_time() - t0) / calls * 1e6


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blas-threads", default="1", help="1, or 'default' (BLAS's own count)")
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--checkout", default=str(TOOLS.parent.parent), help="the checkout whose s2s runs (default: this one)")
    args = ap.parse_args(argv)
    sys.path[:0] = [args.checkout, str(TOOLS)]
    import bench_programs as P

    import s2s
    if args.blas_threads != "default":
        from threadpoolctl import threadpool_limits
        threadpool_limits(int(args.blas_threads))
    for n, b, calls in ((5, 2, 20000), (1000, 128, 60)):
        xs, ws = P.conv_data(n, b)
        f = s2s.jit(s2s.vmap(P.convolve))  # (one per size: the first shapes of a signature get their own version)
        assert f(xs, ws).tobytes() == s2s.vmap(P.convolve)(xs, ws).tobytes()
        version = f.version_for((xs, ws))
        hand, jit, alone = [], [], []
        for _ in range(args.rounds):
            hand.append(_per_call(lambda: P.convolve_hand(xs, ws), calls))
            jit.append(_per_call(lambda: f(xs, ws), calls))
            alone.append(_per_call(lambda: version(xs, ws, shapes_tested=True), calls))
        r, ra = np.array(jit) / np.array(hand), np.array(alone) / np.array(hand)
        print(f"W2 n={n},B={b} BLAS {args.blas_threads}: hand {statistics.median(hand):.2f} us, "
              f"jit {statistics.median(jit):.2f} us, jit/hand {np.median(r):.3f} "
              f"[{np.percentile(r, 25):.3f}-{np.percentile(r, 75):.3f}], version alone/hand {np.median(ra):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
