"""Gradient of a linear layer's mean squared error (seed tutorial 001).

``fn((w, b), x, y) = mean((x @ w + b - y) ** 2)`` with data drawn from ``s2s.random``
(``key(1234)`` split into four keys, uniform in [0, 1)). ``s2s.grad(fn)`` returns a gradient with
the same structure as ``params``: a tuple ``(dw, db)``.

Checked against the hand-written NumPy gradient: with ``r = x @ w + b - y`` and
``g = 2 * r / r.size``, ``dw = x.T @ g`` and ``db = g.sum(axis=0)``.

``python -m s2s dump examples/linear_mse.py:fn --transform grad`` prints the generated code.
(The numbers differ from the tutorial's: s2s.random is not JAX's generator.)
"""

import numpy as np

import s2s
from s2s import random


def linear(x, w, b):
    return np.dot(x, w) + b


def fn(params, x, y):
    w, b = params
    pred = linear(x, w, b)
    loss = np.mean((pred - y) ** 2)
    return loss


def hand_grad(params, x, y):
    w, b = params
    r = x @ w + b - y
    g = 2.0 * r / r.size
    return x.T @ g, g.sum(axis=0)


def make_data(B=16, D1=32, D2=64):
    rng = random.split(random.key(1234), 4)
    x = random.uniform(rng[0], (B, D1))
    w = random.uniform(rng[1], (D1, D2))
    b = random.uniform(rng[2], (D2,))
    y = random.uniform(rng[3], (B, D2))
    return (w, b), x, y


def main():
    params, x, y = make_data()
    grads = s2s.grad(fn)(params, x, y)
    print(grads[0].shape)
    print(grads[1].shape)
    print(grads[0][:4, :4])
    print(grads[1][:4])

    dw, db = hand_grad(params, x, y)
    assert isinstance(grads, tuple) and len(grads) == 2
    assert grads[0].shape == (32, 64) and grads[1].shape == (64,)
    np.testing.assert_allclose(grads[0], dw, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(grads[1], db, rtol=1e-12, atol=1e-15)
    print("ok: matches the hand-written gradient (x.T @ g, g.sum(0))")


if __name__ == "__main__":
    main()
