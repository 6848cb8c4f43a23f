"""`np.insert` keeps the array's dtype, as NumPy does: floats inserted into an int array are
truncated (s2s's insert once concatenated them as floats), so the result is int and carries no
derivative through the inserted values; floats inserted into a float array keep theirs."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads

A = np.array([1, 2, 3])
XF = np.array([1.0, -2.0, 0.5])


def insert_into(a, v):
    return np.insert(a, 1, v)


def scaled_int_insert(x):
    a = np.array([1, 2, 3])
    return np.sum(np.insert(a, 1, x) * x)


def float_insert(x, v):
    return np.sum(np.sin(np.insert(x, [0, 2], v)) * np.arange(5.0))


def test_int_array_keeps_its_dtype_under_jit_and_vmap():
    want = insert_into(A, 2.7)
    assert want.dtype.kind == "i"
    got = s2s.jit(insert_into)(A, 2.7)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype
    rows = np.array([[1, 2, 3], [4, 5, 6]])
    got = s2s.vmap(insert_into, in_axes=(0, None))(rows, 2.7)
    np.testing.assert_array_equal(got, np.stack([insert_into(r, 2.7) for r in rows]))
    assert got.dtype.kind == "i"


@pytest.mark.parametrize("x", [2.7, -0.4, 5.2])
def test_truncated_values_carry_no_derivative(x):
    # sum(insert([1, 2, 3], 1, x) * x) = (6 + int(x)) * x: its derivative is 6 + int(x) away from integers
    h = 1e-6
    fd = (scaled_int_insert(x + h) - scaled_int_insert(x - h)) / (2 * h)
    assert fd == pytest.approx(6 + int(x), rel=1e-6)
    assert s2s.grad(scaled_int_insert)(x) == pytest.approx(fd, rel=1e-6)
    assert s2s.jvp(scaled_int_insert, (x,), (1.0,))[1] == pytest.approx(fd, rel=1e-6)


def test_float_insert_derivatives_match_differences():
    check_grads(float_insert, (XF, np.array([0.3, -0.7])), order=2, modes=("fwd", "rev"))
