"""Reductions with NumPy's `where=` argument: s2s has no rule that honours it, so differentiating
through one is an S2SError naming the argument (it used to be ignored: a silently wrong
derivative). Any keyword a primitive's rules do not know is refused the same way."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError


def sum_where(x):
    return np.sum(x, where=x > 0)


def mean_where(x):
    return np.mean(x, axis=0, where=x > 0).sum()


def max_where(x):
    return np.max(x, initial=-10.0, where=x > 0)


def prod_where(x):
    return np.prod(x, where=x > 0)


def var_where(x):
    return np.var(x, where=x > 0) + np.std(x, where=x > 0)


@pytest.mark.parametrize("fn", [sum_where, mean_where, max_where, prod_where, var_where])
@pytest.mark.parametrize("transform", [s2s.grad, s2s.jacfwd])
def test_where_is_refused_not_ignored(fn, transform):
    x = np.random.default_rng(0).standard_normal((3, 4))
    with pytest.raises(S2SError, match=r"argument `(where|initial)=`"):
        transform(fn)(x)
