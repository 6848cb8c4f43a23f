"""A list built in the function, given where NumPy takes an array (`np.log([a, b])`), is the
array `np.asarray` makes of it (frontend/array_likes.py): grad, jvp, vmap and jit agree with
central differences and with the plain function, for elementwise functions, binary ones with the
list on either side, reductions, keywords and a list bound to a local first."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s


def named(x):
    v = [x[0] * 2.0, x[1] ** 2]
    return np.sum(np.log(v))


def appended(x):
    v = []
    for i in range(2):
        v.append(x[i] * 2.0)
    return np.sum(np.log(v))


CASES = {
    "log": lambda x: np.sum(np.log([x[0], x[1] * 2.0])),
    "log_tuple": lambda x: np.sum(np.log((x[0], x[1] * 2.0))),
    "log_of_arrays": lambda x: np.sum(np.log([x, x * 2.0])),
    "nested": lambda x: np.sum(np.log([[x[0], x[1]], [x[1], 3.0]])),
    "power": lambda x: np.sum(np.power([x[0], x[1] * 2.0], 3)),
    "square": lambda x: np.sum(np.square([x[0], x[1] * 2.0])),
    "maximum": lambda x: np.sum(np.maximum([x[0], x[1] * 2.0], 2.0)),
    "arctan2": lambda x: np.sum(np.arctan2([x[0], x[1] * 2.0], x)),
    "dot": lambda x: np.dot([x[0], x[1] * 2.0], x),
    "clip": lambda x: np.sum(np.clip([x[0], x[1] * 2.0], 0, 3)),
    "clip_keyword": lambda x: np.sum(np.clip(x, a_min=[x[1] * 0.5, 1.0], a_max=3.0)),
    "prod": lambda x: np.prod([x[0], x[1] * 2.0]),
    "named": named,
    "appended": appended,
}
X = np.array([1.5, 2.5])
T = np.array([1.0, -0.5])


@pytest.mark.parametrize("name", sorted(CASES))
def test_list_operand_is_an_array(name):
    f = CASES[name]
    want = fd_grad(f, X)
    np.testing.assert_allclose(s2s.grad(f)(X), want, rtol=1e-6, atol=1e-8)
    value, tangent = s2s.jvp(f, (X,), (T,))
    assert value == pytest.approx(f(X))
    assert tangent == pytest.approx(want @ T, rel=1e-6)
    xs = np.stack([X, X + 0.25])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(xs[0]), f(xs[1])])
    assert s2s.jit(f)(X) == pytest.approx(f(X))
