"""Benchmark: gradient of a vanilla tanh RNN, s2s against hand-written BPTT in NumPy.

    python tools/bench_rnn.py

``h_t = tanh(x_t @ Wx + h_{t-1} @ Wh + b)`` for T = 100 steps, hidden 32, inputs 32, batch 16,
``loss = mean(h_T ** 2)``; gradient with respect to ``(Wx, Wh, b)``, float64. The s2s version
differentiates the Python loop as written (the loop is kept; each overwritten ``h`` is saved on
a list); the hand version is backpropagation through time written out in NumPy. Both run in this
one process, are checked equal before timing, and are timed in interleaved rounds (median of
per-round medians). autograd and JAX rows appear only when those packages are importable.
"""

from __future__ import annotations

import argparse
import os
import statistics

import numpy as np
from bench_util import report, timeit_median

import s2s

WORKLOAD = "rnn-grad"
T, BATCH, N_IN, HIDDEN = 100, 16, 32, 32


def rnn_loss(params, xs, h0):
    Wx, Wh, b = params
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.mean(h ** 2)


def bptt(params, xs, h0):
    Wx, Wh, b = params
    hs = [h0]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(xs[t] @ Wx + hs[-1] @ Wh + b))
    dh = 2.0 * hs[-1] / hs[-1].size
    dWx, dWh, db = np.zeros_like(Wx), np.zeros_like(Wh), np.zeros_like(b)
    for t in reversed(range(xs.shape[0])):
        dz = dh * (1.0 - hs[t + 1] ** 2)
        dWx += xs[t].T @ dz
        dWh += hs[t].T @ dz
        db += dz.sum(axis=0)
        dh = dz @ Wh.T
    return dWx, dWh, db


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    Wx = rng.normal(size=(N_IN, HIDDEN)) / np.sqrt(N_IN)
    Wh = rng.normal(size=(HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)
    b = 0.1 * rng.normal(size=HIDDEN)
    xs = rng.normal(size=(T, BATCH, N_IN))
    h0 = np.zeros((BATCH, HIDDEN))
    return (Wx, Wh, b), xs, h0


def _blocking(fn, block):
    """``fn`` followed by ``block`` on its result (JAX dispatches asynchronously)."""
    def call(*args):
        return block(fn(*args))
    return call


def load_note(start):
    """One line on how busy the machine was (timings on a shared machine are noisy)."""
    end = os.getloadavg()[0]
    return (f"1-min load average {start:.2f} at start, {end:.2f} at end, on {os.cpu_count()} CPUs "
            "(load near or above the CPU count makes every ratio unreliable)")


def time_rounds(impls, args, rounds, min_time):
    """Median over interleaved rounds of each implementation's median seconds per call."""
    medians = {name: [] for name, _ in impls}
    for _ in range(rounds):
        for name, fn in impls:
            medians[name].append(timeit_median(fn, *args, min_time=min_time)[0])
    return {name: statistics.median(m) for name, m in medians.items()}


def implementations():
    impls = [("hand", bptt), ("s2s", s2s.grad(rnn_loss))]
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        print("autograd: not installed, no row")
    else:
        def loss_autograd(params, xs, h0):
            Wx, Wh, b = params
            h = h0
            for t in range(xs.shape[0]):
                h = anp.tanh(anp.dot(xs[t], Wx) + anp.dot(h, Wh) + b)
            return anp.mean(h ** 2)
        impls.append(("autograd", autograd.grad(loss_autograd)))
    try:
        import jax
    except ImportError:
        print("jax: not installed, no row")
    else:
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        def loss_jax(params, xs, h0):
            Wx, Wh, b = params

            def step(h, x_t):
                return jnp.tanh(x_t @ Wx + h @ Wh + b), None
            h, _ = jax.lax.scan(step, h0, xs)
            return jnp.mean(h ** 2)
        impls.append(("jax-jit (lax.scan)", _blocking(jax.jit(jax.grad(loss_jax)), jax.block_until_ready)))
    return impls


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds (default 3)")
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds per timing (default 0.5)")
    args = parser.parse_args(argv)
    load0 = os.getloadavg()[0]

    params, xs, h0 = make_data()
    want = bptt(params, xs, h0)
    impls = implementations()
    for name, fn in impls:
        for g, h in zip(fn(params, xs, h0), want):
            np.testing.assert_allclose(np.asarray(g), h, rtol=1e-9, atol=1e-13, err_msg=name)
    medians = time_rounds(impls, (params, xs, h0), args.rounds, args.min_time)
    size = f"T={T},B={BATCH},H={HIDDEN}"
    report([(WORKLOAD, size, name, m) for name, m in medians.items()])
    print(f"s2s / hand: {medians['s2s'] / medians['hand']:.2f}")
    print(load_note(load0))


if __name__ == "__main__":
    main()
