"""vmap of grad where the gradient's record runs under per-example control flow: it runs as the
gradient of the sum of the batched function, checked against a loop of grad over examples."""

import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def newton(a, c):
    y = a
    while np.abs(y * y - a) > 1e-10:
        y = 0.5 * (y + a / y)
    return y * c


def piecewise(w, x):
    if np.dot(w, x) > 0:
        out = np.sum(np.sin(w * x))
    else:
        out = np.sum(w * w * x)
    return out, np.dot(w, x)


def _loop(g, *args, axes):
    n = next(np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None)
    outs = [g(*[a if ax is None else np.take(a, k, axis=ax) for a, ax in zip(args, axes)]) for k in range(n)]
    return outs


def _close(got, want):
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            _close(g, w)
        return
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


A = np.array([0.25, 2.0, 9.0, 1e4])


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_while_per_example_trip_counts(argnums):
    c = np.array([1.0, -2.0, 0.5, 3.0])
    g = s2s.grad(newton, argnums=argnums)
    got = s2s.vmap(g)(A, c)
    outs = _loop(g, A, c, axes=(0, 0))
    want = tuple(np.stack(o) for o in zip(*outs)) if isinstance(argnums, tuple) else np.stack(outs)
    _close(got, want)


def test_unmapped_differentiated_argument_gets_per_example_gradients():
    g = s2s.grad(newton, argnums=1)
    got = s2s.vmap(g, in_axes=(0, None))(A, 2.0)
    np.testing.assert_allclose(got, np.sqrt(A), rtol=1e-10)


def test_has_aux_and_value_and_grad_and_jit():
    rng = np.random.default_rng(0)
    w, xs = rng.normal(size=3), rng.normal(size=(6, 3))
    for t in (s2s.grad(piecewise, has_aux=True), s2s.value_and_grad(piecewise, has_aux=True)):
        want = _loop(t, w, xs, axes=(None, 0))
        for f in (s2s.vmap(t, in_axes=(None, 0)), s2s.jit(s2s.vmap(t, in_axes=(None, 0)))):
            got = f(w, xs)
            if t.kind == "grad":
                _close(got, (np.stack([o[0] for o in want]), np.stack([o[1] for o in want])))
            else:
                _close(got[1], np.stack([o[1] for o in want]))
                _close(got[0][0], np.stack([o[0][0] for o in want]))


def test_in_axes_and_out_axes():
    rng = np.random.default_rng(1)
    w, xs = rng.normal(size=3), rng.normal(size=(3, 6))
    t = s2s.grad(piecewise, has_aux=True)
    want = _loop(t, w, xs, axes=(None, 1))
    g, aux = s2s.vmap(t, in_axes=(None, 1), out_axes=(1, 0))(w, xs)
    _close(g, np.stack([o[0] for o in want], axis=1))
    _close(aux, np.stack([o[1] for o in want]))


def test_non_scalar_output_is_an_error():
    def vec(x):
        if x[0] > 0:
            return x * 2.0
        return x
    with pytest.raises(s2s.S2SError):
        s2s.vmap(s2s.grad(vec))(np.ones((3, 2)))


def test_derivative_of_the_per_example_gradients():
    g = s2s.vmap(s2s.grad(newton), in_axes=(0, None))
    check_grads(lambda a: np.sum(g(a, 1.5)), (A[:3],), order=1)


def tanh3(x):
    return np.sum(np.tanh(x) ** 3)


def vector_out(x):
    return np.tanh(x) * x[0]


@pytest.mark.parametrize("n", [1, 3, 12])
def test_hessian_of_a_sum_of_cubed_tanh_is_the_hand_diagonal(n):
    x = np.random.default_rng(n).normal(size=n)
    t = np.tanh(x)
    want = np.diag((6.0 * t - 12.0 * t ** 3) * (1.0 - t * t))
    h = s2s.hessian(tanh3)
    np.testing.assert_allclose(h(x), want, rtol=1e-10, atol=1e-12)
    check_grads(lambda v: np.sum(h(v)), (x,), order=1)  # composes


def test_hessian_of_a_vector_function_falls_back_to_jacfwd_of_jacrev():
    x = np.array([0.3, -0.7, 1.1])
    got = s2s.hessian(vector_out)(x)
    want = s2s.jacfwd(s2s.jacfwd(vector_out))(x)
    assert got.shape == (3, 3, 3)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
