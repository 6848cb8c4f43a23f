"""A list or tuple of numbers with a NumPy array operand: NumPy's operator takes the list first
and broadcasts it, so `[1.0, 2.0] * x` is elementwise, not a repetition (nor `(1.0, 2.0) + x` a
concatenation). Every transform gave zero derivatives there (rt.operand_cotangent took any list operand as
a sequence operation); each value is checked against the hand-derived derivative."""
import numpy as np
import pytest

import s2s


def mul_left(x):
    c = [1.0, 2.0]
    return np.sum(c * x)


def mul_right(x):
    c = [1.0, 2.0]
    return np.sum(x * c)


def add_left(x):
    c = [1.0, 2.0]
    return np.sum((c + x) ** 2)


def add_right(x):
    c = (1.0, 2.0)
    return np.sum((x + c) ** 2)


def list_argument(x, c):
    return np.sum(c * x + c)


C = np.array([1.0, 2.0])
X = np.array([0.5, 3.0])
HAND = {mul_left: lambda x: C, mul_right: lambda x: C, add_left: lambda x: 2 * (x + C), add_right: lambda x: 2 * (x + C)}


def _derivatives(f, x):
    basis = np.eye(x.size)
    return {"grad": s2s.grad(f)(x), "jit(grad)": s2s.jit(s2s.grad(f))(x),
            "jvp": np.array([s2s.jvp(f, (x,), (e,))[1] for e in basis]), "vjp": s2s.vjp(f, x)[1](1.0)[0],
            "jacfwd": s2s.jacfwd(f)(x), "jacrev": s2s.jacrev(f)(x),
            "vmap(grad)": s2s.vmap(s2s.grad(f))(np.stack([x, 2 * x]))[0]}


@pytest.mark.parametrize("f", list(HAND), ids=lambda f: f.__name__)
def test_every_transform_broadcasts_the_list(f):
    for name, got in _derivatives(f, X).items():
        np.testing.assert_allclose(got, HAND[f](X), rtol=1e-14, err_msg=name)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(np.stack([X, 2 * X]))[1], HAND[f](2 * X), rtol=1e-14)


@pytest.mark.parametrize("f", list(HAND), ids=lambda f: f.__name__)
def test_hessian_of_the_broadcast(f):
    want = np.zeros((2, 2)) if f in (mul_left, mul_right) else 2 * np.eye(2)
    np.testing.assert_allclose(s2s.hessian(f)(X), want, atol=1e-14)


def test_a_list_argument_with_an_array():
    np.testing.assert_allclose(s2s.grad(list_argument)(X, [1.0, 2.0]), C, rtol=1e-14)
    np.testing.assert_allclose(s2s.grad(list_argument)(X, (1.0, 2.0)), C, rtol=1e-14)


def test_repetition_and_concatenation_stay_what_they_are():
    def rep(x):
        lst = [x] * 3
        return np.sum(lst[0] * lst[2]) + len(lst)

    def cat(x):
        lst = [x] + [x * 2.0]
        return np.sum(lst[1] * lst[0])
    np.testing.assert_allclose(s2s.grad(rep)(X), 2 * X, rtol=1e-14)
    np.testing.assert_allclose(s2s.grad(cat)(X), 4 * X, rtol=1e-14)
