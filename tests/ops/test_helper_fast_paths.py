"""The runtime's direct paths for NumPy arrays in the helpers a backward loop calls per step when
shapes are not known when compiling (issue 46 section 2, the char RNN's softmax and products):
`rt.sum_vjp` along one axis fills a new array from the cotangent without `expand_dims` and
`broadcast_to`, and `rt.dot_vjp_a`/`rt.dot_vjp_b` of matrices call `np.dot` where BLAS reads
both operands as they are (`@`'s own loop for an outer product is 2-3x slower). Each against
what the helper computed before, bit for bit, over layouts, dtypes and shapes, and a gradient
through them against central differences."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s import runtime as rt
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
