"""The MLP and attention gradients (W7, W9, W10 of tools/bench/bench.py) by CPU time: the
hand-written NumPy gradient and s2s's `jit(grad)` called in turn, call by call, in one process,
each call timed by this thread's CPU time (`time.thread_time_ns`), so that on a machine other
processes load neither the waits for a core nor a slow stretch favours one side (issue 46 §3).

    S2S_THREADS=1 OPENBLAS_NUM_THREADS=1 python tools/bench/bench_cpu_ab.py            # W7, W9, W10
    S2S_THREADS=1 OPENBLAS_NUM_THREADS=1 python tools/bench/bench_cpu_ab.py --only W9 --calls 1000

Each row gives, for hand and jit(grad), the 10th and 25th percentiles of the per-call CPU time
in microseconds and jit's over hand's (a low percentile: the calls that other processes' cache
traffic disturbed least). `--flat` adds `jit(grad)` of the same function written with one
parameter per array (`w1, b1, ...` instead of a tuple `params`), whose arrays a jit version's
key and facts always covered.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(TOOLS)))  # this checkout's s2s, not an installed one
sys.path.insert(0, TOOLS)

import bench_programs as P  # noqa: E402

import s2s  # noqa: E402


def _flat(loss):
    """`loss(params, *rest)` as a function of the arrays of `params` and the rest, one per parameter."""
    def flat(*args):
        return loss(tuple(args[:flat.n]), *args[flat.n:])
    return flat


def rows(flat: bool = False) -> list:
    """(name, [(implementation, function, arguments)]) for W7, W9 and W10."""
    specs = [("W7 mlp-grad B=256 64-128-128-10", P.mlp_loss, P.mlp_hand, P.mlp_data()),
             ("W9 xent-mlp-grad B=128 784-256-10", P.xent_loss, P.xent_hand, P.mlp_data(128, (784, 256, 10))),
             ("W10 attention-grad n=128,d=64", P.attention_loss, P.attention_hand, P.attention_data())]
    out = []
    for name, loss, hand, args in specs:
        impls = [("hand", hand, args), ("jit(grad)", s2s.jit(s2s.grad(loss)), args)]
        if flat:
            f = _flat(loss)
            f.n = len(args[0])
            impls.append(("jit(grad) flat", s2s.jit(s2s.grad(f, argnums=tuple(range(f.n)))),
                          tuple(args[0]) + tuple(args[1:])))
        out.append((name, impls))
    return out


def percentile(values, p: float) -> float:
    v = sorted(values)
    return v[int(p * (len(v) - 1))]


def time_row(impls, calls: int, clock=time.thread_time_ns) -> dict:
    """implementation -> its per-call CPU times (ns), the implementations called in turn."""
    for _, fn, args in impls:  # (compile, warm the caches)
        fn(*args)
    times: dict = {name: [] for name, _, _ in impls}
    for _ in range(calls):
        for name, fn, args in impls:
            t0 = clock()
            fn(*args)
            times[name].append(clock() - t0)
    return times


def table(name: str, times: dict) -> str:
    hand = {p: percentile(times["hand"], p) for p in (0.1, 0.25)}
    cells = [f"{k} p10 {percentile(v, 0.1) / 1e3:,.1f} us x{percentile(v, 0.1) / hand[0.1]:.3f} "
             f"p25 x{percentile(v, 0.25) / hand[0.25]:.3f}" for k, v in times.items()]
    return f"{name}: " + " | ".join(cells)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", help="W7, W9 or W10 (repeatable)")
    ap.add_argument("--calls", type=int, default=500, help="calls of each implementation (default 500)")
    ap.add_argument("--flat", action="store_true", help="also jit(grad) with one parameter per array")
    a = ap.parse_args(argv)
    try:
        from threadpoolctl import threadpool_limits
        threadpool_limits(1)  # (BLAS on one thread, as OPENBLAS_NUM_THREADS=1)
    except ImportError:
        pass
    for name, impls in rows(a.flat):
        if a.only and name.split()[0] not in a.only:
            continue
        hand = impls[0][1](*impls[0][2])
        for _, fn, args in impls[1:]:  # (the same gradient, or the row means nothing)
            for g, h in zip(fn(*args), hand):
                np.testing.assert_allclose(g, h, rtol=1e-9, atol=1e-12)
        print(table(name, time_row(impls, a.calls)), f"(load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
