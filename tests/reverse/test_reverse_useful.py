"""Reverse mode calls a helper plainly (no forward sweep with a record, no backward sweep) when no
derivative can flow back through its result: the result reaches the output only through
`stop_gradient`, or not at all. A helper that acts on its arguments in place keeps the full
treatment (or its error)."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def value(theta, s):
    return np.dot(theta, s)


def td(theta, s1, r, s2):
    target = r + value(theta, s2)
    return (s2s.stop_gradient(target) - value(theta, s1)) ** 2


def unused(x):
    y = value(x, x)  # computed, never used
    return np.sum(np.sin(x)) + 0.0 * s2s.stop_gradient(y)


def in_loop(x):
    acc = 0.0
    for i in range(3):
        w = s2s.stop_gradient(value(x, x) * i)
        acc = acc + w * np.sum(x * x)
    return acc


def _scale_first(a, k):
    a[0] = a[0] * k
    return 0.0


def mutates(x):
    a = x.copy()
    s2s.stop_gradient(_scale_first(a, 3.0 * x[1]))
    return np.sum(a * a)


X = np.array([0.3, -1.2, 0.7])


def test_a_helper_under_stop_gradient_is_called_plainly():
    src = s2s.api.sources.transformed_source(td, "grad")
    assert src.count("= fwd_value(") == 1 and "t0 = value_1(theta, s2)" in src, src
    s1, s2 = np.array([0.5, 0.1, -0.4]), np.array([1.0, 2.0, -0.5])
    g = s2s.grad(td)(X, s1, 0.3, s2)
    want = -2.0 * (0.3 + s2 @ X - s1 @ X) * s1
    np.testing.assert_allclose(g, want, rtol=1e-13)


@pytest.mark.parametrize("fn, want", [(unused, lambda x: np.cos(x)),
                                      (in_loop, lambda x: 6.0 * np.dot(x, x) * x)])  # w held constant
def test_gradients_stay_right(fn, want):
    np.testing.assert_allclose(s2s.grad(fn)(X), want(X), rtol=1e-13)
    np.testing.assert_allclose(s2s.jit(s2s.grad(fn))(X), want(X), rtol=1e-13)
    np.testing.assert_allclose(s2s.jacrev(fn)(X), want(X), rtol=1e-13)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(fn))(np.stack([X, 2 * X])), [want(X), want(2 * X)], rtol=1e-13)


def test_a_helper_that_updates_its_argument_is_not_skipped():
    try:
        v, g = s2s.value_and_grad(mutates)(X.copy())
    except s2s.S2SError as e:
        assert "test_reverse_useful.py:" in str(e)
        return
    a = X.copy()
    a[0] *= 3.0 * X[1]
    assert v == pytest.approx(np.sum(a * a))
    check_grads(mutates, (X.copy(),), order=1)
