"""Views of an array the function computed from a parameter (`a = x * 1.0`), which may be a number
by the source (issue 44, family 4; frontend/view_writes.py): a transpose, a reshape, `np.asarray(a)`
and a cast (`np.asarray(a, dtype=D)`, `a.astype(D, copy=False)`) are views of an array but copies of a
NumPy scalar. s2s follows them where a statement proves `a` an array (an item store `a[k] = v`, an
item or slice read, a reshape to a size other than 1: each raises for a number, as NumPy does), and
keeps the refusal where nothing does. Each accepted form is checked under grad, jvp, jacfwd, jacrev,
hessian, jit and vmap against the plain function (NumPy's views), central differences and a loop."""
import numpy as np
import pytest

import s2s
from tests.support.helpers_compare import fd_grad, fd_hessian


def reshape_then_scale(x):
    a = (x * 1.0).copy()
    v = a.reshape(4)                 # size 4: `a` is an array (a number's reshape raises)
    a *= 1.5                         # NumPy scales v too
    return np.sum(v * np.sin(x)) + np.sum(a ** 2)


def reshape_write_through(x):
    a = (x * 1.0).copy()
    v = np.reshape(a, (2, -1))
    a *= 2.0
    v[1] = np.tanh(x[:2])            # written into a's second half
    return np.sum(a ** 2) + np.sum(np.cos(v))


def cast_after_item_store(x):
    a = x * 1.0
    w = np.asarray(a, dtype=np.float64)   # a view where a is float64, as here
    a[0] = a[0] * 3.0                     # an item store: a is an array; w sees it
    return np.sum(a + 0.1 * w * x)


def astype_after_slice_write(x):
    a = x * 1.0
    u = a.astype(np.float64, copy=False)
    v = a[1:]
    v *= 2.0                              # a[1:] *= 2.0: u sees it
    return np.sum(np.sin(u) * x)


def transpose_after_store(m):
    a = m * 1.0
    t = a.T
    a[0, 1] = a[1, 0] * 3.0               # t[1, 0] too
    return np.sum(t * m) + np.sum(np.tanh(t[0]))


def asarray_after_update(x):
    a = x * 1.0
    w = np.asarray(a)                     # the same array
    a[1] += a[0] * a[2]
    return np.sum(w ** 2) + np.sum(a)


def after_a_loop(x):
    acc = x * 1.0
    for k in range(2):                    # acc is an array or a number after the loop, as before it
        acc = acc * 0.9 + 0.1 * np.tanh(acc)
    a = acc.copy()
    v = a.reshape(4)
    a *= 3.0
    return np.sum(acc + 0.2 * v * x)


def after_a_returning_branch(x):
    acc = x * 1.0
    if np.sum(acc) > 30.0:                # (the branch returns: after the `if`, acc is the one above)
        acc = acc * 2.0
        return np.sum(acc)
    a = acc.copy()
    v = a.reshape(2, 2)
    a *= -1.5
    return np.sum(acc + 0.2 * v.ravel() * x)


def after_a_tuple_assignment(x):
    acc = x * 1.0
    tb = acc * 3.0
    if np.sum(acc) > -2.0:
        acc, tb = tb * 0.5 + 0.5 * np.tanh(acc), acc   # each name's value an array or a number
    a = acc.copy()
    v = a.reshape(4)
    a *= 3.0
    return np.sum(acc + 0.2 * v * tb)


def times_a_reduction(x):
    acc = x * 1.0
    acc = acc * 0.9 + 0.1 * np.tanh(acc)[:4] * np.sum(x)   # (what np.sum returns, times an array)
    a = acc.copy()
    v = a.reshape(2, 2)
    a *= -1.5
    return np.sum(acc + 0.2 * v.ravel() * x)


