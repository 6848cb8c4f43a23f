"""Stores into a dict an object holds, and the small object forms public layer code writes (issue 45,
section 1; the corpus's GAPS 3, 6, 7 and 8): `self.ctx["X"] = X` in an activation's forward,
`layer.params["w"] = w` before calling the layer's forward (which reads `self.params["w"]`), a
method subscripting an attribute it stored (`self.X2[0]`), `*self.output_shape` of an attribute
tuple, `h_out.is_integer()` of a shape computed with `/`, and `if not self.is_init:` of a flag the
object holds. grad against central differences of the plain function, jvp against grad, jit and
vmap against the plain function (vmap: a loop over the examples); the objects' dicts get the
primal values the plain function stores; a changed attribute gives the new value's derivative.
A method of a user object passed in (`dataset.getRandomContext(C)`) runs once, as Python, and the
derivative uses its draw."""
import random

import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s.errors import S2SError

rng = np.random.default_rng(3)
X = rng.normal(size=(4, 3))
W = rng.normal(size=(3, 2))
B = rng.normal(size=2)


class Activation:
    def __init__(self):
        self.ctx = {"seen": 0}

    def forward(self, x):
        self.ctx["X"] = x
        return np.tanh(self.ctx["X"]) * x


ACT = Activation()


def act_loss(x):
    return np.sum(ACT.forward(x) ** 2)


class Layer:
    def __init__(self):
        self.params = {"w": np.zeros((3, 2)), "b": np.zeros(2)}
        self.ctx = {}
        self._is_init = True

    @property
    def is_init(self):
        return self._is_init

    def forward(self, inputs):
        if not self.is_init:
            self.shapes["w"][0] = inputs.shape[1]  # (never runs here: s2s decides the test now)
        self.ctx = {"X": inputs}
        return np.sin(inputs @ self.params["w"] + self.params["b"])


LAYER = Layer()


def params_loss(w, b, X):
    LAYER.params["w"] = w
    LAYER.params["b"] = b
    return np.sum(LAYER.forward(X) ** 2)


def test_a_store_into_an_objects_dict_carries_the_derivative():
    x = X[0]
    value, g = s2s.value_and_grad(act_loss)(x)
    assert np.isclose(value, act_loss(x), rtol=1e-13)
    np.testing.assert_allclose(g, fd_grad(act_loss, x), rtol=1e-6, atol=1e-8)
    s2s.grad(act_loss)(2.0 * x)
    assert type(ACT.ctx["X"]) is np.ndarray and np.array_equal(ACT.ctx["X"], 2.0 * x) and ACT.ctx["seen"] == 0
    _, t = s2s.jvp(act_loss, (x,), (np.ones(3),))
    assert np.isclose(t, np.sum(g), rtol=1e-10)
    assert np.isclose(s2s.jit(act_loss)(x), act_loss(x), rtol=1e-13)
    got = s2s.vmap(act_loss)(X)
    np.testing.assert_allclose(got, [act_loss(r) for r in X], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(act_loss))(X), [fd_grad(act_loss, r) for r in X], rtol=1e-6,
                               atol=1e-8)


def test_weights_stored_into_a_layers_dict_reach_its_forward():
    value, (gw, gb) = s2s.value_and_grad(params_loss, argnums=(0, 1))(W, B, X)
    assert np.isclose(value, params_loss(W, B, X), rtol=1e-13)
    np.testing.assert_allclose(gw, fd_grad(lambda w: params_loss(w, B, X), W), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, fd_grad(lambda b: params_loss(W, b, X), B), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jit(s2s.grad(params_loss))(W, B, X), gw, rtol=1e-12)
    s2s.grad(params_loss)(3.0 * W, B, X)
    assert np.array_equal(LAYER.params["w"], 3.0 * W) and np.array_equal(LAYER.ctx["X"], X)
    _, t = s2s.jvp(params_loss, (W, B, X), (np.ones_like(W), np.zeros(2), np.zeros_like(X)))
    assert np.isclose(t, np.sum(gw), rtol=1e-10)
    xs = np.stack([X, -X, X * 0.5])
    np.testing.assert_allclose(s2s.vmap(params_loss, in_axes=(None, None, 0))(W, B, xs),
                               [params_loss(W, B, x) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(params_loss), in_axes=(None, None, 0))(W, B, xs),
                               [fd_grad(lambda w: params_loss(w, B, x), W) for x in xs], rtol=1e-6, atol=1e-8)


