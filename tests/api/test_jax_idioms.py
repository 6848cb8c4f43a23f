"""JAX's API names that JAX programs reach (issue 45, section 5): `s2s.jacobian`, key paths and
transposition of pytrees (`tree_flatten_with_path`, `keystr`, `tree_map_with_path`, `s2s.tree`),
`lax.conv_with_general_padding`, and `check_grads` with JAX's signature, also through `alias_jax`.
Each is checked against a value written out here or against central differences."""
import dataclasses
import sys
from collections import namedtuple

import numpy as np
import pytest

import s2s
from s2s import tree_util
from s2s.test_util import check_grads

Pair = namedtuple("Pair", ["w", "b"])


def _fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = eps
        g.flat[k] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def test_jacobian_is_jacrev():
    def f(x):
        return np.sin(x) * x[0]

    x = np.array([0.3, -1.2, 2.0])
    want = np.diag(np.cos(x) * x[0])
    want[:, 0] += np.sin(x)
    np.testing.assert_allclose(s2s.jacobian(f)(x), want, rtol=1e-12)
    assert s2s.jacobian is s2s.jacrev


def test_flatten_with_path_and_keystr():
    tree = {"b": Pair(np.ones(2), None), "a": [1.0, (2.0, 3.0)]}
    pairs, treedef = tree_util.tree_flatten_with_path(tree)
    assert [tree_util.keystr(p) for p, _ in pairs] == ["['a'][0]", "['a'][1][0]", "['a'][1][1]", "['b'].w"]
    assert [v for _, v in pairs][:3] == [1.0, 2.0, 3.0]
    assert treedef == tree_util.tree_structure(tree)
    assert [v is w for (_, v), w in zip(pairs, tree_util.tree_leaves(tree))] == [True] * 4
    assert pairs[2][0] == (tree_util.DictKey("a"), tree_util.SequenceKey(1), tree_util.SequenceKey(1))
    assert tree_util.keystr(pairs[3][0], simple=True, separator="/") == "b/w"
    assert s2s.tree.leaves_with_path(tree) == pairs


def test_key_paths_of_registered_nodes():
    @dataclasses.dataclass
    class Layer:
        w: np.ndarray
        n: int

    tree_util.register_dataclass(Layer, data_fields=["w"], meta_fields=["n"])

    class Box:
        def __init__(self, a, b):
            self.a, self.b = a, b

    tree_util.register_pytree_node(Box, lambda x: ((x.a, x.b), None), lambda _, c: Box(*c))
    paths = [tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path([Layer(np.ones(1), 3), Box(1.0, 2.0)])[0]]
    assert paths == ["[0].w", "[1][<flat index 0>]", "[1][<flat index 1>]"]


def test_map_with_path():
    tree = {"x": 1.0, "y": [2.0, 3.0]}
    out = tree_util.tree_map_with_path(lambda p, v, u: (tree_util.keystr(p), v + u), tree, {"x": 10.0, "y": [20.0, 30.0]})
    assert out == {"x": ("['x']", 11.0), "y": [("['y'][0]", 22.0), ("['y'][1]", 33.0)]}
    assert s2s.tree.map_with_path is tree_util.tree_map_with_path
    with pytest.raises(ValueError, match="structure"):
        tree_util.tree_map_with_path(lambda p, v, u: v, tree, {"x": 1.0})


def test_transpose():
    outer = s2s.tree.structure([0, 0, 0])
    inner = s2s.tree.structure((0, 0))
    assert s2s.tree.transpose(outer, inner, [(1, 2), (3, 4), (5, 6)]) == ([1, 3, 5], [2, 4, 6])
    assert tree_util.tree_transpose(outer, None, [{"a": 1, "b": 2}, {"a": 3, "b": 4}, {"a": 5, "b": 6}]) == \
        {"a": [1, 3, 5], "b": [2, 4, 6]}
    with pytest.raises(s2s.S2SError, match="tree_transpose"):
        tree_util.tree_transpose(outer, inner, [(1, 2), (3, 4)])


