"""Dead tuple items unpacked into accumulators nobody reads (issue 46, section 2): CS224n's
skip-gram calls a loss that returns `(loss, gradCenterVec, gradOutsideVecs)` with its author's
own gradients, unpacks all three, and adds the gradients into arrays of its own that `[0]`
leaves unread. Those names are read only to update dead arrays (analysis.owned.read_names), so
reverse mode asks the callee for the loss alone: its gradient arrays are neither computed,
taped nor restored. Also through a wrapper that returns its callee's tuple as it is (the
assignment passes the loss function in as an argument). Checked against central differences and
the authors' gradients, in grad and jit(grad), and kept wherever the item can still be seen."""
import re

import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def neg_sampling(center, o, U, samples):
    """A negative-sampling loss with its author's gradients (`grad_c`, `grad_U`) beside it."""
    grad_U = np.zeros(U.shape)
    y = sigmoid(np.dot(U[o], center))
    loss = -np.log(y)
    grad_c = np.dot(y - 1, U[o])
    grad_U[o] = np.dot(y - 1, center)
    for k in samples:
        yk = sigmoid(-np.dot(U[k], center))
        loss += -np.log(yk)
        grad_U[k] += np.dot(1.0 - yk, center)
        grad_c += np.dot(1.0 - yk, U[k])
    return loss, grad_c, grad_U


def skipgram(c, outside, V, U, samples, loss_fn=neg_sampling):
    """Sums the loss over the outside words, accumulating the gradients the author returns."""
    loss = 0.0
    grad_V = np.zeros(V.shape)
    grad_U = np.zeros(U.shape)
    center = V[c]
    for o in outside:
        step_loss, grad_center, grad_outside = loss_fn(center, o, U, samples)
        loss += step_loss
        grad_V[c] += grad_center
        grad_U += grad_outside
    return loss, grad_V, grad_U


def wrapped(center, o, U, samples):
    """The assignment's style: the loss handed in through a function returning its tuple."""
    return neg_sampling(center, o, U, samples)


def loss_direct(V, U):
    return skipgram(1, [0, 2, 3], V, U, [4, 5, 2])[0]


def loss_wrapped(V, U):
    return skipgram(1, [0, 2, 3], V, U, [4, 5, 2], wrapped)[0]


def read_item(V, U):
    """An unpacked gradient reaches the output: it must be computed and differentiated."""
    loss, grad_center, grad_outside = neg_sampling(V[1], 0, U, [4, 5])
    return loss + 0.5 * np.sum(grad_center ** 2)


def branch_item(V, U):
    """An unpacked gradient decides a branch: computed (its value is read), not differentiated."""
    loss, grad_center, grad_outside = neg_sampling(V[1], 0, U, [4, 5])
    if np.sum(grad_outside) > 1e9:
        loss = loss * 2.0
    return loss


def stored_item(V, U, out):
    """An unpacked gradient stored into an array the function does not own (a parameter)."""
    loss, grad_center, grad_outside = neg_sampling(V[1], 0, U, [4, 5])
    out[0] = grad_center
    return loss


def code_lines(fn, *args) -> list[str]:
    return [line for line in s2s.source(fn, *args).splitlines() if not line.strip().startswith("#")]


@pytest.fixture
def point():
    r = np.random.default_rng(46)
    return r.normal(size=(6, 3)) * 0.5, r.normal(size=(6, 3)) * 0.5


@pytest.mark.parametrize("loss", [loss_direct, loss_wrapped])
@pytest.mark.parametrize("jitted", [False, True])
def test_unpacked_gradients_not_computed(loss, jitted, point):
    V, U = point
    g = s2s.grad(loss, argnums=(0, 1))
    g = s2s.jit(g) if jitted else g
    got = g(V, U)
    lines = code_lines(g, V, U) if jitted else code_lines(g)
    # the callee's gradient arrays (and the caller's accumulators) are not computed, taped or restored
    assert not any(re.search(r"\bgrad_(U|c|V)\b", line) for line in lines)
    np.testing.assert_allclose(got[0], fd_grad(lambda v: loss(v, U), V), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got[1], fd_grad(lambda u: loss(V, u), U), rtol=1e-6, atol=1e-8)
    # the author's own gradients agree
    _, want_V, want_U = skipgram(1, [0, 2, 3], V, U, [4, 5, 2])
    np.testing.assert_allclose(got[0], want_V, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1], want_U, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("jitted", [False, True])
def test_read_item_is_differentiated(jitted, point):
    V, U = point
    g = s2s.grad(read_item, argnums=(0, 1))
    g = s2s.jit(g) if jitted else g
    got = g(V, U)
    np.testing.assert_allclose(got[0], fd_grad(lambda v: read_item(v, U), V), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got[1], fd_grad(lambda u: read_item(V, u), U), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("jitted", [False, True])
def test_item_read_by_a_test_is_computed(jitted, point):
    V, U = point
    g = s2s.grad(branch_item, argnums=(0, 1))
    g = s2s.jit(g) if jitted else g
    got = g(V, U)
    np.testing.assert_allclose(got[1], fd_grad(lambda u: branch_item(V, u), U), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got[0], fd_grad(lambda v: branch_item(v, U), V), rtol=1e-6, atol=1e-8)


def test_item_stored_outside_is_computed(point):
    V, U = point
    out = np.zeros((1, 3))
    g = s2s.grad(stored_item, argnums=(0, 1))(V, U, out)
    np.testing.assert_allclose(g[1], fd_grad(lambda u: stored_item(V, u, np.zeros((1, 3))), U),
                               rtol=1e-6, atol=1e-8)


def _square_and_double(x):
    return np.sum(x ** 2), 2 * x


def into_int_array(x):
    """`acc += g` of a dead int accumulator: NumPy's UFuncTypeError, which s2s keeps."""
    loss, g = _square_and_double(x)
    acc = np.zeros(2, dtype=int)
    acc += g
    return loss


def into_other_shape(x):
    """`acc += g` of a dead accumulator of another shape: NumPy's ValueError, which s2s keeps."""
    loss, g = _square_and_double(x)
    acc = np.zeros(3)
    acc += g
    return loss


@pytest.mark.parametrize("f, error", [(into_int_array, TypeError),  # (NumPy's UFuncTypeError)
                                      (into_other_shape, ValueError)])
@pytest.mark.parametrize("jitted", [False, True])
def test_dead_item_update_keeps_numpy_errors(f, error, jitted):
    """`a op= v`'s rt.inplace counts as arithmetic in read_names (a dead accumulator's item is not
    read), and its check of a wrong dtype or shape still raises where NumPy does."""
    x = np.array([1.0, 2.0])
    with pytest.raises(error):
        f(x)
    g = s2s.jit(s2s.grad(f)) if jitted else s2s.grad(f)
    with pytest.raises(error):
        g(x)
