"""A tuple assignment that swaps elements of an array (`a[i], a[j] = a[j], a[i]`) on an array
library whose `a[i]` is a 0-d view (CuPy; the fake backend plays it): s2s copies the right side's
0-d reads of an array the targets write, so the swap reads the old values, as NumPy's scalars do.
Rows stay views, as NumPy's (whose row swap this way duplicates a row)."""
import numpy as np
import pytest
from fake_backend import host as _host
from fake_backend import put

import s2s

pytestmark = pytest.mark.usefixtures("fake_backend")  # (tests/backends/conftest.py)


def swap_sort(x):
    a = x * 1.0
    n = a.shape[0]
    for i in range(n):
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
    return np.sum(a * (np.arange(n) + 1.0))


def rotate3(x):
    a = x * 2.0
    a[0], a[1], a[2] = a[1], a[2], a[0]
    return a


def swap_rows(x):
    a = x * 1.0
    a[0], a[1] = a[1], a[0]  # NumPy: a[1] is a view, so both rows end up as the old row 1
    return a


X = np.array([0.3, -1.2, 2.0, 0.5, -0.1])


def test_the_fake_backend_gives_0d_views():
    a = put(np.arange(3.0))
    v = a[0]
    a[0] = 5.0
    assert float(_host(v)) == 5.0  # (what made the swap wrong)


@pytest.mark.parametrize("t", ["jit", "grad"])
def test_swap_sort_on_a_backend_of_0d_views(t):
    want = swap_sort(X) if t != "grad" else np.array([3.0, 1.0, 5.0, 4.0, 2.0])  # each value's sorted place
    f = {"jit": s2s.jit(swap_sort), "grad": s2s.grad(swap_sort)}[t]
    np.testing.assert_allclose(_host(f(put(X))), want, rtol=1e-13)


def test_vmap_of_swap_sort_on_a_backend_of_0d_views():
    xs = np.stack([X, X[::-1] * 2.0, -X])
    np.testing.assert_allclose(_host(s2s.vmap(swap_sort)(put(xs))), [swap_sort(x) for x in xs], rtol=1e-13)


def test_a_rotation_reads_every_old_value():
    want = np.array([-1.2, 2.0, 0.3, 0.5, -0.1]) * 2.0
    np.testing.assert_allclose(rotate3(X), want)
    np.testing.assert_allclose(_host(s2s.jit(rotate3)(put(X))), want, rtol=1e-13)
    np.testing.assert_allclose(_host(s2s.jvp(rotate3, (put(X),), (put(np.ones(5)),))[0]), want, rtol=1e-13)


def test_rows_stay_views_as_numpy_s():
    x = np.arange(6.0).reshape(3, 2)
    want = swap_rows(x)
    assert np.array_equal(want[0], want[1])  # NumPy's own result
    np.testing.assert_allclose(s2s.jit(swap_rows)(x), want)
