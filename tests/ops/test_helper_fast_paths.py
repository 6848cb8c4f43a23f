"""The runtime's direct paths for NumPy arrays in the helpers a backward loop calls per step when
shapes are not known when compiling (issue 46 section 2, the char RNN's softmax and products):
`rt.sum_vjp` along one axis fills a new array from the cotangent without `expand_dims` and
`broadcast_to`, and `rt.dot_vjp_a`/`rt.dot_vjp_b` of matrices call `np.dot` where BLAS reads
both operands as they are (`@`'s own loop for an outer product is 2-3x slower), and of float64
vectors multiply at once; `rt.unbroadcast` of one shape and dtype is the cotangent. Each against
what the helper computed before, bit for bit, over layouts, dtypes and shapes, and a gradient
through them against central differences."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s import runtime as rt
from s2s.runtime import linalg as linalg_rt
from s2s.runtime import reduce as reduce_rt


def sum_vjp_before(v, like, axis, keepdims):
    return np.broadcast_to(reduce_rt._expand_reduced(v, like, axis, keepdims),
                           np.shape(like)).astype(reduce_rt.float_dtype(like))


SHAPES = [(27, 1), (4, 5, 6), (3,), (2, 3), (1, 7)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_sum_vjp_equals_the_broadcast(shape, keepdims, dtype):
    rng = np.random.default_rng(1)
    like = (rng.normal(size=shape) * 10).astype(dtype)
    for axis in range(-len(shape), len(shape)):
        for v in (like.sum(axis=axis, keepdims=keepdims).astype(np.float64),
                  like.sum(axis=axis, keepdims=keepdims)):
            got, want = rt.sum_vjp(v, like, axis, keepdims), sum_vjp_before(v, like, axis, keepdims)
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
            got[...] = 0  # a new array of its own
            assert np.any(want != 0) or not np.any(like)


def test_sum_vjp_of_a_broadcastable_cotangent_takes_the_long_way():
    like = np.ones((4, 5))
    v = np.arange(1.0, 2.0)  # (1,): not the reduced shape (5,), broadcast by the long way
    np.testing.assert_array_equal(rt.sum_vjp(v, like, 0, False), sum_vjp_before(v, like, 0, False))


def _layouts(rng, shape):
    x = rng.normal(size=shape)
    return {"C": x, "F": np.asfortranarray(x), "T": np.ascontiguousarray(x.T).T,
            "strided": rng.normal(size=(shape[0] * 2, shape[1]))[::2]}


@pytest.mark.parametrize("inner", [1, 3, 50])
def test_dot_vjp_of_matrices_equals_matmul(inner):
    rng = np.random.default_rng(2)
    for va, v in _layouts(rng, (6, 4)).items():
        for ka, a in _layouts(rng, (6, inner)).items():
            for kb, b in _layouts(rng, (inner, 4)).items():
                np.testing.assert_array_equal(rt.dot_vjp_a(v, a, b), v @ b.T, err_msg=f"{va} {ka} {kb}")
                np.testing.assert_array_equal(rt.dot_vjp_b(v, a, b), a.T @ v, err_msg=f"{va} {ka} {kb}")
    a32 = rng.normal(size=(6, 3)).astype(np.float32)
    b = rng.normal(size=(3, 4))
    v = rng.normal(size=(6, 4))
    assert rt.dot_vjp_a(v, a32, b).dtype == np.float32  # (a float32 operand's cotangent stays float32)


def softmax_steps(w, xs):
    """The char RNN's softmax and outer products, one column per step."""
    total = 0.0
    h = np.zeros((4, 1))
    for t in range(xs.shape[0]):
        h = np.tanh(np.dot(w, xs[t]) + h)
        e = np.exp(h - np.max(h))
        total = total + np.log((e / e.sum(axis=0))[t % 4, 0])
    return total


