"""s2s.tree_util.tree_map (and tree_reduce) inside a transformed function given a helper whose
positional arity is not fixed: parameters with defaults, `*args`, a lambda with a default, a
partial (issue 27: a helper with a default raised an S2SSyntaxError pointing into s2s's own
tree_inside.py). The stand-in now calls such a helper through a lambda of exactly as many
parameters as it passes; a helper that cannot take them is refused at the user's line. Values
are checked against central differences of the plain-Python function and a loop over examples."""
import functools

import numpy as np
import pytest

import s2s
from s2s import tree_util as tu
from s2s.errors import S2STypeError

P = {"a": np.array([0.1, 0.2]), "b": np.array(0.3)}
Q = {"a": np.array([1.5, 2.0]), "b": np.array(3.0)}


def scaled_sin(x, scale=2.0):
    return np.sin(x) * scale


def first_of_many(*xs):
    return np.sin(xs[0]) * 2.0


def product(x, y, scale=2.0):
    return np.sin(x) * y * scale


def one_parameter(x):
    return np.sin(x)


def keyword_required(x, *, scale):
    return np.sin(x) * scale


def _total(t):
    return np.sum(t["a"]) + np.sum(t["b"])


def with_default(p):
    return _total(tu.tree_map(scaled_sin, p))


def with_varargs(p):
    return _total(tu.tree_map(first_of_many, p))


def two_trees_with_default(p):
    return _total(tu.tree_map(product, p, Q))


def default_filled_by_second_tree(p):
    return _total(tu.tree_map(scaled_sin, p, Q))  # scale: Q's leaf


def lambda_with_default(p):
    return _total(tu.tree_map(lambda x, s=2.0: np.sin(x) * s, p))


def closure_lambda_with_default(p):
    w = 3.0
    return _total(tu.tree_map(lambda x, s=2.0: np.sin(x) * s * w, p))


def partial_helper(p):
    return _total(tu.tree_map(functools.partial(product, scale=0.5), p, Q))


def reduce_with_default(p):
    return tu.tree_reduce(lambda acc, leaf, c=1.5: acc + np.sum(np.cos(leaf)) * c, p, 0.0)


def too_many_trees(p):
    return _total(tu.tree_map(one_parameter, p, Q))


def missing_keyword(p):
    return _total(tu.tree_map(keyword_required, p))


FUNCS = [with_default, with_varargs, two_trees_with_default, default_filled_by_second_tree, lambda_with_default,
         closure_lambda_with_default, partial_helper, reduce_with_default]


def _fd_grad(f, p, eps=1e-6):
    out = {}
    for k, v in p.items():
        g = np.zeros_like(v)
        for i in np.ndindex(v.shape):
            e = np.zeros_like(v)
            e[i] = eps
            g[i] = (f({**p, k: v + e}) - f({**p, k: v - e})) / (2 * eps)
        out[k] = g
    return out


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_grad_and_jit_match_central_differences(f):
    got, want = s2s.grad(f)(P), _fd_grad(f, P)
    for k in P:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(s2s.jit(f)(P), f(P), rtol=1e-12)


@pytest.mark.parametrize("f", [with_default, with_varargs, lambda_with_default], ids=lambda f: f.__name__)
def test_vmap_and_jvp_match_a_loop(f):
    ps = {"a": np.array([[0.1, 0.2], [0.4, -0.3], [1.0, 0.5]]), "b": np.array([0.3, -0.2, 0.8])}
    rows = [{k: v[i] for k, v in ps.items()} for i in range(3)]
    np.testing.assert_allclose(s2s.vmap(f)(ps), [f(r) for r in rows], rtol=1e-12)
    t = {"a": np.array([0.5, -1.0]), "b": np.array(2.0)}
    _, dy = s2s.jvp(f, (P,), (t,))
    h = 1e-6
    plus, minus = ({k: P[k] + s * h * t[k] for k in P} for s in (1, -1))
    np.testing.assert_allclose(dy, (f(plus) - f(minus)) / (2 * h), rtol=1e-6)


@pytest.mark.parametrize("f, why", [(too_many_trees, "too many positional arguments"),
                                    (missing_keyword, "missing a required argument: 'scale'")],
                         ids=["too_many_trees", "missing_keyword"])
def test_a_helper_that_cannot_take_the_leaves_is_refused_at_the_users_line(f, why):
    with pytest.raises(TypeError):
        f(P)  # as Python itself refuses it
    with pytest.raises(S2STypeError, match=r"test_tree_map_helper_forms.py:\d+") as e:
        s2s.grad(f)(P)
    assert why in str(e.value) and "tree_inside" not in str(e.value)


def two_trees_no_default(p):
    return _total(tu.tree_map(lambda x, y: np.sin(x) * y, p, Q))


@pytest.mark.parametrize("n", [2, 3])  # 2: as many examples as Q["a"] has elements (a wrong number, not an error)
@pytest.mark.parametrize("f", [two_trees_with_default, default_filled_by_second_tree, two_trees_no_default],
                         ids=lambda f: f.__name__)
def test_vmap_of_tree_map_over_an_unbatched_second_tree(f, n):
    """The other trees are flattened against the batched tree's structure; that structure was taken
    as batched, so Q's leaves were read as a batch (Q["a"]'s two elements as two examples')."""
    rng = np.random.default_rng(n)
    ps = {"a": rng.normal(size=(n, 2)), "b": rng.normal(size=n)}
    rows = [{k: v[i] for k, v in ps.items()} for i in range(n)]
    np.testing.assert_allclose(s2s.vmap(f)(ps), [f(r) for r in rows], rtol=1e-12)
    got, want = s2s.vmap(s2s.grad(f))(ps), [_fd_grad(f, r) for r in rows]
    for k in ps:
        np.testing.assert_allclose(got[k], np.stack([w[k] for w in want]), rtol=1e-6, atol=1e-9)


def unflatten_constants_in_its_structure(p):
    _, treedef = tu.tree_flatten(p)
    q = tu.tree_unflatten(treedef, [Q["a"], Q["b"]])
    return np.sum(np.sin(p["a"]) * q["a"]) + np.sum(p["b"] * q["b"])


def leaves_of_a_constant_tree(p):
    w = tu.tree_leaves(Q)
    return np.sum(np.sin(p["a"]) * w[0]) + np.sum(p["b"] * w[1])


@pytest.mark.parametrize("f", [unflatten_constants_in_its_structure, leaves_of_a_constant_tree],
                         ids=lambda f: f.__name__)
def test_vmap_of_constant_leaves_in_a_batched_trees_structure(f):
    ps = {"a": np.array([[0.1, 0.2], [0.4, -0.3]]), "b": np.array([0.3, -0.2])}
    rows = [{k: v[i] for k, v in ps.items()} for i in range(2)]
    np.testing.assert_allclose(s2s.vmap(f)(ps), [f(r) for r in rows], rtol=1e-12)
    got, want = s2s.vmap(s2s.grad(f))(ps), [_fd_grad(f, r) for r in rows]
    for k in ps:
        np.testing.assert_allclose(got[k], np.stack([w[k] for w in want]), rtol=1e-6, atol=1e-9)
