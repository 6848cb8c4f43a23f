"""A list times a number example under vmap raises NumPy's TypeError, as the loop over the examples
does (tools/fuzz.py --seed 4701003 --keywords --program 100, issue 44): a 0-d example is a NumPy
scalar (`x[0]`, `np.tanh(x[0])`), and `[2.0, -1.5] * np.float64(0.5)` is Python's repetition of a
list by a non-integer, not a product. vmap multiplied the batch elementwise and ran on, until a
later call raised another class of error. `+` and a vector example stay elementwise, as in NumPy."""
import numpy as np
import pytest

import s2s


def list_times_number(x):
    w = [2.0, -1.5, 0.5]
    return np.sum(w * np.tanh(x[0]))


def number_times_tuple(x):
    return np.sum(x[0] * (2.0, -1.5))


def list_plus_number(x):
    w = [2.0, -1.5, 0.5]
    return np.sum((w + x[0]) ** 2)


def list_times_vector(x):
    w = [2.0, -1.5, 0.5]
    return np.sum(w * np.tanh(x))


XS = np.array([[0.3, -0.2, 0.5], [1.1, 0.4, -0.7]])


@pytest.mark.parametrize("f", [list_times_number, number_times_tuple])
def test_a_list_times_a_number_example_raises_numpys_type_error(f):
    with pytest.raises(TypeError):
        f(XS[0])
    with pytest.raises(TypeError, match="can't multiply sequence"):
        s2s.vmap(f)(XS)
    with pytest.raises(TypeError, match="can't multiply sequence"):
        s2s.vmap(s2s.grad(f))(XS)


@pytest.mark.parametrize("f", [list_plus_number, list_times_vector])
def test_elementwise_cases_are_the_loop(f):
    np.testing.assert_allclose(s2s.vmap(f)(XS), [f(x) for x in XS])
    h = 1e-6
    for x, g in zip(XS, s2s.vmap(s2s.grad(f))(XS)):
        fd = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(3)]
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def list_times_zero_d_array(x):
    ext = [-0.5, 3.0, 0.5]
    return np.sum(np.roll(np.abs(x[0]) + 0.1, 1) * ext)  # np.roll of a number is a 0-d array


def test_a_zero_d_array_example_times_a_list_is_refused_not_guessed():
    # NumPy multiplies a 0-d array by a list elementwise (tools/fuzz.py --seed 4801011 --state
    # --program 102); batched, it looks like a NumPy scalar, whose product with a list raises
    assert np.isclose(list_times_zero_d_array(XS[0]), 3.0 * (abs(XS[0, 0]) + 0.1))
    with pytest.raises(s2s.S2SError, match="np.asarray"):
        s2s.vmap(list_times_zero_d_array)(XS)
