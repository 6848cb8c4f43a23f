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
import sys

import numpy as np
from bench_util import blocking, load_note, report, time_rounds

import s2s

WORKLOAD = "rnn-grad"
# the model, the hand-written BPTT and the data are the example's (examples/rnn.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from rnn import BATCH, HIDDEN, T, bptt, make_data, rnn_loss  # noqa: E402


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
        impls.append(("jax-jit (lax.scan)", blocking(jax.jit(jax.grad(loss_jax)), jax.block_until_ready)))
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
