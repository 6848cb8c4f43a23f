"""A new transform object of the same function with the same options reuses the compiled code
(issue 46 section 2): `s2s.hessian(f)(x)` in a loop makes a new jacrev and jacfwd each time, and
only the first compiles; a function that changed, or other options, compile again. Values
against the hand-derived Hessian and gradient."""
import numpy as np
import pytest

import s2s
from s2s.compiler import driver

SCALE = 2.0


def cubic(x):
    return SCALE * np.sum(np.sin(x) * x ** 2)


def cubic_grad(x):
    return SCALE * (np.cos(x) * x ** 2 + 2 * x * np.sin(x))


def cubic_hessian(x):
    return np.diag(SCALE * (-np.sin(x) * x ** 2 + 4 * x * np.cos(x) + 2 * np.sin(x)))


def quartic(x):
    return np.sum(x ** 4) / 4


def pair(x, y):
    return np.sum(x * x * y)


@pytest.fixture
def compiles(monkeypatch):
    """The names the compiler's code generator (driver.compile_fn) is called for."""
    calls = []
    real = driver.compile_fn

    def counting(name, *args, **kwargs):
        calls.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(driver, "compile_fn", counting)
    return calls


X = np.array([0.3, -0.7, 1.1, 0.5])


def test_a_second_hessian_object_compiles_nothing(compiles):
    first = s2s.hessian(cubic)(X)
    assert compiles
    compiles.clear()
    for _ in range(3):
        np.testing.assert_allclose(s2s.hessian(cubic)(X), first, rtol=0, atol=0)
    assert compiles == []
    np.testing.assert_allclose(first, cubic_hessian(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("make", [lambda f: s2s.jit(s2s.grad(f)), lambda f: s2s.jacfwd(s2s.grad(f)),
                                  lambda f: s2s.grad(f), lambda f: s2s.jacrev(f)],
                         ids=["jit_grad", "jacfwd_grad", "grad", "jacrev"])
def test_other_new_objects_reuse_the_code(compiles, make):
    first = make(cubic)(X)
    compiles.clear()
    np.testing.assert_allclose(make(cubic)(X), first, rtol=0, atol=0)
    assert compiles == []


def test_a_changed_global_compiles_again(compiles, monkeypatch):
    s2s.hessian(cubic)(X)
    monkeypatch.setitem(globals(), "SCALE", 3.0)
    compiles.clear()
    got = s2s.hessian(cubic)(X)
    assert compiles
    np.testing.assert_allclose(got, cubic_hessian(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s2s.grad(cubic)(X), cubic_grad(X), rtol=1e-12, atol=1e-12)


def test_other_options_are_other_code():
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    np.testing.assert_allclose(s2s.hessian(pair, argnums=0)(x, y), np.diag(2 * y), rtol=1e-12)
    np.testing.assert_allclose(s2s.hessian(pair, argnums=1)(x, y), np.zeros((2, 2)), atol=0)
    np.testing.assert_allclose(s2s.grad(pair)(x, y), 2 * x * y, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(pair, argnums=1)(x, y), x * x, rtol=1e-12)
    value, g = s2s.value_and_grad(pair)(x, y)
    assert value == pair(x, y)
    np.testing.assert_allclose(g, 2 * x * y, rtol=1e-12)
    both = s2s.grad(pair, argnums=(0, 1))(x, y)
    assert isinstance(both, tuple) and len(both) == 2
    np.testing.assert_allclose(both[1], x * x, rtol=1e-12)


GRADIENT = s2s.grad(cubic)


def uses_a_global_gradient(x):
    return np.sum(GRADIENT(x) * x)


def test_a_function_calling_a_rebound_transform_sees_the_new_one(monkeypatch):
    f = s2s.jit(uses_a_global_gradient)
    np.testing.assert_allclose(f(X), np.sum(cubic_grad(X) * X), rtol=1e-12)
    monkeypatch.setitem(globals(), "GRADIENT", s2s.grad(cubic))  # an equal one: the same code
    np.testing.assert_allclose(f(X), np.sum(cubic_grad(X) * X), rtol=1e-12)
    monkeypatch.setitem(globals(), "GRADIENT", s2s.grad(quartic))  # another one
    np.testing.assert_allclose(f(X), np.sum(X ** 4), rtol=1e-12)
