"""The per-call path of transformed objects: jit finds its version by the arguments' types (and,
per call, whether an array is large enough for fused kernels), vmap by the arrays' ranks, grad
checks its arguments' dtypes cheaply; every call gives what the function gives."""
import numpy as np
import pytest
from helpers_kernels import assert_selu

import s2s
from s2s.compiler.emit.kernels import THRESHOLD


def selu(x):
    return 1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67)


def scale(x, k):
    return x * k


def loss(params, x):
    w, b = params
    return np.sum((x @ w + b) ** 2)


def test_jit_switches_between_small_and_large_arrays():
    j = s2s.jit(selu)
    rng = np.random.default_rng(0)
    small, big = rng.normal(size=10), rng.normal(size=THRESHOLD + 5)
    for x in (small, big, small, big):
        assert_selu(j(x), x)
    entry = j._by_kind[(("d", 1),)]
    assert entry[0] is not None and entry[1] is not None


def test_jit_floats_ints_and_arrays_get_their_own_versions():
    j = s2s.jit(scale)
    assert j(2.0, 3.0) == 6.0 and j(2, 3) == 6 and type(j(2, 3)) is int
    np.testing.assert_array_equal(j(np.arange(3.0), 2.0), [0.0, 2.0, 4.0])
    assert j(np.float32(1.5), 2.0) == 3.0
    assert len(j._by_kind) == 4


@pytest.mark.parametrize("make", [lambda f: s2s.grad(f), lambda f: s2s.jit(s2s.grad(f))])
def test_tuple_arguments_take_the_fast_path_and_stay_right(make):
    rng = np.random.default_rng(1)
    w, b, x = rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3))
    g = make(loss)
    for _ in range(2):
        gw, gb = g((w, b), x)
        r = 2 * (x @ w + b)
        np.testing.assert_allclose(gw, x.T @ r, rtol=1e-13)
        np.testing.assert_allclose(gb, r.sum(0), rtol=1e-13)


def test_grad_still_refuses_integer_inputs_on_the_fast_path():
    g = s2s.grad(lambda v: np.sum(v * v))
    g(np.ones(2))  # the fast path is set up
    with pytest.raises(s2s.S2SError, match="real- or complex-valued"):
        g(np.ones(2, int))
    h = s2s.grad(loss)
    h((np.ones((3, 2)), np.ones(2)), np.ones((4, 3)))
    with pytest.raises(s2s.S2SError, match="real- or complex-valued"):
        h((np.ones((3, 2)), np.ones(2, int)), np.ones((4, 3)))


def test_vmap_versions_by_rank():
    v = s2s.vmap(lambda a: np.sum(a * a))
    np.testing.assert_allclose(v(np.ones((3, 2))), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(v(np.ones((2, 2, 2))), [4.0, 4.0])
    np.testing.assert_allclose(v(np.ones((3, 2))), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(v(np.arange(3.0)), [0.0, 1.0, 4.0])
    assert set(v._by_ndims) == {(2,), (3,), (1,)}
