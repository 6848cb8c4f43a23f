"""A callee reading an attribute its caller stored (issue 45, section 1; frontend/attr_callees.py):
`layer.W, layer.b = W, b; return loss(layer.forward(X))`, `NET.weights = [w1, w2];
NET.feedforward(x)`, a helper given the layer as an argument, a method reaching the attribute
through another method. The derivative flows from the argument through the store into the
callee's read: grad against central differences of the plain function, jvp against grad, jit and
vmap against the plain function (vmap: a loop over the examples), and the object holds the primal
value afterwards, as in the plain function. A callee that stores into the same attribute, or
reads it through a value s2s cannot resolve when it compiles, is refused at the user's line."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s.errors import S2SError

rng = np.random.default_rng(45)
X = rng.normal(size=(4, 3))
W = rng.normal(size=(3, 2))
B = rng.normal(size=2)
T_W = rng.normal(size=(3, 2))


class Dense:
    def __init__(self):
        self.W = np.zeros((3, 2))
        self.b = np.zeros(2)
        self.scale = 1.0

    def forward(self, X):
        return np.tanh(X @ self.W + self.b) * self.scale

    def forward_via_helper(self, X):  # reads no stored attribute itself: its callee does
        return np.sin(self._affine(X))

    def _affine(self, X):
        return X @ self.W.T.T + self.b


LAYER = Dense()


def dense_loss(W, b, X):
    LAYER.W, LAYER.b = W, b
    return np.sum(LAYER.forward(X) ** 2)


def helper_loss(W, b, X):
    LAYER.W, LAYER.b = W, b
    return np.sum(LAYER.forward_via_helper(X) ** 2)


def apply(layer, X):
    return np.cos(X @ layer.W) + layer.b


def argument_loss(W, b, X):
    LAYER.W = W
    LAYER.b = b
    return np.sum(apply(LAYER, X) ** 2)


def predict(X):
    return X @ LAYER.W  # a module-level function reading the global layer


def global_loss(W, b, X):
    LAYER.W, LAYER.b = W, b
    return np.sum(np.tanh(predict(X)))


def before_and_after(W, b, X):
    LAYER.W, LAYER.b = 0.5 * W, b
    first = LAYER.forward(X)  # the value stored first
    LAYER.W = W
    return np.sum(first * LAYER.forward(X))


class Net:
    def __init__(self):
        self.weights = [np.zeros((2, 3)), np.zeros((1, 2))]
        self.biases = [np.zeros(2), np.zeros(1)]

    def feedforward(self, a):
        for b, w in zip(self.biases, self.weights):
            a = np.tanh(w @ a + b)
        return a


NET = Net()


def net_loss(w1, w2, b1, b2, x):
    NET.weights, NET.biases = [w1, w2], [b1, b2]
    return np.sum(NET.feedforward(x) ** 2)


LOSSES = [dense_loss, helper_loss, argument_loss, global_loss, before_and_after]


def _fd_in_w(f, *rest):
    return fd_grad(lambda w: f(w, *rest), W)


@pytest.mark.parametrize("f", LOSSES, ids=lambda f: f.__name__)
def test_grad_matches_central_differences_and_the_plain_value(f):
    value, (gw, gb) = s2s.value_and_grad(f, argnums=(0, 1))(W, B, X)
    assert np.isclose(value, f(W, B, X), rtol=1e-13)
    np.testing.assert_allclose(gw, _fd_in_w(f, B, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, fd_grad(lambda b: f(W, b, X), B), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f, argnums=(0, 1)))(W, B, X)[0], gw, rtol=1e-12)


@pytest.mark.parametrize("f", LOSSES, ids=lambda f: f.__name__)
def test_jvp_matches_grad_and_jit_matches_the_plain_function(f):
    out, tangent = s2s.jvp(f, (W, B, X), (T_W, np.zeros(2), np.zeros_like(X)))
    assert np.isclose(out, f(W, B, X), rtol=1e-13)
    assert np.isclose(tangent, np.sum(s2s.grad(f)(W, B, X) * T_W), rtol=1e-10)
    assert np.isclose(s2s.jit(f)(W, B, X), f(W, B, X), rtol=1e-13)


@pytest.mark.parametrize("f", LOSSES, ids=lambda f: f.__name__)
def test_vmap_over_examples_matches_a_loop(f):
    xs = np.stack([X, X[::-1] * 0.5, X + 1.0])
    got = s2s.vmap(f, in_axes=(None, None, 0))(W, B, xs)
    np.testing.assert_allclose(got, [f(W, B, x) for x in xs], rtol=1e-12)
    grads = s2s.vmap(s2s.grad(f), in_axes=(None, None, 0))(W, B, xs)
    np.testing.assert_allclose(grads, [_fd_in_w(f, B, x) for x in xs], rtol=1e-6, atol=1e-8)


def test_the_object_holds_the_primal_value_afterwards():
    s2s.grad(dense_loss, argnums=(0, 1))(W, B, X)
    assert type(LAYER.W) is np.ndarray and np.array_equal(LAYER.W, W) and np.array_equal(LAYER.b, B)
    s2s.jit(dense_loss)(2.0 * W, B, X)
    np.testing.assert_array_equal(LAYER.W, 2.0 * W)


def test_a_list_of_arrays_stored_reaches_the_method():
    w1, w2 = rng.normal(size=(2, 3)), rng.normal(size=(1, 2))
    b1, b2 = rng.normal(size=2), rng.normal(size=1)
    x = rng.normal(size=3)
    grads = s2s.grad(net_loss, argnums=(0, 1, 2, 3))(w1, w2, b1, b2, x)
    want = [fd_grad(lambda w: net_loss(w, w2, b1, b2, x), w1), fd_grad(lambda w: net_loss(w1, w, b1, b2, x), w2),
            fd_grad(lambda b: net_loss(w1, w2, b, b2, x), b1), fd_grad(lambda b: net_loss(w1, w2, b1, b, x), b2)]
    for g, fd in zip(grads, want):
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    assert NET.weights[0] is not None and np.array_equal(NET.weights[1], w2)
    out, tangent = s2s.jvp(lambda w: net_loss(w, w2, b1, b2, x), (w1,), (np.ones_like(w1),))
    assert np.isclose(tangent, np.sum(grads[0]), rtol=1e-10)
    xs = rng.normal(size=(3, 3))
    got = s2s.vmap(net_loss, in_axes=(None, None, None, None, 0))(w1, w2, b1, b2, xs)
    np.testing.assert_allclose(got, [net_loss(w1, w2, b1, b2, x) for x in xs], rtol=1e-12)


def test_an_attribute_changed_between_calls_gives_the_new_derivative():
    """The stale-state property: `forward` also reads `self.scale`, which no function stores; the
    same grad object after `LAYER.scale` changes gives the new value's derivative, and the stored
    attributes come from each call's arguments."""
    g = s2s.grad(dense_loss)
    try:
        for scale in (1.0, 2.5, -0.75):
            LAYER.scale = scale
            np.testing.assert_allclose(g(W, B, X), _fd_in_w(dense_loss, B, X), rtol=1e-6, atol=1e-8)
            np.testing.assert_allclose(g(2.0 * W, B, X), fd_grad(lambda w: dense_loss(w, B, X), 2.0 * W),
                                       rtol=1e-6, atol=1e-8)
    finally:
        LAYER.scale = 1.0


