"""rt.pick, how max(x, y) splits its derivative (1 where x > y, 1/2 at ties, else 0): its fast form
for a float array (the comparison writes the floats, ties set after) gives the definition's
values, dtypes and signs, also at NaN, infinities, signed zeros and ties, and so the gradient
of a ReLU and of maximum against loops."""
import numpy as np
import pytest

import s2s
from s2s.runtime.elementwise import pick

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 5e-324, 2.0, 0.5]


def definition(x, y):
    want = np.where(np.greater(x, y), 1.0, np.where(np.equal(x, y), 0.5, 0.0))
    dt = np.result_type(x, y)
    return want.astype(dt) if dt.kind == "f" else want  # (integers and booleans: float64)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.bool_])
@pytest.mark.parametrize("y", [0.0, -0.0, 1.0, 2, np.inf, np.nan, "array", "reversed"])
def test_pick_is_its_definition(dtype, y):
    x = np.array(SPECIAL).astype(dtype) if dtype not in (np.int64, np.bool_) else np.array([0, 1, 2, -1, 3]).astype(dtype)
    if y == "array":
        y = np.zeros_like(x)
    elif y == "reversed":
        y = x[::-1].copy()
    got, want = pick(x, y), definition(x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want))


def test_pick_scalars_and_broadcasts_keep_their_types():
    assert pick(1.0, 0.0) == 1.0 and pick(0.0, 0.0) == 0.5
    assert type(pick(np.float64(0.0), 0.0)) is np.float64 and pick(np.array(0.0), 0.0) == 0.5
    got = pick(np.array([[0.0, 1.0]]), np.array([[0.0], [2.0]]))
    assert np.array_equal(got, [[0.5, 1.0], [0.0, 0.0]])


def relu_sum(x):
    return np.sum(np.maximum(x, 0.0) * np.arange(x.size).reshape(x.shape))


def test_relu_gradient_against_a_loop():
    x = np.random.default_rng(0).normal(size=(6, 5))
    x[0, :3] = 0.0
    w = np.arange(x.size).reshape(x.shape)
    want = np.array([[w[i, j] * (1.0 if x[i, j] > 0 else 0.5 if x[i, j] == 0 else 0.0)
                      for j in range(5)] for i in range(6)])
    for g in (s2s.grad(relu_sum), s2s.jit(s2s.grad(relu_sum))):
        assert np.array_equal(g(x), want)
