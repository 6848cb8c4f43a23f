"""Differentiating through a gradient step: MAML's meta-gradient (seed tutorial 002).

``meta_loss_fn`` takes one SGD step on ``loss_fn`` with ``s2s.grad`` and returns the loss after
it; ``s2s.grad(meta_loss_fn)`` differentiates through that inner ``grad`` (a second-order
derivative, ``(I - lr H) grad(loss)(params')``).

Checked against central differences of the same meta-loss written with a hand-derived inner
gradient, so the reference uses no s2s code at all.
"""

import numpy as np

import s2s

lr = 0.1


def loss_fn(params, data):
    x, y = data
    pred = np.tanh(x @ params)
    return np.mean((pred - y) ** 2)


def meta_loss_fn(params, data):
    """Computes the loss after one step of SGD."""
    grads = s2s.grad(loss_fn)(params, data)
    return loss_fn(params - lr * grads, data)


def loss_grad_hand(params, data):
    x, y = data
    pred = np.tanh(x @ params)
    return x.T @ (2 * (pred - y) / y.size * (1 - pred**2))


def meta_loss_hand(params, data):
    return loss_fn(params - lr * loss_grad_hand(params, data), data)


def main():
    rng = np.random.default_rng(0)
    data = (rng.normal(size=(20, 5)), rng.normal(size=20))
    params = 0.5 * rng.normal(size=5)

    meta_grads = s2s.grad(meta_loss_fn)(params, data)
    print("meta-loss:", meta_loss_fn(params, data))
    print("meta-gradient:", meta_grads)

    np.testing.assert_allclose(meta_loss_fn(params, data), meta_loss_hand(params, data), rtol=1e-13)
    eps = 1e-6
    fd = np.array([
        (meta_loss_hand(params + eps * e, data) - meta_loss_hand(params - eps * e, data)) / (2 * eps)
        for e in np.eye(5)
    ])
    np.testing.assert_allclose(meta_grads, fd, rtol=1e-6, atol=1e-9)
    print("ok: matches central differences of the hand-written meta-loss")


if __name__ == "__main__":
    main()
