"""Index views of a parameter read after a store into it (issue 44, family 4;
frontend/view_writes.py): `row = x[0]; x[0, 0] = v` changes `row` where `x` is a NumPy array, and
leaves it where `x` is a list, tuple or dict (their items and slices are not views). s2s takes the
view again after the store under a test of the parameter's type when the function runs. Each form
runs under grad, jvp, jacfwd, jacrev, hessian, jit (the caller's array included) and vmap, against
the plain function, central differences and a loop over the examples; a write through such a view,
and `x[k] op= v` (a list's item may be an array updated in place), stay refused."""
import numpy as np
import pytest

import s2s
from tests.support.helpers_compare import fd_grad, fd_hessian


def row_after_store(x):
    row = x[0]                       # a view of the caller's matrix
    x[0, 0] = 5.0 * x[1, 1]          # row[0] too
    return np.sum(row * x) + np.sum(np.sin(row))


def column_after_row_store(x):
    c = x[:, 1]
    x[0] = np.sin(x[2])              # c[0] is x[2, 1]'s sine now
    return np.sum(c * x[1]) + np.sum(c ** 2)


def item_of_vector(x):
    a = x[0]                         # of a vector: a number, which the store leaves
    x[0] = 7.0 * x[1]
    return a * np.sum(x)


def head_after_scale(x):
    head = x[:2]
    x *= 2.0                         # an array: in place, head doubles too
    return np.sum(head * x[:2]) + np.sum(x)


M = np.array([[0.3, -0.7, 0.2], [1.1, 0.4, -0.5], [0.6, 0.9, -1.2]])
V = np.array([0.3, -0.7, 1.1])
CASES = {f.__name__: (f, x) for f, x in [(row_after_store, M), (column_after_row_store, M),
                                         (item_of_vector, V), (head_after_scale, M)]}
# a store into the parameter (x[k] = v) reaches the caller's array under jit, as in NumPy; `x *= 2.0` on
# the transformed function's own argument does not (docs/accepted-code.md)
STORES = ["row_after_store", "column_after_row_store", "item_of_vector"]


def _case(name):
    f, x = CASES[name]
    return f, x.copy()


def _plain(f, x):
    """f's value at x, run on a new array (f writes into its argument; fd_hessian differentiates
    this with s2s, which accepts a new array, `x * 1.0`, as the argument of a callee that writes)."""
    return f(x * 1.0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_matches_central_differences(name):
    f, x = _case(name)
    np.testing.assert_allclose(s2s.grad(f)(x.copy()), fd_grad(lambda z: _plain(f, z), x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_matches_central_differences(name):
    f, x = _case(name)
    t = np.linspace(0.2, 0.9, x.size).reshape(x.shape)
    value, tangent = s2s.jvp(f, (x.copy(),), (t,))
    assert value == pytest.approx(_plain(f, x), rel=1e-13)
    assert tangent == pytest.approx(np.sum(fd_grad(lambda z: _plain(f, z), x) * t), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jacfwd_agrees_with_jacrev(name):
    f, x = _case(name)
    fwd, rev = s2s.jacfwd(f)(x.copy()), s2s.jacrev(f)(x.copy())
    np.testing.assert_allclose(fwd, rev, rtol=1e-12, atol=1e-12)


# (hessian refuses some functions that store into their own parameter, with an S2SError, with or
# without a view: `x[0] = 7.0 * x[1]; return x[2] * np.sum(x)` too; a refusal, not a number)
@pytest.mark.parametrize("name", sorted(set(CASES) - {"item_of_vector"}))
def test_hessian_matches_differences_of_the_gradient(name):
    f, x = _case(name)
    np.testing.assert_allclose(s2s.hessian(f)(x.copy()), fd_hessian(lambda z: _plain(f, z), x), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_matches_the_plain_function(name):
    f, x = _case(name)
    mine, theirs = x.copy(), x.copy()
    assert s2s.jit(f)(mine) == pytest.approx(f(theirs), rel=1e-13)
    if name in STORES:  # the caller's array holds the store, as NumPy's does
        np.testing.assert_array_equal(mine, theirs)
        assert not np.array_equal(mine, x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_a_loop_over_the_rows(name):
    f, x = _case(name)
    xs = np.stack([x, x * 0.5 + 0.1, -x])
    mine, theirs = xs.copy(), xs.copy()
    want = np.array([f(row) for row in theirs])  # (each row a view of the batch, as NumPy's loop has it)
    np.testing.assert_allclose(s2s.vmap(f)(mine), want, rtol=1e-13)
    if name in STORES:
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs.copy()),
                               np.stack([fd_grad(lambda z: _plain(f, z), e) for e in xs]), rtol=1e-6, atol=1e-8)


def first_times_new(p):
    first = p[0]
    p[0] = p[0] * 3.0
    return first * p[0]


def test_a_list_keeps_its_old_item_and_an_array_its_view():
    """The same source on a list (first is the old item) and on a matrix (first is a view of row 0)."""
    assert s2s.jit(first_times_new)([1.0, 2.0]) == first_times_new([1.0, 2.0]) == 3.0
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    want = first_times_new(m.copy())
    np.testing.assert_array_equal(want, [9.0, 36.0])  # (row 0 tripled, seen through `first`)
    np.testing.assert_array_equal(s2s.jit(first_times_new)(m.copy()), want)
    np.testing.assert_allclose(s2s.jacrev(first_times_new)(m.copy()),
                               s2s.jacfwd(first_times_new)(m.copy()), rtol=1e-12)
    jac = np.zeros((2, 2, 2))
    jac[0, 0, 0], jac[1, 0, 1] = 18.0, 36.0  # d(9 m00^2)/dm00 at 1, d(9 m01^2)/dm01 at 2
    np.testing.assert_allclose(s2s.jacrev(first_times_new)(m.copy()), jac, rtol=1e-12)


def item_update(p):
    row = p[0]
    p[0] += 1.0                      # a list of arrays: the item itself changes, and row with it
    return np.sum(row * 2.0) + np.sum(p[0])


def write_through(x):
    v = x[1:]
    v *= 2.0                         # a list's slice is a copy: this leaves x
    return np.sum(x * x)


@pytest.mark.parametrize("f", [item_update, write_through])
def test_what_a_list_would_see_differently_stays_refused(f):
    with pytest.raises(s2s.S2SError, match="refers to"):
        s2s.grad(f)(M.copy())
    with pytest.raises(s2s.S2SError, match="refers to"):
        s2s.jit(f)([np.array([1.0, 2.0]), np.array([3.0, 4.0])])
