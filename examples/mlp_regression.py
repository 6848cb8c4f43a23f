"""A small multilayer perceptron fit to a 1-D regression problem, with the activation passed as a
default argument (`nonlinearity=np.tanh`), as real model code is written.

s2s resolves the default when it transforms `predict` (the function is specialized on it, like
JAX's static_argnums); `functools.partial(loss, nonlinearity=np.sin)` gives the same model with
another activation. Checked against central finite differences; the training curve goes down.
"""

import functools

import numpy as np

import s2s
from s2s.test_util import check_grads

LAYERS = (1, 16, 16, 1)


def predict(params, x, nonlinearity=np.tanh):
    h = x
    for i in range(len(params) - 1):
        w, b = params[i]
        h = nonlinearity(h @ w + b)
    w, b = params[-1]
    return h @ w + b


def loss(params, x, y, nonlinearity=np.tanh):
    return np.mean((predict(params, x, nonlinearity) - y) ** 2)


def init(seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(m, n)) / np.sqrt(m), np.zeros(n)) for m, n in zip(LAYERS[:-1], LAYERS[1:])]


def main():
    x = np.linspace(-2.0, 2.0, 40)[:, None]
    y = np.sin(2.0 * x) + 0.3 * x
    params = init()
    check_grads(loss, (params, x, y), order=1, modes=("rev", "fwd"))
    check_grads(functools.partial(loss, nonlinearity=np.sin), (params, x, y), order=1, modes=("rev",))
    print("gradients match central finite differences")
    grad = s2s.value_and_grad(loss)
    curve = []
    for step in range(400):
        value, g = grad(params, x, y)
        curve.append(value)
        params = [(w - 0.03 * gw, b - 0.03 * gb) for (w, b), (gw, gb) in zip(params, g)]
        if step % 50 == 0:
            print(f"step {step:3d}  loss {value:.5f}")
    print(f"final loss {curve[-1]:.5f} (from {curve[0]:.5f})")
    assert curve[-1] < 0.2 * curve[0], "training did not reduce the loss"


if __name__ == "__main__":
    main()
