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


@pytest.mark.parametrize("shape", [(), (3,), (2, 2, 3)])
def test_vmap_of_norm_keeping_dims_over_every_per_example_rank(shape):
    # np.linalg.norm(v, keepdims=True) with ord and axis None is the 2-norm of all entries, shaped
    # (1,) * v.ndim; batched as norm over the per-example axes it crashed for a 0-d example (no
    # axis) and for rank 3 (norm takes one or two axes) (fuzz, property vmap_grad)
    def f(v, w):
        return np.sum(w * np.linalg.norm(np.sin(v) + 0.5, keepdims=True) ** 2)

    rng = np.random.default_rng(0)
    vs, ws = rng.standard_normal((3, *shape)), rng.standard_normal((3, *shape))
    loop = np.stack([f(v, w) for v, w in zip(vs, ws)])
    np.testing.assert_allclose(s2s.vmap(f)(vs, ws), loop, rtol=1e-12)
    got = s2s.vmap(s2s.grad(f, argnums=(0, 1)))(vs, ws)
    for k in range(3):
        for arg in range(2):
            want = s2s.grad(f, argnums=(0, 1))(vs[k], ws[k])[arg]
            np.testing.assert_allclose(got[arg][k], want, rtol=1e-10)
    check_grads(lambda v, w: np.sum(s2s.vmap(f)(v, w)), (vs, ws), order=2, modes=("fwd", "rev"))