@pytest.mark.parametrize("jit", [False, True])
def test_gradient_through_them_matches_central_differences(jit):
    rng = np.random.default_rng(3)
    w, xs = rng.normal(size=(4, 3)), rng.normal(size=(5, 3, 1))
    g = s2s.grad(softmax_steps)
    got = (s2s.jit(g) if jit else g)(w, xs)
    np.testing.assert_allclose(got, fd_grad(lambda v: softmax_steps(v, xs), w), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.float64), (np.complex128, np.float64)])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((1, 4), (3, 1))])
def test_tree_add_of_arrays_and_operand_cotangent_of_a_sum(dtypes, shapes):
    rng = np.random.default_rng(4)
    a = rng.normal(size=shapes[0]).astype(dtypes[0])
    b = rng.normal(size=shapes[1]).astype(dtypes[1])
    got = rt.tree_add(a, b)
    assert got.dtype == (a + b).dtype and got is not a and got is not b
    np.testing.assert_array_equal(got, a + b)
    for ct, operand in ((a + b, a), (a + b, b), (a, a)):
        got = rt.operand_cotangent(ct, operand, b, "add", 1)
        want = rt.unbroadcast(ct, operand)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        assert not np.any(rt.operand_cotangent(ct, operand, b, "add", 1, 1))  # (with respect to the other: zero)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
@pytest.mark.parametrize("shape", [(27, 1), (3,), (2, 3, 4)])
def test_unbroadcast_of_one_shape_and_dtype_is_the_cotangent(dtype, shape):
    """`rt.unbroadcast` of two NumPy arrays of one shape and dtype answers at once: the cotangent
    itself, as its checks gave (no cast, no sum, a complex one kept for a complex primal)."""
    rng = np.random.default_rng(6)
    v = (rng.normal(size=shape) * 3).astype(dtype)
    like = np.zeros(shape, dtype)
    assert rt.unbroadcast(v, like) is v
    wider = rt.unbroadcast(v.astype(np.float64), like) if dtype is np.float32 else None
    assert wider is None or wider.dtype == np.float32  # (another dtype: the long way, cast as before)
    summed = rt.unbroadcast(np.stack([v, v]), like)
    np.testing.assert_array_equal(summed, v + v)


def _vectors_and_numbers(rng):
    x = rng.normal(size=5)
    return [("vector", x), ("number", np.float64(0.7)), ("python", 0.7), ("strided", rng.normal(size=10)[::2])]


def test_dot_vjp_of_vectors_equals_the_long_way():
    """`rt.dot_vjp_a`/`dot_vjp_b` of two float64 vectors (skip-gram's `np.dot(U[k], c)`) answer
    `v * b` and `v * a` at once, what the general path computes, bit for bit; float32 and
    integer operands keep the long way (a float32 cotangent, an int operand's float one)."""
    rng = np.random.default_rng(7)
    for kv, v in _vectors_and_numbers(rng)[1:]:
        for ka, a in _vectors_and_numbers(rng)[::3]:
            for kb, b in _vectors_and_numbers(rng)[::3]:
                for got, want in ((rt.dot_vjp_a(v, a, b), linalg_rt._dot_vjp_a(v, a, b)),
                                  (rt.dot_vjp_b(v, a, b), linalg_rt._dot_vjp_b(v, a, b))):
                    assert type(got) is type(want) and got.dtype == want.dtype, (kv, ka, kb)
                    np.testing.assert_array_equal(got, want, err_msg=f"{kv} {ka} {kb}")
    a32, b = rng.normal(size=3).astype(np.float32), rng.normal(size=3)
    assert rt.dot_vjp_a(np.float64(2.0), a32, b).dtype == np.float32
    assert rt.dot_vjp_b(np.float64(2.0), b, a32).dtype == np.float32
    ai = np.arange(3)
    np.testing.assert_array_equal(rt.dot_vjp_a(np.float64(2.0), ai, b), 2.0 * b)


def test_copy_saved_copies_lists_only():
    tape, arr, inner = [1.0, 2.0], np.ones(2), ([3.0],)
    got = rt.copy_saved((tape, arr, inner, None))
    assert type(got) is tuple and got[0] == tape and got[0] is not tape
    assert got[1] is arr and got[2] is inner and got[3] is None
