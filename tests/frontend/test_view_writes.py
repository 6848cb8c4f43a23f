"""Writes through NumPy views (issue 44, family 4; frontend/view_writes.py): `row = M[i]; row *= 2`
changes `M`, `head = a[:2]; head[0] = v` changes `a`, and a write on the base changes its views.
Each form runs under grad, jvp, hessian, jit and vmap and is checked against the plain function
(which NumPy runs with views), central differences, and a loop over examples. Forms whose layout s2s
cannot know stay refused, exactly as before."""
import numpy as np
import pytest

import s2s
from tests.support.helpers_compare import fd_grad, fd_hessian


def row_scale(M):
    M = M * 1.0                      # a 2-d array here: M[i] is a view (vmap: each example's row)
    i = 1
    row = M[i]
    row *= 2.0
    return np.sum(np.sin(M)) + np.sum(row ** 2)


def row_of_known_rank(x):
    M = np.outer(x, x[:2]) + 0.5     # rank 2 by the source
    row = M[0]
    row += x[1:3] * 3.0
    row[1] = M[1, 0] * row[0]
    return np.sum(np.tanh(M)) + np.sum(row)


def head_store(a):
    a = a + 0.0
    head = a[:2]
    head[0] = a[2] * 3.0
    return np.sum(a * head[1]) + np.sum(head ** 2)


def base_write(M):
    M = M * 1.0
    row = M[0]
    M[0, 1] = M[1, 0] * 2.0
    M *= 1.5
    return np.sum(row * M[1])


def transposed(M):
    M = np.array(M)
    t = M.T
    t[0] = M[1] * 3.0
    t *= 1.5
    return np.sum(np.sin(M) * t.T) + np.sum(t[1])


def reshaped(x):
    a = np.asarray(x).copy()
    v = a.reshape(2, 2)
    a *= 2.0
    v[1] = np.tanh(x[:2])
    return np.sum(a ** 2) + np.sum(np.cos(v))


def rows_in_loop(M):
    M = M * 1.0
    for i in range(M.shape[0]):
        row = M[i]
        row *= (i + 1.0)
        row[0] = row[1] * row[0]
    return np.sum(M ** 2)


def column(M):
    M = M * 1.0
    c = M[:, 1]
    c += M[:, 0]
    M[0] *= 2.0
    return np.sum(c * M[1])


def strided(a):
    a = a * 1.0
    ev = a[::2]
    ev[1] = np.sin(a[1])             # not composable by hand: the view's copy, stored back
    return np.sum(a ** 2) + np.sum(ev)


def item_of_vector(a):
    a = a * 1.0
    v = a[0]                         # a 1-d array's item is a number, not a view
    v *= 3.0
    return np.sum(a) + v


def cast_view(x):
    m = np.outer(x, np.cos(x))       # float64: astype(copy=False) of its own dtype is a view
    m[0], m[1] = m[1], m[0]
    u = m.astype(np.float64, copy=False)
    m *= 0.5
    return np.sum(x * m[0]) + np.sum(u[2] ** 2)


def cast_copy(x):
    m = np.outer(x, x).astype(np.float32)
    u = np.asarray(m, dtype=np.float64)  # a copy: float32 is not float64, so u keeps the old values
    m *= 2.0
    return np.sum(u) + 0.1 * np.sum(m)


X = np.array([0.3, -0.7, 1.1, 0.4])
M = np.array([[0.3, -0.7], [1.1, 0.4]])
CASES = {"row_scale": (row_scale, M), "row_of_known_rank": (row_of_known_rank, X),
         "head_store": (head_store, X), "base_write": (base_write, M), "transposed": (transposed, M),
         "reshaped": (reshaped, X), "rows_in_loop": (rows_in_loop, M), "column": (column, M),
         "strided": (strided, X), "item_of_vector": (item_of_vector, X), "cast_view": (cast_view, X)}


