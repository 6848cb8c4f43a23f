"""Two forms autograd's own tests use that s2s failed with raw errors: `np.repeat(x, 0)` (its VJP
reshaped to (-1, 0): `cannot reshape array of size 0`, autograd's test_systematic.py::test_repeat)
and the JVP of `np.append` of lists (`0.0 * values` of a list: `can't multiply sequence by non-int
of type 'float'`, test_numpy.py::test_simple_append_list_2D). Values against central differences."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads

RNG = np.random.default_rng(13)


@pytest.mark.parametrize("repeats", [0, 1, 2])
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_repeat_counts_from_zero(repeats, axis, mode):
    def f(x):
        return np.repeat(x, repeats, axis=axis) * 1.5
    check_grads(f, (RNG.standard_normal((2, 3)),), order=2, modes=(mode,))


def append_rows(a, b):
    return np.append(a, b, axis=0)


def test_append_of_lists_forward_mode():
    a, b = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0]]
    da, db = [[0.5, -1.0, 2.0], [1.0, 0.0, 3.0]], [[-2.0, 1.0, 0.25]]
    out, tangent = s2s.jvp(append_rows, (a, b), (da, db))
    eps = 1e-6
    plus = append_rows(np.add(a, np.multiply(eps, da)), np.add(b, np.multiply(eps, db)))
    minus = append_rows(np.subtract(a, np.multiply(eps, da)), np.subtract(b, np.multiply(eps, db)))
    np.testing.assert_allclose(out, append_rows(a, b))
    np.testing.assert_allclose(tangent, (plus - minus) / (2 * eps), rtol=1e-8)
