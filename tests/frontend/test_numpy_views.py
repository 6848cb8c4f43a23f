"""NumPy's views are views (issue 44, family 4): s2s decides view or copy as NumPy does (the
operation's rule, `copy=False`, the dtype; a case it cannot decide counts as a view), so a program
either gets NumPy's numbers and their derivative, or an S2SError at the in-place update another
name would see. Derivatives are checked against central differences of the plain function, jvp
against vjp, vmap of grad against a loop, and values against the plain function."""
import numpy as np
import pytest
from helpers_compare import fd_grad as central  # (central differences)

import s2s
from s2s import S2SError

M = np.array([[0.3, -0.7, 1.1], [0.5, 1.5, -0.2], [2.0, 0.25, -1.3]])
V = np.array([0.3, -0.7, 1.1, 0.45])
WEIGHTS = np.arange(9.0).reshape(3, 3) - 2.5


def rows_swapped(A):
    A = A * 1.0
    A[0], A[1] = A[1], A[0]  # rows are views: both become row 1
    return np.sum(A * WEIGHTS)


def columns_swapped(A):
    A = np.sin(A)
    A[:, 0], A[:, 2] = A[:, 2], A[:, 0]
    return np.sum(A * WEIGHTS)


def rows_rotated(A):
    A = A * 2.0
    A[0], A[1], A[2] = A[1], A[2], A[0]
    return np.sum(A * WEIGHTS)


def elements_swapped(A):
    v = A[0] * 1.0
    v[0], v[2] = v[2], v[0]  # elements are copies: a swap
    return np.sum(v * np.array([1.0, 2.0, 3.0]))


def fancy_rows_swapped(A):
    A = A * 1.0
    A[[0]], A[[1]] = A[[1]], A[[0]]  # advanced indexing copies: a swap
    return np.sum(A * WEIGHTS)


SWAPS = [rows_swapped, columns_swapped, rows_rotated, elements_swapped, fancy_rows_swapped]


@pytest.mark.parametrize("f", SWAPS, ids=lambda f: f.__name__)
def test_tuple_assignment_reads_views_as_numpy(f):
    np.testing.assert_allclose(s2s.grad(f)(M), central(f, M), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jit(f)(M), f(M), rtol=1e-12)
    np.testing.assert_allclose(s2s.value_and_grad(f)(M)[0], f(M), rtol=1e-12)
    t = np.cos(M)
    np.testing.assert_allclose(s2s.jvp(f, (M,), (t,))[1], np.sum(s2s.grad(f)(M) * t), rtol=1e-10)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(M), s2s.grad(f)(M), rtol=1e-12)


@pytest.mark.parametrize("f", SWAPS, ids=lambda f: f.__name__)
def test_vmap_of_grad_of_a_tuple_assignment_equals_a_loop(f):
    batch = np.stack([M, M * 0.5 - 0.1])
    got = s2s.vmap(s2s.grad(f))(batch)
    for k, x in enumerate(batch):
        np.testing.assert_allclose(got[k], central(f, x), rtol=1e-6, atol=1e-8)


def list_of_rows(A):
    A = A * 1.0
    rows = list(A)
    A[0] = 0.0  # rows[0] is a view of A's row 0: it changes too
    return np.sum(rows[0] * A[1])


def astype_no_copy(v):
    b = v * 1.0
    c = b.astype(np.float64, copy=False)
    b *= 2
    return np.sum(c * v)


def asarray_same_dtype(v):
    b = v * 1.0
    c = np.asarray(b, dtype=np.float64)
    b *= 2
    return np.sum(c * v)


def broadcast_first(v):
    b = v * 1.0
    c, _ = np.broadcast_arrays(b, 1.0)
    b *= 2
    return np.sum(c * v)


def broadcast_second(v):
    b = v * 1.0
    _, c = np.broadcast_arrays(1.0, b)
    b *= 2
    return np.sum(c * v)


def array_no_copy(v):
    b = v * 1.0
    c = np.array(b, copy=False)
    b += 1.0
    return np.sum(c * v)


@pytest.mark.parametrize("f", [list_of_rows, astype_no_copy, asarray_same_dtype, broadcast_first, broadcast_second,
                               array_no_copy], ids=lambda f: f.__name__)
def test_an_update_another_view_sees_is_refused(f):
    x = M if f is list_of_rows else V
    with pytest.raises(S2SError, match=r"test_numpy_views\.py:\d+"):
        s2s.grad(f)(x)


def astype_copies(v):
    b = v * 1.0
    c = b.astype(np.float64)  # copy=True: NumPy's default
    b *= 2
    return np.sum(c * v * b)


def array_copies(v):
    b = v * 1.0
    c = np.array(b)
    b *= 3
    return np.sum(c * b)


def list_of_a_list(v):
    parts = [v * 1.0, v * 2.0]
    copy = list(parts)
    parts[0] = v * 5.0  # a new item in `parts`: `copy` keeps the old one
    return np.sum(copy[0] * parts[0])


@pytest.mark.parametrize("f", [astype_copies, array_copies, list_of_a_list], ids=lambda f: f.__name__)
def test_copies_stay_copies(f):
    np.testing.assert_allclose(s2s.grad(f)(V), central(f, V), rtol=1e-6, atol=1e-8)


def shuffle_global(v):
    b = v * np.arange(1.0, 5.0)
    np.random.shuffle(b)
    return np.sum(b * np.array([1.0, -2.0, 3.0, 0.5]))


RS = np.random.RandomState(3)


def shuffle_state(v):
    b = np.outer(v, v[:2])  # rows move whole
    RS.shuffle(b)
    return np.sum(b * np.arange(8.0).reshape(4, 2))


def shuffle_local_generator(v):
    rng = np.random.default_rng(7)
    b = np.sin(v)
    rng.shuffle(b)
    return np.sum(b * np.array([1.0, -2.0, 3.0, 0.5]))


@pytest.mark.parametrize("f", [shuffle_global, shuffle_state, shuffle_local_generator], ids=lambda f: f.__name__)
def test_shuffle_permutes_what_it_differentiates(f):
    def reseeded(v):
        np.random.seed(5)
        RS.seed(3)
        return f(v)

    np.random.seed(5)
    RS.seed(3)
    got = s2s.grad(f)(V)
    after = (np.random.rand(), RS.rand())
    np.random.seed(5)
    RS.seed(3)
    value = f(V)
    assert (np.random.rand(), RS.rand()) == after  # the same draws as the plain function
    np.testing.assert_allclose(got, central(reseeded, V), rtol=1e-6, atol=1e-8)
    np.random.seed(5)
    RS.seed(3)
    assert s2s.value_and_grad(f)(V)[0] == value


def test_shuffle_of_a_view_that_is_read_later_is_refused():
    def f(v):
        b = v * 1.0
        head = b[:2]
        np.random.shuffle(b)
        return np.sum(head * v[:2])

    with pytest.raises(S2SError, match=r"test_numpy_views\.py:\d+"):
        s2s.grad(f)(V)
