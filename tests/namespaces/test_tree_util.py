"""s2s.tree_util: registered nodes (functions, classes, dataclasses, Partial) flatten and rebuild,
`is_leaf` stops flattening, tree_reduce; registered nodes at the transforms' boundary, and a clear
error at the user's line where a transformed function calls the functions it does not run."""
import dataclasses
import functools
import operator

import numpy as np
import pytest

import s2s
from s2s import tree_util as tu
from s2s.test_util import check_grads


class Box:
    def __init__(self, a, b, tag):
        self.a, self.b, self.tag = a, b, tag


tu.register_pytree_node(Box, lambda x: ((x.a, x.b), x.tag), lambda tag, kids: Box(kids[0], kids[1], tag))


@tu.register_pytree_node_class
class Pair:
    def __init__(self, left, right):
        self.left, self.right = left, right

    def tree_flatten(self):
        return (self.left, self.right), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: np.ndarray
    act: str = dataclasses.field(default="tanh", metadata=dict(static=True))


tu.register_dataclass(Layer)


@dataclasses.dataclass
class Explicit:
    x: float
    y: float
    name: str


tu.register_dataclass(Explicit, data_fields=["y", "x"], meta_fields=["name"])


def test_registered_function_node_round_trip():
    box = Box(1.0, [2.0, (3.0,)], "t")
    leaves, tdef = tu.tree_flatten(box)
    assert leaves == [1.0, 2.0, 3.0]
    back = tu.tree_unflatten(tdef, [10.0, 20.0, 30.0])
    assert isinstance(back, Box) and back.tag == "t" and back.a == 10.0 and back.b == [20.0, (30.0,)]
    assert tu.tree_structure(Box(0, [0, (0,)], "t")) == tdef
    assert tu.tree_structure(Box(0, [0, (0,)], "u")) != tdef  # aux data is part of the structure


def test_node_class_and_dataclasses():
    p = tu.tree_map(lambda v: v * 2, Pair(1.0, {"k": 3.0}))
    assert isinstance(p, Pair) and p.left == 2.0 and p.right == {"k": 6.0}
    layer = Layer(np.ones(2), np.zeros(2), act="relu")
    leaves, tdef = tu.tree_flatten(layer)
    assert len(leaves) == 2 and "relu" in repr(tdef)
    out = tu.tree_unflatten(tdef, [np.full(2, 5.0), np.full(2, 6.0)])
    assert out.act == "relu" and out.w.tolist() == [5.0, 5.0] and out.b.tolist() == [6.0, 6.0]
    assert tu.tree_leaves(Explicit(1.0, 2.0, "n")) == [2.0, 1.0]  # data_fields' order
    assert tu.tree_unflatten(tu.tree_structure(Explicit(1.0, 2.0, "n")), [7.0, 8.0]) == Explicit(8.0, 7.0, "n")
    with pytest.raises(s2s.S2SError, match="not a dataclass"):
        tu.register_dataclass(Box)


def test_tree_map_is_leaf_and_multiple_trees():
    tree = {"a": (1.0, 2.0), "b": [3.0]}
    assert tu.tree_map(lambda x, y: x + y, tree, tree) == {"a": (2.0, 4.0), "b": [6.0]}
    assert tu.tree_map(lambda t: len(t), tree, is_leaf=lambda t: isinstance(t, (tuple, list))) == {"a": 2, "b": 1}
    assert tu.tree_leaves(tree, is_leaf=lambda t: isinstance(t, tuple)) == [(1.0, 2.0), 3.0]
    with pytest.raises(ValueError, match="structure"):
        tu.tree_map(operator.add, tree, {"a": (1.0, 2.0), "b": 3.0})


def test_tree_reduce_and_all():
    tree = [1.0, (2.0, {"z": 3.0}), Box(4.0, 5.0, None)]
    assert tu.tree_reduce(operator.add, tree) == 15.0
    assert tu.tree_reduce(operator.add, tree, 100.0) == 115.0
    assert tu.tree_reduce(max, tree) == 5.0
    assert tu.tree_all([True, (1, {"a": True})]) and not tu.tree_all([True, 0])


def test_partial_is_a_pytree():
    p = tu.Partial(np.add, np.ones(2))
    leaves, tdef = tu.tree_flatten(p)
    assert len(leaves) == 1
    q = tu.tree_unflatten(tdef, [np.full(2, 3.0)])
    assert isinstance(q, tu.Partial) and q.func is np.add
    np.testing.assert_array_equal(q(1.0), [4.0, 4.0])
    nested = tu.Partial(tu.Partial(np.clip, np.arange(4.0)), a_max=2.0)
    assert nested.func is np.clip and isinstance(nested, functools.partial)
    np.testing.assert_array_equal(nested(1.0), [1.0, 1.0, 2.0, 2.0])


def loss(params, x):
    w, b = params
    return np.sum(np.tanh(x @ w + b) ** 2)


def test_registered_nodes_in_test_util_and_transform_boundary():
    """s2s.base.tree is what the API and check_grads flatten with: registered nodes are nodes there."""
    rng = np.random.default_rng(0)
    w, b, x = rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3))
    check_grads(loss, ((w, b), x), modes=("fwd", "rev"))
    primals, tangents = (w, b), (np.ones_like(w), np.ones_like(b))
    _, t = s2s.jvp(lambda p: loss(p, x), (primals,), (tangents,))
    eps = 1e-6
    fd = (loss((w + eps, b + eps), x) - loss((w - eps, b - eps), x)) / (2 * eps)
    np.testing.assert_allclose(t, fd, rtol=1e-6)


