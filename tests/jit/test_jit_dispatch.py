"""jit's one-signature fast path (Jitted._dispatcher, made by s2s/api/dispatch.py): every call it serves must equal the
general path's, and anything it was not built for (another type, a large array, a rebound
global, keyword arguments) must reach the general path."""
import linecache

import numpy as np
import pytest
from helpers_kernels import assert_selu

import s2s
from s2s.compiler.emit.kernels import THRESHOLD

SCALE = 2.0


def scaled_tanh(x):
    return np.sum(np.tanh(x) ** 3) * SCALE


def affine(x, b=1.0):
    return x * SCALE + b


@pytest.fixture(autouse=True)
def _scale():
    global SCALE
    SCALE = 2.0
    yield
    SCALE = 2.0


def test_repeated_calls_use_the_fast_path_and_agree():
    j = s2s.jit(s2s.hessian(scaled_tanh))
    x = np.linspace(-1.0, 1.0, 3)
    first = j(x)
    np.testing.assert_array_equal(j(x), first)  # the second call makes the fast path
    assert "_entry" in vars(j)  # the generated fast path is the call
    for _ in range(3):
        np.testing.assert_array_equal(j(x), first)
    np.testing.assert_allclose(first, s2s.hessian(scaled_tanh)(x), rtol=1e-12)
    d = np.diag(6 * np.tanh(x) * (1 - np.tanh(x) ** 2) ** 2 - 6 * np.tanh(x) ** 3 * (1 - np.tanh(x) ** 2)) * 2.0
    np.testing.assert_allclose(first, d, rtol=1e-10, atol=1e-14)


def test_small_then_large_then_small():
    j = s2s.jit(affine)
    small, large = np.arange(3.0), np.arange(float(THRESHOLD + 5))
    for x in (small, small, large, large, small, large):
        np.testing.assert_array_equal(j(x), x * 2.0 + 1.0)


def test_rebound_global_is_seen():
    global SCALE
    j = s2s.jit(scaled_tanh)
    x = np.array([0.3, -0.2])
    j(x)
    j(x)
    SCALE = 3.0
    np.testing.assert_allclose(j(x), np.sum(np.tanh(x) ** 3) * 3.0, rtol=1e-14)
    SCALE = 3.0 + 0.0  # an equal value, another object: same code, fast path again
    np.testing.assert_allclose(j(x), np.sum(np.tanh(x) ** 3) * 3.0, rtol=1e-14)
    np.testing.assert_allclose(j(x), np.sum(np.tanh(x) ** 3) * 3.0, rtol=1e-14)
    assert "_entry" in vars(j)  # the generated fast path is the call


def test_other_types_counts_and_keywords_take_the_general_path():
    j = s2s.jit(affine)
    x = np.arange(4.0)
    np.testing.assert_array_equal(j(x), x * 2.0 + 1.0)
    np.testing.assert_array_equal(j(x), x * 2.0 + 1.0)
    assert j(1.5) == 1.5 * 2.0 + 1.0
    np.testing.assert_array_equal(j(x, 0.5), x * 2.0 + 0.5)
    np.testing.assert_array_equal(j(x, b=-1.0), x * 2.0 - 1.0)
    np.testing.assert_array_equal(j(x.astype(np.float32)), x.astype(np.float32) * 2.0 + 1.0)
    np.testing.assert_array_equal(j(x), x * 2.0 + 1.0)
    with pytest.raises(TypeError):
        j()


def test_a_global_rebound_on_every_call_stays_right():
    global SCALE
    j = s2s.jit(affine)
    x = np.arange(3.0)
    for k in range(20):
        SCALE = float(k) + 0.5
        np.testing.assert_array_equal(j(x), x * (k + 0.5) + 1.0)
    assert j._entry_builds <= 8


def selu_like(x):
    return 1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67)


def test_a_version_with_nothing_to_fuse_serves_every_size():
    j = s2s.jit(affine)  # one array allocated: nothing to fuse, so large arrays would get the same code
    small, large = np.arange(3.0), np.arange(float(THRESHOLD + 5))
    j(small)
    j(small)
    (entry,) = j._by_kind.values()
    assert entry[0] is entry[1] is not None
    assert "a0.size" not in "".join(linecache.getlines(j._entry.__code__.co_filename))
    np.testing.assert_array_equal(j(large), large * 2.0 + 1.0)
    assert entry[0] is entry[1]  # no second build
    f = s2s.jit(selu_like)  # a chain that fuses: large arrays get their own version
    large = np.linspace(-3.0, 3.0, THRESHOLD + 5)
    f(small)
    (fentry,) = f._by_kind.values()
    assert fentry[1] is None or not s2s.compiler.emit.kernels.available()
    assert_selu(f(large), large)  # selu_like is selu
    np.testing.assert_allclose(f(small), 1.05 * np.where(small > 0, small, 1.67 * np.exp(small) - 1.67), rtol=1e-15)
