"""`s2s.config.update("jax_enable_x64", True)` (JAX's default dtypes: float64/int64 with it,
float32/int32 without, the streams unchanged), and s2s.random inside transforms: under vmap over
a batch of keys (each example its own key's draws, against a loop), inside grad (draws are
constants; uniform's minval/maxval carry its reparametrized derivative, against central
differences), and under jit."""
import numpy as np
import pytest

import s2s
from s2s import random
from s2s.errors import S2SError
from s2s.nn import initializers as init

KEYS = random.split(random.key(7), 5)


@pytest.fixture
def x64():
    """enable_x64 on for one test, then put back."""
    before = s2s.config.read("enable_x64")
    s2s.config.update("jax_enable_x64", True)
    yield
    s2s.config.update("enable_x64", before)


def test_x64_is_a_setting_spelled_as_in_jax():
    before = s2s.config.read("enable_x64")
    assert before is False
    s2s.config.update("jax_enable_x64", True)
    assert s2s.config.read("jax_enable_x64") is True and s2s.config.config.enable_x64 is True
    s2s.config.update("jax_enable_x64", before)
    with pytest.raises(S2SError, match="enable_x64 must be True or False"):
        s2s.config.update("jax_enable_x64", "maybe")


def test_default_dtypes_without_x64_are_float32_and_int32():
    assert random.normal(KEYS[0], (3,)).dtype == np.float32
    assert random.uniform(KEYS[0], (3,)).dtype == np.float32
    assert random.truncated_normal(KEYS[0], -1.0, 1.0, (3,)).dtype == np.float32
    assert random.randint(KEYS[0], (3,), 0, 9).dtype == np.int32
    assert random.permutation(KEYS[0], 6).dtype == np.int32
    assert init.glorot_normal()(KEYS[0], (3, 2)).dtype == np.float32


def test_x64_draws_float64_and_the_streams_are_the_explicit_dtype_streams(x64):
    for fn, args in ((random.normal, ()), (random.uniform, ()), (random.truncated_normal, (-1.0, 1.5))):
        got = fn(KEYS[1], *args, (4,)) if args else fn(KEYS[1], (4,))
        want = fn(KEYS[1], *args, (4,), np.float64) if args else fn(KEYS[1], (4,), np.float64)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, want)
    assert random.randint(KEYS[1], (3,), 0, 9).dtype == np.int64
    np.testing.assert_array_equal(random.randint(KEYS[1], (3,), 0, 9),
                                  random.randint(KEYS[1], (3,), 0, 9, np.int64))
    np.testing.assert_array_equal(random.bernoulli(KEYS[1], 0.3, (50,)),
                                  random.uniform(KEYS[1], (50,), np.float64) < 0.3)
    assert init.zeros(KEYS[0], (2,)).dtype == np.float64
    w = init.glorot_normal()(KEYS[0], (3, 2))
    np.testing.assert_array_equal(w, init.glorot_normal(dtype=np.float64)(KEYS[0], (3, 2)))


def test_seeds_give_the_same_keys_with_or_without_x64(x64):
    np.testing.assert_array_equal(random.key(-3), [0xFFFFFFFF, 0xFFFFFFFD])
    np.testing.assert_array_equal(random.key(5), [0, 5])


def draw(k):
    return random.normal(k, (3,), np.float64) + random.uniform(random.fold_in(k, 1), (3,), np.float64)


def split_then_draw(k, scale):
    sub = random.split(k, 3)
    return scale * random.normal(sub[2], (2,), np.float64) + random.randint(sub[0], (2,), 0, 5)


def test_vmap_over_a_batch_of_keys_matches_a_loop():
    np.testing.assert_array_equal(s2s.vmap(draw)(KEYS), np.stack([draw(k) for k in KEYS]))
    got = s2s.vmap(split_then_draw, in_axes=(0, None))(KEYS, 2.0)
    np.testing.assert_array_equal(got, np.stack([split_then_draw(k, 2.0) for k in KEYS]))
    scales = np.arange(5.0)
    got = s2s.vmap(split_then_draw)(KEYS, scales)
    np.testing.assert_array_equal(got, np.stack([split_then_draw(k, s) for k, s in zip(KEYS, scales)]))


def elbo_like(mu, log_sigma, k):
    eps = random.normal(k, mu.shape, np.float64)
    z = mu + np.exp(log_sigma) * eps
    return np.sum(z ** 2) - np.sum(log_sigma)


def _central(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        out.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return out


def test_grad_through_draws_matches_central_differences():
    mu, ls = np.array([0.3, -0.2, 1.1]), np.array([-0.5, 0.1, 0.2])
    g_mu, g_ls = s2s.grad(elbo_like, argnums=(0, 1))(mu, ls, KEYS[2])
    np.testing.assert_allclose(g_mu, _central(lambda m: elbo_like(m, ls, KEYS[2]), mu), rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(g_ls, _central(lambda s: elbo_like(mu, s, KEYS[2]), ls), rtol=1e-7, atol=1e-8)


def test_vmap_of_grad_over_keys_matches_a_loop_and_jit_agrees():
    mu, ls = np.array([0.3, -0.2, 1.1]), np.array([-0.5, 0.1, 0.2])
    per_key = s2s.vmap(s2s.grad(elbo_like), in_axes=(None, None, 0))
    want = np.stack([s2s.grad(elbo_like)(mu, ls, k) for k in KEYS])
    np.testing.assert_allclose(per_key(mu, ls, KEYS), want, rtol=1e-14)
    np.testing.assert_allclose(s2s.jit(per_key)(mu, ls, KEYS), want, rtol=1e-14)


def uniform_loss(lo, hi):
    return np.sum(random.uniform(KEYS[3], (4,), np.float64, lo, hi) ** 2)


def test_uniform_is_differentiable_in_its_bounds():
    g = s2s.grad(uniform_loss, argnums=(0, 1))(0.5, 2.0)
    fd = ((uniform_loss(0.5 + 1e-6, 2.0) - uniform_loss(0.5 - 1e-6, 2.0)) / 2e-6,
          (uniform_loss(0.5, 2.0 + 1e-6) - uniform_loss(0.5, 2.0 - 1e-6)) / 2e-6)
    np.testing.assert_allclose(g, fd, rtol=1e-7)
    _, tangent = s2s.jvp(uniform_loss, (0.5, 2.0), (1.0, -2.0))
    np.testing.assert_allclose(tangent, fd[0] - 2.0 * fd[1], rtol=1e-7)


def truncated_in_bound(lo):
    return np.sum(random.truncated_normal(KEYS[4], lo, 2.0, (3,), np.float64))


def test_truncated_normal_refuses_a_derivative_in_its_bounds():
    with pytest.raises(S2SError, match="does not differentiate jax.random.truncated_normal with respect to its bounds"):
        s2s.grad(truncated_in_bound)(-1.0)