def uses_tree_all(x):
    return np.sum(x) if tu.tree_all((x > 0.0, True)) else 0.0


def clips_its_leaves(x):  # JAX's differentially_private_sgd: flatten, scale every leaf, rebuild
    tree = [(x, x[:1] * 3.0), {"b": np.sin(x)}]
    leaves, treedef = tu.tree_flatten(tree)
    norm = np.sqrt(np.sum(leaves[0] ** 2) + np.sum(leaves[1] ** 2) + np.sum(leaves[2] ** 2))
    scaled = tu.tree_unflatten(treedef, [v / np.maximum(norm, 1.0) for v in leaves])
    assert tu.tree_structure(scaled) == treedef
    return np.sum(scaled[0][0] * scaled[1]["b"]) + np.sum(tu.tree_leaves(scaled)[1] ** 3)


def reads_a_field(layer, x):
    return np.sum(np.tanh(x @ layer.w + layer.b))


def test_calls_inside_transformed_function_are_an_error_at_the_users_line():
    with pytest.raises(s2s.S2SError, match=r"test_tree_util.py:\d+(.|\n)*tree_all(.|\n)*outside the transform"):
        s2s.grad(uses_tree_all)(np.ones(2))


def test_flatten_and_unflatten_run_inside_grad_jvp_and_vmap():
    x, v, h = np.array([0.7, -0.4, 1.3]), np.array([0.3, -1.1, 0.5]), 1e-6
    fd = np.array([(clips_its_leaves(x + h * e) - clips_its_leaves(x - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(s2s.grad(clips_its_leaves)(x), fd, rtol=1e-6, atol=1e-8)
    _, dy = s2s.jvp(clips_its_leaves, (x,), (v,))
    np.testing.assert_allclose(dy, (clips_its_leaves(x + h * v) - clips_its_leaves(x - h * v)) / (2 * h), rtol=1e-6)
    xs = np.array([[0.7, -0.4, 1.3], [0.1, 0.2, 0.3], [2.0, -1.0, 0.5]])
    np.testing.assert_allclose(s2s.vmap(clips_its_leaves)(xs), [clips_its_leaves(r) for r in xs], rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(clips_its_leaves)(x), clips_its_leaves(x), rtol=1e-12)


def test_per_example_gradients_through_flatten_and_unflatten():
    xs = np.array([[0.7, -0.4, 1.3], [0.1, 0.2, 0.3], [2.0, -1.0, 0.5]])
    got = s2s.vmap(s2s.grad(clips_its_leaves))(xs)
    np.testing.assert_allclose(got, [s2s.grad(clips_its_leaves)(r) for r in xs], rtol=1e-10)


def flattens_its_gradient(w, x):  # JAX's differentially_private_sgd's clipped_grad, per example
    grads = s2s.grad(lambda p: np.sum(np.tanh(p[0] * x) * p[1]["b"]))(w)
    leaves, treedef = tu.tree_flatten(grads)
    norm = np.sqrt(sum(np.sum(g ** 2) for g in leaves))
    return tu.tree_unflatten(treedef, [g / np.maximum(norm, 1.0) for g in leaves])


def test_vmap_of_a_function_that_flattens_its_gradient_matches_a_loop():
    w = (np.array([0.5, -1.5, 2.0]), {"b": np.array([1.0, 3.0, -2.0])})
    xs = np.array([[0.7, -0.4, 1.3], [0.1, 0.2, 0.3], [2.0, -1.0, 0.5]])
    got = s2s.vmap(flattens_its_gradient, in_axes=(None, 0))(w, xs)
    for k, x in enumerate(xs):
        want = flattens_its_gradient(w, x)
        np.testing.assert_allclose(got[0][k], want[0], rtol=1e-12)
        np.testing.assert_allclose(got[1]["b"][k], want[1]["b"], rtol=1e-12)


def test_reading_a_registered_nodes_field_runs_in_grad_jit_and_vmap():
    """(tests/namespaces/test_tree_util_nodes.py checks nodes inside transforms in full.)"""
    layer, x = Layer(np.linspace(-1.0, 1.0, 6).reshape(3, 2), np.array([0.3, -0.2])), np.ones((4, 3))
    g = s2s.grad(reads_a_field)(layer, x)
    assert isinstance(g, Layer) and g.act == "tanh"
    pre = 1 - np.tanh(x @ layer.w + layer.b) ** 2
    np.testing.assert_allclose(g.w, x.T @ pre, rtol=1e-12)
    np.testing.assert_allclose(g.b, pre.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(reads_a_field)(layer, x), reads_a_field(layer, x), rtol=1e-12)
    xs = np.stack([x, 2 * x])
    np.testing.assert_allclose(s2s.vmap(reads_a_field, in_axes=(None, 0))(layer, xs),
                               [reads_a_field(layer, v) for v in xs], rtol=1e-12)


def reads_an_arrays_other_attribute(x):
    return np.sum(x.base)


def test_an_arrays_unsupported_attribute_is_an_error():
    with pytest.raises(s2s.S2SError, match=r"attribute `.base` of an array"):
        s2s.grad(reads_an_arrays_other_attribute)(np.ones(2))
