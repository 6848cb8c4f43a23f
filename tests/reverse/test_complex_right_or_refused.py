"""Complex values on a derivative's path: s2s's rules are written for real arithmetic, so each
transform must either give the derivative of NumPy's own function (central differences) or raise
an S2SError, never a wrong number. `grad(lambda x: np.real(x * (1 + 0.2j)))(1.0)` returned
(1+0.2j), `grad` of a complex output returned a complex number (autograd's test_direct.py::
test_grad_complex_output expects a TypeError)."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s.errors import S2SError

C = 0.6 - 0.8j
CS = np.array([1.0 + 2.0j, -0.5 + 0.3j, 0.25j])


def real_part(x):
    return np.sum(np.real(x * C))


def imag_part(x):
    return np.sum(np.imag(x * C))


def modulus(x):
    return np.sum(np.abs(x * C + 1.0))


def phase(x):
    return np.sum(np.angle(x * C + 2.0))


def euler(x):
    return np.sum(np.real(np.exp(1j * x)) * x)


def real_attribute(x):
    return np.sum((x * CS).real ** 2)


def squared_modulus(x):
    z = x * CS
    return np.sum(np.real(z * np.conj(z)))


FUNCTIONS = [real_part, imag_part, modulus, phase, euler, real_attribute, squared_modulus]


def _grad(f, x):
    return s2s.grad(f)(x)


def _vjp(f, x):
    return s2s.vjp(f, x)[1](1.0)[0]


def _jvp_basis(f, x):
    return np.array([s2s.jvp(f, (x,), (np.eye(x.size)[i],))[1] for i in range(x.size)])


def _jacrev(f, x):
    return s2s.jacrev(f)(x)


def _jacfwd(f, x):
    return s2s.jacfwd(f)(x)


@pytest.mark.parametrize("transform", [_grad, _vjp, _jvp_basis, _jacrev, _jacfwd], ids=lambda t: t.__name__[1:])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_right_or_refused(f, transform):
    x = np.array([0.3, -1.1, 0.7])
    try:
        got = transform(f, x)
    except S2SError:
        return
    np.testing.assert_allclose(np.asarray(got), fd_grad(f, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("transform", [lambda f: s2s.grad(f)(1.0), lambda f: s2s.value_and_grad(f)(1.0)],
                         ids=["grad", "value_and_grad"])
def test_grad_of_a_complex_output_is_a_type_error(transform):
    with pytest.raises(TypeError, match="real-valued output"):
        transform(lambda x: x * (1.0 + 0.2j))
