"""Container cotangents (issue 27, family 6): adjoints of tuples, lists and dicts add leaf by leaf.

The backward sweep added a second contribution to an adjoint with `+`, which concatenates
tuples and lists (four cotangents for two leaves) and fails on dicts. Only a variable proven to
hold an array or a number is now summed with `+`. References: central finite differences
(`check_grads`, up to order 3), jvp against vjp, and a vjp_fn called twice.
"""
import numpy as np
import pytest

import s2s
from s2s.base.tree import tree_flatten
from s2s.test_util import check_grads

A = np.array([1.0, -2.0])
B = np.array([3.0])
TUP = (A, B)
LST = [A, B]
DCT = {"a": A, "b": np.array([0.5, 1.5])}
MIX = (A, [B, np.array([2.0, -0.5])])


def concat_twice(xs):
    return np.sum(np.concatenate(xs) ** 2) + np.sum(np.concatenate(xs))


def concat_and_index(xs):
    i = 1
    return np.sum(np.concatenate(xs) ** 2) * np.sum(xs[i]) + np.sum(xs[0] ** 3)


def copies(xs):
    ys = xs
    zs = xs
    return np.sum(np.concatenate(ys) * np.concatenate(zs))


def ident(t):
    return t


def through_calls(xs):
    t = ident(xs)
    u = ident(xs)
    return np.sum(np.concatenate(t) * np.sin(np.concatenate(u)))


def dict_twice(d):
    e = d
    return np.sum(e["a"] ** 2) * np.sum(d["b"]) + np.sum(d["a"] * d["b"])


def dict_in_loop(d):
    s = 0.0
    for k in sorted(d):
        s = s + np.sum(np.tanh(d[k])) * np.sum(d["a"])
    return s


def mixed(t):
    a, rest = t
    b, c = rest
    return np.sum(a * c) * np.sum(b) + np.sum(t[1][1] ** 2) + np.sum(np.concatenate(rest))


def loop_over_tuple(xs):
    s = 0.0
    for x in xs:
        s = s + np.sum(np.concatenate(xs) * np.sum(x))
    return s


def vector_out(xs):
    return np.concatenate(xs) ** 2


CASES = [(concat_twice, TUP), (concat_twice, LST), (concat_and_index, TUP), (copies, TUP), (copies, LST),
         (through_calls, TUP), (dict_twice, DCT), (dict_in_loop, DCT), (mixed, MIX), (loop_over_tuple, TUP),
         (loop_over_tuple, LST), (vector_out, TUP), (vector_out, LST)]
IDS = [f"{f.__name__}-{type(a).__name__}" for f, a in CASES]


# third derivatives through a loop's tape are issue 27's family 7 (`pop from empty list` for arrays
# as well): those cases run at order 2 here
LOOPS = (dict_in_loop, loop_over_tuple)


@pytest.mark.parametrize("fn, arg", CASES, ids=IDS)
def test_container_cotangents_to_order_3(fn, arg):
    check_grads(fn, (arg,), order=2 if fn in LOOPS else 3, modes=("fwd", "rev"))


@pytest.mark.parametrize("fn, arg", CASES, ids=IDS)
def test_vjp_twice_and_jvp_pairing(fn, arg):
    out, vjp_fn = s2s.vjp(fn, arg)
    u = np.linspace(0.5, 1.5, np.size(out)).reshape(np.shape(out)) if np.ndim(out) else 0.7
    first, second = vjp_fn(u), vjp_fn(u)
    assert tree_flatten(first)[1] == tree_flatten((arg,))[1]
    for p, q in zip(tree_flatten(first)[0], tree_flatten(second)[0]):
        np.testing.assert_array_equal(p, q)
    v = tuple(np.cos(np.arange(np.size(leaf)) + 1.0).reshape(np.shape(leaf)) for leaf in tree_flatten(arg)[0])
    tangent = s2s.base.tree.tree_unflatten(tree_flatten(arg)[1], list(v))
    _, t = s2s.jvp(fn, (arg,), (tangent,))
    lhs = float(np.sum(np.asarray(u) * np.asarray(t)))
    rhs = sum(float(np.sum(c * w)) for c, w in zip(tree_flatten(first)[0], v))
    assert lhs == pytest.approx(rhs, rel=1e-10, abs=1e-12)


def test_issue_example_vjp_of_vjp_through_a_tuple():
    xs = (np.array([1.0, 2.0]), np.array([3.0]))
    check_grads(lambda xs: np.concatenate(xs) ** 2, (xs,), order=2, modes=("fwd", "rev"))
    check_grads(lambda d: d["a"] ** 2 * d["b"], ({"a": np.array([1.0, 2.0]), "b": np.array([3.0])},), order=3,
                modes=("fwd", "rev"))


def test_grad_structure_is_the_arguments():
    g = s2s.grad(concat_twice)(TUP)
    assert isinstance(g, tuple) and len(g) == 2
    np.testing.assert_allclose(g[0], 2 * A + 1)
    np.testing.assert_allclose(g[1], 2 * B + 1)
    g = s2s.grad(dict_twice)(DCT)
    assert sorted(g) == ["a", "b"]
    np.testing.assert_allclose(g["a"], 2 * A * np.sum(DCT["b"]) + DCT["b"])
