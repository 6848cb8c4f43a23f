"""A ufunc's `casting=` beside `dtype=` (issue 44, family 2): `casting` was dropped as a keyword that
changes no value, but with `dtype=` it decides whether NumPy casts the operands to the loop's dtype.
`np.add(x, y, dtype=int, casting='unsafe')` (NumPy adds x and y cast to integers) raised NumPy's
UFuncTypeError inside s2s, and `casting='safe'`, which NumPy refuses for float64 operands and a
float32 loop, gave a number. 'unsafe' is now the operands cast first (no derivative through an
integer cast), a stricter rule beside `dtype=` is refused."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError

X = np.array([[0.6, -1.7, 2.2], [1.4, -0.3, 0.9]])
Y = np.array([[0.7, 0.8, -2.6], [-1.2, 2.5, 0.4]])


def added_as_integers(x, y):
    return np.sum(np.add(x, y, dtype=int, casting="unsafe") * x)


def scaled_as_int32(x, y):
    return np.sum(np.multiply(x, 2, dtype=np.int32, casting="unsafe") * y + x)


def sine_in_float32(x, y):
    return np.sum(np.sin(x, dtype=np.float32, casting="unsafe").astype(np.float64) * y)


@pytest.mark.parametrize("f, gx, gy", [
    (added_as_integers, lambda x, y: (x.astype(int) + y.astype(int)).astype(float), lambda x, y: 0 * y),
    (scaled_as_int32, lambda x, y: 1.0 + 0 * x, lambda x, y: (2 * x.astype(np.int32)).astype(float)),
    (sine_in_float32, lambda x, y: np.cos(x) * y, lambda x, y: np.sin(x))], ids=lambda v: getattr(v, "__name__", ""))
def test_unsafe_casting_casts_the_operands(f, gx, gy):
    np.testing.assert_allclose(s2s.jit(f)(X, Y), f(X, Y), rtol=1e-12)
    got = s2s.grad(f, argnums=(0, 1))(X, Y)
    tol = 1e-6 if f is sine_in_float32 else 1e-12
    np.testing.assert_allclose(got[0], gx(X, Y), rtol=tol, atol=tol)
    np.testing.assert_allclose(got[1], gy(X, Y), rtol=tol, atol=tol)
    xs, ys = np.stack([X, -X]), np.stack([Y, 2 * Y])
    np.testing.assert_allclose(s2s.vmap(f)(xs, ys), [f(a, b) for a, b in zip(xs, ys)], rtol=1e-12)


def sine_safe(x):
    return np.sum(np.sin(x, dtype=np.float32, casting="safe"))


def test_a_stricter_rule_beside_dtype_is_refused():
    with pytest.raises(TypeError):
        sine_safe(X)  # (NumPy: float64 to float32 is not a safe cast)
    for run in (s2s.jit(sine_safe), s2s.grad(sine_safe)):
        with pytest.raises(S2SError, match="casting="):
            run(X)
