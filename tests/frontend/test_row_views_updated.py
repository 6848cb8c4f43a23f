"""`for row in M: row *= 2` changes `M` in NumPy: the rows of an array are views (issue 44). s2s
refused it; it now follows it as the element update `M[i] *= 2` where `M` has two or more
dimensions, and as a rebinding of each number where `M` is 1-d (NumPy's scalars, which `op=`
rebinds: `M` is unchanged). Checked against the plain function under jit, vmap (a loop over the
examples), grad and jvp (central differences)."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

M0 = np.array([[0.3, -0.7, 1.2], [0.5, 0.1, -0.4]])


def scaled_rows(m):
    m = m.copy()
    for row in m:
        row *= 2.0
    return np.sum(m ** 2)


def each_row_by_its_first(m):
    m = m * 1.0
    total = 0.0
    for row in m:
        row += row[0]
        total = total + np.sum(np.sin(row))  # (the updated row: a view)
    return total + np.sum(m * m)


def rows_of_a_3d_array(m):
    t = np.stack([m, m * m])
    for plane in t:
        plane -= np.mean(plane)
        plane /= 1.5
    return np.sum(t ** 3)


def items_of_a_vector_are_numbers(m):
    v = m[0] * 1.0
    out = 0.0
    for item in v:
        item *= 3.0  # (a NumPy scalar: rebound, `v` keeps its values)
        out = out + item * v[0]
    return out + np.sum(v ** 2)


def with_break_and_else(m):
    m = m.copy()
    for row in m:
        row *= row
        if np.sum(row) > 10.0:
            break
    else:
        m = m + 1.0
    return np.sum(m)


FORMS = [scaled_rows, each_row_by_its_first, rows_of_a_3d_array, items_of_a_vector_are_numbers, with_break_and_else]


@pytest.mark.parametrize("f", FORMS, ids=[f.__name__ for f in FORMS])
def test_rows_are_views_under_every_transform(f):
    np.testing.assert_allclose(s2s.jit(f)(M0), f(M0), rtol=1e-15)
    ms = np.stack([M0, -0.6 * M0 + 0.1, M0[::-1]])
    np.testing.assert_allclose(s2s.vmap(f)(ms), [f(m) for m in ms], rtol=1e-14)
    g = fd_grad(f, M0)
    np.testing.assert_allclose(s2s.grad(f)(M0), g, rtol=1e-6, atol=1e-8)
    t = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    np.testing.assert_allclose(s2s.jvp(f, (M0,), (t,))[1], np.sum(g * t), rtol=1e-6, atol=1e-8)


def test_numpy_changes_the_array():
    assert scaled_rows(M0) == np.sum((2 * M0) ** 2)
    assert items_of_a_vector_are_numbers(M0) == sum(3 * x * M0[0, 0] for x in M0[0]) + np.sum(M0[0] ** 2)


def test_a_row_changed_through_an_item_store_is_still_refused():
    def f(m):
        m = m.copy()
        for row in m:
            row[0] = 1.0
            row *= 2.0
        return np.sum(m)

    with pytest.raises(s2s.S2SError, match=r"test_row_views_updated.py:\d+"):
        s2s.grad(f)(M0)
