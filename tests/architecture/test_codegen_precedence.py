"""Printing a node leaves nothing on it that changes a later printing: astor records each node's
precedence on the node (`_pp`), and a node a pass later moved under a parent that sets none (a
subscript's value) printed with the stale one, `(a + b)[i]` as `a + b[i]` (found by the
fuzzer's programs under jit(grad) with kernels at every size: tests/test_jit_fused_corpus.py)."""
import gast
import numpy as np

import s2s
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.ir import build


def test_a_moved_node_prints_with_its_new_parents_precedence():
    fn = gast.parse("def f(a, b, i):\n    t = a + b\n    return t\n").body[0]
    to_source(fn)  # `a + b` printed as an assignment's value: no parentheses needed there
    node = fn.body[0].value
    fn.body = [build.ret(gast.Subscript(value=node, slice=build.name("i"), ctx=gast.Load()))]
    assert to_source(fn).splitlines()[1].strip() == "return (a + b)[i]"


def f(x, y):
    acc = x * 1.0
    a0 = acc.copy()
    a0[[0, 2]] = (np.arctan(x) + 0.0 * x)[[1, 0]]
    acc = a0
    return np.sum(acc * acc)


def g(x, y):
    t = (np.sin(x) + y)[0]
    return np.sum(t * x)


def test_jit_of_grad_with_a_subscripted_sum():
    x, y = np.array([0.3, -0.7, 1.1]), np.array([0.5, 0.2, -0.4])
    for fn in (f, g):
        want = s2s.grad(fn, argnums=(0, 1))(x, y)
        got = s2s.jit(s2s.grad(fn, argnums=(0, 1)))(x, y)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12)
    # by hand: g = sum((sin(x) + y)[0] * x), d/dx = s + cos(x[0]) e0 * sum(x), d/dy = e0 * sum(x)
    s = np.sin(x[0]) + y[0]
    dx = np.full(3, s)
    dx[0] += np.cos(x[0]) * np.sum(x)
    np.testing.assert_allclose(s2s.jit(s2s.grad(g))(x, y), dx, rtol=1e-12)


def permuted(x, y):
    acc = x * 1.0
    a0 = acc.copy()
    a0[[0, 1, 2]] = (np.arctan(x) + 0.0 * x)[[1, 2, 0]]
    acc = a0
    return np.sum(acc * acc * y)


def test_jit_of_grad_through_a_permuted_sum_is_right():
    """The silent form: `(a + b)[perm]` printed as `a + b[perm]` has the right shape and the
    wrong values (jit(grad) gave [-0.61, 0.20, -0.11] for [-0.21, -0.41, 0.15])."""
    x, y = np.array([0.3, -0.7, 1.1]), np.array([0.5, 0.2, -0.4])
    h = 1e-6
    fd = np.array([(permuted(x + h * e, y) - permuted(x - h * e, y)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(s2s.jit(s2s.grad(permuted))(x, y), fd, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(s2s.grad(permuted)(x, y), fd, rtol=1e-7, atol=1e-9)
