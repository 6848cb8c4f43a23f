"""Closures under vmap (issue 27, family 1). JAX's rule: a variable a vmapped function closes over
is not mapped by that vmap; it is batched only when it holds a value an enclosing vmap batches.
Every result is checked against an independent reference: a Python loop over the examples, the
plain function (jit(f) == f), and central finite differences (check_grads)."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def kern(a, b):
    return np.exp(-np.sum((a - b) ** 2))


def loss_dot(w, xs):
    return np.sum(s2s.vmap(lambda x: np.dot(w, x) ** 2)(xs))


def loss_local(w, xs):
    w2 = np.tanh(w) * 2.0
    return np.sum(s2s.vmap(lambda x: np.sin(np.dot(w2, x)) * w2[0])(xs))


def loss_def(w, xs, b):
    def row(x):
        return np.sum(w * x) + b

    return np.sum(s2s.vmap(row)(xs) ** 2)


def loss_axes(w, xs, y):
    return np.sum(s2s.vmap(lambda x, c: np.sum(w * x * c), in_axes=(0, None))(xs, y))


def loss_axes_list(w, xs, ys):
    return np.sum(s2s.vmap(lambda x, c: np.sum(w * x * c), [0, 1])(xs, ys))


def gram(xs):
    return s2s.vmap(lambda a: s2s.vmap(lambda b: kern(a, b))(xs))(xs)


def gram2(xs, zs):
    return s2s.vmap(lambda a: s2s.vmap(lambda b: kern(a, b))(zs))(xs)


def gram_loss(xs, zs, s):
    return np.sum(gram2(xs * s, zs) ** 2)


def row_sum(a, xs):
    return np.sum(s2s.vmap(lambda b: kern(a, b))(xs))


def vmap_of_grad_closure(w, xs):
    return np.sum(s2s.vmap(lambda x: s2s.grad(lambda u: np.sum(np.sin(u * w)))(x))(xs))


def closure_in_jit(w, xs):
    return np.sum(s2s.jit(lambda x: np.cos(x * w))(xs))


def _loop_gram(xs, zs):
    return np.array([[kern(a, b) for b in zs] for a in xs])


RNG = np.random.default_rng(27)
W = RNG.standard_normal(3)
XS = RNG.standard_normal((4, 3))
Y = RNG.standard_normal(3)
YS = RNG.standard_normal((3, 4))


def _loop_value(name):
    """The same numbers computed by a Python loop over the examples (no s2s)."""
    if name == "loss_dot":
        return sum(np.dot(W, x) ** 2 for x in XS)
    if name == "loss_local":
        w2 = np.tanh(W) * 2.0
        return sum(np.sin(np.dot(w2, x)) * w2[0] for x in XS)
    if name == "loss_def":
        return sum((np.sum(W * x) + 0.5) ** 2 for x in XS)
    if name == "loss_axes":
        return sum(np.sum(W * x * Y) for x in XS)
    if name == "loss_axes_list":
        return sum(np.sum(W * XS[i] * YS[:, i]) for i in range(4))
    raise KeyError(name)


CASES = {
    "loss_dot": (loss_dot, (W, XS)),
    "loss_local": (loss_local, (W, XS)),
    "loss_def": (loss_def, (W, XS, 0.5)),
    "loss_axes": (loss_axes, (W, XS, Y)),
    "loss_axes_list": (loss_axes_list, (W, XS, YS)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_closure_value_plain_and_jit(name):
    f, args = CASES[name]
    want = _loop_value(name)
    np.testing.assert_allclose(f(*args), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(f)(*args), want, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_closure_grad_matches_finite_differences(name):
    f, args = CASES[name]
    check_grads(f, args, order=2, modes=("rev", "fwd"))


def test_issue_example_numbers():
    xs = np.arange(9.0).reshape(3, 3)
    w = np.array([1.0, 10.0, 100.0])
    assert s2s.jit(loss_dot)(w, xs) == 1106325.0
    np.testing.assert_allclose(s2s.grad(loss_dot)(w, xs), [13770.0, 17028.0, 20286.0])
    v, g = s2s.value_and_grad(loss_dot)(w, xs)
    assert v == 1106325.0
    np.testing.assert_allclose(g, [13770.0, 17028.0, 20286.0])


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 5), (1, 3)])
def test_gram_matrix_square_and_not(shape):
    xs = RNG.standard_normal(shape)
    got = gram(xs)
    assert got.shape == (shape[0], shape[0])
    np.testing.assert_allclose(got, _loop_gram(xs, xs), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(gram)(xs), _loop_gram(xs, xs), rtol=1e-12)


@pytest.mark.parametrize("n, m", [(3, 3), (4, 2), (2, 5)])
def test_gram_two_sets(n, m):
    xs, zs = RNG.standard_normal((n, 2)), RNG.standard_normal((m, 2))
    got = gram2(xs, zs)
    assert got.shape == (n, m)
    np.testing.assert_allclose(got, _loop_gram(xs, zs), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(gram2)(xs, zs), _loop_gram(xs, zs), rtol=1e-12)


def test_gram_grad_matches_finite_differences():
    xs, zs = RNG.standard_normal((3, 2)) * 0.5, RNG.standard_normal((4, 2)) * 0.5
    want = np.sum(_loop_gram(xs * 1.3, zs) ** 2)
    np.testing.assert_allclose(gram_loss(xs, zs, 1.3), want, rtol=1e-12)
    check_grads(gram_loss, (xs, zs, 1.3), order=2, modes=("rev", "fwd"))
    h = s2s.hessian(gram_loss, 2)(xs, zs, 1.3)
    np.testing.assert_allclose(h, s2s.jacrev(s2s.grad(gram_loss, 2), 2)(xs, zs, 1.3), rtol=1e-9)


def outer_with_nested(x, y):
    """A vmap of a function that itself runs the pairwise idiom: three levels of batching."""
    pa, pb = np.stack([x, y]), np.stack([x, y, x * y]) * 0.7
    gm = s2s.vmap(lambda a: s2s.vmap(lambda q: np.sum(np.tanh(a * q + x)))(pb))(pa)
    return np.sum(gm, axis=1)


def test_vmap_of_nested_vmap():
    xs, ys = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    want = np.stack([outer_with_nested(a, b) for a, b in zip(xs, ys)])
    for a, b, w in zip(xs, ys, want):  # the loop itself against plain NumPy
        pa, pb = np.stack([a, b]), np.stack([a, b, a * b]) * 0.7
        np.testing.assert_allclose(w, [sum(np.sum(np.tanh(p * q + a)) for q in pb) for p in pa], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(outer_with_nested)(xs, ys), want, rtol=1e-12)
    check_grads(lambda x, y: np.sum(outer_with_nested(x, y) ** 2), (xs[0], ys[0]), order=2, modes=("rev", "fwd"))


def test_free_variable_batched_by_enclosing_vmap():
    a_s, xs = RNG.standard_normal((5, 3)), RNG.standard_normal((4, 3))
    want = np.array([sum(kern(a, b) for b in xs) for a in a_s])
    np.testing.assert_allclose(s2s.vmap(row_sum, in_axes=(0, None))(a_s, xs), want, rtol=1e-12)
    # per-example gradients of the closure's enclosing function, against a loop of grads
    got = s2s.vmap(s2s.grad(row_sum), in_axes=(0, None))(a_s, xs)
    loop = np.array([s2s.grad(row_sum)(a, xs) for a in a_s])
    np.testing.assert_allclose(got, loop, rtol=1e-10)
    check_grads(row_sum, (a_s[0], xs), order=2, modes=("rev", "fwd"))


def test_vmap_of_grad_of_closure():
    w, xs = RNG.standard_normal(3), RNG.standard_normal((4, 3))
    want = sum(np.sum(np.cos(x * w) * w) for x in xs)
    np.testing.assert_allclose(vmap_of_grad_closure(w, xs), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(vmap_of_grad_closure)(w, xs), want, rtol=1e-12)
    # batched gradient code differentiated again (its batched helpers, example by example): the
    # hand-derived derivatives of sum over x of cos(x w) w
    g_w, g_xs = s2s.grad(vmap_of_grad_closure, argnums=(0, 1))(w, xs)
    np.testing.assert_allclose(g_w, np.sum(np.cos(xs * w) - xs * w * np.sin(xs * w), axis=0), rtol=1e-10)
    np.testing.assert_allclose(g_xs, -np.sin(xs * w) * w ** 2, rtol=1e-10)


def test_jit_of_closure_inside():
    w, xs = RNG.standard_normal(3), RNG.standard_normal(3)
    np.testing.assert_allclose(closure_in_jit(w, xs), np.sum(np.cos(xs * w)), rtol=1e-12)
    check_grads(closure_in_jit, (w, xs), order=2, modes=("rev", "fwd"))
