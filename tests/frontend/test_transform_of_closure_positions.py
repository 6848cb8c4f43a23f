"""A transform applied inside a transformed function to a lambda or def that closes over the
enclosing function's locals: s2s lifts it to a function taking those locals first, so every
option that selects arguments by position (`argnums`, autograd's `argnum`, `static_argnums`)
must be shifted past them. autograd's `grad(inner)(2.0)` (parameter `argnum`) differentiated
with respect to the closed-over variable instead: a silently wrong number (autograd's own
test_graphs.py::test_enclosing_scope_ref). Each case is checked, under every outer transform,
against central differences of the function run as plain Python (where the inner transform
sees a real closure)."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
import s2s.compat.autograd as ag


def grad_default(x):
    inner = lambda y: x * y ** 2  # noqa: E731
    return x * s2s.grad(inner)(2.0)


def grad_positional(x):
    def inner(a, b):
        return np.sum(x * a * b ** 3)
    return np.sum(s2s.grad(inner, 1)(x + 1.0, x))


def grad_negative(x):
    inner = lambda a, b: np.sum(np.sin(x) * a * b ** 2)  # noqa: E731
    return np.sum(s2s.grad(inner, argnums=-1)(x, x * 2.0))


def value_and_grad_tuple(x):
    def inner(a, b):
        return np.sum(x ** 2 * a * np.cos(b))
    v, (ga, gb) = s2s.value_and_grad(inner, argnums=(0, 1))(x, 0.5 * x)
    return v + np.sum(ga * gb)


def jacrev_closure(x):
    inner = lambda y: x * np.tanh(y)  # noqa: E731
    return np.sum(s2s.jacrev(inner)(x * 3.0))


def hessian_closure(x):
    inner = lambda y: np.sum(x * y ** 3)  # noqa: E731
    return np.sum(s2s.hessian(inner)(x))


def autograd_grad(x):
    inner_fun = lambda y: x * y  # noqa: E731
    return x * ag.grad(inner_fun)(2.0)


def autograd_grad_argnum(x):
    def inner(a, b):
        return np.sum(x * a ** 2 * b)
    return np.sum(ag.grad(inner, 1)(x, x + 2.0)) + np.sum(ag.grad(inner, argnum=0)(x, x))


def autograd_elementwise(x):
    inner = lambda y: x * np.sin(y)  # noqa: E731
    return np.sum(ag.elementwise_grad(inner)(x * 2.0))


def autograd_value_and_grad(x):
    inner = lambda y: np.sum(x * y ** 2)  # noqa: E731
    v, g = ag.value_and_grad(inner)(x + 1.0)
    return v * np.sum(g)


def jit_static(x):
    g = lambda k, y: y * x ** k  # noqa: E731
    return np.sum(s2s.jit(g, static_argnums=0)(2, x))


CASES = [grad_default, grad_positional, grad_negative, value_and_grad_tuple, jacrev_closure, hessian_closure,
         autograd_grad, autograd_grad_argnum, autograd_elementwise, autograd_value_and_grad, jit_static]
X = np.array([0.7, -1.3])


def _scalar_case(fn):
    return fn in (grad_default, autograd_grad)


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_outer_transforms_match_plain_python(fn):
    x = 0.7 if _scalar_case(fn) else X
    want_value = fn(x)  # plain Python: the inner transform gets a real closure
    want_grad = fd_grad(fn, np.asarray(x))  # (a 0-d array for the scalar cases)
    np.testing.assert_allclose(s2s.jit(fn)(x), want_value, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(fn)(x), want_grad, rtol=1e-6, atol=1e-8)
    value, tangent = s2s.jvp(fn, (x,), (np.ones_like(x),))
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(tangent, np.sum(want_grad), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn", [grad_positional, autograd_grad_argnum, value_and_grad_tuple], ids=lambda f: f.__name__)
def test_under_vmap_matches_a_loop(fn):
    xs = np.array([[0.7, -1.3], [0.2, 0.4], [-0.9, 1.1]])
    np.testing.assert_allclose(s2s.vmap(fn)(xs), [fn(x) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(fn))(xs), [fd_grad(fn, x) for x in xs], rtol=1e-6, atol=1e-8)
