"""Runtime helpers allocate with the array module of their arguments, not with NumPy by name."""

import types

import numpy as np

from s2s import runtime as rt

CALLS: list[str] = []


def _recording(name):
    def make(*args, **kwargs):
        CALLS.append(name)
        return getattr(np, name)(*args, **kwargs).view(Tagged)
    return make


FAKE_XP = types.SimpleNamespace(**{n: _recording(n) for n in ("zeros", "ones", "empty", "eye", "array", "asarray")})


class Tagged(np.ndarray):
    """An array of a pretend library whose namespace records the allocations made through it."""

    def __array_namespace__(self, api_version=None):
        return FAKE_XP


def test_namespace_of_numpy_arrays_and_python_numbers_is_numpy():
    assert rt.namespace(np.ones(2)) is np
    assert rt.namespace(1.5) is np
    assert rt.namespace(np.float64(1.0)) is np


def test_helpers_allocate_through_the_arguments_namespace():
    x = np.arange(6.0).reshape(2, 3).view(Tagged)
    CALLS.clear()
    z = rt.zeros_like_tree(x)
    e = rt.basis(x, 4)
    c = rt.fresh(x)
    assert CALLS == ["zeros", "zeros", "asarray"]  # fresh: asarray(x).copy() (Dask's array takes no copy=)
    assert isinstance(z, Tagged) and isinstance(e, Tagged) and isinstance(c, Tagged)
    np.testing.assert_array_equal(np.asarray(e).ravel(), [0, 0, 0, 0, 1, 0])
    np.testing.assert_array_equal(np.asarray(z), np.zeros((2, 3)))
    assert c is not x
