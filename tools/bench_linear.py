"""Benchmark: gradient of a linear layer's MSE loss, s2s against hand-written NumPy.

    python tools/bench_linear.py            # 16x32x64 (B x D1 x D2)
    python tools/bench_linear.py --large    # also 1024x512x512

``loss((w, b), x, y) = mean((x @ w + b - y) ** 2)``, gradient with respect to ``(w, b)``, float64.
Every implementation runs in this one process and is checked against the hand-written gradient
before it is timed; rounds are interleaved and each row reports the median of its per-round
medians. autograd and JAX rows appear only when those packages are importable (JAX with
``jax_enable_x64`` and ``jit``). Only the ratios to ``hand`` are meaningful.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from bench_util import blocking, load_note, report, time_rounds

import s2s

# the data (from s2s.random, as in the tutorial) and the hand-written gradient are the example's
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from linear_mse import hand_grad, make_data  # noqa: E402

WORKLOAD = "linear-mse-grad"


def loss(params, x, y):
    w, b = params
    pred = x @ w + b
    return np.mean((pred - y) ** 2)


def implementations():
    """(name, gradient function) for each system that is importable; "hand" comes first."""
    impls = [("hand", hand_grad), ("s2s", s2s.grad(loss))]
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        print("autograd: not installed, no row")
    else:
        def loss_autograd(params, x, y):
            w, b = params
            return anp.mean((anp.dot(x, w) + b - y) ** 2)
        impls.append(("autograd", autograd.grad(loss_autograd)))
    try:
        import jax
    except ImportError:
        print("jax: not installed, no row")
    else:
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        def loss_jax(params, x, y):
            w, b = params
            return jnp.mean((x @ w + b - y) ** 2)
        impls.append(("jax-jit", blocking(jax.jit(jax.grad(loss_jax)), jax.block_until_ready)))
    return impls


def bench(sizes, rounds, min_time):
    rows = []
    impls = implementations()
    for B, D1, D2 in sizes:
        size = f"{B}x{D1}x{D2}"
        params, x, y = make_data(B, D1, D2, dtype=np.float64)
        want = hand_grad(params, x, y)
        for name, fn in impls:
            for g, h in zip(fn(params, x, y), want):
                np.testing.assert_allclose(np.asarray(g), h, rtol=1e-10, atol=1e-13, err_msg=name)
        medians = time_rounds(impls, (params, x, y), rounds, min_time)
        rows += [(WORKLOAD, size, name, m) for name, m in medians.items()]
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="also time 1024x512x512")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds (default 3)")
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds per timing (default 0.5)")
    args = parser.parse_args(argv)
    load0 = os.getloadavg()[0]
    sizes = [(16, 32, 64)] + ([(1024, 512, 512)] if args.large else [])
    rows = bench(sizes, args.rounds, args.min_time)
    report(rows)
    hand = {r[1]: r[3] for r in rows if r[2] == "hand"}
    for _, size, name, median in rows:
        if name == "s2s":
            print(f"s2s / hand at {size}: {median / hand[size]:.2f}")
    print(load_note(load0))


if __name__ == "__main__":
    main()
