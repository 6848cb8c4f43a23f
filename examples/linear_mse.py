"""Gradient of a linear layer's mean squared error (seed tutorial 001).

``fn((w, b), x, y) = mean((x @ w + b - y) ** 2)`` with data drawn from ``s2s.random``
(``key(1234)`` split into four keys, uniform in [0, 1)). ``s2s.grad(fn)`` returns a gradient with
the same structure as ``params``: a tuple ``(dw, db)``.

Checked against the hand-written NumPy gradient: with ``r = x @ w + b - y`` and
``g = 2 * r / r.size``, ``dw = x.T @ g`` and ``db = g.sum(axis=0)``.

``python -m s2s dump examples/linear_mse.py:fn --transform grad`` prints the generated code.

``s2s.random`` draws JAX's numbers bit for bit, so the data are the tutorial's (float32, JAX's
default dtype) and the gradient matches the one it printed. The tutorial's figures were computed
with an accelerator's reduced-precision matmuls, so they agree with the exact float32 gradient to
about 3 significant digits (see the seeds' README); the check allows a relative 2e-3.
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


# What the tutorial printed: grads[0][:4, :4] and grads[1][:4].
SEED_DW = np.array([
    [0.11254271, 0.12456626, 0.13236916, 0.12915088],
    [0.09029176, 0.1007601, 0.10745039, 0.10439933],
    [0.11102881, 0.12185482, 0.13367452, 0.12996063],
    [0.14152832, 0.15898883, 0.16999632, 0.16602176],
])
SEED_DB = np.array([0.23434031, 0.2604819, 0.27758297, 0.27279755])


def hand_grad(params, x, y):
    w, b = params
    r = x @ w + b - y
    g = 2.0 * r / r.size
    return x.T @ g, g.sum(axis=0)


def make_data(B=16, D1=32, D2=64, dtype=np.float32):
    """The tutorial's data: four keys split from key(1234), uniform in [0, 1) (float32 as in JAX)."""
    rng = random.split(random.key(1234), 4)
    x = random.uniform(rng[0], (B, D1), dtype=dtype)
    w = random.uniform(rng[1], (D1, D2), dtype=dtype)
    b = random.uniform(rng[2], (D2,), dtype=dtype)
    y = random.uniform(rng[3], (B, D2), dtype=dtype)
    return (w, b), x, y


def main():
    params, x, y = make_data()
    grads = s2s.grad(fn)(params, x, y)
    print(grads[0].shape)
    print(grads[1].shape)
    print(grads[0][:4, :4])
    print(grads[1][:4])

    # The hand-written gradient in float64 from the same float32 data.
    dw, db = hand_grad(*(tree64(t) for t in (params, x, y)))
    assert isinstance(grads, tuple) and len(grads) == 2
    assert grads[0].shape == (32, 64) and grads[1].shape == (64,)
    assert grads[0].dtype == grads[1].dtype == np.float32
    np.testing.assert_allclose(grads[0], dw, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(grads[1], db, rtol=1e-5, atol=1e-7)
    print("ok: matches the hand-written gradient (x.T @ g, g.sum(0))")

    rel = max(np.max(np.abs(grads[0][:4, :4] - SEED_DW) / SEED_DW), np.max(np.abs(grads[1][:4] - SEED_DB) / SEED_DB))
    np.testing.assert_allclose(grads[0][:4, :4], SEED_DW, rtol=2e-3)
    np.testing.assert_allclose(grads[1][:4], SEED_DB, rtol=2e-3)
    print(f"ok: matches the tutorial's printed gradient (largest relative difference {rel:.1e})")


def tree64(t):
    return tuple(a.astype(np.float64) for a in t) if isinstance(t, tuple) else t.astype(np.float64)


if __name__ == "__main__":
    main()
