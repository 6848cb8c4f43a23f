"""Registered pytree nodes inside transformed functions: a node's fields read (`p.w`), registered
classes and namedtuples built there, gradients with respect to a node (a node of the same type, as
in JAX), tree_util.Partial made there, vmap with in_axes given as a node. Checked against central
differences and a Python loop over the examples; a field named like an array attribute is refused."""
import collections
import dataclasses

import numpy as np
import pytest

import s2s
from s2s import tree_util as tu


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: np.ndarray
    act: str = dataclasses.field(default="tanh", metadata=dict(static=True))


tu.register_dataclass(Layer)


@tu.register_pytree_node_class
class Affine:
    def __init__(self, scale, shift):
        self.scale, self.shift = scale, shift

    def tree_flatten(self):
        return (self.scale, self.shift), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


class Shaped:
    def __init__(self, shape, w):
        self.shape, self.w = shape, w


tu.register_pytree_node(Shaped, lambda s: ((s.shape, s.w), None), lambda aux, kids: Shaped(*kids))

Params = collections.namedtuple("Params", "w b")

RNG = np.random.default_rng(3)
W, B, X = RNG.normal(size=(3, 2)), RNG.normal(size=2), RNG.normal(size=(4, 3))
H = 1e-6


def fd_tree(f, tree):
    """Central differences of scalar f with respect to every leaf of `tree` (a tree of arrays)."""
    leaves, tdef = tu.tree_flatten(tree)
    out = []
    for k, leaf in enumerate(leaves):
        g = np.zeros_like(leaf)
        for idx in np.ndindex(leaf.shape):
            e = np.zeros_like(leaf)
            e[idx] = H
            plus = [v + e if j == k else v for j, v in enumerate(leaves)]
            minus = [v - e if j == k else v for j, v in enumerate(leaves)]
            g[idx] = (f(tu.tree_unflatten(tdef, plus)) - f(tu.tree_unflatten(tdef, minus))) / (2 * H)
        out.append(g)
    return tu.tree_unflatten(tdef, out)


def assert_tree_close(got, want, **kw):
    gl, gd = tu.tree_flatten(got)
    wl, wd = tu.tree_flatten(want)
    assert gd == wd, (gd, wd)
    for a, b in zip(gl, wl):
        np.testing.assert_allclose(a, b, **kw)


def layer_loss(layer, x):
    return np.sum(np.tanh(x @ layer.w + layer.b) ** 2)


def affine_loss(a, x):
    return np.sum(np.sin(a.scale * x + a.shift))


def params_loss(p, x):
    return np.sum((x @ p.w + p.b) ** 2)


@pytest.mark.parametrize("loss, tree", [
    (layer_loss, Layer(W, B)), (layer_loss, Layer(W, B, act="relu")), (params_loss, Params(W, B)),
    (affine_loss, Affine(np.array([0.5, -1.0, 2.0]), np.array([0.1, 0.2, 0.3]))),
])
def test_grad_with_respect_to_a_node_is_a_node(loss, tree):
    g = s2s.grad(loss)(tree, X)
    assert type(g) is type(tree)
    assert_tree_close(g, fd_tree(lambda t: loss(t, X), tree), rtol=1e-6, atol=1e-8)
    if isinstance(tree, Layer):
        assert g.act == tree.act  # static data kept


def test_jvp_and_vjp_of_a_node():
    layer, t = Layer(W, B), Layer(np.ones_like(W), -np.ones_like(B))
    y, dy = s2s.jvp(layer_loss, (layer, X), (t, np.zeros_like(X)))
    want = (layer_loss(Layer(W + H, B - H), X) - layer_loss(Layer(W - H, B + H), X)) / (2 * H)
    np.testing.assert_allclose(y, layer_loss(layer, X))
    np.testing.assert_allclose(dy, want, rtol=1e-6)
    _, pullback = s2s.vjp(layer_loss, layer, X)
    ct, _ = pullback(1.0)
    assert isinstance(ct, Layer)
    assert_tree_close(ct, fd_tree(lambda t: layer_loss(t, X), layer), rtol=1e-6, atol=1e-8)


def builds_a_layer(w, x):
    layer = Layer(w * 2.0, np.cos(w[0]))
    return layer_loss(layer, x)


def builds_by_keyword(w, x):
    a = Affine(shift=w[:, 0], scale=np.exp(w[:, 1]))
    return affine_loss(a, x[0])


def builds_beside_a_constant(w, x):
    return layer_loss(Layer(w, B), x) + affine_loss(Affine(1.5, w[:, 0]), x[0])


def builds_a_namedtuple(w, x):
    p = Params(w, b=w[1] ** 2)
    return params_loss(p, x)


@pytest.mark.parametrize("fn", [builds_a_layer, builds_by_keyword, builds_beside_a_constant,
                                builds_a_namedtuple])
def test_nodes_built_inside_grad_jvp_and_vmap(fn):
    fd = fd_tree(lambda w: fn(w, X), W)
    np.testing.assert_allclose(s2s.grad(fn)(W, X), fd, rtol=1e-6, atol=1e-8)
    v = RNG.normal(size=W.shape)
    _, dy = s2s.jvp(fn, (W, X), (v, np.zeros_like(X)))
    np.testing.assert_allclose(dy, np.sum(fd * v), rtol=1e-6)
    ws = RNG.normal(size=(5,) + W.shape)
    np.testing.assert_allclose(s2s.vmap(fn, in_axes=(0, None))(ws, X), [fn(w, X) for w in ws], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(fn), in_axes=(0, None))(ws, X),
                               [s2s.grad(fn)(w, X) for w in ws], rtol=1e-10)