def test_a_flag_the_object_holds_is_decided_per_call():
    """`if not self.is_init:` is decided when s2s compiles; the property's value is watched, so
    the same grad object follows it when it changes (here to a branch the plain function takes)."""
    class Toggle:
        def __init__(self):
            self.training = True

        def forward(self, x):
            if self.training:
                return np.sin(x) * 2.0
            return np.cos(x)

    t = Toggle()

    def f(x):
        return np.sum(t.forward(x))

    g = s2s.grad(f)
    for flag in (True, False, True):
        t.training = flag
        np.testing.assert_allclose(g(X[0]), fd_grad(f, X[0]), rtol=1e-6, atol=1e-8)


class Stored:
    def f(self, X):
        self.X2 = X * 2.0
        return self.X2[0] * self.X2[-1]


def test_a_method_subscripting_an_attribute_it_stored():
    s = Stored()

    def f(x):
        return np.sum(s.f(x))

    np.testing.assert_allclose(s2s.grad(f)(X), fd_grad(f, X), rtol=1e-6, atol=1e-8)
    assert np.isclose(s2s.jit(f)(X), f(X), rtol=1e-13)
    np.testing.assert_allclose(s2s.vmap(f)(np.stack([X, -X])), [f(X), f(-X)], rtol=1e-12)
    _, t = s2s.jvp(f, (X,), (np.ones_like(X),))
    assert np.isclose(t, np.sum(fd_grad(f, X)), rtol=1e-6)


class Reshape:
    def __init__(self, *output_shape):
        self.output_shape = output_shape

    def forward(self, inputs):
        self.input_shape = inputs.shape
        return inputs.reshape(inputs.shape[0], *self.output_shape)


def test_star_of_an_attribute_tuple_and_its_change_between_calls():
    r = Reshape(2, 3)
    xs = rng.normal(size=(2, 6))

    def f(x):
        return np.sum(np.sin(r.forward(x))[:, 0] * np.arange(1.0, 3.0)[:, None][0])

    g = s2s.grad(f)
    for shape in ((2, 3), (3, 2), (6, 1)):
        r.output_shape = shape
        np.testing.assert_allclose(g(xs), fd_grad(f, xs), rtol=1e-6, atol=1e-8)
        assert np.isclose(s2s.jit(f)(xs), f(xs), rtol=1e-13)
    assert r.input_shape == (2, 6)


def conv_shape(X, stride, padding=0):
    h_out = (X.shape[1] - 2 + 2 * padding) / stride + 1
    if not h_out.is_integer():
        raise ValueError("Invalid output dimension!")
    return int(h_out)


def test_is_integer_of_a_shape_computed_with_division():
    def f(x, stride):
        n = conv_shape(x, stride)
        return np.sum(np.sin(x[:, :n]))

    x = rng.normal(size=(2, 5))
    np.testing.assert_allclose(s2s.grad(f)(x, 1), fd_grad(lambda v: f(v, 1), x), rtol=1e-6, atol=1e-8)
    assert np.isclose(s2s.jit(f, static_argnums=1)(x, 3), f(x, 3), rtol=1e-13)
    with pytest.raises(ValueError, match="Invalid output dimension"):
        s2s.grad(f)(x, 2)  # (5 - 2) / 2 + 1 is 2.5: the plain function raises, and so does its derivative
    np.testing.assert_allclose(s2s.vmap(lambda v: f(v, 1))(np.stack([x, -x])), [f(x, 1), f(-x, 1)], rtol=1e-12)


def test_a_callee_storing_into_the_same_dict_is_refused():
    class Cache:
        def __init__(self):
            self.fc = {}

        def step(self, x):
            self.fc["h"] = x * 2.0
            return self.fc["h"]

        def forward(self, x):
            self.fc["X"] = x
            return self.step(x)

    c = Cache()
    with pytest.raises(S2SError, match=r"`step` stores into `self.fc`") as info:
        s2s.grad(lambda x: np.sum(c.forward(x)))(X[0])
    assert "test_object_containers.py" in str(info.value)


def test_the_same_transform_called_again_after_its_store_added_a_key():
    """The first call adds "X" to the dict; the code compiled for the dict without it still copies
    the keys it knows and stores "X" again, call after call."""
    act = Activation()

    def f(x):
        return np.sum(act.forward(x) ** 2)

    g = s2s.grad(f)
    for k in range(3):
        x = X[k]
        got = g(x)
        assert np.array_equal(act.ctx["X"], x)
        np.testing.assert_allclose(got, fd_grad(f, x), rtol=1e-6, atol=1e-8)


