"""Integer and boolean dtype constructors applied to arrays, np.int64(W[:, -1]) (autograd's
test_cast_to_int): their values are NumPy's, and no derivative flows through them (JAX's zero
gradient). Gradients against central differences (away from integers the cast is locally
constant), vmap against a loop over examples."""
import numpy as np
import pytest

import s2s
import s2s.numpy as snp


def cast_as_indices(W):
    inds = np.int64(W[:, -1])
    return np.sum(W[:, :-1][inds] ** 2)


def cast_times_value(x):
    return np.sum(np.int32(x) * x + np.uint8(np.abs(x)) * np.sin(x))


def bool_mask(x):
    return np.sum(np.where(np.bool(x > 0.0), x ** 2, -x))


def jnp_spelling(x):
    return np.sum(snp.int32(x * 3.0) * x)


FNS = [cast_as_indices, cast_times_value, bool_mask, jnp_spelling]


def _draw(f, rng):
    if f is cast_as_indices:
        W = rng.standard_normal((5, 4))
        W[:, -1] = rng.integers(0, 5, 5) + rng.uniform(0.2, 0.8, 5)  # away from integers
        return W
    return rng.uniform(0.2, 0.8, (3, 4)) * rng.choice([-3.0, 3.0], (3, 4)) + 0.05


def _fd(f, x, eps=1e-7):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("f", FNS, ids=lambda f: f.__name__)
def test_grad_jvp_and_vmap(f):
    rng = np.random.default_rng(6)
    x = _draw(f, rng)
    np.testing.assert_allclose(s2s.jit(f)(x), f(x))
    np.testing.assert_allclose(s2s.grad(f)(x), _fd(f, x), rtol=1e-6, atol=1e-6)
    t = rng.standard_normal(x.shape)
    np.testing.assert_allclose(s2s.jvp(f, (x,), (t,))[1], np.sum(_fd(f, x) * t), rtol=1e-6, atol=1e-6)
    xs = np.stack([_draw(f, rng) for _ in range(3)])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(v) for v in xs])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), np.stack([_fd(f, v) for v in xs]), rtol=1e-6, atol=1e-6)


def scaled_cast(v):
    return np.int64(v) * v


def test_the_cast_has_a_zero_cotangent():
    x = np.array([1.5, -2.5, 3.7])
    _, pull = s2s.vjp(scaled_cast, x)
    np.testing.assert_array_equal(pull(np.ones(3))[0], np.int64(x))  # only the factor v carries one
    assert s2s.jit(lambda v: np.int64(v))(x).dtype == np.int64
