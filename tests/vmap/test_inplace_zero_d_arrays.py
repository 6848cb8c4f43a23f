"""`a op= v` where `a` is a 0-d array (`np.zeros((), dtype=int)`, `np.array(0)`): NumPy updates it
in place, so an int or bool `a` given floats raises UFuncTypeError and a float32 `a` stays float32.
vmap saw a batch of rank-0 examples, which may be NumPy scalars (rebound by `op=`), and returned a
number (issue 44); it now knows from the code where `a` is always an ndarray. Checked against the
plain function over every example, under vmap, jit of vmap and vmap of grad."""
import numpy as np
import pytest

import s2s

X = np.array([0.3, -0.7, 1.2])
XS = np.stack([X, 2.0 * X, -X])


def int_zeros(x):
    a = np.zeros((), dtype=int)
    a += x[0]
    return a * 1.0


def int_array_literal(x):
    a = np.array(0)
    a -= x[1]
    return a * 1.0


def bool_zeros(x):
    a = np.zeros((), dtype=bool)
    a += x[0]
    return a * 1.0


def int32_product(x):
    a = np.ones((), dtype=np.int32)
    a *= x[2]
    return a * 1.0


def int_full_in_a_loop(x):
    a = np.full((), 2)
    for v in x:
        a += v
    return a * 1.0


def int_updated_through_an_ellipsis(x):
    a = np.zeros((), dtype=int)
    a[...] += x[0]  # (`a[...]` is a 0-d view: NumPy's in-place add raises)
    return a * 1.0


def int_bound_in_a_branch(x):
    a = np.zeros((), dtype=int)
    if x[1] > 0.0:
        a = np.ones((), dtype=np.int8)
    a += x[0]
    return a * 1.0


RAISING = [int_zeros, int_array_literal, bool_zeros, int32_product, int_full_in_a_loop,
           int_updated_through_an_ellipsis, int_bound_in_a_branch]


@pytest.mark.parametrize("f", RAISING, ids=[f.__name__ for f in RAISING])
def test_vmap_raises_where_numpy_raises(f):
    with pytest.raises(TypeError, match="Cannot cast ufunc"):
        f(X)
    with pytest.raises(TypeError, match="Cannot cast ufunc"):
        s2s.vmap(f)(XS)
    with pytest.raises(TypeError, match="Cannot cast ufunc"):
        s2s.jit(s2s.vmap(f))(XS)
    with pytest.raises(TypeError, match="Cannot cast ufunc"):
        s2s.vmap(s2s.grad(f))(XS)


def float32_zeros(x):
    a = np.zeros((), dtype=np.float32)
    a += x[0] * x[1]
    return a


def int_updated_by_ints(x):
    a = np.zeros((), dtype=int)
    a += np.int64(3)
    return a * x[0]


def scalar_rebound(x):
    a = np.sum(x[:2] > 0)  # a NumPy scalar (np.int64): `op=` rebinds it to a float
    a += x[2]
    return a * x[0]


def float64_zeros_shape_mismatch_free(x):
    a = np.zeros(())
    a += np.sum(x ** 2)
    a *= x[1]
    return a


def int_item_of_a_0d_array(x):
    a = np.zeros((), dtype=int)
    a[()] += x[0]  # (`a[()]` is a NumPy scalar: added to, then stored back truncated)
    return a * x[1]


KEPT = [float32_zeros, int_updated_by_ints, scalar_rebound, float64_zeros_shape_mismatch_free, int_item_of_a_0d_array]


@pytest.mark.parametrize("f", KEPT, ids=[f.__name__ for f in KEPT])
def test_vmap_gives_each_example_s_value_and_dtype(f):
    want = [f(x) for x in XS]
    for got in (s2s.vmap(f)(XS), s2s.jit(s2s.vmap(f))(XS)):
        assert got.dtype == np.asarray(want[0]).dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_0d_array_given_a_row_raises_numpy_s_error():
    def f(x):
        a = np.zeros(())
        a += x
        return a

    with pytest.raises(ValueError, match="non-broadcastable output"):
        f(X)
    with pytest.raises(ValueError, match="non-broadcastable output"):
        s2s.vmap(f)(XS)
