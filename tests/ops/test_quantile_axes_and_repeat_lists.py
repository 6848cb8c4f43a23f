"""Forms that crashed inside s2s's rules (issue 27): np.median/np.quantile/np.percentile over a tuple
of axes holding negative entries, quantiles of an array (or list) of q, np.repeat with a list of
repeats, np.average with returned=True. Each against central differences of NumPy's function, in
both modes and at order 2."""
from __future__ import annotations

import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

RNG = np.random.default_rng(27)
W = RNG.standard_normal((3, 4, 5))

CASES = {
    "median_axes_neg": lambda x: np.sum(np.median(x * W, axis=(0, -1)) ** 2),
    "median_axes_neg_keepdims": lambda x: np.sum(np.median(x * W, axis=(-2, -1), keepdims=True) ** 3),
    "nanmedian_axes_neg": lambda x: np.sum(np.nanmedian(x * W, axis=(-3, 1)) ** 2),
    "quantile_axes_neg": lambda x: np.sum(np.quantile(x * W, 0.3, axis=(0, -1)) ** 2),
    "percentile_axes_neg": lambda x: np.sum(np.percentile(x * W, 70.0, axis=(-3, -1)) ** 2),
    "quantile_q_array": lambda x: np.sum(np.quantile(x * W, np.array([0.2, 0.7]), axis=1) ** 2),
    "quantile_q_list_flat": lambda x: np.sum(np.quantile(x * W, [0.2, 0.7]) ** 2),
    "quantile_q_matrix_keepdims": lambda x: np.sum(
        np.quantile(x * W, np.array([[0.1, 0.5], [0.6, 0.9]]), axis=(-1,), keepdims=True) ** 2),
    "percentile_q_array_axes": lambda x: np.sum(np.percentile(x * W, np.array([20.0, 70.0]), axis=(0, -1)) ** 2),
    "percentile_q_list": lambda x: np.sum(np.percentile(x * W, [25.0, 75.0], axis=2) ** 2),
    "nanquantile_q_array": lambda x: np.sum(np.nanquantile(x * W, np.array([0.2, 0.7]), axis=-1) ** 2),
    "nanpercentile_axes_neg": lambda x: np.sum(np.nanpercentile(x * W, [40.0], axis=(-1, 0)) ** 2),
    "repeat_list_axis": lambda x: np.sum(np.repeat(x[0] * W[0], [1, 2, 0, 3], axis=0) ** 2),
    "repeat_list_negative_axis": lambda x: np.sum(np.repeat(x[:, 0] * W[:, 0], [2, 0, 1, 1, 3], axis=-1) ** 3),
    "repeat_list_flat": lambda x: np.sum(np.repeat(x[0, 0] * W[0, 0], [1, 2, 0, 3, 1]) ** 3),
    "repeat_array_of_counts": lambda x: np.sum(np.repeat(x[1] ** 2, np.array([3, 1, 2, 0]), axis=0) * W[0, 0]),
    "average_returned_weights": lambda x: _pair_sum(np.average(x * W, axis=1, weights=np.exp(x[0, :, 0]),
                                                                returned=True)),
    "average_returned_full_weights": lambda x: _pair_sum(np.average(x, axis=(0, 2), weights=W ** 2 + x ** 2,
                                                                     returned=True, keepdims=True)),
    "average_returned_no_weights": lambda x: _pair_sum(np.average(np.sin(x), axis=-1, returned=True)),
}


def _pair_sum(pair):
    avg, scale = pair
    return np.sum(avg ** 2 * scale)


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_derivatives_match_central_differences(name):
    f = CASES[name]
    x = np.random.default_rng(3).standard_normal((3, 4, 5))
    want = fd_grad(f, x)
    np.testing.assert_allclose(s2s.grad(f)(x), want, atol=1e-6)
    t = np.random.default_rng(4).standard_normal(x.shape)
    np.testing.assert_allclose(s2s.jvp(f, (x,), (t,))[1], np.sum(want * t), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivatives_match_central_differences(name):
    f = CASES[name]
    x = np.random.default_rng(5).standard_normal((3, 4, 5))
    v = np.random.default_rng(6).standard_normal(x.shape)
    g = s2s.grad(f)
    want = (fd_grad(f, x + 1e-4 * v, 1e-5) - fd_grad(f, x - 1e-4 * v, 1e-5)) / 2e-4
    np.testing.assert_allclose(s2s.grad(lambda z: np.sum(g(z) * v))(x), want, atol=1e-4)
    np.testing.assert_allclose(s2s.jvp(g, (x,), (v,))[1], want, atol=1e-4)


@pytest.mark.parametrize("name", ["quantile_q_array", "median_axes_neg", "repeat_list_axis"])
def test_vmap_of_grad_is_each_examples_gradient(name):
    f = CASES[name]
    xs = np.random.default_rng(7).standard_normal((2, 3, 4, 5))
    want = np.stack([fd_grad(f, x) for x in xs])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), want, atol=1e-6)
    np.testing.assert_allclose(s2s.grad(lambda z: np.sum(s2s.vmap(f)(z)))(xs), want, atol=1e-6)
