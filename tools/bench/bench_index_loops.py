"""Benchmark: reverse mode through `x[:, i]` in a loop (a column read, a column write, and the
batched read of grad(vmap(f))), at growing trip counts. Before the in-place cotangents each
iteration copied (rt.fresh) or built zeros the size of `x`: time per column grew with the columns.
Median of several calls, in ms, and ms per 1000 columns (flat when the cost is linear).

    python tools/bench/bench_index_loops.py [--cols 250,1000,4000]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

import numpy as np

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(TOOLS)))  # this checkout's s2s

from bench_util import time_samples  # noqa: E402

import s2s  # noqa: E402


def column_reads(x, w):
    s = 0.0
    for i in range(x.shape[1]):
        s = s + np.sum(np.tanh(x[:, i] * w[i]))
    return s + np.sum(x)


def column_writes(x, w):
    y = x * 1.0
    for i in range(x.shape[1]):
        y[:, i] = np.tanh(y[:, i] * w[i])
    return np.sum(y)


def batched_reads(xs, w):
    return np.sum(s2s.vmap(column_reads, in_axes=(0, None))(xs, w))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cols", default="250,1000,4000")
    cols = [int(c) for c in ap.parse_args().cols.split(",")]
    rng = np.random.default_rng(0)
    print(f"{'case':34s} {'columns':>8s} {'ms':>9s} {'ms/1000 columns':>16s}")
    for name, f, shape in (("grad, column reads (64, n)", column_reads, (64,)),
                           ("grad, column writes (64, n)", column_writes, (64,)),
                           ("grad(vmap), reads (16, 8, n)", batched_reads, (16, 8))):
        g = s2s.grad(f)
        for n in cols:
            x, w = rng.normal(size=shape + (n,)), rng.normal(size=n)
            g(x, w)
            t = statistics.median(time_samples(g, (x, w), 1, 5)) * 1e3
            print(f"{name:34s} {n:8d} {t:9.1f} {t / n * 1e3:16.2f}")


if __name__ == "__main__":
    main()
