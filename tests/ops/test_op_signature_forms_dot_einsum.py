"""np.dot of N-d arrays and np.einsum's sublist form (issue 27, family 7): derivatives against
central differences of NumPy's own function, vmap against a Python loop."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError
from s2s.test_util import check_grads

RNG = np.random.default_rng(7)


def _n(*shape):
    return RNG.standard_normal(shape)


def dot(a, b):
    return np.dot(a, b)


def dot_method(a, b):
    return a.dot(b)


def dot_cubed(a, b):
    return np.sum(np.dot(a, b) ** 3)


DOT_SHAPES = [((2, 3, 4), (5, 4, 6)), ((3, 4), (5, 4, 2)), ((4,), (5, 4, 2)), ((2, 3, 4), (4,)),
              ((2, 3, 4), (4, 2)), ((3, 4), (4, 2)), ((2, 1, 3), (2, 2, 3, 2))]


@pytest.mark.parametrize("fn", [dot, dot_method, dot_cubed])
@pytest.mark.parametrize("shapes", DOT_SHAPES, ids=str)
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_dot_nd_derivatives(fn, shapes, mode):
    check_grads(fn, (_n(*shapes[0]), _n(*shapes[1])), order=2, modes=(mode,))


def test_dot_nd_grad_by_hand():
    a, b = _n(2, 3, 4), _n(5, 4, 6)
    w = _n(2, 3, 5, 6)
    ga, gb = s2s.grad(lambda a, b: np.sum(np.dot(a, b) * w), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, np.einsum("ijkm,klm->ijl", w, b))
    np.testing.assert_allclose(gb, np.einsum("ijkm,ijl->klm", w, a))


@pytest.mark.parametrize("shapes", [((2, 3, 4), (5, 4, 6)), ((3, 4), (5, 4, 2)), ((4, 3), (2, 3, 4))], ids=str)
def test_dot_nd_vmap_and_vmap_of_grad(shapes):
    xs, b = _n(3, *shapes[0]), _n(*shapes[1])
    got = s2s.vmap(dot, in_axes=(0, None))(xs, b)
    np.testing.assert_allclose(got, np.stack([np.dot(x, b) for x in xs]))
    bs, a = _n(3, *shapes[1]), _n(*shapes[0])
    np.testing.assert_allclose(s2s.vmap(dot, in_axes=(None, 0))(a, bs), np.stack([np.dot(a, y) for y in bs]))
    g = s2s.grad(dot_cubed, argnums=(0, 1))
    got = s2s.vmap(g, in_axes=(0, None))(xs, b)
    want = [g(x, b) for x in xs]
    for k in range(2):
        np.testing.assert_allclose(got[k], np.stack([w[k] for w in want]), rtol=1e-10, atol=1e-10)


def einsum_sub(a, b):
    return np.einsum(a, [0, 1], b, [1, 2], [0, 2])


def einsum_sub_implicit(a, b):
    return np.einsum(a, [0, 1], b, [1, 2])


def einsum_sub_trace(a):
    return np.einsum(a, [0, 0])


def einsum_sub_ellipsis(a, b):
    return np.einsum(a, [Ellipsis, 0, 1], b, [1, 2], [Ellipsis, 0, 2])


EINSUMS = [(einsum_sub, ((2, 3), (3, 4))), (einsum_sub_implicit, ((2, 3), (3, 4))), (einsum_sub_trace, ((3, 3),)),
           (einsum_sub_ellipsis, ((2, 2, 3), (3, 4)))]


@pytest.mark.parametrize("fn, shapes", EINSUMS, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_einsum_sublists_derivatives(fn, shapes, mode):
    check_grads(fn, tuple(_n(*s) for s in shapes), order=2, modes=(mode,))


@pytest.mark.parametrize("fn, shapes", EINSUMS, ids=lambda v: getattr(v, "__name__", ""))
def test_einsum_sublists_vmap(fn, shapes):
    args = [_n(3, *s) for s in shapes]
    got = s2s.vmap(fn)(*args)
    np.testing.assert_allclose(got, np.stack([fn(*ex) for ex in zip(*args)]), rtol=1e-12)


def test_einsum_sublist_in_a_local_assigned_once():  # (more forms: test_einsum_sublists_known.py)
    def f(a, b):
        sa = [0, 1]
        return np.sum(np.einsum(a, sa, b, [1, 2]) ** 2)
    a, b = _n(2, 3), _n(3, 4)
    np.testing.assert_allclose(s2s.grad(f)(a, b), 2 * (a @ b) @ b.T, rtol=1e-12)


def test_einsum_sublists_of_a_form_unknown_when_transforming_refused():
    def f(a, b):
        sa = list(range(2))
        return np.sum(np.einsum(a, sa, b, [1, 2]))
    with pytest.raises(S2SError, match="sublist form"):
        s2s.grad(f)(_n(2, 3), _n(3, 4))


def test_dot_nd_where_dot_and_matmul_shapes_agree_is_refused():
    # dot: (2, 2, 2) = a's rows, b's stack, b's columns; matmul: (2, 2, 2) = b's stack, a's rows, b's columns
    with pytest.raises(S2SError, match="np.dot from matmul"):
        s2s.grad(dot_cubed)(_n(2, 4), _n(2, 4, 2))
