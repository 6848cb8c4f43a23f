"""np.transpose with negative axes, and transposes inside a vmap inside grad: checked against
hand-derived values and central differences (issue 27).

The transpose's cotangent took the argsort of the axes as given, and the argsort of (-1, 0) is the
identity: grad of `np.sum(np.transpose(x, (-1, 0)) * w)` was `w`, not `w.T`, with no error."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads

W = np.arange(9.0).reshape(3, 3)


def by_function(x):
    return np.sum(np.transpose(x, (-1, 0)) * W)


def by_method(x):
    return np.sum(x.transpose(-1, 0) * W)


def by_permute_dims(x):
    return np.sum(np.permute_dims(x, (-1, -2)) * W)


@pytest.mark.parametrize("f", [by_function, by_method, by_permute_dims])
def test_cotangent_of_a_transpose_with_negative_axes_is_the_inverse_permutation(f):
    x = np.random.default_rng(0).standard_normal((3, 3))
    np.testing.assert_array_equal(s2s.grad(f)(x), W.T)
    t = np.random.default_rng(5).standard_normal((3, 3))
    np.testing.assert_allclose(s2s.jvp(f, (x,), (t,))[1], np.sum(t * W.T), rtol=1e-12)  # f is linear


@pytest.mark.parametrize("axes", [(-1, 0, 1), (2, -3, -2), None])
def test_rank_3_transpose_with_negative_axes_matches_differences(axes):
    x = np.random.default_rng(1).standard_normal((2, 3, 4))
    c = np.random.default_rng(2).standard_normal(np.transpose(x, axes).shape)
    check_grads(lambda v: np.sum(np.sin(np.transpose(v, axes)) * c), (x,), order=2, modes=("fwd", "rev"))


XS = np.random.default_rng(3).standard_normal((3, 2, 4))


def gram_rows(w):
    return np.sum(np.sin(s2s.vmap(lambda r: np.transpose(r * w) @ w)(XS)))


def permuted_rows(w):
    return np.sum(np.sin(s2s.vmap(lambda r: np.permute_dims(r * w, (-1, 0)))(XS)) * np.arange(8.0).reshape(4, 2))


def transposed_method(w):
    return np.sum(np.cos(s2s.vmap(lambda r: (r * w).T[::-1] * w.T)(XS)))


@pytest.mark.parametrize("f", [gram_rows, permuted_rows, transposed_method])
def test_transpose_in_a_vmap_inside_grad(f):
    # vmap inside grad reaches the batched transpose helpers, which had no derivative rules (refused)
    w = np.random.default_rng(4).standard_normal((2, 4))
    check_grads(f, (w,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("axis, start", [(-2, -1), (0, -1), (2, -3), (2, 1)])
def test_rollaxis_with_a_negative_start_matches_differences(axis, start):
    # NumPy counts a negative start from ndim; the cotangent counted it from ndim + 1 (wrong, silently)
    x = np.random.default_rng(6).standard_normal((2, 3, 4))
    c = np.random.default_rng(7).standard_normal(np.rollaxis(x, axis, start).shape)
    check_grads(lambda v: np.sum(np.sin(np.rollaxis(v, axis, start)) * c), (x,), order=2, modes=("fwd", "rev"))
    xs = np.stack([x, 2.0 * x])
    np.testing.assert_array_equal(s2s.vmap(lambda v: np.rollaxis(v, axis, start))(xs),
                                  np.stack([np.rollaxis(v, axis, start) for v in xs]))


@pytest.mark.parametrize("axis", [0, -2])
def test_linalg_cross_along_another_axis(axis):
    # np.linalg.cross's keyword-only axis= was not in its declaration: the rules took the last axis
    def f(v):
        return np.sum(np.sin(np.linalg.cross(v, v ** 2, axis=axis)))

    x = np.random.default_rng(8).standard_normal((3, 4)) + 1.0
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    xs = np.stack([x, 2.0 * x])
    np.testing.assert_allclose(s2s.vmap(lambda v: np.linalg.cross(v, v ** 2, axis=axis))(xs),
                               np.stack([np.linalg.cross(v, v ** 2, axis=axis) for v in xs]), rtol=1e-14)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), np.stack([s2s.grad(f)(v) for v in xs]), rtol=1e-12)


def unknown_keyword(x):
    return np.sum(np.sin(x, bogus=1))


def test_a_keyword_no_rule_reads_is_refused():
    # a keyword missing from a primitive's declaration is refused, never ignored by its rules
    with pytest.raises(s2s.S2SError, match="bogus"):
        s2s.grad(unknown_keyword)(np.ones(3))
