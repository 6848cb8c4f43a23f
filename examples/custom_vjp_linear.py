"""A user-defined backward rule with ``custom_vjp`` (seed tutorial 001).

``custom_linear`` computes ``dot(x, w) + b`` and declares its own backward rule
``(g @ w.T, x.T @ g, sum(g, 0))``. The gradient of the MSE loss through it must equal the
gradient of the same loss through the plain ``linear`` (and the hand-written one). To show that
the rule is what runs, a second function ``halved_linear`` has the same forward pass and a
backward rule that returns half the true cotangents: its gradients come out halved.

The data are the tutorial's (``s2s.random`` draws JAX's numbers), so both gradients also match
what the tutorial printed, to the 2e-3 its accelerator's matmul precision allows (linear_mse.py).
"""

import numpy as np
from linear_mse import SEED_DB, SEED_DW

import s2s
from s2s import random


def linear(x, w, b):
    return np.dot(x, w) + b


@s2s.custom_vjp
def custom_linear(x, w, b):
    out = np.dot(x, w) + b
    return out


def custom_linear_fwd(x, w, b):
    out = np.dot(x, w) + b
    return out, (x, w)


def custom_linear_bwd(res, g):
    x, w = res
    dx = np.dot(g, w.T)
    dw = np.dot(x.T, g)
    db = np.sum(g, axis=0)
    return dx, dw, db


custom_linear.defvjp(custom_linear_fwd, custom_linear_bwd)


@s2s.custom_vjp
def halved_linear(x, w, b):
    return np.dot(x, w) + b


def halved_linear_bwd(res, g):
    x, w = res
    return 0.5 * np.dot(g, w.T), 0.5 * np.dot(x.T, g), 0.5 * np.sum(g, axis=0)


halved_linear.defvjp(custom_linear_fwd, halved_linear_bwd)


def fn(params, x, y):
    w, b = params
    pred = linear(x, w, b)
    return np.mean((pred - y) ** 2)


def fn_custom(params, x, y):
    w, b = params
    pred = custom_linear(x, w, b)
    return np.mean((pred - y) ** 2)


def fn_halved(params, x, y):
    w, b = params
    pred = halved_linear(x, w, b)
    return np.mean((pred - y) ** 2)


def main():
    B, D1, D2 = 16, 32, 64
    rng = random.split(random.key(1234), 4)
    x = random.uniform(rng[0], (B, D1))
    w = random.uniform(rng[1], (D1, D2))
    b = random.uniform(rng[2], (D2,))
    y = random.uniform(rng[3], (B, D2))

    grads = s2s.grad(fn)((w, b), x, y)
    grads_custom = s2s.grad(fn_custom)((w, b), x, y)
    print(grads[0][:4, :4])
    print(grads_custom[0][:4, :4])
    print(grads[1][:4])
    print(grads_custom[1][:4])

    r = x @ w + b - y
    g = 2 * r / r.size
    for got in (grads, grads_custom):
        np.testing.assert_allclose(got[0], x.T @ g, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(got[1], g.sum(axis=0), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fn_custom((w, b), x, y), fn((w, b), x, y), rtol=1e-15)

    for got in (grads, grads_custom):
        np.testing.assert_allclose(got[0][:4, :4], SEED_DW, rtol=2e-3)
        np.testing.assert_allclose(got[1][:4], SEED_DB, rtol=2e-3)

    halved = s2s.grad(fn_halved)((w, b), x, y)
    np.testing.assert_allclose(halved[0], 0.5 * (x.T @ g), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(halved[1], 0.5 * g.sum(axis=0), rtol=1e-12, atol=1e-15)
    print("ok: both match the tutorial's printed gradients")
    print("ok: custom rule gives the plain gradient; a halved rule gives half of it (the rule runs)")


if __name__ == "__main__":
    main()
