"""Bugs the `--nested` fuzz campaign of issue 27 found outside its own families, each reduced to
its smallest form and checked against central differences."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def zero_d_times_list(x):
    w = [-2.0, -1.5, 0.5]
    return np.sum(np.sin(np.where(x[0] > 0.4, x[0], 0.5 * x[0]) * w + w) * x)


def test_jvp_of_a_0d_array_times_a_list():
    # np.where gives a 0-d array, which times a list is an array product; its tangent is too
    # (the forward rule multiplied a NumPy scalar tangent by the list: Python's repetition, a TypeError)
    x = np.array([-0.06, 0.22, 0.67])
    np.testing.assert_allclose(s2s.jit(zero_d_times_list)(x), zero_d_times_list(x), rtol=1e-12)
    check_grads(zero_d_times_list, (x,), order=2, modes=("fwd", "rev"))


def cov_too_few(x):
    return np.sin(x) + np.cov(x, ddof=3) + np.cov(1.5, ddof=1, bias=True)


@pytest.mark.filterwarnings("ignore:Degrees of freedom")
def test_cov_with_ddof_at_least_the_sample_count_is_numpys_inf_and_nan():
    # NumPy divides by max(n - ddof, 0), so 1/0 is inf and 0*inf nan, with a warning; s2s's helper
    # divided Python numbers and raised ZeroDivisionError under jit, vmap and grad (fuzz seed 2705)
    x = np.array([0.1, -0.4, 0.3])
    with np.errstate(all="ignore"):
        want = cov_too_few(x)
        np.testing.assert_array_equal(s2s.jit(cov_too_few)(x), want)
        np.testing.assert_array_equal(s2s.vmap(cov_too_few)(np.stack([x, x])), np.stack([want, want]))
        assert not np.any(np.isfinite(s2s.grad(lambda v: np.sum(cov_too_few(v)))(x)))
        np.testing.assert_allclose(s2s.grad(lambda v: np.sum(np.sin(v) + np.cov(1.5, ddof=1)))(x), np.cos(x))