def test_tree_path_functions_are_refused_inside_a_transform_at_the_line():
    def f(x):
        return tree_util.tree_flatten_with_path({"x": x})[0][0][1]

    with pytest.raises(s2s.S2SError, match="tree_flatten_with_path"):
        s2s.grad(f)(1.0)


def _conv_reference(x, w, strides, padding, lhs_dilation, rhs_dilation):
    """NCHW/OIHW convolution written as loops over the output and the kernel."""
    n, c, h, wd = x.shape
    dil = np.zeros((n, c, (h - 1) * lhs_dilation[0] + 1, (wd - 1) * lhs_dilation[1] + 1))
    dil[:, :, ::lhs_dilation[0], ::lhs_dilation[1]] = x
    xp = np.pad(dil, ((0, 0), (0, 0), tuple(padding[0]), tuple(padding[1])))
    o, _, kh, kw = w.shape
    eh, ew = (kh - 1) * rhs_dilation[0] + 1, (kw - 1) * rhs_dilation[1] + 1
    oh = (xp.shape[2] - eh) // strides[0] + 1
    ow = (xp.shape[3] - ew) // strides[1] + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    patch = xp[:, :, i * strides[0] + a * rhs_dilation[0], j * strides[1] + b * rhs_dilation[1]]
                    out[:, :, i, j] += patch @ w[:, :, a, b].T
    return out


def test_conv_with_general_padding():
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(2, 3, 6, 5)), rng.normal(size=(4, 3, 2, 3))
    args = ((2, 1), [(1, 0), (2, 1)], (2, 1), (1, 2))
    got = s2s.lax.conv_with_general_padding(x, w, *args)
    np.testing.assert_allclose(got, _conv_reference(x, w, *args), rtol=1e-12, atol=1e-12)

    def loss(x, w):
        return np.sum(np.tanh(s2s.lax.conv_with_general_padding(x, w, *args)))

    gx, gw = s2s.grad(loss, argnums=(0, 1))(x, w)
    np.testing.assert_allclose(gx, _fd_grad(lambda x: np.sum(np.tanh(_conv_reference(x, w, *args))), x), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(gw, _fd_grad(lambda w: np.sum(np.tanh(_conv_reference(x, w, *args))), w), rtol=1e-6,
                               atol=1e-8)
    batched = s2s.vmap(lambda x: s2s.lax.conv_with_general_padding(x[None], w, *args)[0])(x)
    np.testing.assert_allclose(batched, _conv_reference(x, w, *args), rtol=1e-12, atol=1e-12)


def test_check_grads_with_jaxs_signature():
    def f(x, y):
        return np.sin(x) * y ** 2

    x, y = np.array([0.3, 1.1]), np.array([2.0, -0.5])
    check_grads(f, (x, y), 2)  # both modes by default, as JAX's
    check_grads(f, (x, y), order=1, modes=["fwd"], atol=None, rtol=None, eps=None)
    check_grads(f, (x, y), 1, ("rev",), 1e-4, 1e-4, 1e-5)

    @s2s.custom_jvp
    def wrong(x):
        return np.sin(x)

    wrong.defjvp(lambda primals, tangents: (np.sin(primals[0]), 2.0 * np.cos(primals[0]) * tangents[0]))
    with pytest.raises(AssertionError, match="mode 'fwd'"):
        check_grads(wrong, (x,), 1)


def test_jax_test_util_and_tree_through_alias_jax():
    from s2s.compat.jax import alias_jax, restore

    saved = alias_jax()
    try:
        import jax
        from jax.test_util import check_grads as jax_check_grads

        assert jax_check_grads is check_grads
        assert sys.modules["jax.test_util"] is sys.modules["s2s.test_util"]
        assert jax.tree.transpose(jax.tree.structure([0, 0]), jax.tree.structure((0, 0)), [(1, 2), (3, 4)]) == \
            ([1, 3], [2, 4])
        assert jax.jacobian is s2s.jacrev
        assert jax.tree_util.keystr((jax.tree_util.SequenceKey(0),)) == "[0]"
        jax_check_grads(lambda x: np.tanh(x) ** 2, (np.array([0.2, -0.7]),), order=2, modes=("fwd", "rev"))
    finally:
        restore(saved)
