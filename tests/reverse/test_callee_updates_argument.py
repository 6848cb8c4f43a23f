"""A callee that updates its array argument in place (issue 45, section 4): `softmax(x)` doing
`x -= np.max(x)`, called on a temporary or on the caller's own array. NumPy's caller sees the
update; s2s calls a copy-in/copy-out version of the callee (frontend/callee_updates.py) and stores
the final value back into the caller's array. The caller's array after the call equals the plain
function's, grad matches central differences, jvp matches grad, jit and vmap match the plain
function (vmap: a loop over the examples)."""
import numpy as np
import pytest
from helpers_compare import fd_grad as central  # (central differences)

import s2s
from s2s.errors import S2SError

X = np.array([0.1, 0.5, -0.3])
WEIGHTS = np.arange(3.0)


def softmax(x):
    x -= np.max(x)
    e = np.exp(x)
    return e / np.sum(e)


def scale_first(v, k):
    v[0] *= k
    return np.sum(v)


def on_temporary(x):
    return np.sum(softmax(x * 2.0) * WEIGHTS)


def on_own_array(x):
    y = x * 1.0
    p = softmax(y)
    return np.sum(p * WEIGHTS) + np.sum(y ** 2)  # y was shifted by the call


def returns_updated(x):
    y = np.sin(x)
    s = scale_first(y, 3.0)
    return y * s  # y[0] was multiplied by 3


@pytest.mark.parametrize("f", [on_temporary, on_own_array])
def test_grad_jvp_jit_vmap(f):
    g = s2s.grad(f)(X)
    np.testing.assert_allclose(g, central(f, X), rtol=1e-6, atol=1e-8)
    v = np.array([0.3, -1.0, 0.7])
    y, t = s2s.jvp(f, (X,), (v,))
    assert y == pytest.approx(f(X)) and t == pytest.approx(np.sum(g * v))
    assert s2s.jit(f)(X) == pytest.approx(f(X))
    xs = np.stack([X, 2 * X, X - 1.0])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs])


def test_the_callers_array_after_the_call_is_the_plain_functions():
    np.testing.assert_allclose(s2s.jit(returns_updated)(X), returns_updated(X))
    jac = s2s.jacrev(returns_updated)(X)
    for i in range(3):
        np.testing.assert_allclose(jac[i], central(lambda x: returns_updated(x)[i], X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jacfwd(returns_updated)(X), jac, rtol=1e-10)


def view_argument(x):
    y = x * 1.0
    return np.sum(softmax(y.T))  # a view: the copy-in/copy-out rewrite leaves it to the transforms


def test_a_view_argument_is_still_refused():
    with pytest.raises(S2SError, match="updates its parameter"):
        s2s.grad(view_argument)(X)


@pytest.mark.parametrize("f", [on_temporary, on_own_array])
def test_compositions(f):
    np.testing.assert_allclose(s2s.grad(s2s.jit(f))(X), central(f, X), rtol=1e-6, atol=1e-8)
    xs = np.stack([X, 2 * X])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), [central(f, x) for x in xs], rtol=1e-6, atol=1e-8)