def test_a_dict_that_lost_a_key_since_compiling_is_refused():
    act = Activation()

    def f(x):
        return np.sum(act.forward(x))

    g = s2s.grad(f)
    g(X[0])
    del act.ctx["seen"]
    with pytest.raises(S2SError, match=r"`.ctx` of a Activation holds the keys"):
        g(X[0])


class Corpus:
    """A dataset object passed in, whose method draws from Python's random module (word2vec's
    `dataset.getRandomContext(C)`)."""
    WORDS = ("a", "b", "c")

    def getRandomContext(self, C):  # noqa: N802 (the course's name)
        return random.choice(self.WORDS), [random.choice(self.WORDS) for _ in range(2 * C)]

    def scaled(self, V):
        return 2.0 * V


TOKENS = {"a": 0, "b": 1, "c": 2}
V = rng.normal(size=(3, 4))


def context_loss(V, ds):
    center, context = ds.getRandomContext(2)
    return sum(np.sum(np.tanh(V[TOKENS[center]] * V[TOKENS[w]])) for w in context)


def seeded(V):
    random.seed(11)
    return context_loss(V, Corpus())


def test_a_method_of_an_object_passed_in_runs_once_and_the_derivative_uses_its_draw():
    random.seed(11)
    value, g = s2s.value_and_grad(context_loss)(V, Corpus())
    assert np.isclose(value, seeded(V), rtol=1e-13)
    np.testing.assert_allclose(g, fd_grad(seeded, V), rtol=1e-6, atol=1e-8)  # the same draw as the value's
    random.seed(11)
    assert np.isclose(s2s.jit(context_loss)(V, Corpus()), seeded(V), rtol=1e-13)
    random.seed(11)
    _, t = s2s.jvp(lambda v: context_loss(v, CORPUS), (V,), (np.ones_like(V),))
    assert np.isclose(t, np.sum(fd_grad(seeded, V)), rtol=1e-6)
    random.seed(11)
    got = s2s.vmap(context_loss, in_axes=(0, None))(np.stack([V, -V]), Corpus())
    random.seed(11)
    c = Corpus()
    draw = c.getRandomContext(2)  # one draw for the batch: the method runs as often as one plain call
    c.getRandomContext = lambda C: draw
    np.testing.assert_allclose(got, [context_loss(V, c), context_loss(-V, c)], rtol=1e-12)


CORPUS = Corpus()


def test_a_differentiated_value_given_to_such_a_method_is_refused():
    def f(V, ds):
        return np.sum(ds.scaled(V))

    with pytest.raises(S2SError, match="s2s_method") as info:
        s2s.grad(f)(V, Corpus())
    assert "test_object_containers.py" in str(info.value)
    with pytest.raises(S2SError):
        s2s.vmap(f, in_axes=(0, None))(np.stack([V, V]), Corpus())
    np.testing.assert_allclose(s2s.jit(f)(V, Corpus()), f(V, Corpus()))  # no derivative asked: it runs


def test_an_unknown_array_method_stays_refused():
    def f(x):
        return np.sum(x.frobnicate())

    with pytest.raises(S2SError, match=r"s2s_method` with respect to its argument `obj`"):
        s2s.grad(f)(V)  # (a differentiated array: no rule)
    with pytest.raises(S2SError, match=r"method `.frobnicate\(\)` of a ndarray") as info:
        s2s.jit(f)(V)  # (no derivative: refused when it runs, at the user's line)
    assert "test_object_containers.py" in str(info.value)


class Weighted:
    def __init__(self):
        self.W = np.ones((3, 2))

    def fwd(self, X):
        return X @ self.W


WEIGHTED = Weighted()


def test_a_method_of_an_object_whose_attributes_are_stored_is_not_run_as_python():
    """Run as Python, the method would read the stored weights without their derivative: refused
    when the caller's store is known (the helper is given the object), and when it runs."""
    def helper(layer, X):
        return layer.fwd(X)

    def through_helper(W, X):
        WEIGHTED.W = W
        return np.sum(helper(WEIGHTED, X))

    def given(W, X, layer):
        WEIGHTED.W = W
        return np.sum(layer.fwd(X))

    with pytest.raises(S2SError, match=r"method `.fwd\(\)` of `layer`, whose attributes the caller stored"):
        s2s.grad(through_helper)(W, X)
    with pytest.raises(S2SError, match=r"method `.fwd\(\)` of a Weighted whose attributes a transformed"):
        s2s.grad(given)(W, X, WEIGHTED)
