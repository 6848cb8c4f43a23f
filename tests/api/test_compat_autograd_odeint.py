"""s2s.compat.autograd's autograd.scipy.integrate.odeint: SciPy's odeint with autograd's adjoint
VJP in y0, t and args (a tuple holding a list of arrays, as ode_net's network parameters), called
inside a function s2s differentiates. Checked against central finite differences of the solution
(tight tolerances on both sides) and against `tuple` from autograd.builtins."""
import numpy as np
import pytest

import s2s
from s2s.compat.autograd import builtins, integrate

T = np.linspace(0.0, 1.0, 5)
OPTS = {"rtol": 1e-11, "atol": 1e-11}


def rhs(y, t, params):
    w, b = params
    return np.tanh(np.dot(y, w) + b) - 0.3 * y * t


def loss(y0, t, params):
    return np.sum(integrate.odeint(rhs, y0, t, builtins.tuple((params,)), **OPTS) ** 2)


def _fd(f, x, h=1e-6):
    out = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        out[idx] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def test_gradients_in_y0_t_and_args_match_finite_differences():
    rng = np.random.RandomState(0)
    y0, w, b = rng.randn(2), 0.5 * rng.randn(2, 2), 0.1 * rng.randn(2)
    gy0, gt, (gw, gb) = s2s.grad(loss, argnums=(0, 1, 2))(y0, T, [w, b])
    np.testing.assert_allclose(gy0, _fd(lambda v: loss(v, T, [w, b]), y0), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(gt, _fd(lambda v: loss(y0, v, [w, b]), T), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(gw, _fd(lambda v: loss(y0, T, [v, b]), w), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(gb, _fd(lambda v: loss(y0, T, [w, v]), b), rtol=1e-5, atol=1e-8)


def test_values_are_scipys():
    import scipy.integrate
    y0, params = np.array([1.0, -0.5]), [np.eye(2), np.zeros(2)]
    np.testing.assert_allclose(integrate.odeint(rhs, y0, T, (params,)),
                               scipy.integrate.odeint(rhs, y0, T, (params,)), rtol=0, atol=0)


def loss_with_an_option_odeint_lacks(w):
    return np.sum(integrate.odeint(rhs, np.ones(2), T, ((w, np.zeros(2)),), mxstep=100))


def plain_loss(y0):
    return loss(y0, T, [np.eye(2), np.zeros(2)])


def test_what_odeint_does_not_offer_is_refused():
    with pytest.raises(s2s.S2SError, match="unexpected keyword argument 'mxstep'") as e:
        s2s.grad(loss_with_an_option_odeint_lacks)(np.eye(2))
    assert "test_compat_autograd_odeint.py" in str(e.value)
    with pytest.raises(s2s.S2SError, match="first order only|cannot differentiate"):
        s2s.hessian(plain_loss)(np.array([1.0, -0.5]))


@pytest.mark.parametrize("second", [
    s2s.hessian,
    lambda f: s2s.jacfwd(s2s.grad(f)),
    lambda f: s2s.grad(lambda y: s2s.grad(f)(y)[0]),
    lambda f: lambda y: s2s.jvp(s2s.grad(f), (y,), (np.ones(2),)),
], ids=["hessian", "jacfwd_of_grad", "grad_of_grad", "jvp_of_grad"])
def test_second_derivatives_are_refused_by_name(second):
    with pytest.raises(s2s.S2SError, match="odeint's derivative .* first order only"):
        second(plain_loss)(np.array([1.0, -0.5]))


def test_forward_mode_is_refused_by_name():
    with pytest.raises(s2s.S2SError, match="odeint has autograd's reverse-mode derivative only"):
        s2s.jvp(plain_loss, (np.array([1.0, -0.5]),), (np.ones(2),))
    with pytest.raises(s2s.S2SError, match="reverse-mode derivative only"):
        s2s.jacfwd(plain_loss)(np.array([1.0, -0.5]))
