"""Reverse mode of custom_jvp functions (the rule transposed): reverse over reverse sees how the
transposed rule depends on the primals (grad(grad(f)) was silently 0), and a rule that calls the
function itself (as JAX's examples do for the primal output) no longer recurses forever. Checked
against hand-derived derivatives and central differences of the first derivative."""
import numpy as np
import pytest

import s2s


@s2s.custom_jvp
def twice_sin(x):
    return np.sin(x) * 2.0


@twice_sin.defjvp
def twice_sin_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return np.sin(x) * 2.0, 2.0 * np.cos(x) * dx


@s2s.custom_jvp
def self_calling(x):
    return np.sin(x) * 2.0


@self_calling.defjvp
def self_calling_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return self_calling(x), 2.0 * np.cos(x) * dx


X = np.array([0.3, -0.4, 1.1])


@pytest.mark.parametrize("f", [twice_sin, self_calling], ids=["plain_rule", "self_calling_rule"])
def test_first_and_second_derivatives(f):
    def h(x):
        return np.sum(f(x) * x)
    want_g = 2 * np.sin(X) + 2 * np.cos(X) * X
    want_h = np.diag(4 * np.cos(X) - 2 * np.sin(X) * X)
    np.testing.assert_allclose(s2s.grad(h)(X), want_g, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(s2s.grad(f))(0.3), -2 * np.sin(0.3), rtol=1e-12)
    for hess in (s2s.hessian(h), s2s.jacrev(s2s.grad(h)), s2s.jacrev(s2s.jacrev(h)), s2s.jacfwd(s2s.grad(h))):
        np.testing.assert_allclose(hess(X), want_h, rtol=1e-10, atol=1e-12)
    fd = np.stack([(s2s.grad(h)(X + e) - s2s.grad(h)(X - e)) / 2e-6 for e in np.eye(3) * 1e-6], axis=-1)
    np.testing.assert_allclose(s2s.jacrev(s2s.grad(h))(X), fd, rtol=1e-6, atol=1e-7)


def test_self_calling_rule_batched():
    xs = np.stack([X, X + 1.0])

    def h(x):
        return np.sum(self_calling(x) * x)
    want = 2 * np.sin(xs) + 2 * np.cos(xs) * xs
    np.testing.assert_allclose(s2s.vmap(s2s.grad(h))(xs), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(lambda x: np.sum(s2s.vmap(self_calling)(x)))(xs), 2 * np.cos(xs), rtol=1e-12)
