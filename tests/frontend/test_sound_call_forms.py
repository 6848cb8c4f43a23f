"""vmap's in_axes match the arguments actually passed (defaults left out are not mapped, keyword
arguments are mapped over axis 0, as in JAX), and an in-place update that reads a scalar copy of
the array it updates is not refused as aliasing (issue 27, family 9). References: Python loops
over the examples, the plain function, and central finite differences."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def scaled(x, scale=2.0):
    return np.sin(x) * scale


def two_defaults(x, y, a=1.5, b=-0.5):
    return np.sum(x * y) * a + b


def loss_tuple_axes(xs):
    return np.sum(s2s.vmap(scaled, in_axes=(0,))(xs) ** 2)


def loss_int_axes(xs):
    return np.sum(s2s.vmap(scaled)(xs) ** 2)


def loss_local_default(xs, w):
    def g(x, scale=3.0):
        return np.sin(x * w) * scale

    return np.sum(s2s.vmap(g, in_axes=(0,))(xs) ** 2)


def loss_keyword(xs, ss):
    return np.sum(s2s.vmap(scaled)(xs, scale=ss))


def subscript_copy(x):
    x = x.copy()
    a = x[0]
    x[0] = a * 2.0
    return np.sum(x * x)


def subscript_copy_loop(x):
    x = x.copy()
    for i in range(3):
        a = x[i]
        x[i] = a * a
    return np.sum(x)


def subscript_view_read_later(x):
    a = x[0]
    x[0] = a * 2.0
    return np.sum(x) + np.sum(a)


RNG = np.random.default_rng(9)
XS = RNG.standard_normal((4, 2))


@pytest.mark.parametrize("axes", [(0,), 0, [0]])
def test_vmap_defaults_not_mapped(axes):
    want = np.array([scaled(x) for x in XS])
    np.testing.assert_allclose(s2s.vmap(scaled, in_axes=axes)(XS), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(scaled, in_axes=axes))(XS), want, rtol=1e-12)


def test_vmap_two_defaults_some_passed():
    ys = RNG.standard_normal((4, 2))
    want = np.array([two_defaults(x, y, 2.0) for x, y in zip(XS, ys)])
    np.testing.assert_allclose(s2s.vmap(two_defaults, in_axes=(0, 0, None))(XS, ys, 2.0), want, rtol=1e-12)
    want = np.array([two_defaults(x, ys[0]) for x in XS])
    np.testing.assert_allclose(s2s.vmap(two_defaults, in_axes=(0, None))(XS, ys[0]), want, rtol=1e-12)


def test_vmap_keyword_mapped_over_axis_0():
    ss = np.array([1.0, 2.0, 3.0, 4.0])
    want = np.array([scaled(x, scale=s) for x, s in zip(XS, ss)])
    np.testing.assert_allclose(s2s.vmap(scaled)(XS, scale=ss), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(scaled, in_axes=(0,))(XS, scale=ss), want, rtol=1e-12)
    np.testing.assert_allclose(loss_keyword(XS, ss), np.sum(want), rtol=1e-12)
    check_grads(loss_keyword, (XS, ss), order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("f", [loss_tuple_axes, loss_int_axes])
def test_vmap_with_defaults_inside_transforms(f):
    want = sum(np.sum(scaled(x) ** 2) for x in XS)
    np.testing.assert_allclose(f(XS), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(f)(XS), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(f)(XS), 4.0 * np.sin(2 * XS), rtol=1e-12)
    check_grads(f, (XS,), order=2, modes=("rev", "fwd"))


def test_vmap_of_local_def_with_default():
    w = np.array([1.0, 0.5])
    want = sum(np.sum((np.sin(x * w) * 3.0) ** 2) for x in XS)
    np.testing.assert_allclose(loss_local_default(XS, w), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(loss_local_default)(XS, w), want, rtol=1e-12)
    check_grads(loss_local_default, (XS, w), order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("f", [subscript_copy, subscript_copy_loop])
def test_update_from_a_scalar_copy(f):
    x = np.array([0.3, -1.2, 0.8])
    np.testing.assert_allclose(s2s.jit(f)(x.copy()), f(x.copy()), rtol=1e-12)
    check_grads(f, (x,), order=2, modes=("rev", "fwd"))


def subscript_no_copy(x):
    a = x[0]
    x[0] = a * 2.0
    return np.sum(x * x)


def test_update_hand_derived():
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(s2s.grad(subscript_copy)(x), [8.0, 4.0, 6.0])
    np.testing.assert_allclose(s2s.grad(subscript_no_copy)(x.copy()), [8.0, 4.0, 6.0])


def test_alias_read_later_follows_numpys_view():
    # x[0] of a 2-d x is a view that the store changes (frontend/view_writes.py takes it again when
    # x is an array, at run time: the rank decides): sum(x) + sum(a) with a = 2 x[0], so 4 on row 0
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert s2s.jit(subscript_view_read_later)(m.copy()) == subscript_view_read_later(m.copy()) == 19.0
    np.testing.assert_allclose(s2s.grad(subscript_view_read_later)(m.copy()), [[4.0, 4.0], [1.0, 1.0]])
    # x[0] of a 1-d x is a number (NumPy copies it): d/dx of (2 x0 + x1) + x0 (issue 45)
    np.testing.assert_allclose(s2s.grad(subscript_view_read_later)(np.array([1.0, 2.0])), [3.0, 1.0])
