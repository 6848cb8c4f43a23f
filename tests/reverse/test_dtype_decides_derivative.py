"""The dtype an operation produces decides its derivative (issue 44, family 3): a cast to an integer
or bool type (a method, a `dtype=` keyword, the integer array a value is stored into) truncates, so
no derivative flows through it; a complex or float one keeps it (a complex one with JAX's
convention, issue 45). Every program is
checked against central differences of the plain function (at points where the truncation is
constant), forward mode against reverse mode, vmap of grad against a loop, and jit against plain."""
import numpy as np
import pytest

import s2s

X = np.array([0.3, 1.7, -0.6])
BATCH = np.array([[0.3, 1.7, -0.6], [2.2, -0.4, 0.45], [1.25, 3.6, -2.3]])


def astype_int(v):
    return np.sum(v - v.astype(int))


def astype_bool(v):
    return np.sum(v * v.astype(bool) + v ** 2)


def astype_uint8(v):
    return np.sum(v * v.astype(np.uint8))


def asarray_int(v):
    return np.sum(v - np.asarray(v, dtype=int))


def array_int64(v):
    return np.sum(v ** 2 - np.array(v, dtype=np.int64))


def array_positional_dtype(v):
    return np.sum(v * np.array(v * 3.0, np.int32))


def sum_dtype(v):
    return np.sum(v, dtype=np.int64) + np.sum(v ** 2)


def mean_method_dtype(v):
    return (v * 3.0).sum(dtype=np.int32) + np.sum(np.sin(v))


def full_int(v):
    return np.sum(np.full(3, v[1], dtype=int) * v)


def cumsum_int(v):
    return np.sum(np.cumsum(v * 2.2, dtype=np.int64) * v)


def store_into_int_zeros(v):
    b = np.zeros(3, dtype=int)
    b[:] = v * 2.0
    return np.sum(v * b) + np.sum(v)


def store_into_int_element(v):
    b = np.zeros(3, dtype=np.int32)
    b[1] = v[1] * 7.0
    return np.sum(b * v) + v[0] ** 2


def store_into_arange(v):
    b = np.arange(3)  # an integer array: a store truncates
    b[0] = v[0] * 2.5
    return np.sum(b * v)


def store_into_int_view(v):
    b = np.zeros((2, 3), dtype=np.int64)
    row = b[0]
    row[:] = v * 3.0
    return np.sum(row * v)


def dtype_read_when_it_runs(v):
    ints = np.zeros(3, dtype=np.int16)
    return np.sum(v - v.astype(ints.dtype))


def float_casts_keep_it(v):
    b = np.zeros(3)
    b[:] = v
    return np.sum(v.astype(float) * np.asarray(v, dtype=np.float64) + np.sum(b, dtype=np.float64))


def store_into_float_keeps_it(v):
    c = np.empty(3, dtype=np.float64)
    c[:] = v ** 2
    return np.sum(c)


PROGRAMS = [astype_int, astype_bool, astype_uint8, asarray_int, array_int64, array_positional_dtype, sum_dtype,
            mean_method_dtype, full_int, cumsum_int, store_into_int_zeros, store_into_int_element, store_into_arange,
            store_into_int_view, dtype_read_when_it_runs, float_casts_keep_it, store_into_float_keeps_it]


def central(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_grad_equals_central_differences(f):
    for x in BATCH:
        np.testing.assert_allclose(s2s.grad(f)(x), central(f, x), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_jvp_equals_vjp(f):
    rng = np.random.default_rng(4)
    for x in BATCH:
        t = rng.standard_normal(3)
        _, tangent = s2s.jvp(f, (x,), (t,))
        np.testing.assert_allclose(tangent, np.dot(s2s.grad(f)(x), t), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_vmap_of_grad_equals_a_loop(f):
    got = s2s.vmap(s2s.grad(f))(BATCH)
    np.testing.assert_allclose(got, np.stack([central(f, x) for x in BATCH]), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_jit_of_grad_and_jacobians(f):
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(X), s2s.grad(f)(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)
    np.testing.assert_allclose(s2s.jacfwd(f)(X), central(f, X), rtol=1e-6, atol=1e-7)


def test_an_integer_cast_truncates_the_value_as_numpy():
    # the values are NumPy's (the gate is the value itself)
    for f in PROGRAMS:
        np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)
        np.testing.assert_allclose(s2s.value_and_grad(f)(X)[0], f(X), rtol=1e-12)


def complex_cast(v):
    return np.sum(np.abs(v.astype(complex) * (1 + 1j)))


def complex_keyword(v):
    return np.sum(np.abs(np.asarray(v, dtype=np.complex128)))


@pytest.mark.parametrize("f", [complex_cast, complex_keyword], ids=lambda f: f.__name__)
@pytest.mark.parametrize("transform", ["grad", "jvp", "vmap_grad"])
def test_a_complex_cast_carries_the_derivative(f, transform):
    """A real value cast to complex carries its derivative with JAX's convention (its cotangent is
    the real part of the complex one); it was refused before issue 45."""
    if transform == "grad":
        np.testing.assert_allclose(s2s.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-7)
    elif transform == "jvp":
        t = np.array([0.5, -1.0, 2.0])
        np.testing.assert_allclose(s2s.jvp(f, (X,), (t,))[1], central(f, X) @ t, rtol=1e-6, atol=1e-7)
    else:
        got = s2s.vmap(s2s.grad(f))(BATCH)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, np.stack([central(f, x) for x in BATCH]), rtol=1e-6, atol=1e-7)


def test_a_complex_cast_off_the_derivative_path_runs():
    def f(v):
        c = np.asarray(np.arange(3.0), dtype=complex)
        return np.sum(v ** 2) + np.abs(np.sum(c))

    np.testing.assert_allclose(s2s.grad(f)(X), 2 * X)
