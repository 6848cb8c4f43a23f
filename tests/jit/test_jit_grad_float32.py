"""jit(grad(f)) gives grad(f)'s float32 gradient, bit for bit, for float32 weights (issue 44): a
float32 `w` used as `w.T` in a loop came back float64 from jit, because shape folding wrote
`rt.unbroadcast(g, w.T)` of equal shapes as `g` and dropped its cast to `like`'s float32 (and
a tuple's float32 arrays looked like float64 ones to the version). Each program is run with its
weights as an array argument and inside a tuple, float32 and float64, in both orders."""
import numpy as np
import pytest

import s2s

RNG = np.random.default_rng(5)
W = RNG.standard_normal((3, 3))
V = RNG.standard_normal(3)
X = RNG.standard_normal((5, 3))


def transposed_in_a_loop(w, v, x):
    out = 0.0
    for t in range(x.shape[0]):
        out = out + np.sum(w.T * x[t]) * v[0]
    return out


def broadcast_bias(w, v, x):
    return np.sum(np.tanh(x @ w.T + v) ** 2)


def scaled_rows(w, v, x):
    acc = np.zeros(3)
    for t in range(x.shape[0]):
        acc = acc + w.T @ x[t] * v
    return np.sum(acc ** 2)


def mixed_precision(w, v, x):
    return np.sum((w * x[:3]).T * v[:, None]) + np.sum(w.T ** 2)


PROGRAMS = [transposed_in_a_loop, broadcast_bias, scaled_rows, mixed_precision]


def _as_tuple(f):
    def g(p, x):
        return f(p[0], p[1], x)
    return g


def _same(a, b):
    assert a.dtype == b.dtype
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("f", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
@pytest.mark.parametrize("dtypes", [(np.float32, np.float64), (np.float64, np.float32)], ids=["f32-first", "f64-first"])
def test_jit_of_grad_is_grad_in_dtype_and_bits(f, dtypes):
    flat = s2s.jit(s2s.grad(f, argnums=(0, 1)))
    tupled = s2s.jit(s2s.grad(_as_tuple(f)))
    for dt in dtypes:
        w, v = W.astype(dt), V.astype(dt)
        want = s2s.grad(f, argnums=(0, 1))(w, v, X)
        assert want[0].dtype == dt and want[1].dtype == dt
        for a, b in zip(flat(w, v, X), want):
            _same(a, b)
        for a, b in zip(tupled((w, v), X), s2s.grad(_as_tuple(f))((w, v), X)):
            _same(a, b)
