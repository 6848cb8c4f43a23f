"""A full array of one number as an operand of arithmetic becomes that number in a jit version
(passes/fill_operands.py): the values are bitwise those of `grad` without jit, and central finite
differences agree; a fill of another dtype or of a broader shape stays a fill."""
import numpy as np
import pytest
from helpers_compare import fd_grad_of

import s2s


def xent_tanh(w, b, x, y):
    h = np.tanh(x @ w + b)
    z = h - s2s.stop_gradient(np.max(h, axis=1, keepdims=True))
    lse = np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(y * (z - lse), axis=1))


def weighted_rows(a, v):
    return np.mean(np.sum(v * a, axis=1))  # (v's cotangent: `fill * a`; a's: `v * fill`, v narrower)


def summed_quotient(a, b):
    return np.sum(np.sum(a / b, axis=0)) * 0.5


def _args(f, dtype=np.float64):
    r = np.random.default_rng(5)
    if f is xent_tanh:
        return [r.normal(size=(5, 4)), r.normal(size=4), r.normal(size=(6, 5)),
                np.eye(4)[r.integers(0, 4, size=6)].astype(dtype)]
    if f is weighted_rows:
        return [r.normal(size=(4, 3)), r.normal(size=3)]
    return [r.normal(size=(3, 2)), r.uniform(1.0, 2.0, size=(3, 2))]


@pytest.mark.parametrize("f", [xent_tanh, weighted_rows, summed_quotient])
def test_gradients_bitwise_grads_and_near_finite_differences(f):
    args = _args(f)
    n = f.__code__.co_argcount
    argnums = tuple(range(n))
    g = s2s.jit(s2s.grad(f, argnums=argnums))
    got, want = g(*args), s2s.grad(f, argnums=argnums)(*args)
    for k in range(n):
        np.testing.assert_array_equal(got[k], want[k])
        np.testing.assert_allclose(got[k], fd_grad_of(f, args, k), rtol=1e-6, atol=1e-8)


def test_the_loss_value_is_not_computed_for_the_gradient():
    """Softmax cross-entropy's `y * (z - lse)` was computed only for the shape of its cotangent's
    fill (and JAX's check that the output is real): with float64 arguments neither is left."""
    args = _args(xent_tanh)
    body = s2s.source(s2s.jit(s2s.grad(xent_tanh, argnums=(0, 1))), *args).split("return any_shape(")[1]
    assert "xp.log" not in body and "full_like" not in body and "rt.real_result" not in body, body


def test_a_float32_fill_stays():
    """`y` float32: the fill would round `c` to float32 before the product, `y * c` would not."""
    args = _args(xent_tanh, np.float32)
    g = s2s.jit(s2s.grad(xent_tanh, argnums=(0, 1)))
    assert "full_like" in s2s.source(g, *args).split("return any_shape(")[1]
    for got, want in zip(g(*args), s2s.grad(xent_tanh, argnums=(0, 1))(*args)):
        np.testing.assert_array_equal(got, want)
