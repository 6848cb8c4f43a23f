"""A transformed function called with arguments its user function cannot take raises an
S2STypeError naming the user's function and its parameters, as a call of the function itself
would (issue 27): never the generated code's TypeError naming `grad_kron_`."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2STypeError


def kron(x0, x1):
    return np.sum(np.sin(x0) * x1)


def scaled(x, scale=2.0):
    return np.sum(x * scale)


X = np.array([0.3, -0.2, 0.5])
TRANSFORMS = {"grad": s2s.grad, "value_and_grad": s2s.value_and_grad, "vmap": s2s.vmap, "jit": s2s.jit,
              "jacfwd": s2s.jacfwd, "jacrev": s2s.jacrev, "hessian": s2s.hessian}


def _plain_error(fn, *args, **kwargs):
    with pytest.raises(TypeError) as plain:
        fn(*args, **kwargs)
    return str(plain.value)


@pytest.mark.parametrize("kind", list(TRANSFORMS))
def test_missing_argument_names_the_user_function(kind):
    plain = _plain_error(kron, X)
    assert "x1" in plain
    f = TRANSFORMS[kind](kron)
    with pytest.raises(S2STypeError) as e:
        f(X)
    msg = str(e.value)
    assert "kron(x0, x1)" in msg and "'x1'" in msg and "grad_kron" not in msg and "_kron(" not in msg


@pytest.mark.parametrize("kind", list(TRANSFORMS))
def test_too_many_and_unknown_keyword(kind):
    f = TRANSFORMS[kind](kron)
    with pytest.raises(S2STypeError, match=r"kron\(x0, x1\).*too many"):
        f(X, X, X)
    with pytest.raises(S2STypeError, match=r"kron\(x0, x1\).*'y'"):
        f(X, X, y=X)


@pytest.mark.parametrize("kind", list(TRANSFORMS))
def test_wrong_call_after_a_good_one(kind):
    """The fast path made by a first, good call still refuses a wrong one by the user's name, and the
    good call still gives the value of the function it transforms (checked against a plain loop)."""
    f = TRANSFORMS[kind](kron)
    if kind == "vmap":
        xs = np.stack([X, 2 * X])
        np.testing.assert_allclose(f(xs, xs), [kron(a, a) for a in xs])
        f(xs, xs)
    else:
        f(X, X)
        f(X, X)
    with pytest.raises(S2STypeError, match=r"kron\(x0, x1\)"):
        f(X)


def test_defaults_still_bind():
    """A parameter with a default may be left out; grad's value against the hand-derived one."""
    np.testing.assert_allclose(s2s.grad(scaled)(X), np.full(3, 2.0))
    np.testing.assert_allclose(s2s.grad(scaled)(X, 3.0), np.full(3, 3.0))
    np.testing.assert_allclose(s2s.grad(scaled)(X, scale=0.5), np.full(3, 0.5))
    with pytest.raises(S2STypeError, match=r"scaled\(x, scale=2.0\)"):
        s2s.grad(scaled)()


@pytest.mark.parametrize("kind", ["vjp", "jvp"])
def test_vjp_jvp_refuse_by_name(kind):
    with pytest.raises(S2STypeError, match="kron"):
        s2s.vjp(kron, X) if kind == "vjp" else s2s.jvp(kron, (X,), (X,))
