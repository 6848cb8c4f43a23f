"""Fast paths of three runtime helpers for a loop over NumPy numbers (issue 46 section 2,
skip-gram's steps): each gives what its general path gives for the values it answers at once."""
import numpy as np
import pytest

from s2s import runtime as rt
from s2s.runtime import dtypes


def test_copy_saved_of_numbers_is_the_record():
    rec = (np.float64(1.5), np.True_, 2.0, None, np.zeros(2))
    got = rt.copy_saved(rec)
    assert type(got) is tuple and all(a is b for a, b in zip(got, rec))
    tape = [1, 2]
    got = rt.copy_saved((np.float64(1.0), tape))  # (a list: copied, so the backward sweep may pop it)
    got[1].pop()
    assert tape == [1, 2] and got[1] == [1]
    assert rt.copy_saved([np.float64(1.0)]) == (np.float64(1.0),)  # (a list record: a tuple, as before)


@pytest.mark.parametrize("g, r, a", [
    (np.float64(2.0), np.float64(3.0), np.float64(1.0)),
    (np.float64(2.0), np.float32(3.0), np.float32(1.0)),      # float32 kept: the cast
    (np.float64(-0.0), np.float64(np.nan), 1.0),
    (np.ones(2), np.ones(2, np.float32), np.ones(2, np.float32)),
])
def test_inplace_ct_of_numbers(g, r, a):
    rd, gd = getattr(r, "dtype", None), getattr(g, "dtype", None)
    want = g if rd is None or gd is None or rd == gd or rd.kind != "f" or gd.kind != "f" else g.astype(rd)
    got = rt.inplace_ct(g, r, a)
    assert type(got) is type(want) and np.result_type(got) == np.result_type(want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("a, r", [(0.0, np.float64(1.5)), (np.float64(1.0), np.float64(2.5)), (3, 4.5),
                                  (np.float32(1.0), np.float32(2.0)), (np.zeros(2), np.ones(2))])
def test_inplace_of_a_running_total(a, r):
    got = dtypes.inplace(r, a, "add", "f.py:1")
    if isinstance(a, np.ndarray):
        assert got is not r or got.dtype == a.dtype
        np.testing.assert_array_equal(got, r)
    else:
        assert got is r  # (a number: `op=` rebinds the name to the result)