def test_compiled_code_is_reused_while_only_the_stored_attributes_change():
    """The attributes a transformed function stores are read when it runs, never folded in, so
    the new array the last call stored does not compile the function again (no optimization pass
    runs: s2s.base.stats counts them)."""
    from s2s.base.stats import STATS

    g = s2s.grad(dense_loss)
    g(W, B, X)
    g(W + 1.0, B, X)
    runs = STATS["pass_run"]
    for k in range(3):
        np.testing.assert_allclose(g(W + k, B, X), fd_grad(lambda w: dense_loss(w, B, X), W + k), rtol=1e-6, atol=1e-8)
    assert STATS["pass_run"] == runs


class Updating:
    def __init__(self):
        self.W = np.zeros((3, 2))

    def step(self):
        self.W = self.W * 0.5

    def forward(self, X):
        return X @ self.W


UPD = Updating()


def test_a_callee_storing_the_same_attribute_is_refused():
    def f(W):
        UPD.W = W
        UPD.step()
        return np.sum(UPD.forward(X))

    with pytest.raises(S2SError, match=r"`step` stores into `self.W`"):
        s2s.grad(f)(W)


def test_a_callee_reading_it_through_an_unresolved_value_is_refused():
    def total(layers):
        return sum(np.sum(layer.W ** 2) for layer in layers)

    other = Updating()

    def f(W):
        other.W = W
        return total([other])

    with pytest.raises(S2SError, match=r"`total` reads `.W`") as info:
        s2s.grad(f)(W)
    assert "test_object_state_across_calls.py" in str(info.value)
