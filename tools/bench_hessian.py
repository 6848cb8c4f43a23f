"""Benchmark: Hessian of ``sum(tanh(x) ** 3)`` at n = 200, s2s against the hand-written Hessian.

    python tools/bench_hessian.py [--n 200]

The Hessian is diagonal, ``diag((6t - 12t^3)(1 - t^2))`` with ``t = tanh(x)``; the hand version
builds that n x n matrix with NumPy. ``s2s.hessian`` (forward over reverse mode) is timed against
it, plus ``s2s.jacfwd(s2s.jacrev(f))`` when those exist, and autograd / JAX (``jit(jacfwd(jacrev))``)
when importable. All float64, one process, checked equal before timing, interleaved rounds.
Needs ``s2s.hessian``: without it the script says so and exits with status 2.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from bench_util import blocking, load_note, report, time_rounds

import s2s

WORKLOAD = "hessian-tanh3"


def f(x):
    return np.sum(np.tanh(x) ** 3)


def hand_hessian(x):
    t = np.tanh(x)
    return np.diag((6.0 * t - 12.0 * t**3) * (1.0 - t * t))


def implementations():
    impls = [("hand", hand_hessian), ("s2s hessian", s2s.hessian(f))]
    if hasattr(s2s, "jacfwd") and hasattr(s2s, "jacrev"):
        impls.append(("s2s jacfwd(jacrev)", s2s.jacfwd(s2s.jacrev(f))))
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        print("autograd: not installed, no row")
    else:
        impls.append(("autograd", autograd.hessian(lambda x: anp.sum(anp.tanh(x) ** 3))))
    try:
        import jax
    except ImportError:
        print("jax: not installed, no row")
    else:
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        hess = jax.jit(jax.jacfwd(jax.jacrev(lambda x: jnp.sum(jnp.tanh(x) ** 3))))
        impls.append(("jax-jit", blocking(hess, jax.block_until_ready)))
    return impls


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="size of x (default 200)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds (default 3)")
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds per timing (default 0.5)")
    args = parser.parse_args(argv)
    load0 = os.getloadavg()[0]
    if not hasattr(s2s, "hessian"):
        print("bench_hessian: this version of s2s has no s2s.hessian (forward mode, Jacobians and "
              "Hessians are not implemented yet), so there is nothing to time.", file=sys.stderr)
        return 2

    x = np.random.default_rng(0).normal(size=args.n)
    want = hand_hessian(x)
    impls = implementations()
    for name, fn in impls:
        np.testing.assert_allclose(np.asarray(fn(x)), want, rtol=1e-10, atol=1e-13, err_msg=name)
    medians = time_rounds(impls, (x,), args.rounds, args.min_time)
    report([(WORKLOAD, f"n={args.n}", name, m) for name, m in medians.items()])
    print(f"s2s hessian / hand: {medians['s2s hessian'] / medians['hand']:.2f}")
    print(load_note(load0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
