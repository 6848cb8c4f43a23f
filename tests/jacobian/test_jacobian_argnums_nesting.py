"""Jacobians wrt several arguments nest as JAX's: the output's structure first, then a tuple over
the arguments (`jac[out_i][arg_j]`); hessian (jacfwd of jacrev) follows, `hess[out_i][arg_j][arg_k]`.
Every block is checked against central differences of the plain function, jacfwd against jacrev,
and vmap of a Jacobian against a loop (issue 44, family 6)."""
import numpy as np
import pytest

import s2s


def fd_block(f, args, j, pick, eps=1e-6):
    """d pick(f(*args)) / d args[j] by central differences: shape out.shape + args[j].shape."""
    x = np.asarray(args[j], dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        plus = list(args)
        minus = list(args)
        plus[j] = x + e.reshape(x.shape)
        minus[j] = x - e.reshape(x.shape)
        cols.append((np.asarray(pick(f(*plus))) - np.asarray(pick(f(*minus)))) / (2 * eps))
    out_shape = np.shape(pick(f(*args)))
    return np.moveaxis(np.array(cols), 0, -1).reshape(out_shape + x.shape)


def pair(a, b):
    return a * b, np.sum(b)


def triple(a, b, c):
    return {"p": np.sin(a) * c[0], "q": (np.sum(b * c), a[:2] * b[1])}


def single(a, b):
    return np.tanh(a) * np.sum(b ** 2)


A = np.array([0.3, -0.7, 1.1])
B = np.array([0.5, 1.5, -0.2])
C = np.array([2.0, -1.0, 0.4])

# (function, arguments, argnums, the output's leaves as pickers)
CASES = [
    (pair, (A, B), (0, 1), [lambda o: o[0], lambda o: o[1]]),
    (pair, (A, B), (1, 0), [lambda o: o[0], lambda o: o[1]]),
    (triple, (A, B, C), (0, 2), [lambda o: o["p"], lambda o: o["q"][0], lambda o: o["q"][1]]),
    (triple, (A, B, C), (2, 1, 0), [lambda o: o["p"], lambda o: o["q"][0], lambda o: o["q"][1]]),
    (single, (A, B), (0, 1), [lambda o: o]),
]
LEAF_OF = {  # the same pickers applied to a Jacobian nested output first
    pair: [lambda j: j[0], lambda j: j[1]],
    triple: [lambda j: j["p"], lambda j: j["q"][0], lambda j: j["q"][1]],
    single: [lambda j: j],
}


@pytest.mark.parametrize("jac", [s2s.jacfwd, s2s.jacrev], ids=["jacfwd", "jacrev"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_blocks_nest_output_then_argument(jac, case):
    f, args, argnums, pickers = CASES[case]
    got = jac(f, argnums=argnums)(*args)
    for pick, jpick in zip(pickers, LEAF_OF[f]):
        per_arg = jpick(got)
        assert isinstance(per_arg, tuple) and len(per_arg) == len(argnums)
        for block, j in zip(per_arg, argnums):
            np.testing.assert_allclose(block, fd_block(f, args, j, pick), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_jacfwd_equals_jacrev(case):
    f, args, argnums, _ = CASES[case]
    fwd = s2s.jacfwd(f, argnums=argnums)(*args)
    rev = s2s.jacrev(f, argnums=argnums)(*args)
    fl, fdef = s2s.tree_util.tree_flatten(fwd)
    rl, rdef = s2s.tree_util.tree_flatten(rev)
    assert fdef == rdef
    for x, y in zip(fl, rl):
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)


def test_hessian_of_several_arguments_nests_as_jacfwd_of_jacrev():
    def f(a, b):
        return np.sum(a ** 2 * np.sin(b)) + a[0] * b[1] ** 3

    h = s2s.hessian(f, argnums=(0, 1))(A, B)
    grad_j = [lambda a, b, j=j: s2s.grad(f, argnums=j)(a, b) for j in (0, 1)]
    for i in (0, 1):
        for k in (0, 1):
            # hess[i][k] = d/d arg_k of (d f / d arg_i)
            np.testing.assert_allclose(h[i][k], fd_block(grad_j[i], (A, B), k, lambda o: o), rtol=1e-5, atol=1e-7)


def test_hessian_of_a_tuple_output_nests_output_first():
    def f(a, b):
        return np.sum(a * b ** 2), np.sum(np.sin(a) * b)

    h = s2s.hessian(f, argnums=(0, 1))(A, B)
    for o in (0, 1):
        for i in (0, 1):
            for k in (0, 1):
                gi = (lambda a, b, o=o, i=i: s2s.grad(lambda a, b: f(a, b)[o], argnums=i)(a, b))
                np.testing.assert_allclose(h[o][i][k], fd_block(gi, (A, B), k, lambda v: v), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("jac", [s2s.jacfwd, s2s.jacrev], ids=["jacfwd", "jacrev"])
def test_vmap_of_a_jacobian_of_several_arguments_equals_a_loop(jac):
    xs = np.stack([A, A + 0.25, A - 0.5])
    batched = s2s.vmap(jac(pair, argnums=(0, 1)), in_axes=(0, None))(xs, B)
    for n, x in enumerate(xs):
        one = jac(pair, argnums=(0, 1))(x, B)
        for o in (0, 1):
            for j in (0, 1):
                np.testing.assert_allclose(batched[o][j][n], one[o][j], rtol=1e-12, atol=1e-12)


def test_grad_through_a_jacobian_of_several_arguments():
    # the restructuring is linear: its transpose gives the gradient of a function of the blocks
    def g(a, b):
        (da, db), (sa, sb) = s2s.jacrev(pair, argnums=(0, 1))(a, b)
        return np.sum(db * np.cos(a)) + np.sum(sa) + np.sum(sb * a)

    got = s2s.grad(g)(A, B)
    np.testing.assert_allclose(got, fd_block(g, (A, B), 0, lambda v: v), rtol=1e-6, atol=1e-8)
