"""JAX's `precision=` and `preferred_element_type=` on jnp.dot/matmul/einsum/tensordot/inner/vdot
(and lax.Precision values): accepted outside and inside grad, jvp, vmap and jit. `precision` does
not change NumPy's product; `preferred_element_type=T` computes and returns it in T. Values
against NumPy's products, derivatives against central differences, vmap against a loop."""
import numpy as np
import pytest

import s2s
import s2s.numpy as jnp
from s2s import lax

A = np.array([[0.3, -1.2, 0.5], [2.0, 0.1, -0.7]])
B = np.array([[1.1, 0.4], [-0.3, 0.9], [0.6, -1.5]])


def products(a, b):
    return (jnp.dot(a, b, precision=lax.Precision.HIGHEST)
            + jnp.matmul(a, b, precision="high", preferred_element_type=np.float64)
            + jnp.einsum("ij,jk->ik", a, b, precision=(lax.Precision.HIGH, lax.Precision.HIGH))
            + jnp.tensordot(a, b, 1, precision=None, preferred_element_type=None))


def loss(a, b):
    return jnp.sum(jnp.tanh(products(a, b))) + jnp.inner(a[0], b[:, 0], precision="highest") \
        + jnp.vdot(a[1], b[:, 1], precision="default")


def plain_loss(a, b):
    return np.sum(np.tanh(4 * (a @ b))) + np.inner(a[0], b[:, 0]) + np.vdot(a[1], b[:, 1])


def test_outside_a_transform_the_keywords_leave_numpys_products():
    np.testing.assert_allclose(products(A, B), 4 * (A @ B), rtol=1e-15)
    np.testing.assert_allclose(loss(A, B), plain_loss(A, B), rtol=1e-15)


def _central(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        out.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return out


def test_grad_jvp_and_jit_accept_the_keywords():
    ga, gb = s2s.grad(loss, argnums=(0, 1))(A, B)
    np.testing.assert_allclose(ga, _central(lambda a: plain_loss(a, B), A), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(gb, _central(lambda b: plain_loss(A, b), B), rtol=1e-6, atol=1e-9)
    _, t = s2s.jvp(loss, (A, B), (np.ones_like(A), np.zeros_like(B)))
    np.testing.assert_allclose(t, np.sum(ga), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(loss)(A, B), plain_loss(A, B), rtol=1e-14)


def test_vmap_accepts_the_keywords():
    stack = np.stack([A, 2 * A, -A])
    got = s2s.vmap(s2s.grad(loss), in_axes=(0, None))(stack, B)
    want = np.stack([s2s.grad(loss)(a, B) for a in stack])
    np.testing.assert_allclose(got, want, rtol=1e-13)


def in_float64(a, b):
    return jnp.dot(a, b, preferred_element_type=np.float64)


def einsum_in_float64(a, b):
    return jnp.einsum("ij,jk->ik", a, b, preferred_element_type=np.float64)


@pytest.mark.parametrize("fn", [in_float64, einsum_in_float64])
def test_preferred_element_type_is_the_dtype_of_the_product(fn):
    a32, b32 = A.astype(np.float32), B.astype(np.float32)
    want = A.astype(np.float32).astype(np.float64) @ B.astype(np.float32).astype(np.float64)
    for f in (fn, s2s.jit(fn)):
        out = f(a32, b32)
        assert out.dtype == np.float64
        np.testing.assert_array_equal(out, want)
    g = s2s.grad(lambda a: jnp.sum(fn(a, b32)))(a32)
    np.testing.assert_allclose(g, np.broadcast_to(b32.astype(np.float64).sum(1), A.shape), rtol=1e-7)
