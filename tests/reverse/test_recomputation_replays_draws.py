"""A recomputation replays the random draws of the forward sweep (issue 44, family 5): the backward
sweep of `s2s.checkpoint(cell)` sees the dropout mask the forward sweep drew and draws nothing new,
and `grad(f, checkpoint="auto")` or a byte budget never runs a step again that draws, in the loop
or in a helper or a method it calls. Each gradient is checked against central differences of the
plain function with the stream reseeded for every evaluation, against grad without checkpoints,
and the stream is left where the plain function leaves it."""
import numpy as np
import pytest

import s2s

W = np.array([0.5, -0.2, 0.8, 1.1, -0.9, 0.35])


def central(f, w, eps=1e-6):
    g = np.zeros_like(w)
    for i in range(w.size):
        e = np.zeros_like(w)
        e[i] = eps
        g[i] = (f(w + e) - f(w - e)) / (2 * eps)
    return g


def dropout_cell(h, w):
    mask = np.random.rand(*h.shape) > 0.5
    return np.tanh(h * w + 0.1) * mask * 2.0


def noisy_cell(h, w):
    return np.sin(h * w) + 0.3 * np.random.standard_normal(h.shape)


RS = np.random.RandomState(0)


def state_cell(h, w):
    return np.tanh(h * w + RS.uniform(-1.0, 1.0, h.shape))


def helper_draw(h):
    return np.random.rand(*h.shape) > 0.3


def helper_cell(h, w):
    return np.tanh(h * w) * helper_draw(h) + 0.5 * h


def make_mask(shape):
    return np.random.rand(*shape) > 0.4


def shape_mask_cell(h, w):  # the helper takes no differentiated argument: s2s calls it as plain Python
    return np.tanh(h * w + 0.2) * make_mask(h.shape) + 0.1 * h


class Noisy:
    def __init__(self, seed):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def noise(self, h):
        return h + 0.2 * self.rng.standard_normal(h.shape)

    def step(self, h, w):
        return np.tanh(self.noise(h) * w)


MODEL = Noisy(3)


def reseed():
    np.random.seed(11)
    RS.seed(5)
    MODEL.rng.bit_generator.state = np.random.default_rng(MODEL.seed).bit_generator.state  # (the same object)


CELLS = [dropout_cell, noisy_cell, state_cell, helper_cell, shape_mask_cell, MODEL.step]
POLICIES = [None, s2s.checkpoint_policies.dots_saveable, s2s.checkpoint_policies.everything_saveable]


def unrolled(cell, steps=4):
    def f(w):
        h = np.linspace(0.2, 1.2, w.size)
        for _ in range(steps):
            h = cell(h, w)
        return np.sum(h * h)
    return f


def check(transformed, plain):
    reseed()
    got = transformed(W)
    after = (np.random.rand(), RS.rand(), MODEL.rng.random())
    reseed()
    plain(W)
    assert (np.random.rand(), RS.rand(), MODEL.rng.random()) == after  # the streams advance as the plain function's

    def reseeded(w):
        reseed()
        return plain(w)
    np.testing.assert_allclose(got, central(reseeded, W), rtol=1e-6, atol=1e-8)
    reseed()
    np.testing.assert_allclose(got, s2s.grad(plain)(W), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("policy", POLICIES, ids=["nothing", "dots", "everything"])
@pytest.mark.parametrize("cell", CELLS, ids=lambda c: c.__name__)
def test_checkpoint_replays_the_draws(cell, policy):
    check(s2s.grad(unrolled(s2s.checkpoint(cell, policy=policy))), unrolled(cell))


@pytest.mark.parametrize("cell", CELLS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("budget", ["auto", 2000])
def test_checkpointed_loops_never_draw_again(cell, budget):
    f = unrolled(cell, steps=9)
    check(s2s.grad(f, checkpoint=budget), f)


def test_nested_checkpoints_replay_the_draws():
    inner = s2s.checkpoint(dropout_cell)

    def two(h, w):
        return inner(inner(h, w), w)

    check(s2s.grad(unrolled(s2s.checkpoint(two), steps=2)), unrolled(two, steps=2))


def test_value_and_grad_and_jit_of_a_checkpointed_draw():
    f = unrolled(s2s.checkpoint(dropout_cell))
    reseed()
    value, _ = s2s.value_and_grad(f)(W)
    reseed()
    assert value == unrolled(dropout_cell)(W)
    check(s2s.jit(s2s.grad(f)), unrolled(dropout_cell))
