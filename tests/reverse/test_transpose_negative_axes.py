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
