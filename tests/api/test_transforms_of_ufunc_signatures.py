"""A NumPy ufunc passed straight to a transform (`jacrev(np.tanh)`) has `out=None` among its
positional parameters; transforms of it fill no `out` (jvp of it raised a TypeError: one argument
too many). Checked against the hand-derived second derivative of tanh and of sin."""
import numpy as np
import pytest

import s2s

X = np.array([0.3, -0.5, 1.2])
T = np.array([1.0, 0.5, -2.0])
SECOND = {np.tanh: lambda x: -2.0 * np.tanh(x) * (1.0 - np.tanh(x) ** 2), np.sin: lambda x: -np.sin(x)}


@pytest.mark.parametrize("ufunc", [np.tanh, np.sin], ids=lambda u: u.__name__)
def test_jvp_and_vjp_of_the_jacobian_of_a_ufunc(ufunc):
    jac, djac = s2s.jvp(s2s.jacrev(ufunc), (X,), (T,))
    np.testing.assert_allclose(djac, np.diag(SECOND[ufunc](X) * T), rtol=1e-12)
    out, pull = s2s.vjp(s2s.jacfwd(ufunc), X)
    (ct,) = pull(np.eye(3))
    np.testing.assert_allclose(ct, SECOND[ufunc](X), rtol=1e-12)
    np.testing.assert_allclose(s2s.jacfwd(s2s.jacrev(ufunc))(X)[np.arange(3), np.arange(3), np.arange(3)],
                               SECOND[ufunc](X), rtol=1e-12)
