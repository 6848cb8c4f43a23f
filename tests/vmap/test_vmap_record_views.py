"""vmap of a VJP whose record holds a view of an array the function then updates in place
(`t = a[2:]` before `a[2:] = ...`): the backward sweep's own copy of the record keeps the view a
view (rt.private), so restoring the array restores the view; batched, the record was copied one
example at a time and the view kept the updated values (found by the order-3 property tests)."""
import numpy as np
import pytest

import s2s
from s2s.api.entry_points import linear_map


def slice_update_of_copy(x):
    a = np.copy(x)
    a[2:] = a[2:] * x[:2]
    return np.sum(a)


def slice_update_squared(x):
    a = x * 1.0
    a[2:] = x[:2]
    return np.sum(a * a * a)


@pytest.mark.parametrize("f", [slice_update_of_copy, slice_update_squared])
def test_vmap_of_vjp_through_an_updated_view(f):
    xs = np.random.default_rng(1).uniform(-1, 1, (3, 4))
    back = linear_map("vjp", f, 1, 1.0)
    got = s2s.vmap(back)(xs)[0]
    want = np.stack([back(x)[0] for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(want, np.stack([s2s.grad(f)(x) for x in xs]), rtol=1e-12)


def test_jacfwd_of_the_hessian_through_an_updated_view():
    def f(x):
        return slice_update_of_copy(x) ** 3
    x = np.random.default_rng(0).uniform(-1, 1, 4)
    hess = s2s.jacrev(s2s.jacfwd(f))
    np.testing.assert_allclose(s2s.jacfwd(hess)(x), s2s.jacfwd(s2s.jacfwd(s2s.jacfwd(f)))(x), rtol=1e-10)
