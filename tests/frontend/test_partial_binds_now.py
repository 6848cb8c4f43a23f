"""functools.partial holds the objects its arguments name when it is made: a later rebinding of a
local it was given (`k = 2.0` after `partial(term, k=k)`) leaves the partial's value alone (a
silently wrong number before: jit, grad and vmap read the name when the partial was called). The
same object is held, so an update in place is seen, as in Python."""
import functools

import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s


def term(u, k=1.0):
    return np.sum(u ** 2) * k


def keyword_then_rebound(x):
    k = 0.5
    p = functools.partial(term, k=k)
    k = 2.0
    return p(x) + k


def element_then_rebound(x):
    w = x * 2.0
    p = functools.partial(term, k=w[0])
    w = x * 5.0
    return p(x) + np.sum(w)


def positional_then_rebound(x):
    p = functools.partial(term, x)
    x = x * 3.0
    return p(2.0) + np.sum(x)


def updated_in_place(x):
    w = x * 1.0
    p = functools.partial(term, w)
    w[0] = 4.0  # (the partial holds this array: it sees the update)
    return p(1.5)


def rebound_and_updated(x):
    w = x * 1.0
    p = functools.partial(term, w)
    w[0] = 4.0
    w = x * 3.0
    return p(1.5) + np.sum(w)


FUNCTIONS = [keyword_then_rebound, element_then_rebound, positional_then_rebound, updated_in_place]
X = np.array([1.0, 2.0])


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_partial_keeps_the_values_it_was_given(f):
    assert s2s.jit(f)(X) == pytest.approx(f(X), rel=1e-12)
    np.testing.assert_allclose(s2s.grad(f)(X), fd_grad(f, X), atol=1e-6)
    xs = np.stack([X, X * 0.5 - 1.0])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(xs[0]), f(xs[1])], rtol=1e-12)
    t = np.array([0.3, -0.7])
    assert s2s.jvp(f, (X,), (t,))[1] == pytest.approx(fd_grad(f, X) @ t, rel=1e-6)


def test_a_partials_argument_rebound_and_updated_in_place_is_refused_at_the_partial():
    with pytest.raises(s2s.S2SError, match="bound again after this functools.partial") as err:
        s2s.grad(rebound_and_updated)(X)
    assert "test_partial_binds_now.py" in str(err.value)
