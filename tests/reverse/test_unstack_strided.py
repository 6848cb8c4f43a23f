"""The cotangent of `np.stack` of a list of arrays (rt.unstack), where the stacked array's
cotangent arrives strided: an RNN's states stacked over time, transposed and reshaped into one
matrix (raphaelsenn's Elman RNN). Each state's cotangent is a row of one copy of it, not an
`np.take` of the whole strided array per state (issue 46, section 2). Checked against central
differences, in grad and jit(grad), along every axis, and for updates in place of one state's
cotangent, which must not reach the others'."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s


def states_loss(w, xs, v):
    """States stacked over time, transposed to batch-major and flattened (a strided cotangent)."""
    h = np.zeros((xs.shape[1], w.shape[1]))
    hs = []
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ w + h)
        hs.append(h.copy())
    stacked = np.stack(hs, axis=0).transpose(1, 0, 2)
    flat = stacked.reshape(xs.shape[1], -1)
    return np.sum(np.tanh(flat @ v))


def make_axis_loss(axis):
    def loss(w, x):
        parts = [np.sin(x[k] * w) for k in range(x.shape[0])]
        s = np.stack(parts, axis=axis)
        return np.sum(np.swapaxes(s, 0, -1) ** 2 * np.arange(s.size).reshape(np.swapaxes(s, 0, -1).shape))
    return loss


def reused_state(w, x):
    """One stacked state is also updated in place in the backward sweep's adds (its cotangent is
    added into by the loss's second use): the other states' cotangents must not change."""
    a = np.sin(w * x[0])
    b = np.cos(w * x[1])
    s = np.stack([a, b, a * b])
    return np.sum(s.T @ np.ones(3)) + np.sum(a ** 3) + np.sum(s[::-1] * 2.0)


@pytest.fixture
def rng():
    return np.random.default_rng(4646)


@pytest.mark.parametrize("jitted", [False, True])
def test_rnn_states_stacked_and_flattened(jitted, rng):
    w = rng.normal(size=(3, 4)) * 0.5
    xs = rng.normal(size=(5, 2, 3))
    v = rng.normal(size=(20, 2)) * 0.3
    g = s2s.grad(states_loss, argnums=(0, 2))
    g = s2s.jit(g) if jitted else g
    got = g(w, xs, v)
    np.testing.assert_allclose(got[0], fd_grad(lambda a: states_loss(a, xs, v), w), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got[1], fd_grad(lambda a: states_loss(w, xs, a), v), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_every_axis(axis, rng):
    loss = make_axis_loss(axis)
    w = rng.normal(size=(2, 3))
    x = rng.normal(size=(4, 2, 3))
    got = s2s.grad(loss)(w, x)
    np.testing.assert_allclose(got, fd_grad(lambda a: loss(a, x), w), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("jitted", [False, True])
def test_state_reused_after_stacking(jitted, rng):
    w = rng.normal(size=(4,))
    x = rng.normal(size=(2, 4))
    g = s2s.grad(reused_state)
    g = s2s.jit(g) if jitted else g
    np.testing.assert_allclose(g(w, x), fd_grad(lambda a: reused_state(a, x), w), rtol=1e-6, atol=1e-8)
