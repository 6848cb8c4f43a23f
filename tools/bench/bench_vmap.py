"""Benchmark: vmap against hand-written batched NumPy, ratios measured in one process, on the
programs of tools/bench/bench_programs.py (the seeds' versions).

    python tools/bench/bench_vmap.py

1. per-example TD(0) gradients, jit(vmap(grad(td_loss), in_axes=(None, 0, 0, 0))), B = 2 and 1024;
2. vmap(apply_matrix) with a (150, 100) matrix over 10,000 vectors (the quickstart seed);
3. the seeds' convolution (a Python loop over positions) at n = 1000, B = 128, and its compile time;
4. hessian(sum(tanh(x)**3)) at n = 3 and 200 against the hand-written diagonal Hessian.
Each s2s result is checked against the hand version before timing.
"""

from __future__ import annotations

import time

import bench_programs as P
import numpy as np
from bench_util import calls_per_sample, summarize, time_samples

import s2s


def timeit_median(fn, *args):
    """Median seconds per call of `fn(*args)` over 7 samples of about 0.05 s."""
    return summarize(time_samples(fn, args, calls_per_sample(fn, args, 0.05), 7))["median"]


def ratio(name, ours, hand, args):
    np.testing.assert_allclose(ours(*args), hand(*args), rtol=1e-10, atol=1e-12)
    t_ours, t_hand = timeit_median(ours, *args), timeit_median(hand, *args)
    print(f"{name:40s} s2s {t_ours * 1e6:10.1f} us   hand {t_hand * 1e6:10.1f} us   ratio {t_ours / t_hand:5.2f}")


def main():
    rng = np.random.default_rng(1)
    perex = s2s.jit(s2s.vmap(s2s.grad(P.td_loss), in_axes=(None, 0, 0, 0)))
    theta = rng.normal(size=3)
    for b in (2, 1024):
        args = (theta, rng.normal(size=(b, 3)), rng.normal(size=b), rng.normal(size=(b, 3)))
        ratio(f"per-example TD gradients B={b}", perex, P.td_hand, args)
    P.MAT = rng.normal(size=(150, 100))
    ratio("vmap(apply_matrix) 10,000 x 100", s2s.vmap(P.apply_matrix), P.matvec_hand, (rng.normal(size=(10000, 100)),))
    start = time.perf_counter()
    conv = s2s.jit(s2s.vmap(P.convolve))
    conv(rng.normal(size=(2, 5)), rng.normal(size=(2, 3)))
    print(f"convolution: compiled and first call in {(time.perf_counter() - start) * 1e3:.1f} ms")
    ratio("convolution n=1000 B=128", conv, P.convolve_hand, (rng.normal(size=(128, 1000)), rng.normal(size=(128, 3))))
    for n in (3, 200):
        ratio(f"hessian(sum(tanh(x)**3)) n={n}", s2s.hessian(P.f_tanh3), P.hess_tanh3_hand, (rng.normal(size=n),))


if __name__ == "__main__":
    main()
