"""Bugs the `--nested` fuzz campaign of issue 27 found outside its own families, each reduced to
its smallest form and checked against central differences."""
import numpy as np

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
