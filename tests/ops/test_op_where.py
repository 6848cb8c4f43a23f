"""Reductions with NumPy's `where=` and `initial=` arguments: computed by NumPy's definitions
written with primitives (s2s/runtime/composite.py), so reverse, forward and batched forms come from their
source. Checked against finite differences and NumPy itself, with masks that depend on the input
(no derivative through the mask), an `initial` that is differentiated, and under vmap. A keyword
no rule honours (a ufunc's `where=`) is still refused, never ignored."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError
from s2s.test_util import check_grads


def sum_where(x):
    return np.sum(x, where=x > 0)


def mean_where(x):
    return np.mean(x, axis=0, where=x > -0.5).sum()


def max_where(x):
    return np.max(x, initial=-10.0, where=x > 0)


def prod_where(x):
    return np.prod(x, where=x > 0)


def var_where(x):
    return np.var(x, where=x > -0.5) + np.std(x, where=x > -0.5)


def methods_where(x):
    return x.sum(axis=1, where=x < 0.5, initial=1.0).sum() + x.min(where=x > 0, initial=3.0)


FNS = [sum_where, mean_where, max_where, prod_where, var_where, methods_where]


@pytest.mark.parametrize("fn", FNS)
def test_where_matches_finite_differences(fn):
    x = np.random.default_rng(0).standard_normal((3, 4))
    check_grads(fn, (x,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("fn", FNS)
def test_where_values_match_numpy(fn):
    x = np.random.default_rng(1).standard_normal((3, 4))
    value, _ = s2s.value_and_grad(fn)(x)
    np.testing.assert_allclose(value, fn(x), rtol=1e-13)
    np.testing.assert_allclose(s2s.jit(fn)(x), fn(x), rtol=1e-13)


def initial_traced(x, c):
    return np.sum(np.sum(x, axis=1, where=x > 0, initial=c) ** 2) + np.max(x, where=x > 0.2, initial=c * c)


def test_initial_is_differentiated():
    x = np.random.default_rng(2).standard_normal((3, 4))
    check_grads(initial_traced, (x, 0.3), order=2, modes=("fwd", "rev"))


def batched(x, m):
    return np.sum(x, axis=0, where=m) + np.mean(x, where=m) + x.max(axis=0, where=m, initial=-1.0)


@pytest.mark.parametrize("axes", [(0, 0), (0, None), (None, 0), (1, 2)])
def test_where_under_vmap(axes):
    rng = np.random.default_rng(3)
    xs, ms = rng.standard_normal((5, 3, 4)), rng.random((5, 3, 4)) > 0.3
    ms[:, 0] = True
    per = [(xs[k] if axes[0] is not None else xs[0], ms[k] if axes[1] is not None else ms[0]) for k in range(5)]
    want = np.stack([batched(*p) for p in per])
    args = [np.moveaxis(a, 0, ax) if ax is not None else a[0] for a, ax in zip((xs, ms), axes)]
    np.testing.assert_allclose(s2s.vmap(batched, in_axes=axes)(*args), want, rtol=1e-13)


def test_vmap_of_grad_where():
    rng = np.random.default_rng(4)
    xs, ms = rng.standard_normal((5, 3, 4)), rng.random((5, 3, 4)) > 0.3
    grads = s2s.vmap(s2s.grad(lambda_sum_batched))(xs, ms)
    np.testing.assert_allclose(grads, np.stack([s2s.grad(lambda_sum_batched)(xs[k], ms[k]) for k in range(5)]))


def lambda_sum_batched(x, m):
    return np.sum(batched(x, m) ** 2)


def ufunc_where(x):
    return np.sum(np.exp(x, where=x > 0))


def nanvar_where(x):
    return np.nanvar(x, where=x > 0)


@pytest.mark.parametrize("fn", [ufunc_where, nanvar_where])
@pytest.mark.parametrize("transform", [s2s.grad, s2s.jacfwd])
def test_unruled_where_is_refused_not_ignored(fn, transform):
    x = np.random.default_rng(0).standard_normal((3, 4))
    with pytest.raises(S2SError, match=r"argument `(where|initial)=`"):
        transform(fn)(x)