def _case(name):
    f, x = CASES[name]
    return f, x.copy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_matches_central_differences(name):
    f, x = _case(name)
    np.testing.assert_allclose(s2s.grad(f)(x), fd_grad(f, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_matches_central_differences(name):
    f, x = _case(name)
    t = np.linspace(0.2, 0.9, x.size).reshape(x.shape)
    value, tangent = s2s.jvp(f, (x,), (t,))
    assert value == pytest.approx(f(x.copy()), rel=1e-13)
    assert tangent == pytest.approx(np.sum(fd_grad(f, x) * t), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hessian_matches_differences_of_the_gradient(name):
    f, x = _case(name)
    np.testing.assert_allclose(s2s.hessian(f)(x), fd_hessian(f, x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_matches_the_plain_function(name):
    f, x = _case(name)
    assert s2s.jit(f)(x) == pytest.approx(f(x.copy()), rel=1e-13)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_a_loop_and_leaves_the_batch_alone(name):
    f, x = _case(name)
    xs = np.stack([x, x * 0.5 + 0.1, -x])
    before = xs.copy()
    want = np.array([f(e.copy()) for e in xs])
    np.testing.assert_allclose(s2s.vmap(f)(xs), want, rtol=1e-13)
    np.testing.assert_array_equal(xs, before)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), np.stack([fd_grad(f, e) for e in xs]), rtol=1e-6,
                               atol=1e-8)


def test_the_write_lands_on_the_base_in_the_generated_code():
    """`row *= 2.0` is written `M[i] *= 2.0` and the row taken again: jit's code holds no copy."""
    src = s2s.source(s2s.jit(head_store))
    assert ".copy()" not in src and "xp.copy" not in src


def param_view(x):
    row = x[1:]                      # a parameter: it may be a list, whose slice is a copy
    row *= 2.0
    return np.sum(x) + np.sum(row)


def view_in_branch(M):
    M = M * 1.0
    if M[0, 0] > 0:
        row = M[0]
    else:
        row = M[1]
    row *= 2.0                       # bound in a branch: not followed
    return np.sum(M) + np.sum(row)


@pytest.mark.parametrize("f, x", [(param_view, X), (view_in_branch, M)])
def test_what_cannot_be_followed_stays_refused(f, x):
    with pytest.raises(s2s.S2SError, match="a copy where it is bound"):
        s2s.grad(f)(x.copy())


def test_a_cast_that_copies_keeps_the_old_values():
    """np.asarray(m, dtype=np.float64) of a float32 array is a copy: m's update does not reach it."""
    x = X.copy()
    assert s2s.jit(cast_copy)(x) == pytest.approx(cast_copy(x.copy()), rel=1e-6)
    g = 2 * np.sum(x) * np.ones_like(x) * (1.0 + 0.2)  # d/dx of sum(outer(x, x)) * (1 + 0.1 * 2)
    np.testing.assert_allclose(s2s.grad(cast_copy)(x), g, rtol=1e-6)


def rebound_index(M):
    M = M * 1.0
    i = 1
    row = M[i]
    i = 0                            # taking `row` again would read another row: not followed
    M[1, 0] = 5.0
    return np.sum(row) + np.sum(M)


def helper(v):
    v *= 2.0
    return v


def passed_on(M):
    M = M * 1.0
    row = M[0]
    helper(row)                      # a function that may write into it: not followed
    M[1, 0] = 5.0
    return np.sum(row) + np.sum(M)


@pytest.mark.parametrize("f", [rebound_index, passed_on])
def test_a_view_that_cannot_be_taken_again_stays_refused(f):
    with pytest.raises(s2s.S2SError):
        s2s.grad(f)(M.copy())


def item_store_of_number(a):
    a = a * 1.0
    v = a[0]                         # a number where a is a vector
    v[0] = 2.0
    return np.sum(a)


def test_an_item_store_into_a_number_raises_pythons_error():
    with pytest.raises(TypeError):
        item_store_of_number(X.copy())
    with pytest.raises(TypeError):
        s2s.grad(item_store_of_number)(X.copy())