def returns_a_node(w, x):
    return Layer(np.tanh(w), x[0, :2] * w[0])


def test_node_returned_from_vmap_and_jit():
    ws = RNG.normal(size=(5,) + W.shape)
    got = s2s.vmap(returns_a_node, in_axes=(0, None))(ws, X)
    assert isinstance(got, Layer)
    for k, w in enumerate(ws):
        want = returns_a_node(w, X)
        np.testing.assert_allclose(got.w[k], want.w)
        np.testing.assert_allclose(got.b[k], want.b)
    out = s2s.jit(returns_a_node)(W, X)
    assert isinstance(out, Layer)
    np.testing.assert_allclose(out.b, X[0, :2] * W[0])


def test_per_example_gradients_with_respect_to_a_node():
    layer = Layer(W, B)
    xs = RNG.normal(size=(6, 4, 3))
    got = s2s.vmap(s2s.grad(layer_loss), in_axes=(None, 0))(layer, xs)
    assert isinstance(got, Layer)
    for k, x in enumerate(xs):
        want = s2s.grad(layer_loss)(layer, x)
        np.testing.assert_allclose(got.w[k], want.w, rtol=1e-10)
        np.testing.assert_allclose(got.b[k], want.b, rtol=1e-10)
        assert_tree_close(want, fd_tree(lambda t: layer_loss(t, x), layer), rtol=1e-6, atol=1e-8)


def test_vmap_with_in_axes_given_as_a_node():
    ws = RNG.normal(size=(5,) + W.shape)
    batch = Layer(ws, B)
    got = s2s.vmap(layer_loss, in_axes=(Layer(0, None), None))(batch, X)
    np.testing.assert_allclose(got, [layer_loss(Layer(w, B), X) for w in ws], rtol=1e-12)
    per = s2s.vmap(s2s.grad(layer_loss), in_axes=(Layer(0, None), None))(batch, X)
    for k, w in enumerate(ws):
        want = fd_tree(lambda t: layer_loss(t, X), Layer(w, B))
        np.testing.assert_allclose(per.w[k], want.w, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(per.b[k], want.b, rtol=1e-6, atol=1e-8)


def namedtuple_cotangent(p, x):
    return np.sum(np.tanh(x @ p[0] + p[1]))


def test_namedtuple_cotangent_keeps_its_type():
    g = s2s.grad(namedtuple_cotangent)(Params(W, B), X)
    assert type(g) is Params
    assert_tree_close(g, fd_tree(lambda t: namedtuple_cotangent(t, X), Params(W, B)), rtol=1e-6, atol=1e-8)


def scale(w, x, power=1.0):
    return w * x ** power


def uses_partial(w, x):
    scaled = tu.Partial(scale, w)
    squared = tu.Partial(scale, power=2.0)
    return np.sum(np.sin(scaled(x))) + np.sum(squared(w, x))


def test_tree_util_partial_inside():
    w = np.array([0.5, -1.0, 2.0])
    fd = fd_tree(lambda v: uses_partial(v, X), w)
    np.testing.assert_allclose(s2s.grad(uses_partial)(w, X), fd, rtol=1e-6, atol=1e-8)
    ws = RNG.normal(size=(4, 3))
    np.testing.assert_allclose(s2s.vmap(uses_partial, in_axes=(0, None))(ws, X), [uses_partial(v, X) for v in ws])


def reads_shape_field(s, x):
    return np.sum(s.shape * x) + np.sum(s.w)


def transposes_node(a, x):
    return np.sum(a.T * x)


@pytest.mark.parametrize("transform", [s2s.grad, s2s.jit, s2s.vmap])
def test_field_named_like_an_array_attribute_is_refused(transform):
    s = Shaped(np.ones(3), np.ones(3))
    with pytest.raises(s2s.S2SError, match="shape"):
        transform(reads_shape_field)(s, np.ones(3))


class Normalizing:
    def __init__(self, w):
        self.w = w / np.sum(w)


tu.register_pytree_node(Normalizing, lambda n: ((n.w,), None), lambda aux, kids: Normalizing(*kids))


def builds_a_normalizing_node(w):
    return np.sum(Normalizing(w).w ** 2)


def test_a_constructor_that_changes_its_argument_is_refused():
    with pytest.raises(s2s.S2SError, match="stores each argument"):
        s2s.grad(builds_a_normalizing_node)(np.array([1.0, 2.0]))


def test_an_unregistered_object_is_not_differentiated_through_its_fields():
    class Plain:
        w = np.array([1.0, 2.0])

    def f(x, obj):
        return np.sum(obj.w * x)

    np.testing.assert_allclose(s2s.grad(f)(np.ones(2), Plain()), [1.0, 2.0])


def test_jit_and_second_derivatives_through_nodes():
    layer = Layer(W, B)
    np.testing.assert_allclose(s2s.jit(layer_loss)(layer, X), layer_loss(layer, X), rtol=1e-12)
    g = s2s.jit(s2s.grad(layer_loss))(layer, X)
    assert isinstance(g, Layer)
    assert_tree_close(g, fd_tree(lambda t: layer_loss(t, X), layer), rtol=1e-6, atol=1e-8)
    hess = s2s.hessian(builds_a_layer)(W, X)
    grad = s2s.grad(builds_a_layer)
    for idx in [(0, 0), (1, 1), (2, 0)]:
        e = np.zeros_like(W)
        e[idx] = H
        np.testing.assert_allclose(hess[(...,) + idx], (grad(W + e, X) - grad(W - e, X)) / (2 * H), rtol=1e-5,
                                   atol=1e-7)
