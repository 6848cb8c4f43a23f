"""An LSTM over a short sequence, written the way autograd's LSTM example is: the gates share a
`concat_and_multiply(weights, *args)` helper that takes any number of inputs.

    gates = sigmoid/tanh(concat_and_multiply(W, x_t, h_{t-1})),   c_t = f*c + i*g,   h_t = o*tanh(c_t)

The model predicts the next value of a noisy sine wave from the hidden state; `s2s.grad`
differentiates the loop and the `*args` helper (specialized for its two inputs). Checked against
central finite differences, then trained by gradient descent: the loss goes down.
"""

import numpy as np

import s2s
from s2s.test_util import check_grads

HIDDEN, STEPS = 6, 12


def sigmoid(x):
    return 0.5 * (np.tanh(x / 2.0) + 1.0)


def concat_and_multiply(weights, *args):
    cat_state = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(cat_state, weights)


def lstm_loss(params, xs, ys):
    h = np.zeros((xs.shape[1], HIDDEN))
    c = np.zeros((xs.shape[1], HIDDEN))
    loss = 0.0
    for t in range(xs.shape[0]):
        x = xs[t]
        f = sigmoid(concat_and_multiply(params["forget"], x, h))
        i = sigmoid(concat_and_multiply(params["ingate"], x, h))
        g = np.tanh(concat_and_multiply(params["change"], x, h))
        o = sigmoid(concat_and_multiply(params["outgate"], x, h))
        c = f * c + i * g
        h = o * np.tanh(c)
        pred = concat_and_multiply(params["predict"], h)
        loss = loss + np.mean((pred - ys[t]) ** 2)
    return loss / xs.shape[0]


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 3.0, STEPS + 1)[:, None] + rng.uniform(0, 6.0, (1, 4))
    wave = np.sin(2.0 * t) + 0.05 * rng.normal(size=t.shape)
    xs, ys = wave[:-1, :, None], wave[1:, :, None]
    scale = 0.3
    params = {name: scale * rng.normal(size=(1 + HIDDEN + 1, HIDDEN))
              for name in ("forget", "ingate", "change", "outgate")}
    params["predict"] = scale * rng.normal(size=(HIDDEN + 1, 1))
    return params, xs, ys


def main():
    params, xs, ys = make_data()
    check_grads(lstm_loss, (params, xs, ys), order=1, modes=("rev",))
    print("gradient matches central finite differences")
    grad = s2s.value_and_grad(lstm_loss)
    curve = []
    for step in range(60):
        loss, g = grad(params, xs, ys)
        curve.append(loss)
        params = {k: params[k] - 0.5 * g[k] for k in params}
        if step % 10 == 0:
            print(f"step {step:3d}  loss {loss:.5f}")
    print(f"final loss {curve[-1]:.5f} (from {curve[0]:.5f})")
    assert curve[-1] < 0.7 * curve[0], "training did not reduce the loss"


if __name__ == "__main__":
    main()
