"""Benchmark: the memory reverse mode keeps, on a tanh RNN `h = tanh(h @ w + xs[t] @ u)` over T
steps (B=32, H=64, D=16), against hand-written backpropagation through time.

Peak memory is measured with `tracemalloc` (NumPy reports its allocations to it) above what the
arguments already hold, and shown in states (one `h`: B*H float64s) and states per step; time is
the median of a few calls without tracemalloc. The record's own count (machine-independent,
`s2s.api.memory.tape_record`) is shown too: the arrays the tape keeps per step.

    python tools/bench/bench_memory.py [--steps 256,1024,4096] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc

import numpy as np

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(TOOLS)))  # this checkout's s2s

import s2s  # noqa: E402
from s2s.api import memory  # noqa: E402

B, H, D = 32, 64, 16


def rnn(w, u, h, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(h @ w + xs[t] @ u)
    return np.sum(h)


def cell(w, u, h, x):
    return np.tanh(h @ w + x @ u)


checkpointed_cell = s2s.checkpoint(cell)


def rnn_helper(w, u, h, xs):
    for t in range(xs.shape[0]):
        h = checkpointed_cell(w, u, h, xs[t])
    return np.sum(h)


def bptt(w, u, h, xs):
    """Hand-written backpropagation through time: keeps every h, nothing else."""
    hs = [h]
    for t in range(xs.shape[0]):
        h = np.tanh(h @ w + xs[t] @ u)
        hs.append(h)
    gw, gu = np.zeros_like(w), np.zeros_like(u)
    gh = np.ones_like(h)
    for t in range(xs.shape[0] - 1, -1, -1):
        ga = gh * (1 - hs[t + 1] * hs[t + 1])
        gw += hs[t].T @ ga
        gu += xs[t].T @ ga
        gh = ga @ w.T
    return gw, gu


def variants():
    """name -> function of (w, u, h, xs) returning (gw, gu)."""
    return {
        "hand-written BPTT": bptt,
        "s2s grad": s2s.grad(rnn, argnums=(0, 1)),
        "s2s grad, checkpoint='auto'": s2s.grad(rnn, argnums=(0, 1), checkpoint="auto"),
        "s2s grad, checkpoint=budget of 32 states (binomial)": s2s.grad(rnn, argnums=(0, 1),
                                                                        checkpoint=32 * B * H * 8),
        "s2s grad, s2s.checkpoint(cell) in the loop": s2s.grad(rnn_helper, argnums=(0, 1)),
        "s2s grad, checkpoint='auto', s2s.checkpoint(cell)": s2s.grad(rnn_helper, argnums=(0, 1), checkpoint="auto"),
    }


def peak_bytes(fn, args) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    fn(*args)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def median_time(fn, args, repeat) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", default="256,1024,4096")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated words: run the variants whose name has one")
    opts = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    w, u = rng.normal(size=(H, H)) * 0.1, rng.normal(size=(D, H)) * 0.1
    h0 = np.zeros((B, H))
    state = B * H * 8
    fns = {k: v for k, v in variants().items()
           if not opts.only or k == "hand-written BPTT" or any(w in k for w in opts.only.split(","))}
    print("| T | variant | peak MB | peak states | states/step | peak / sqrt(T) | tape arrays/step | time ms "
          "| time / BPTT | time / s2s grad |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for T in [int(s) for s in opts.steps.split(",")]:
        xs = rng.normal(size=(T, B, D))
        args = (w, u, h0, xs)
        ref = bptt(*args)
        base_time = grad_time = None
        for name, fn in fns.items():
            got = fn(*args)  # compiles, and checks the derivative against BPTT
            assert all(np.allclose(a, b, rtol=1e-10, atol=1e-12) for a, b in zip(got, ref)), name
            peak = peak_bytes(fn, args)
            secs = median_time(fn, args, opts.repeat)
            base_time = base_time or secs
            grad_time = secs if name == "s2s grad" else grad_time
            if name == "s2s grad":
                rec = memory.tape_record(rnn, *args, argnums=(0, 1))
                per = f"{rec.arrays / T:.2f}"
            else:
                per = "-"
            print(f"| {T} | {name} | {peak / 1e6:.1f} | {peak / state:.1f} | {peak / state / T:.2f} "
                  f"| {peak / state / T ** 0.5:.2f} | {per} "
                  f"| {secs * 1e3:.0f} | {secs / base_time:.2f} | "
                  f"{f'{secs / grad_time:.2f}' if grad_time else '-'} |")


if __name__ == "__main__":
    main()
