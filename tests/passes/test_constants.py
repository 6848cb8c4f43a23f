"""Constant operands (passes/constants.py): in a jit version, a number in arithmetic with a float64
array becomes a 0-d float64 array bound once. The values must be bitwise those of the plain
function (NumPy casts the number to float64 either way), and only certain float64 arrays of rank
1 or more get them: a float32 array, an integer array, a NumPy scalar result and a power keep the
number."""
import numpy as np
import pytest

import s2s
from s2s.base import record

X = np.array([0.5, -1.25, 3.0, 0.0, -0.0, 1e300])
M = np.arange(6.0).reshape(2, 3) - 2.5
S = np.arange(9.0).reshape(3, 3) / 4.0 - 1.0


def polynomial(x):
    return 6.0 * (1 - x * x) * x + 2


def signed_zero(x):
    return x * -0.0 - x * 0.0


def divisions(x):
    return 1 / (x + 3.0) + x / 7 - 2.5 / (1.0 + x * x)


def compare_and_clip(x):
    return np.where(x > 0, np.maximum(x, 0.5), np.minimum(x, -0.25)) * (x <= 1.0)


def products(m, v):
    return 2.0 * (m @ v) + 0.5 * np.dot(v, m.T @ m) - 1


def scalar_result(x):
    return 2.0 * np.dot(x, x) + 1.0  # a NumPy scalar: stays one


def powers(x):
    return x ** 2 + 0.5 * x ** 0.5


def large_int(x):
    return x * 9007199254740993 + 3  # above 2**53: not exactly a float64, stays a Python int


def constants_of(fn, *args):
    """The 0-d arrays the jit version for `args` reads, by name."""
    v = s2s.jit(fn).version_for(args)
    return {n: v.__globals__[n] for n in record.of(v).constants}


def same(a, b):
    """Bitwise equal values (signed zeros, NaNs) and the same type."""
    assert type(a) is type(b)
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.int64) if a.dtype == np.float64 else a,
                                  b.view(np.int64) if b.dtype == np.float64 else b)


@pytest.mark.parametrize("fn, args, names", [
    (polynomial, (X,), {"c64_6_0", "c64_1_0", "c64_2_0"}),
    (signed_zero, (X,), {"c64_neg_0_0", "c64_0_0"}),
    (divisions, (X,), {"c64_1_0", "c64_3_0", "c64_7_0", "c64_2_5"}),
    (compare_and_clip, (X,), {"c64_0_0", "c64_0_5", "c64_neg_0_25", "c64_1_0"}),
    (products, (S, X[:3]), {"c64_2_0", "c64_0_5", "c64_1_0"}),
    (polynomial, (M,), {"c64_6_0", "c64_1_0", "c64_2_0"}),
], ids=["polynomial", "signed_zero", "divisions", "compare_and_clip", "products", "matrix"])
def test_numbers_become_read_only_0d_arrays_and_values_are_bitwise_the_plain_ones(fn, args, names):
    consts = constants_of(fn, *args)
    assert set(consts) == names
    for name, c in consts.items():
        assert c.shape == () and c.dtype == np.float64 and not c.flags.writeable
        assert repr(float(c)).replace("-", "neg_").replace(".", "_") == name[4:]
    jf = s2s.jit(fn)
    for _ in range(2):  # the first call (any path) and the fast path
        with np.errstate(all="ignore"):
            same(jf(*args), fn(*args))
    assert "# constant c64_" in s2s.source(jf, *args)


@pytest.mark.parametrize("fn, args", [
    (polynomial, (X.astype(np.float32),)),   # float32: the number keeps float32 arithmetic
    (polynomial, (np.arange(4),)),           # integers: 6.0 * ... is float, 1 - x * x is not
    (scalar_result, (X,)),                   # a NumPy scalar result would become a 0-d array
    (powers, (np.abs(X),)),                  # NumPy's fast paths read the exponent
    (large_int, (X,)),
], ids=["float32", "int64", "scalar_result", "powers", "large_int"])
def test_other_operands_keep_their_numbers(fn, args):
    consts = constants_of(fn, *args)
    if fn is powers:
        assert set(consts) == {"c64_0_5"}  # the factor, not the exponents
    elif fn is large_int:
        assert set(consts) == {"c64_3_0"}
    else:
        assert consts == {}
    with np.errstate(all="ignore"):
        same(s2s.jit(fn)(*args), fn(*args))


c64_2_0 = np.linspace(0.0, 1.0, X.size)  # a global of the user's with a constant's name


def global_named_like_a_constant(x):
    return 2.0 * x + c64_2_0


def local_named_like_a_constant(x):
    c64_3_0 = np.sin(x)
    return 3.0 * c64_3_0 + c64_3_0 * c64_3_0


def test_a_user_name_like_a_constant_is_not_taken():
    consts = constants_of(local_named_like_a_constant, X)
    assert set(consts) == {"c64_3_0_"}  # the user's local keeps its name
    for f in (global_named_like_a_constant, local_named_like_a_constant):
        v = s2s.jit(f).version_for((X,))
        assert all(v.__globals__[n].shape == () for n in record.of(v).constants)
        same(s2s.jit(f)(X), f(X))


def test_gradients_under_jit_are_bitwise_the_plain_ones():
    def loss(w, x):
        return np.sum((1.0 - np.tanh(x * w)) ** 2 * 0.5) + 1e-3 * np.dot(w, w)
    w, x = np.linspace(-1.0, 1.0, 5), np.linspace(0.5, 2.0, 5)
    g = s2s.grad(loss)
    jg = s2s.jit(g)
    assert constants_of(g, w, x)
    for _ in range(2):
        same(jg(w, x), g(w, x))
