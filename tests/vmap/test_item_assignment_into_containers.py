"""vmap of `a[i] = v` and `d[k] = v` into a list or dict the function built (issue 28: it keyed
the list with the batch axis, a TypeError): each item holds the whole batch, so the item is
replaced (an unbatched value replicated, the old item kept on examples a branch leaves out).
Checked against a loop over examples, for values and for gradients."""
import numpy as np
import pytest

import s2s


def in_a_branch(x):
    a = [x, x * 2.0]
    if np.sum(x) > 0.5:
        a[0] = x ** 2
    return np.sum(a[0] * a[1])


def dict_items(x):
    d = {"a": x, "b": 1.0}
    d["b"] = 3.0
    d["a"] = d["a"] * d["b"]
    return np.sum(d["a"])


def in_a_loop(x):
    a = [x, x]
    for i in range(2):
        a[i] = np.sin(a[i]) * (i + 1.0)
    return np.sum(a[0] * a[1])


XS = np.array([[0.3, 0.7], [0.1, -0.2], [1.0, 2.0]])


@pytest.mark.parametrize("fn", [in_a_branch, dict_items, in_a_loop], ids=lambda f: f.__name__)
@pytest.mark.parametrize("jit", [False, True])
def test_vmap_matches_a_loop(fn, jit):
    v = s2s.vmap(fn)
    np.testing.assert_allclose((s2s.jit(v) if jit else v)(XS), [fn(x) for x in XS], rtol=1e-12)


@pytest.mark.parametrize("fn", [in_a_branch, dict_items, in_a_loop], ids=lambda f: f.__name__)
def test_gradients_match_a_loop_and_differences(fn):
    want = np.array([s2s.grad(fn)(x) for x in XS])
    eps = 1e-6
    fd = np.array([[(fn(x + eps * e) - fn(x - eps * e)) / (2 * eps) for e in np.eye(2)] for x in XS])
    np.testing.assert_allclose(want, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(fn))(XS), want, rtol=1e-10)
    np.testing.assert_allclose(s2s.grad(lambda xs: np.sum(s2s.vmap(fn)(xs)))(XS), want, rtol=1e-10)
