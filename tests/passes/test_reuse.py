"""Buffer reuse through `out=` (the `reuse` pass under jit): where it applies, jit(f) equals f
bitwise and never writes into an argument or a value it returns twice; where dtypes, shapes or
aliasing make it unsafe, it does not apply."""

import numpy as np
import pytest

import s2s


def chain(x):
    t = np.exp(x)
    u = np.sin(t) + np.cos(t)  # t read twice: not folded into one expression
    return np.tanh(u) * 2.0


def reread(x):
    t = np.exp(x)
    u = np.sin(x)
    return t + t * u           # `t` is read by the addition, after the multiplication runs


def keeps_argument(x):
    return np.exp(x) + np.sqrt(np.abs(x))


def returns_both(x):
    t = np.exp(x)
    return t, np.tanh(t)


def promotes(x, y):
    t = np.exp(x)
    return np.exp(t) + np.exp(y)


def broadcasts(x, y):
    t = np.exp(x)
    u = np.exp(y)
    return np.cos(t + u)


def views(x):
    t = np.exp(x)
    v = t[::-1]
    w = np.exp(t)
    return w + v


def _version_source(j, *args):
    j(*args)
    (run,) = j._versions.values()
    return s2s.source(getattr(run, "__wrapped__", run)) if hasattr(run, "__wrapped__") else s2s.source(run)


@pytest.fixture
def x():
    v = np.random.default_rng(0).normal(size=(50, 40))
    v[0, :3] = [np.nan, np.inf, -np.inf]
    return v


def test_reuse_applies_and_equals(x):
    j = s2s.jit(chain)
    src = _version_source(j, x)
    assert "out=" in src
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(j(x), chain(x))


@pytest.mark.parametrize("f", [reread, keeps_argument, returns_both, views])
def test_no_write_into_arguments_or_results(f, x):
    before = x.copy()
    with np.errstate(all="ignore"):
        got, want = s2s.jit(f)(x), f(x)
    np.testing.assert_array_equal(x, before)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_array_equal(g, w)


def test_returned_array_is_not_reused(x):
    src = _version_source(s2s.jit(returns_both), x)
    assert "out=" not in src


def test_dtypes_and_shapes_that_differ():
    x32 = np.linspace(0.0, 1.0, 12, dtype=np.float32)
    y64 = np.linspace(0.0, 1.0, 12)
    got = s2s.jit(promotes)(x32, y64)
    assert got.dtype == promotes(x32, y64).dtype
    np.testing.assert_array_equal(got, promotes(x32, y64))
    a, b = np.linspace(0, 1, 3)[:, None], np.linspace(0, 1, 4)[None, :]
    j = s2s.jit(broadcasts)
    np.testing.assert_array_equal(j(a, b), broadcasts(a, b))
    assert "out=" not in _version_source(s2s.jit(broadcasts), a, b)


def test_zero_dim_and_integer_arrays():
    for arg in (np.array(0.5), np.arange(6), np.arange(6.0).astype(np.float16)):
        np.testing.assert_array_equal(s2s.jit(chain)(arg), chain(arg))


def products_of_dying_values(x):
    t = np.exp(x)
    s = np.sin(t)
    w = s * t
    c = np.cos(w)
    return c * w - c   # into w's buffer (`w *= c`: a product commutes), then the difference's


@pytest.mark.parametrize("shape", [(3,), (50, 40)])
def test_in_place_ufuncs_are_augmented_assignments_and_bitwise_equal(shape):
    x = np.random.default_rng(1).normal(size=shape)
    x.flat[:3] = [np.nan, np.inf, -0.0]
    j = s2s.jit(products_of_dying_values)
    src = _version_source(j, x)
    assert "w *= c" in src and " -= c" in src and "out=" not in src, src
    before = x.copy()
    with np.errstate(all="ignore"):
        for _ in range(2):  # the first call and the fast path
            got, want = j(x), products_of_dying_values(x)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal(x, before)
