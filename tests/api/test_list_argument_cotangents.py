"""A (nested) list or tuple of numbers given where NumPy reads an array gets its cotangent in the
same structure from grad, value_and_grad and vjp (at any order, and from s2s.vjp called inside a
transformed function), as JAX does for a list (a pytree) and autograd's tests expect
(test_numpy.py's test_simple_append_list). Values are checked against central differences of
NumPy's own function, element by element."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def _fd(f, x, eps=1e-6):
    """Central differences of scalar f at the nested list x, in x's structure."""
    flat = np.asarray(x, dtype=float)
    out = np.zeros_like(flat)
    for i in np.ndindex(flat.shape):
        up, down = flat.copy(), flat.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (f(up.tolist()) - f(down.tolist())) / (2 * eps)
    return out


def _same_structure(got, like):
    """Whether `got` has `like`'s lists and tuples all the way down to numbers."""
    if type(like) in (list, tuple):
        return type(got) is type(like) and len(got) == len(like) and all(map(_same_structure, got, like))
    return np.ndim(got) == 0


def sum_sin(a):
    return np.sum(np.sin(a) * np.arange(1.0, 1.0 + np.size(a)).reshape(np.shape(a)))


def appended(a, b):
    return np.sum(np.append(a, b, axis=0) ** 3)


def through_array(a):
    return np.sum(np.exp(np.array(a)) * 0.5)


@pytest.mark.parametrize("f", [sum_sin, through_array])
@pytest.mark.parametrize("x", [[0.3, -1.2, 2.0], [[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]], (0.7, -0.2)],
                         ids=["list", "list_of_lists", "tuple"])
def test_grad_of_a_list_is_a_list(f, x):
    got = s2s.grad(f)(x)
    assert _same_structure(got, x), f"{got!r} has not the structure of {x!r}"
    np.testing.assert_allclose(np.asarray(got), _fd(f, x), rtol=1e-6, atol=1e-8)


def test_value_and_grad_and_argnums_keep_each_structure():
    a, b = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0]]
    value, (ga, gb) = s2s.value_and_grad(appended, argnums=(0, 1))(a, b)
    assert value == pytest.approx(appended(a, b))
    assert _same_structure(ga, a) and _same_structure(gb, b)
    np.testing.assert_allclose(np.asarray(ga), _fd(lambda t: appended(t, b), a), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gb), _fd(lambda t: appended(a, t), b), rtol=1e-6)
    arr = np.array(b)  # an array argument keeps its array cotangent
    ga2, gb2 = s2s.grad(appended, argnums=(0, 1))(a, arr)
    assert _same_structure(ga2, a) and isinstance(gb2, np.ndarray) and gb2.shape == arr.shape


def test_vjp_cotangents_of_list_primals():
    a, b = [1.0, 2.0, 3.0], 4.0
    out, pull = s2s.vjp(lambda a, b: np.append(a, b) * 2.0, a, b)
    ca, cb = pull(np.array([1.0, 10.0, 100.0, 1000.0]))
    assert _same_structure(ca, a) and np.ndim(cb) == 0
    np.testing.assert_allclose(np.asarray(ca), [2.0, 20.0, 200.0])
    assert cb == pytest.approx(2000.0)


def append_flat(a, b):
    return np.append(a, b)


def append_rows(a, b):
    return np.append(a, b, axis=0)


@pytest.mark.parametrize("f, args", [(append_flat, ([1.0, 2.0, 3.0], 4.0)),
                                     (append_rows, ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0]]))],
                         ids=["list", "list_of_lists"])
def test_check_grads_of_append_at_order_2(f, args):
    """VJP of VJP (the pullback as a function of the primals, transformed again): its cotangents
    keep the lists' structure at each order (s2s's check_grads checks the structure)."""
    check_grads(f, args, order=2, modes=["rev", "fwd"])


def vjp_inside(a, v):
    out, pull = s2s.vjp(lambda t: np.sin(np.asarray(t)) * 3.0, a)
    return pull(v)[0]


def test_vjp_called_inside_gives_the_list_structure():
    a, v = [0.5, -1.0], np.array([1.0, 2.0])
    got = s2s.jit(vjp_inside)(a, v)
    assert _same_structure(got, a)
    np.testing.assert_allclose(np.asarray(got), 3.0 * np.cos(a) * v)
    tangent = s2s.jvp(vjp_inside, (a, v), ([1.0, 0.0], np.zeros(2)))[1]
    assert _same_structure(tangent, a)
    np.testing.assert_allclose(np.asarray(tangent), [-3.0 * np.sin(0.5) * 1.0, 0.0])
