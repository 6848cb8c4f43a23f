"""vmap of array creation with per-example values: np.full / np.full_like with a per-example fill
value and np.linspace with per-example endpoints batch (one shape for every example, as in JAX);
a per-example shape or `num` is an S2SError at the user's line. np.linalg.norm of per-example
scalars and of rank-3 examples. Batched values against a Python loop over the examples,
derivatives through the batched code against central differences."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError

RNG = np.random.default_rng(7)
V = RNG.standard_normal(4)
A = RNG.standard_normal((4, 2))
X = RNG.standard_normal((4, 3))


def full_of_sum(x):
    a = x.copy()
    a[0] = np.sum(np.full(3, np.sum(x[0])))
    return np.sum(a * a)


def full_2d(v):
    return np.full((2, 3), v) * np.arange(3.0)


def full_row(a):
    return np.full((3, 2), a)


def full_like_fill(x, v):
    return np.full_like(x, v) * x


def linspace_stop(x):
    return np.linspace(0.0, np.mean(x), 3) * x


def linspace_both(v, a):
    return np.linspace(v, a, 5, axis=-1)


def linspace_axis0(v, a):
    return np.linspace(a, v, 4)


def norm_of_scalar(x):
    return np.linalg.norm(x[0]) + np.linalg.norm(np.sum(x)) * x


def _loop(f, args, in_axes):
    n = next(np.shape(a)[0] for a, ax in zip(args, in_axes) if ax == 0)
    return np.stack([np.asarray(f(*[a[i] if ax == 0 else a for a, ax in zip(args, in_axes)])) for i in range(n)])


@pytest.mark.parametrize("f,args,in_axes", [
    (full_of_sum, (X,), (0,)), (full_2d, (V,), (0,)), (full_row, (A,), (0,)),
    (full_like_fill, (X, V), (0, 0)), (full_like_fill, (X[0], V), (None, 0)), (full_like_fill, (X, V[0]), (0, None)),
    (linspace_stop, (X,), (0,)), (linspace_both, (V, A), (0, 0)), (linspace_both, (V, A[0]), (0, None)),
    (linspace_both, (V[0], A), (None, 0)), (linspace_axis0, (V, A), (0, 0)), (norm_of_scalar, (X,), (0,)),
], ids=lambda p: getattr(p, "__name__", None))
def test_creation_with_per_example_values_matches_loop(f, args, in_axes):
    got = s2s.vmap(f, in_axes=in_axes)(*args)
    want = _loop(f, args, in_axes)
    assert np.shape(got) == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_norm_of_rank_three_examples_matches_loop():
    xs = RNG.standard_normal((3, 2, 3, 2))
    got = s2s.vmap(np.linalg.norm)(xs)
    np.testing.assert_allclose(got, [np.linalg.norm(x) for x in xs], rtol=1e-12)


def _sq_sum(f, nargs):
    if nargs == 1:
        return lambda a: np.sum(f(a) ** 2)
    return lambda a, b: np.sum(f(a, b) ** 2)


@pytest.mark.parametrize("f,args", [(full_of_sum, (X,)), (full_2d, (V,)), (full_like_fill, (X, V)),
                                    (linspace_stop, (X,)), (linspace_both, (V, A)), (linspace_axis0, (V, A))],
                         ids=lambda p: getattr(p, "__name__", None))
def test_vmap_grad_matches_loop_and_differences(f, args):
    """vmap(grad) differentiates the batched code (the rules of rt.batched_full/linspace)."""
    g = _sq_sum(f, len(args))
    nums = tuple(range(len(args)))
    got = s2s.vmap(s2s.grad(g, argnums=nums))(*args)
    for k, a in enumerate(args):
        for i in range(a.shape[0]):
            ex = [b[i] for b in args]
            fd = np.zeros(np.shape(ex[k]))
            for j in np.ndindex(fd.shape):
                e = np.zeros(np.shape(ex[k]))
                e[j] = 1e-6
                plus = [b + e if m == k else b for m, b in enumerate(ex)]
                minus = [b - e if m == k else b for m, b in enumerate(ex)]
                fd[j] = (g(*plus) - g(*minus)) / 2e-6
            np.testing.assert_allclose(got[k][i], fd, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f,args", [(full_2d, (V,)), (linspace_both, (V, A))],
                         ids=lambda p: getattr(p, "__name__", None))
def test_grad_and_jvp_of_vmap_match_differences(f, args):
    g = _sq_sum(s2s.vmap(f), len(args))
    gr = s2s.grad(g, argnums=tuple(range(len(args))))(*args)
    dirs = [RNG.standard_normal(np.shape(a)) for a in args]
    fd = (g(*[a + 1e-6 * d for a, d in zip(args, dirs)]) - g(*[a - 1e-6 * d for a, d in zip(args, dirs)])) / 2e-6
    np.testing.assert_allclose(sum(np.sum(a * d) for a, d in zip(gr, dirs)), fd, rtol=1e-6)
    _, t = s2s.jvp(g, args, tuple(dirs))
    np.testing.assert_allclose(t, fd, rtol=1e-6)


def per_example_num(x):
    return np.sum(np.linspace(0.0, 1.0, int(x[0] > 0) + 2))


def per_example_shape(x):
    return np.sum(np.full(int(x[0] > 0) + 2, 1.0))


@pytest.mark.parametrize("f,what", [(per_example_num, "`num` of `xp.linspace`"),
                                    (per_example_shape, "`shape` of `xp.full`")])
def test_per_example_shape_is_refused_at_the_line(f, what):
    with pytest.raises(S2SError, match=what) as err:
        s2s.vmap(f)(X)
    assert "test_vmap_creation.py" in str(err.value)
