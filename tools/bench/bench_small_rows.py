"""The small W rows by CPU time: `jit` against the hand-written code, timed alternately in one
process with `time.thread_time` (this thread's CPU time, which waiting for a core does not
inflate), for W1 B=2, W3 B=10, W5 16x32x64 and, with `--w9`, W9 B=128 784-256-10 (issue 46:
`jit` at most 1.0x hand on these rows, where the call path is a visible part of a call).

    OPENBLAS_NUM_THREADS=1 S2S_THREADS=1 python tools/bench/bench_small_rows.py [--w9]

Each row: the best of 7 repeats of N calls for hand and for jit, three rounds; the median ratio
with the rounds' lowest and highest. Run it with `PYTHONPATH` at another checkout for its numbers.
"""
from __future__ import annotations

import os
import statistics
import sys
import time
import timeit

import numpy as np

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(TOOLS))
sys.path[:0] = [TOOLS, os.path.join(ROOT, "examples")]
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, ROOT)  # this checkout's s2s, unless PYTHONPATH names another

import bench_programs as P  # noqa: E402
from linear_mse import make_data  # noqa: E402

import s2s  # noqa: E402


def best_us(f, calls: int) -> float:
    return min(timeit.Timer(f, timer=time.thread_time).repeat(number=calls, repeat=7)) / calls * 1e6


def rows(w9: bool) -> list:
    """(name, hand, jitted, arguments, calls per sample)."""
    out = [("W1 B=2", P.td_hand, s2s.jit(s2s.vmap(s2s.grad(P.td_loss), in_axes=(None, 0, 0, 0))), P.td_data(2), 20000)]
    P.MAT = P.rng(1).normal(size=(150, 100))
    out.append(("W3 B=10", P.matvec_hand, s2s.jit(s2s.vmap(P.apply_matrix)), (P.rng(2).normal(size=(10, 100)),), 20000))
    out.append(("W5 16x32x64", P.linear_hand, s2s.jit(s2s.grad(P.linear_loss)),
                make_data(16, 32, 64, dtype=np.float64), 5000))
    if w9:
        out.append(("W9 B=128", P.xent_hand, s2s.jit(s2s.grad(P.xent_loss)), P.mlp_data(128, (784, 256, 10)), 30))
    return out


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    print(f"s2s from {os.path.dirname(s2s.__file__)}")
    for name, hand, jitted, args, calls in rows("--w9" in argv):
        for _ in range(3):
            jitted(*args)  # (compiled, the fast path installed)
        got = [(best_us(lambda: hand(*args), calls), best_us(lambda: jitted(*args), calls)) for _ in range(3)]
        ratios = [j / h for h, j in got]
        hand_us, jit_us = statistics.median(h for h, _ in got), statistics.median(j for _, j in got)
        print(f"{name}: hand {hand_us:.2f} us, jit {jit_us:.2f} us, "
              f"jit / hand {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    main()
