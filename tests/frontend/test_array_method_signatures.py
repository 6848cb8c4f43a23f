"""Array methods whose NumPy signature is not their function's (issue 44, family 2: every parameter
is modelled by its own signature). `ndarray.clip(min=None, max=None)` takes either bound alone
(`x.clip(0.1)`, where `np.clip(x, 0.1)` raises), and `ndarray.item(*args)` is an element as a
scalar: of a size-1 array of any rank, at a flat index, or at one index per axis, in the array's
own dtype (an int for an int array: a bound of a slice or a range). s2s lowered `x.clip(lo)` to
`np.clip(x, lo)` and `x.item(...)` to `float(x)`, which raised for all but 0-d arrays. Each form is
checked under jit, vmap (against a loop), grad and jvp (against central differences)."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

X = np.array([0.3, -0.55, 0.72, 1.15])
K = np.array([3])


def clip_low(x, k):
    return np.sum(x.clip(0.1) ** 2)


def clip_high_keyword(x, k):
    return np.sum(x.clip(max=0.5) ** 3)


def clip_both(x, k):
    return np.sum(np.sin(x.clip(-0.2, 0.8)))


def clip_low_keyword_high_positional(x, k):
    return np.sum(x.clip(0.0, max=1.0) * x)


def item_of_size_one(x, k):
    n = k.item()  # (an int: the slice's bound)
    return np.sum(x[:n] ** 2) * np.sum(x[1:2]).item()


def item_flat_index(x, k):
    return x.item(1) * np.sum(x) + x.item(-1) ** 2


def item_per_axis(x, k):
    m = x.reshape(2, 2)
    return m.item(1, 0) ** 2 + m.item((0, 1)) * 3.0


FORMS = [clip_low, clip_high_keyword, clip_both, clip_low_keyword_high_positional, item_of_size_one,
         item_flat_index, item_per_axis]


@pytest.mark.parametrize("f", FORMS, ids=[f.__name__ for f in FORMS])
def test_the_method_is_numpy_s_under_every_transform(f):
    want = f(X, K)
    assert s2s.jit(f)(X, K) == want
    xs = np.stack([X, X * -0.8 + 0.05])
    np.testing.assert_allclose(s2s.vmap(f, in_axes=(0, None))(xs, K), [f(v, K) for v in xs], rtol=1e-13)
    g = fd_grad(lambda v: f(v, K), X)
    np.testing.assert_allclose(s2s.grad(f)(X, K), g, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jvp(lambda v: f(v, K), (X,), (np.ones(4),))[1], np.sum(g), rtol=1e-6, atol=1e-8)


def test_item_of_an_array_of_several_elements_raises_numpy_s_error():
    def f(x):
        return x.item() * 2.0

    with pytest.raises(ValueError):
        f(X)
    for t in (s2s.jit(f), s2s.grad(f)):
        with pytest.raises(ValueError):
            t(X)
