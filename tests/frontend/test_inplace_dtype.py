"""`a op= v` on an array is NumPy's update in place (issue 44, families 3 and 4): the ufunc with
`out=a` and casting='same_kind', so the array keeps its dtype and its shape. An int array += a
float raises UFuncTypeError, a float32 array += a float64 value stays float32 (and its derivative
is that of the float32 result), and a result of another shape than the array's raises ValueError.
A name holding a number, a list or a NumPy scalar is rebound, as before. Each case is checked
under jit, grad, jvp, jacfwd, jacrev and vmap against the plain function (values), NumPy's error
class (errors), and central differences or the analytic derivative (derivatives)."""
from __future__ import annotations

import functools

import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s.errors import S2SError

try:  # NumPy's class of the error an int array += a float raises (not exported by name)
    np.add(np.zeros(1, dtype=int), 0.5, out=np.zeros(1, dtype=int))
except TypeError as e:
    UFuncTypeError = next(c for c in type(e).__mro__ if c.__name__ == "UFuncTypeError")


# ---- programs NumPy refuses ----
def int_plus_float(x):
    a = np.zeros(2, dtype=int)
    a += x
    return np.sum(a * 1.0)


def bool_plus_int(x):
    m = x > 0
    m += np.ones(2, dtype=int)
    return np.sum(x * m)


def int_divided(x):
    n = np.arange(1, 3)
    n /= 2
    return np.sum(x * n)


def broadcast_up(x):
    a = np.zeros(3)
    a += np.ones((2, 3)) * x[0]
    return np.sum(a)


def int_view_plus_float(x):
    a = np.zeros(3, dtype=int)
    a[1:] += x
    return np.sum(a * 1.0) + np.sum(x)


def int_fancy_plus_float(x):
    a = np.zeros(3, dtype=int)
    a[[0, 2]] += x
    return np.sum(a * 1.0) + np.sum(x)


def int_update_before_loop(x):  # a vector output: jacfwd's tangent alone drops the primal (campaign 7401)
    acc = x * 1.0
    a = np.zeros(2, dtype=int)
    a += x
    acc = acc + a
    for _ in range(2):
        acc = acc * 0.5 + np.tanh(x)
    return acc


REFUSED = [(int_update_before_loop, UFuncTypeError),
           (int_plus_float, UFuncTypeError), (bool_plus_int, UFuncTypeError), (int_divided, UFuncTypeError),
           (broadcast_up, ValueError), (int_view_plus_float, UFuncTypeError), (int_fancy_plus_float, UFuncTypeError)]


def _transforms():
    return {
        "jit": lambda f, x: s2s.jit(f)(x),
        "grad": lambda f, x: s2s.grad(f)(x),
        "jvp": lambda f, x: s2s.jvp(f, (x,), (np.ones_like(x),)),
        "jacfwd": lambda f, x: s2s.jacfwd(f)(x),
        "jacrev": lambda f, x: s2s.jacrev(f)(x),
        "vmap": lambda f, x: s2s.vmap(f)(np.stack([x, 2 * x])),
    }


X = np.array([0.75, -1.25])


@pytest.mark.parametrize("f, error", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
@pytest.mark.parametrize("how", sorted(_transforms()))
def test_numpy_refuses_and_so_does_every_transform(f, error, how):
    with pytest.raises(error):
        f(X)  # the reference: NumPy's own error
    with pytest.raises(error):
        _transforms()[how](f, X)


def test_the_error_is_numpys_own_text():
    with pytest.raises(ValueError) as want:
        broadcast_up(X)
    with pytest.raises(ValueError) as got:
        s2s.grad(broadcast_up)(X)
    assert str(got.value) == str(want.value)
    with pytest.raises(UFuncTypeError) as want:
        int_plus_float(X)
    with pytest.raises(UFuncTypeError) as got:
        s2s.jit(int_plus_float)(X)
    assert str(got.value) == str(want.value)


# ---- programs NumPy computes: the value and the derivative of what it computes ----
def float32_update(x):
    a = np.zeros(2, dtype=np.float32)
    a += 1.1 * x
    return np.sum(a * a)


def float32_view_update(x):
    a = np.ones(3, dtype=np.float32)
    a[1:] *= 1.1 * x
    return np.sum(a * x[0])


def int_element_truncates(x):
    a = np.zeros(2, dtype=int)
    a[0] += x[0]  # (a NumPy scalar: rebound, then stored into the int array: truncated)
    return np.sum(a) + 3.0 * x[1]


def int_plus_int(x):
    n = np.zeros(2, dtype=int)
    n += np.arange(2)
    n *= 3
    return np.sum(x * n)


def broadcast_into(x):
    a = np.zeros((2, 2))
    a += x  # (x's shape broadcasts to a's: allowed)
    a *= np.array([[1.0], [2.0]])
    return np.sum(a * a)


def numbers_and_lists(x):
    n = 0
    n += 2
    s = 1.5
    s *= x[0]
    lst = [x]
    lst += [x * 2.0]
    return n * s + np.sum(lst[1] * lst[0])


def float64_common(x):
    a = x * 2.0
    a += np.sin(x)
    a *= x
    return np.sum(a)


def _analytic_float32_update(x):
    a = (1.1 * x).astype(np.float32).astype(np.float64)  # what NumPy keeps in `a`
    return 2.0 * a * 1.1


COMPUTED = [float32_update, float32_view_update, int_element_truncates, int_plus_int, broadcast_into,
            numbers_and_lists, float64_common]


def _reference_grad(f, x):
    """The analytic derivative of a float32 result (central differences of a float32 value are off
    by its rounding over the step), central differences of the others."""
    if f is float32_update:
        return _analytic_float32_update(x)
    if f is float32_view_update:  # x0 * (1 + a1 + a2), a = float32(1.1 * x)
        a = (1.1 * x).astype(np.float32).astype(np.float64)
        return np.array([1.0 + a.sum() + 1.1 * x[0], 1.1 * x[0]])
    return fd_grad(f, x)


@pytest.mark.parametrize("f", COMPUTED, ids=[f.__name__ for f in COMPUTED])
def test_values_are_numpys(f):
    want = f(X)
    got = s2s.jit(f)(X)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)
    got_v = s2s.vmap(f)(np.stack([X, 2 * X, -X]))
    np.testing.assert_array_equal(got_v, [f(x) for x in (X, 2 * X, -X)])
    value, _ = s2s.value_and_grad(f)(X)
    np.testing.assert_array_equal(value, want)


