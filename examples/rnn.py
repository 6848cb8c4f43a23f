"""Gradient of a vanilla tanh RNN over T = 100 steps (hidden 32, batch 16).

    h_0 = 0,   h_t = tanh(x_t @ Wx + h_{t-1} @ Wh + b),   loss = mean(h_T ** 2)

``s2s.grad`` differentiates the Python ``for`` loop as written: the loop stays a loop in the
generated code, the forward sweep saves each overwritten ``h`` on a list, and the backward sweep
runs the loop in reverse.

Checked against hand-written backpropagation through time in NumPy (and one directional central
difference). ``tools/bench/bench_rnn.py`` times the two.
"""

import numpy as np

import s2s

T, BATCH, N_IN, HIDDEN = 100, 16, 32, 32


def rnn_loss(params, xs, h0):
    Wx, Wh, b = params
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.mean(h ** 2)


def bptt(params, xs, h0):
    """Hand-written backpropagation through time: (dWx, dWh, db)."""
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


def main():
    params, xs, h0 = make_data()
    grads = s2s.grad(rnn_loss)(params, xs, h0)
    print("loss:", rnn_loss(params, xs, h0))
    for name, g in zip(("dWx", "dWh", "db"), grads):
        print(f"{name}: shape {g.shape}, norm {np.linalg.norm(g):.6e}")
    print("db[:4]:", grads[2][:4])

    for got, want in zip(grads, bptt(params, xs, h0)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-14)

    # One directional central difference, independent of both gradient codes.
    rng = np.random.default_rng(1)
    v = tuple(rng.normal(size=p.shape) for p in params)
    eps = 1e-6
    plus = tuple(p + eps * d for p, d in zip(params, v))
    minus = tuple(p - eps * d for p, d in zip(params, v))
    fd = (rnn_loss(plus, xs, h0) - rnn_loss(minus, xs, h0)) / (2 * eps)
    np.testing.assert_allclose(sum(np.vdot(g, d) for g, d in zip(grads, v)), fd, rtol=1e-6)
    print("ok: matches hand-written BPTT and a central difference")


if __name__ == "__main__":
    main()
