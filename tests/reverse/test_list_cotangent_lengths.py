"""Cotangents of one list that differ in length (issue 27, family 6): summed only where the shorter
is a zero (a zero of the list built after pops); anything else is an S2SError, never padded into
a silently wrong number. A list adjoint updated by `add_at` is a new list, never an alias."""
import numpy as np
import pytest

from s2s import runtime as rt
from s2s.errors import S2SValueError


def test_zero_shorter_list_is_padded():
    out = rt.tree_add([np.array([1.0, 2.0]), 3.0], [np.zeros(2)])
    np.testing.assert_array_equal(out[0], [1.0, 2.0])
    assert out[1] == 3.0 and len(out) == 2
    out = rt.tree_add([0.0], [4.0, 5.0])
    assert out == [4.0, 5.0]


@pytest.mark.parametrize("a, b", [([1.0], [1.0, 2.0]), ([np.ones(2), 1.0, 2.0], [np.ones(2)]),
                                  ((1.0, 2.0), (0.0,)), ((0.0,), (1.0, 2.0))])
def test_other_length_mismatches_are_refused(a, b):
    with pytest.raises(S2SValueError, match="another length"):
        rt.tree_add(a, b)


def test_equal_lengths_add_leaf_by_leaf():
    out = rt.tree_add([1.0, (2.0, np.ones(2))], [0.5, (1.0, np.full(2, 3.0))])
    assert out[0] == 1.5 and out[1][0] == 3.0
    np.testing.assert_array_equal(out[1][1], [4.0, 4.0])


@pytest.mark.parametrize("acc, index", [([0.0, 0.0, 0.0], 1), ({"a": 0.0, "b": 0.0}, "b")])
def test_add_at_returns_a_new_container(acc, index):
    before = list(acc.values()) if isinstance(acc, dict) else list(acc)
    out = rt.add_at(acc, index, 2.5)
    assert out is not acc
    assert (list(acc.values()) if isinstance(acc, dict) else list(acc)) == before
    assert out[index] == 2.5


def test_reshape_of_a_cotangent_of_the_wrong_size_is_refused():
    np.testing.assert_array_equal(rt.reshape_like(np.arange(6.0), np.zeros((2, 3))), np.arange(6.0).reshape(2, 3))
    with pytest.raises(S2SValueError, match="issue 27"):
        rt.reshape_like(np.arange(4.0), np.zeros(3))
