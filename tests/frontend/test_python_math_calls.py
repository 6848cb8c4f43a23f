"""Ordinary calls that s2s refused (issue 44): `math.fmod`, `math.copysign`, `math.hypot` of any
number of coordinates, `math.dist`, `math.prod(xs, start=)`, `np.std`/`np.var` with NumPy 2's
`correction=`, `min`/`max` with `default=`, `sorted(xs, key=, reverse=)`,
`itertools.accumulate(xs, func, initial=)`, `np.i0` and `np.unwrap` (discont, axis, period). Each
is checked against the plain function under jit, vmap (a loop over the examples), grad and jvp
(central differences); Python's errors stay Python's."""
import itertools
import math

import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

X = np.array([0.31, -0.55, 0.72, 1.15, 0.43, -0.27])


def fmod(x):
    return math.fmod(x[0] * 3.0, x[1]) + math.fmod(-x[3], 0.4) * x[2]


def copysign(x):
    return math.copysign(x[0], x[1]) * x[2] + math.copysign(x[3], 1.0)


def hypot_any_number(x):
    return math.hypot(x[0], x[1], x[2]) + math.hypot(x[3]) * math.hypot(x[4], x[5]) + math.hypot()


def distance(x):
    return math.dist([x[0], x[1]], (x[2], x[3])) + math.dist(x[3:], x[:3])


def product_with_start(x):
    return math.prod([x[0], x[1]], start=x[2]) + math.prod(x[3:]) + math.prod([x[4]], start=2)


def std_var_correction(x):
    return np.std(x, correction=1) + np.var(x.reshape(2, 3), axis=1, correction=1)[1] + np.nanvar(x, correction=2)


def max_min_default(x):
    xs = [x[0], x[1], x[2]]
    none = []
    return max(xs, default=0.0) + min(none, default=x[3]) + max([], default=1.5) \
        + min(xs, key=abs, default=x[4]) + max((x[5], x[4]), default=0.0)


def sorted_by_key(x):
    s = sorted([x[0], x[1], x[2], x[3]], key=abs, reverse=True)
    t = sorted(x[2:], key=lambda v: (v - 0.5) ** 2)
    u = sorted([x[4], x[5], x[0]], reverse=True)
    return s[0] * 4.0 + s[1] * 3.0 + s[2] * 2.0 + s[3] + t[0] * t[1] + u[0] - 2.0 * u[2]


def accumulated(x):
    runs = list(itertools.accumulate([x[0], x[1], x[2]], lambda a, b: a * b + 1.0))
    sums = list(itertools.accumulate([x[3], x[4]], initial=x[5]))
    maxima = list(itertools.accumulate([x[0], x[1], x[3]], max))
    return runs[-1] + runs[1] * sums[0] + sums[2] ** 2 + sum(maxima)


def accumulated_by_closures(x):
    c = 0.5
    runs = list(itertools.accumulate([x[0], x[1], x[2]], lambda a, b: a * x[3] + b))
    more = list(itertools.accumulate(x[:4], lambda a, b: a * c + b, initial=x[5]))
    return runs[-1] + more[0] * more[-1]


def bessel_i0(x):
    return np.sum(np.i0(x) * x) + np.i0(x[0])


def unwrapped(x):
    p = x * 9.0
    a = np.unwrap(p)
    b = np.unwrap(p, discont=4.0)
    c = np.unwrap(p.reshape(2, 3), period=4.0, axis=0)
    d = np.unwrap(p.reshape(2, 3), 2.5, 1, period=3.0)
    return np.sum(a ** 2) + np.sum(b * p) + np.sum(c ** 3) + np.sum(np.sin(d))


FORMS = [fmod, copysign, hypot_any_number, distance, product_with_start, std_var_correction, max_min_default,
         sorted_by_key, accumulated, accumulated_by_closures, bessel_i0, unwrapped]


@pytest.mark.parametrize("f", FORMS, ids=[f.__name__ for f in FORMS])
def test_the_call_is_python_s_under_every_transform(f):
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-15)
    xs = np.stack([X, -0.6 * X + 0.1, X[::-1]])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-14)
    g = fd_grad(f, X)
    np.testing.assert_allclose(s2s.grad(f)(X), g, rtol=1e-6, atol=1e-7)
    t = np.linspace(-1.0, 1.0, 6)
    np.testing.assert_allclose(s2s.jvp(f, (X,), (t,))[1], g @ t, rtol=1e-6, atol=1e-7)


def test_the_values_are_the_originals():
    x = X * 7.0
    assert s2s.jit(lambda v: np.unwrap(v, discont=1.0, period=3.0))(x).tolist() == \
        np.unwrap(x, discont=1.0, period=3.0).tolist()
    assert s2s.jit(lambda v: math.hypot(v[0], v[1]))(x) == math.hypot(x[0], x[1])
    assert s2s.jit(lambda v: np.i0(v))(x).tolist() == np.i0(x).tolist()


def test_sorted_is_stable_in_both_directions():
    def order(x):
        return sorted([x[0], x[1], x[2], x[3]], key=lambda v: round(float(v)), reverse=True)

    def first(x):
        s = order(x)
        return s[0] + 10.0 * s[1] + 100.0 * s[2] + 1000.0 * s[3]

    x = np.array([0.1, 1.2, -0.2, 0.9])  # keys 0, 1, 0, 1: Python keeps 1.2 before 0.9, 0.1 before -0.2
    assert first(x) == 1.2 + 9.0 + 10.0 - 200.0
    np.testing.assert_allclose(s2s.grad(first)(x), [100.0, 1.0, 1000.0, 10.0])


def sorted_positions_and_arrays(x):
    idx = sorted(range(3), key=lambda i: x[i], reverse=True)
    arrays = sorted([x[:2] * 2.0, x[1:3], x[3:5] ** 2], key=np.sum)
    none = sorted([x[5], x[4]], key=None)
    return x[idx[0]] * 2.0 + x[idx[2]] + np.sum(arrays[0] * arrays[2]) + none[0] * 3.0


def test_sorted_positions_arrays_and_no_key():
    f = sorted_positions_and_arrays
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-15)
    xs = np.stack([X, -0.6 * X + 0.1, X[::-1]])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-14)
    np.testing.assert_allclose(s2s.grad(f)(X), fd_grad(f, X), rtol=1e-6, atol=1e-7)


def test_sorting_tuples_is_an_error_not_a_value():
    def f(x):
        d = {"a": x[0], "b": x[1]}
        s = sorted(d.items(), key=lambda kv: kv[1])
        return s[0][1] * 2.0

    with pytest.raises(TypeError, match="sort their positions"):
        s2s.grad(f)(X)


def test_python_s_errors_stay():
    with pytest.raises(ValueError, match="math domain error"):
        s2s.grad(lambda x: math.fmod(x[0], 0.0))(X)
    with pytest.raises(ValueError, match="same number of dimensions"):
        s2s.grad(lambda x: math.dist([x[0]], [x[1], x[2]]))(X)
    with pytest.raises(ValueError, match="ddof and correction"):
        np.std(X, ddof=1, correction=1)
    with pytest.raises(s2s.S2SError, match=r"test_python_math_calls.py:\d+"):
        s2s.grad(lambda x: np.std(x, ddof=1, correction=1))(X)


def test_the_accumulation_of_nothing_is_empty():
    def f(x):
        return len(list(itertools.accumulate([]))) + sum(itertools.accumulate([], initial=x[0]))

    assert f(X) == X[0]
    np.testing.assert_allclose(s2s.grad(f)(X), np.eye(6)[0])