X = np.array([0.3, -0.7, 1.1, 0.4])
M = np.array([[0.3, -0.7], [1.1, 0.4]])
CASES = {f.__name__: (f, x) for f, x in [
    (reshape_then_scale, X), (reshape_write_through, X), (cast_after_item_store, X),
    (astype_after_slice_write, X), (transpose_after_store, M), (asarray_after_update, X),
    (after_a_loop, X), (after_a_returning_branch, X), (after_a_tuple_assignment, X), (times_a_reduction, X)]}


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
def test_jacfwd_agrees_with_jacrev_and_differences(name):
    f, x = _case(name)
    fwd, rev = s2s.jacfwd(f)(x), s2s.jacrev(f)(x)
    np.testing.assert_allclose(fwd, rev, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fwd, fd_grad(f, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hessian_matches_differences_of_the_gradient(name):
    f, x = _case(name)
    np.testing.assert_allclose(s2s.hessian(f)(x), fd_hessian(f, x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_matches_the_plain_function_and_leaves_the_callers_array(name):
    f, x = _case(name)
    mine, theirs = x.copy(), x.copy()
    assert s2s.jit(f)(mine) == pytest.approx(f(theirs), rel=1e-13)
    np.testing.assert_array_equal(mine, theirs)  # (NumPy leaves it: each function copies first)
    np.testing.assert_array_equal(mine, x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_a_loop(name):
    f, x = _case(name)
    xs = np.stack([x, x * 0.5 + 0.1, -x])
    before = xs.copy()
    want = np.array([f(e.copy()) for e in xs])
    np.testing.assert_allclose(s2s.vmap(f)(xs), want, rtol=1e-13)
    np.testing.assert_array_equal(xs, before)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), np.stack([fd_grad(f, e) for e in xs]), rtol=1e-6,
                               atol=1e-8)


def test_the_fuzzers_view_forms_are_accepted():
    """The two forms the `--views` campaign drew refused most (seed 7101: 54 of 217 programs)."""
    def form0(x):
        acc = x * 1.0
        a = acc.copy()
        v = a.reshape(4)
        a *= 0.8
        return np.sum((acc + 0.2 * v * np.tanh(x)) ** 2)

    def form1(x):
        a = x * 1.0
        v = a[1:]
        v *= 0.5 + 0.1 * np.sum(x)
        w = np.asarray(a, dtype=np.float64)
        a[0] = a[0] * 1.3
        return np.sum((a + 0.1 * w) ** 2)

    for f in (form0, form1):
        x = X.copy()
        np.testing.assert_allclose(s2s.grad(f)(x), fd_grad(f, x), rtol=1e-6, atol=1e-8)
        assert s2s.jit(f)(x) == pytest.approx(f(x.copy()), rel=1e-13)


# ---- what a number would see differently stays refused, or raises where NumPy raises

def reshape_unsized(x):
    a = x * 1.0
    v = a.reshape(-1)                # of a NumPy scalar: a new array, which `a *= 2.0` leaves
    a *= 2.0
    return np.sum(v * x)


def transpose_written(m):
    a = m * 1.0
    t = a.T                          # of a NumPy scalar: the scalar; `t *= 2.0` binds t anew
    t *= 2.0
    return np.sum(a * m)


def ellipsis_view(x):
    a = x * 1.0
    v = a[...]                       # of a NumPy scalar: a new 0-d array
    v *= 2.0
    return np.sum(a + v)


@pytest.mark.parametrize("f", [reshape_unsized, transpose_written, ellipsis_view])
@pytest.mark.parametrize("transform", [s2s.grad, s2s.jit, s2s.vmap])
def test_a_view_of_what_may_be_a_number_stays_refused(f, transform):
    """NumPy's answer differs for a number and an array here, and nothing in the function says
    which `a` is: s2s refuses, with the advice to copy, rather than pick one."""
    arg = np.stack([M, M]) if transform is s2s.vmap else M.copy()
    with pytest.raises(s2s.S2SError, match="a copy where it is bound"):
        transform(f)(arg)


def test_a_number_raises_where_numpy_raises():
    """The item store that makes a cast followed raises for a NumPy scalar, in NumPy and in every
    transform: never a number."""
    x = np.float64(0.3)
    with pytest.raises(IndexError):
        cast_after_item_store(x)
    for transform in (s2s.jit, s2s.grad):
        with pytest.raises(IndexError):
            transform(cast_after_item_store)(x)


def test_the_reshape_proof_needs_a_size_other_than_one():
    """`a.reshape(1)` of a NumPy scalar works (a new array), so it proves nothing: still refused."""
    def reshape_one(x):
        a = x * 1.0
        v = a.reshape(1)
        a *= 2.0
        return np.sum(v) + np.sum(a)

    assert reshape_one(np.float64(0.5)) == pytest.approx(1.5)  # NumPy: v keeps 0.5
    with pytest.raises(s2s.S2SError, match="a copy where it is bound"):
        s2s.grad(reshape_one)(np.array([0.5]))
