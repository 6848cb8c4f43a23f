"""Found by the fuzz campaign of stop 37 (`python tools/fuzz.py --n 200 --seed 3027 --props vmap_grad
--program 105`, also seed 3017 program 91): vmap of the gradient of a function that adds np.cov of a
fancy-indexed vector into a slice in place, in a callee, was wrong (a silently wrong number; issue 27): the
backward sweep's copy of the callee's record rebuilt a view of a Fortran-ordered array over a C-ordered
copy of it (rt.private). The same with np.var, with x[::-1], or without the slice update was right
(checked here too); tests/vmap/test_callee_saved_layouts.py covers the family."""
import numpy as np
import pytest

import s2s

XS = np.array([[0.73, 0.61, 0.08], [0.2, -0.5, 0.9]])


def _cov_gather(x):
    acc = x * 1.0
    acc[:2] += np.cov(x[[2, 0, 1]])
    return acc


def _var_gather(x):
    acc = x * 1.0
    acc[:2] += np.var(x[[2, 0, 1]])
    return acc


def _cov_reversed(x):
    acc = x * 1.0
    acc[:2] += np.cov(x[::-1])
    return acc


def cov_of_gather_into_slice(x):  # (through a callee; the same body inline is right)
    return np.sum(np.sin(_cov_gather(x)))


def cov_of_gather_into_slice_inline(x):
    acc = x * 1.0
    acc[:2] += np.cov(x[[2, 0, 1]])
    return np.sum(np.sin(acc))


def var_of_gather_into_slice(x):
    return np.sum(np.sin(_var_gather(x)))


def cov_of_reversed_into_slice(x):
    return np.sum(np.sin(_cov_reversed(x)))


def _check(fn):
    g = s2s.grad(fn)
    np.testing.assert_allclose(s2s.vmap(g)(XS), np.stack([g(x) for x in XS]), rtol=1e-10, atol=1e-12)


def test_cov_of_a_gather_added_into_a_slice():
    _check(cov_of_gather_into_slice)


@pytest.mark.parametrize("fn", [cov_of_gather_into_slice_inline, var_of_gather_into_slice, cov_of_reversed_into_slice],
                         ids=lambda f: f.__name__)
def test_neighbours_are_right(fn):
    _check(fn)
