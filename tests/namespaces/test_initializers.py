"""s2s.nn.initializers: JAX's signatures (`init = normal(stddev); init(key, shape, dtype)`), the
same draws as s2s.random for the same key, and variance_scaling's fans and spreads."""
import math

import numpy as np
import pytest

from s2s import S2SError, random
from s2s.nn import initializers as init

KEY = random.PRNGKey(0)


def test_zeros_ones_constant():
    assert init.zeros(KEY, (2, 3)).dtype == np.float32
    np.testing.assert_array_equal(init.zeros(KEY, (2, 3), np.float64), np.zeros((2, 3)))
    np.testing.assert_array_equal(init.ones(KEY, [4]), np.ones(4, np.float32))
    np.testing.assert_array_equal(init.constant(2.5)(KEY, (2,)), [2.5, 2.5])


def test_normal_and_uniform_are_scaled_s2s_random_draws():
    np.testing.assert_allclose(init.normal(stddev=0.5)(KEY, (3, 4), np.float64),
                               0.5 * random.normal(KEY, (3, 4), np.float64), rtol=1e-15)
    np.testing.assert_allclose(init.normal()(KEY, (5,)), np.float32(1e-2) * random.normal(KEY, (5,)), rtol=1e-6)
    np.testing.assert_allclose(init.uniform(scale=2.0)(KEY, (3,), np.float64),
                               2.0 * random.uniform(KEY, (3,), np.float64), rtol=1e-15)
    assert init.normal(dtype=np.float64)(KEY, (2,)).dtype == np.float64
    t = init.truncated_normal(stddev=1.0)(KEY, (1000,), np.float64)
    assert t.min() >= -2.0 and t.max() <= 2.0


FANS = {"fan_in": 30 * 5, "fan_out": 40 * 5, "fan_avg": 35 * 5, "fan_geo": math.sqrt(30 * 40) * 5}


@pytest.mark.parametrize("mode", sorted(FANS))
@pytest.mark.parametrize("distribution", ["normal", "uniform", "truncated_normal"])
def test_variance_scaling_spread(mode, distribution):
    shape = (5, 30, 40)  # receptive field 5, in 30, out 40 (JAX's in_axis=-2, out_axis=-1)
    w = init.variance_scaling(2.0, mode, distribution)(random.PRNGKey(3), shape, np.float64)
    assert w.shape == shape and w.dtype == np.float64
    std = math.sqrt(2.0 / FANS[mode])
    assert abs(w.std() / std - 1.0) < 0.05  # 6000 draws: the sample std is within ~2%
    if distribution == "uniform":
        assert np.abs(w).max() <= math.sqrt(3.0) * std
    if distribution == "truncated_normal":
        assert np.abs(w).max() <= 2.0 * std / 0.87962566103423978


NAMED = {"glorot_uniform": (1.0, "fan_avg", "uniform"), "glorot_normal": (1.0, "fan_avg", "truncated_normal"),
         "xavier_uniform": (1.0, "fan_avg", "uniform"), "xavier_normal": (1.0, "fan_avg", "truncated_normal"),
         "lecun_uniform": (1.0, "fan_in", "uniform"), "lecun_normal": (1.0, "fan_in", "truncated_normal"),
         "he_uniform": (2.0, "fan_in", "uniform"), "he_normal": (2.0, "fan_in", "truncated_normal"),
         "kaiming_uniform": (2.0, "fan_in", "uniform"), "kaiming_normal": (2.0, "fan_in", "truncated_normal")}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_initializers_are_variance_scaling(name):
    w = getattr(init, name)()(KEY, (6, 7))
    assert w.dtype == np.float32
    np.testing.assert_array_equal(w, init.variance_scaling(*NAMED[name])(KEY, (6, 7)))


def test_variance_scaling_axes_and_errors():
    w = init.variance_scaling(1.0, "fan_in", "normal", in_axis=0, out_axis=1)(KEY, (50, 4), np.float64)
    np.testing.assert_allclose(w, random.normal(KEY, (50, 4), np.float64) * math.sqrt(1.0 / 50), rtol=1e-15)
    with pytest.raises(S2SError, match="mode"):
        init.variance_scaling(1.0, "fan_sum", "normal")
    with pytest.raises(S2SError, match="distribution"):
        init.variance_scaling(1.0, "fan_in", "cauchy")
    with pytest.raises(S2SError, match="2 axes"):
        init.glorot_normal()(KEY, (3,))
