"""The cotangent of a division's denominator sums over the axes the denominator is broadcast
along before it divides (`-rt.unbroadcast(g * ans, y) / y`, primitives/rules.py): checked against
central differences and against forward mode for every way a denominator broadcasts (a number,
a row, a column, a (1, 1) array, the same shape), and for a softmax's denominator under jit."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads

DENOMINATORS = {
    "number": lambda x: np.sum(x * x) + 1.0,
    "row": lambda x: np.sum(x * x, axis=0, keepdims=True) + 1.0,
    "column": lambda x: np.sum(np.exp(x), axis=1, keepdims=True),
    "one_by_one": lambda x: np.sum(x, keepdims=True) ** 2 + 1.0,
    "same": lambda x: np.cosh(x),
    "vector": lambda x: np.sum(x * x, axis=0) + 1.0,
}


@pytest.mark.parametrize("name", sorted(DENOMINATORS))
def test_denominators_against_differences_and_forward_mode(name):
    den = DENOMINATORS[name]
    w = np.linspace(-1.0, 2.0, 12).reshape(3, 4)

    def f(x):
        return np.sum(np.sin(x) / den(x) * w)

    x = np.random.default_rng(5).normal(size=(3, 4))
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(x), s2s.grad(f)(x), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(s2s.jacrev(s2s.grad(f))(x), s2s.jacfwd(s2s.grad(f))(x), rtol=1e-10, atol=1e-12)


def test_softmax_denominator_against_the_hand_formula():
    def loss(s, v):
        e = np.exp(s - s2s.stop_gradient(np.max(s, axis=1, keepdims=True)))
        a = e / np.sum(e, axis=1, keepdims=True)
        return np.sum((a @ v) ** 2)

    r = np.random.default_rng(1)
    s, v = r.normal(size=(6, 6)), r.normal(size=(6, 3))
    e = np.exp(s - s.max(axis=1, keepdims=True))
    a = e / e.sum(axis=1, keepdims=True)
    da = 2.0 * (a @ v) @ v.T
    hand = a * (da - np.sum(da * a, axis=1, keepdims=True))
    for g in (s2s.grad(loss), s2s.jit(s2s.grad(loss))):
        np.testing.assert_allclose(g(s, v), hand, rtol=1e-12, atol=1e-14)
