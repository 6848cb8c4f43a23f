"""Plain Python callees of generated code on a backend other than NumPy (s2s/compiler/emit/backend_callees.py):
a helper jit does not inline, a helper a derivative calls on inactive values, and the runtime's
composites run as versions compiled for the call's backend (the fake GPU backend, as strict as
CuPy, refuses the NumPy arrays their plain `np.` would make). Values are compared with NumPy's and
with hand-derived gradients."""
import gast
import numpy as np
import pytest
from fake_backend import BACKEND, FakeArray, put
from fake_backend import host as _host

import s2s
from s2s.compiler.emit import backend_callees

pytestmark = pytest.mark.usefixtures("fake_backend")  # (tests/backends/conftest.py)


def ramp(x, k=3, shift=0.5):
    """A default keeps jit from inlining it; np.arange would be a NumPy array beside device ones."""
    return x * np.arange(k) + np.where(x > shift, 1.0, 0.0)


def uses_ramp(x):
    return np.sum(ramp(x[:, None]) ** 2, axis=1)


def one_hot(labels, k):
    return (np.expand_dims(labels, -1) == np.arange(k)).astype(np.float64)


def weighted(x):
    return np.sum(one_hot(np.array([0, 2, 1]), 3) * x ** 2)  # one_hot's inputs are inactive


def guarded(x, scale=2.0):
    try:  # s2s compiles no `try`: the helper stays plain Python (fine here: only arithmetic)
        return x * scale
    except TypeError:
        return x


def uses_guarded(x):
    return np.sum(guarded(x))


X = np.array([[0.2, 0.9, -0.4], [1.3, 0.1, 0.7], [0.6, -1.1, 0.8]])


def test_jit_runs_an_uninlined_helper_on_the_backend():
    got = s2s.jit(uses_ramp)(put(X))
    assert isinstance(got, FakeArray)
    x = X[:, None, :]  # (3, 1, 3): each column times 0, 1, 2, plus 1 past 0.5
    want = np.sum((x * np.array([0.0, 1.0, 2.0]) + (x > 0.5)) ** 2, axis=1)
    np.testing.assert_allclose(_host(got), want, rtol=1e-14)


def test_grad_calls_an_inactive_helper_on_the_backend():
    got = s2s.grad(weighted)(put(X))
    assert isinstance(got, FakeArray)
    want = 2 * X * np.eye(3)[[0, 2, 1]]  # d/dx sum(mask * x**2) = 2 x mask
    np.testing.assert_allclose(_host(got), want, rtol=1e-14)
    np.testing.assert_allclose(_host(s2s.jit(weighted)(put(X))), np.sum(np.eye(3)[[0, 2, 1]] * X ** 2), rtol=1e-14)


def test_a_helper_s2s_cannot_compile_runs_as_written():
    np.testing.assert_allclose(_host(s2s.jit(uses_guarded)(put(X))), 2 * X.sum(), rtol=1e-14)


def test_jit_of_a_runtime_composite_on_the_backend():
    def padded(x, c):
        return np.pad(x, 1, constant_values=c)
    got = s2s.jit(padded)(put(X), put(np.array(4.0)))
    assert isinstance(got, FakeArray)
    np.testing.assert_array_equal(_host(got), np.pad(X, 1, constant_values=4.0))


def test_where_takes_a_python_bool_condition_on_the_backend():
    xp = BACKEND.xp
    a, b = put(X), put(-X)
    for flag in (True, False, [True, False, True]):
        np.testing.assert_array_equal(_host(xp.where(flag, a, b)), np.where(flag, X, -X))


def test_only_names_that_are_only_called_are_replaced():
    node = gast.parse("def f(x):\n    y = g(x)\n    z = h(x)\n    return k(h, y)\n").body[0]
    assert backend_callees.called_names(node) == {"g", "k"}  # h is also passed as a value


def test_numpy_calls_keep_the_plain_helper():
    np.testing.assert_allclose(s2s.jit(uses_ramp)(X), uses_ramp(X), rtol=1e-14)
    np.testing.assert_allclose(s2s.grad(weighted)(X), 2 * X * np.eye(3)[[0, 2, 1]], rtol=1e-14)
