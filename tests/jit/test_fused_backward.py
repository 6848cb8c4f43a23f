"""Fusion across the forward/backward boundary (the `recompute` pass, then `fusion`): under
jit(grad) an elementwise chain's forward and backward sweeps become one kernel, its masks
recomputed inside it instead of stored (issue 29, W4b). The shape of the generated code is
asserted, not its speed; values against the un-jitted transform and a hand-derived derivative."""

import numpy as np
from helpers_kernels import assert_within_ulps, selu

import s2s
from s2s.compiler.emit import kernels

N = kernels.THRESHOLD * 3 + 17  # several blocks, and a ragged last one


def sum_selu(x):
    return np.sum(selu(x))


def leaky_square(x):
    return np.sum(np.where(x > 0, x, 0.01 * x) ** 2)


def mask_in_a_product(x, w):
    m = x > 0
    return np.sum(np.where(m, x, 0.0) @ w) + np.sum(np.where(m, x * x, 0.0))


def _data(n=N, seed=0):
    x = np.random.default_rng(seed).normal(size=n)
    x[:4] = (0.0, -0.0, 1e-300, -50.0)  # the mask's edge, and exp's underflow
    return x


def _code(fn, *args) -> list[str]:
    """The generated function's statements (no comments, no kernel listings); with `args`, of the
    version specialized on their shapes, after its shape test."""
    text = s2s.source(fn, *args).split("\n# fused kernel")[0]
    text = text.split("return any_shape(x)")[-1]
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line and not line.startswith(("#", "def "))]


def test_jit_grad_of_selu_is_one_kernel():
    j = s2s.jit(s2s.grad(sum_selu))
    x = _data()
    got = j(x)
    if kernels.available():  # (the version for x's shape, where the seed's spread folds, too)
        # (one kernel: the version for float arrays needs no complex check nor real part, issue 45)
        assert _code(j, x) == ["return fused_0(x)"]
        assert s2s.source(j, x).count("# fused kernel") == 1
    else:  # S2S_NO_FUSE=1: jit's unfused code
        assert "fused_" not in s2s.source(j)
    want = 1.05 * np.where(x > 0, 1.0, 1.67 * np.exp(x))  # hand-derived
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    assert_within_ulps(got, s2s.grad(sum_selu)(x), ulps=2)


def test_jit_grad_of_leaky_square_is_one_kernel():
    j = s2s.jit(s2s.grad(leaky_square))
    x = _data(seed=1)
    got = j(x)
    if kernels.available():
        # (one kernel: the version for float arrays needs no complex check nor real part, issue 45)
        assert _code(j, x) == ["return fused_0(x)"]
    want = 2.0 * np.where(x > 0, x, 0.01 * x) * np.where(x > 0, 1.0, 0.01)
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    np.testing.assert_array_equal(got, s2s.grad(leaky_square)(x))


def test_value_and_grad_and_vmap_grad_agree_with_the_plain_transforms():
    x = _data(seed=2)
    value, grad = s2s.jit(s2s.value_and_grad(sum_selu))(x)
    want_value, want_grad = s2s.value_and_grad(sum_selu)(x)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    assert_within_ulps(grad, want_grad, ulps=2)
    xs = x.reshape(-1, 1)[: (N // 16) * 16].reshape(16, -1)
    per_row = s2s.jit(s2s.vmap(s2s.grad(sum_selu)))(xs)
    assert_within_ulps(per_row, np.stack([s2s.grad(sum_selu)(r) for r in xs]), ulps=2)


def test_a_mask_a_product_reads_is_stored_once():
    """Recomputing `x > 0` where a matrix product reads it would make no kernel: it stays."""
    x, w = _data(600 * 500, seed=3).reshape(600, 500), np.random.default_rng(4).normal(size=500)
    j = s2s.jit(s2s.grad(mask_in_a_product))
    got = j(x, w)
    assert "m = x > 0" in _code(j)
    want = np.where(x > 0, 1.0, 0.0) * (w[None, :] + 2.0 * x)  # hand-derived
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
