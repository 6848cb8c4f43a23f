"""`np.add.at(y, i, v)` (and subtract, multiply) with values that broadcast against `y[i]`: NumPy
broadcasts `v`, so its cotangent is summed over the broadcast axes. Checked for a scalar, a row,
a column and full values, with a repeated index, against central differences (grad in both
arguments, jvp) and the plain function (jit, vmap over `y` and over `v`)."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

IDX = np.array([0, 2, 0])
A = np.arange(12.0).reshape(4, 3) / 10


def added(a, v):
    b = a.copy()
    np.add.at(b, IDX, v)
    return np.sum(b ** 2)


def subtracted(a, v):
    b = a.copy()
    np.subtract.at(b, IDX, v)
    return np.sum(np.sin(b))


def multiplied(a, v):
    b = a.copy()
    np.multiply.at(b, IDX, v)
    return np.sum(b ** 2)


VALUES = {"scalar": np.array(0.5), "row": np.array([1.0, 2.0, 3.0]), "column": np.array([[1.0], [2.0], [-1.0]]),
          "full": np.arange(9.0).reshape(3, 3) / 4}


@pytest.mark.parametrize("values", sorted(VALUES))
@pytest.mark.parametrize("f", [added, subtracted, multiplied], ids=lambda f: f.__name__)
def test_broadcast_values(f, values):
    v = VALUES[values]
    ga, gv = s2s.grad(f, argnums=(0, 1))(A, v)
    np.testing.assert_allclose(ga, fd_grad(lambda a: f(a, v), A), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gv, fd_grad(lambda w: f(A, w), v), rtol=1e-6, atol=1e-7)
    assert np.shape(gv) == v.shape
    dv = np.ones_like(v)
    _, tangent = s2s.jvp(lambda w: f(A, w), (v,), (dv,))
    assert tangent == pytest.approx(np.sum(fd_grad(lambda w: f(A, w), v) * dv), rel=1e-6)
    assert s2s.jit(f)(A, v) == pytest.approx(f(A, v))
    As = np.stack([A, A + 1.0])
    np.testing.assert_allclose(s2s.vmap(f, in_axes=(0, None))(As, v), [f(As[0], v), f(As[1], v)])
    vs = np.stack([v, 2.0 * v])
    np.testing.assert_allclose(s2s.vmap(f, in_axes=(None, 0))(A, vs), [f(A, vs[0]), f(A, vs[1])])
