"""Benchmark: vmap of coverage operations through their vectorized batching rules
(s2s/runtime/batch_shape.py, batch_reduce.py, batch_linalg.py), against the per-example fallback
they replaced (`rt.map_examples`, one NumPy call per example) and a hand-written Python loop over the examples. Same process,
alternating, median of medians; each result checked against the loop first.

    python tools/bench/bench_batch_rules.py [--batch 256]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import s2s  # noqa: E402
from s2s import runtime as rt  # noqa: E402


def convolve(a, v):
    return np.convolve(a, v)


def solve(a, b):
    return np.linalg.solve(a, b)


def einsum(a, b):
    return np.einsum("ij,jk->ik", a, b)


def take_along(a, i):
    return np.take_along_axis(a, i, axis=-1)


def interp(x, xk, fk):
    return np.interp(x, xk, fk)


def pad(a):
    return np.pad(a, 2, mode="reflect")


def cases(rng, B):
    """(name, function, batched arguments, the op's primitive and call for the fallback)."""
    a33 = rng.normal(size=(B, 8, 8)) + 4 * np.eye(8)
    return [
        ("convolve (200) * (9)", convolve, (rng.normal(size=(B, 200)), rng.normal(size=(B, 9))), "xp.convolve"),
        ("convolve (9) * (200)", convolve, (rng.normal(size=(B, 9)), rng.normal(size=(B, 200))), "xp.convolve"),
        ("convolve (1000) * (100)", convolve, (rng.normal(size=(B, 1000)), rng.normal(size=(B, 100))),
         "xp.convolve"),
        ("linalg.solve (8, 8), (8,)", solve, (a33, rng.normal(size=(B, 8))), "xp.linalg.solve"),
        ("einsum ij,jk (16, 16)", einsum, (rng.normal(size=(B, 16, 16)), rng.normal(size=(B, 16, 16))), None),
        ("take_along_axis (50) [20]", take_along, (rng.normal(size=(B, 50)), rng.integers(0, 50, (B, 20))),
         "xp.take_along_axis"),
        ("interp x(100) knots(30)", interp, (rng.uniform(0, 1, (B, 100)), np.sort(rng.uniform(0, 1, (B, 30)), axis=1),
                                             rng.normal(size=(B, 30))), "xp.interp"),
        ("pad (32, 32) reflect", pad, (rng.normal(size=(B, 32, 32)),), None),
    ]


def median_time(fn, reps=7):
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[reps // 2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=256)
    B = ap.parse_args().batch
    rng = np.random.default_rng(0)
    print(f"B = {B}; times in ms; ratios against the hand-written loop (lower is better)")
    print(f"{'operation':28s} {'loop':>8s} {'vmap':>8s} {'fallback':>9s} {'vmap/loop':>10s} {'fallback/loop':>14s}")
    for name, fn, args, prim in cases(rng, B):
        batched = s2s.vmap(fn)

        def loop():
            return np.stack([fn(*[a[k] for a in args]) for k in range(B)])
        np.testing.assert_allclose(batched(*args), loop(), rtol=1e-10, atol=1e-10)
        runs = {"loop": loop, "vmap": lambda: batched(*args)}
        if prim is not None:
            runs["fallback"] = lambda: rt.map_examples(prim, (True,) * len(args), B, *args)
        best = {k: [] for k in runs}
        for _ in range(3):
            for k, f in runs.items():
                best[k].append(median_time(f))
        t = {k: sorted(v)[1] * 1e3 for k, v in best.items()}
        fb = t.get("fallback")
        print(f"{name:28s} {t['loop']:8.2f} {t['vmap']:8.2f} {fb if fb else float('nan'):9.2f} "
              f"{t['vmap'] / t['loop']:10.2f} {(fb / t['loop']) if fb else float('nan'):14.2f}")


if __name__ == "__main__":
    main()