@pytest.mark.parametrize("f", COMPUTED, ids=[f.__name__ for f in COMPUTED])
def test_derivatives(f):
    want = _reference_grad(f, X)
    tol = dict(rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(s2s.grad(f)(X), want, **tol)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(X), want, **tol)
    np.testing.assert_allclose(s2s.jacfwd(f)(X), want, **tol)
    np.testing.assert_allclose(s2s.jacrev(f)(X), want, **tol)
    v = np.array([0.5, -2.0])
    np.testing.assert_allclose(s2s.jvp(f, (X,), (v,))[1], want @ v, **tol)
    xs = np.stack([X, 2 * X])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), [_reference_grad(f, x) for x in xs], **tol)


def test_float32_gradient_of_a_float64_argument_is_float64():
    g = s2s.grad(float32_update)(X)
    assert g.dtype == np.float64  # (the transpose of the cast, as JAX's: not the float32 cotangent)
    np.testing.assert_allclose(g, _analytic_float32_update(X), rtol=1e-12)


def test_int_element_has_no_derivative():
    np.testing.assert_array_equal(s2s.grad(int_element_truncates)(X), [0.0, 3.0])


def test_float64_update_of_its_own_shape_costs_nothing_under_jit():
    """A jit version with float64 arrays of one known shape has no check left: the fused kernel
    and the backward sweep are what `a = a op v` gives."""
    assert "rt.inplace" not in s2s.source(s2s.jit(float64_common), X)
    assert "rt.inplace" not in s2s.source(s2s.jit(s2s.grad(float64_common)), X)


def aliased(x):
    a = np.zeros(2)
    b = a
    a += x
    return np.sum(b * x)


def test_an_alias_sees_the_update_or_is_refused():
    want = aliased(X)
    for how, run in _transforms().items():
        try:
            got = run(aliased, X)
        except S2SError:
            continue  # refused at the user's line (frontend/aliases.py)
        if how == "jit":
            np.testing.assert_array_equal(got, want)


def _through(fn):
    @functools.wraps(fn)
    def inner(x, y):
        return fn(x, y)
    return inner


@_through
def int_array_updated_in_a_callee(x, y):
    acc = x * 1.0
    iz = np.zeros(3, dtype=int)
    iz += (np.linalg.norm(y) + 0.1) + 0.0 * x
    return acc + iz


def test_a_callee_s_update_raises_under_jacfwd_too():
    """jacfwd batches the tangent alone, and vmap inlines the callee's jvp first: its `a op= v` check
    fed only the primal output, which the tangent drops, so dead-code elimination removed it and
    jacfwd returned a Jacobian where NumPy raises (fuzz seed 8301002 --views, program 3)."""
    x, y = np.array([0.3, -0.5, 0.7]), np.array([1.0, 2.0, 0.5])
    with pytest.raises(TypeError):  # (NumPy's UFuncTypeError)
        int_array_updated_in_a_callee(x, y)
    for run in (lambda: s2s.jacfwd(int_array_updated_in_a_callee)(x, y),
                lambda: s2s.jacrev(int_array_updated_in_a_callee)(x, y),
                lambda: s2s.jvp(int_array_updated_in_a_callee, (x, y), (x, y))):
        with pytest.raises(TypeError):
            run()
