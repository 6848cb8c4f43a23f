"""vmap of a division of Python numbers (issue 44): `float(v) / 0.0` raises ZeroDivisionError in
the plain function, where NumPy's division of the per-example values would give inf. vmap raises
what a loop over the examples raises, with Python's message, only for an example whose divisor is
zero (and, under a branch, that takes it); NumPy scalars still divide as NumPy's do."""
import numpy as np
import pytest

import s2s
from tests.support.helpers_compare import fd_grad


def float_over_shape(x):
    a = float(np.sum(x))
    return a / (len(x) - 3) + np.sum(x)


def one_over_first(x):
    d = float(x[0])
    return np.sum(x ** 2) * (1.0 / d)


def int_floor(x):
    n = int(x[0])
    return np.sum(x) + 7 // n


def float_mod(x):
    return np.sum(x) + float(x[1]) % float(x[0])


def in_branch(x):
    s = np.sum(x)
    if x[0] > 0:
        s = s + 1.0 / float(x[1])
    return s


def numpy_scalar(x):
    return np.sum(x) / x[0]


def loop(f, xs):
    return np.stack([f(x) for x in xs])


def plain_error(f, xs):
    for x in xs:
        try:
            f(x)
        except ZeroDivisionError as e:
            return str(e)
    return None


@pytest.mark.parametrize("f, xs", [
    (float_over_shape, np.array([[0.3, 0.7, 1.1], [0.5, 0.2, 0.1]])),
    (one_over_first, np.array([[0.3, 0.7, 1.1], [0.0, 0.2, 0.1]])),
    (int_floor, np.array([[2.0, 1.0], [0.5, 3.0]])),
    (float_mod, np.array([[2.0, 1.0], [0.0, 3.0]])),
    (in_branch, np.array([[1.0, 2.0], [-1.0, 0.0], [2.0, 0.0]])),
])
def test_vmap_raises_what_the_loop_raises(f, xs):
    message = plain_error(f, xs)
    assert message is not None  # the table is right: some example raises
    with pytest.raises(ZeroDivisionError) as info:
        s2s.vmap(f)(xs)
    assert str(info.value) == message
    with pytest.raises(ZeroDivisionError):
        s2s.jit(s2s.vmap(f))(xs)


@pytest.mark.parametrize("f, xs", [
    (one_over_first, np.array([[0.3, 0.7, 1.1], [2.0, 0.2, 0.1]])),
    (int_floor, np.array([[2.0, 1.0], [3.5, 3.0]])),
    (float_mod, np.array([[2.0, 1.0], [-1.5, 3.0]])),
    # the example whose divisor is zero does not take the branch: no error, as in the loop
    (in_branch, np.array([[1.0, 2.0], [-1.0, 0.0], [2.0, 4.0]])),
])
def test_vmap_with_nonzero_divisors_equals_the_loop(f, xs):
    np.testing.assert_allclose(s2s.vmap(f)(xs), loop(f, xs), rtol=1e-13)


def test_vmap_of_grad_raises_as_the_plain_gradient_would():
    xs = np.array([[0.3, 0.7, 1.1], [0.0, 0.2, 0.1]])
    with pytest.raises(ZeroDivisionError):
        one_over_first(xs[1])
    with pytest.raises(ZeroDivisionError):
        s2s.vmap(s2s.grad(one_over_first))(xs)
    good = np.array([[0.3, 0.7, 1.1], [2.0, 0.2, 0.1]])
    want = np.stack([fd_grad(one_over_first, x) for x in good])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(one_over_first))(good), want, rtol=1e-6)


def test_a_numpy_scalar_divides_as_numpy_does():
    """`np.sum(x) / x[0]` is NumPy's division: inf and a warning, in the plain function and under vmap."""
    xs = np.array([[1.0, 2.0], [0.0, 3.0]])
    with np.errstate(divide="ignore"):
        got = s2s.vmap(numpy_scalar)(xs)
        want = loop(numpy_scalar, xs)
    np.testing.assert_array_equal(got, want)
    assert np.isinf(got[1])


def test_no_check_for_a_nonzero_literal_divisor():
    """A division by a nonzero literal cannot raise: vmap adds nothing for it."""
    def half(x):
        return np.sum(x) + float(x[0]) / 2.0
    assert "s2s_python_division" not in s2s.source(s2s.vmap(half))
    xs = np.array([[1.0, 2.0], [0.0, 3.0]])
    np.testing.assert_allclose(s2s.vmap(half)(xs), loop(half, xs), rtol=1e-14)
