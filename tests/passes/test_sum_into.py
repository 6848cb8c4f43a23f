"""Sums into a dead addend (passes/sum_into.py, issue 46 section 2): a callee's cotangent of a large
parameter, zeros with a few rows added, is added into the caller's accumulator in its own array
(`rt.tree_add_into`) where nothing reads it after. Checked against central differences and grad
without jit, and the pass left alone where the addend is read again, live after the sum, bound
otherwise, or a parameter; the helper against `rt.tree_add` over the values it may meet."""
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s import runtime as rt
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import sum_into


def row_loss(c, U, rows):
    """A loss over a few rows of a large table (its cotangent: zeros with those rows added)."""
    loss = 0.0
    for k in rows:
        loss += np.log(1.0 + np.exp(-np.dot(U[k], c)))
    return loss


WORDS = [3, 7, 7, 1]


def table_loss(V, U):
    total = 0.0
    for o in WORDS:
        total += row_loss(V[o], U, [o, (o * 5) % 11, 2])
    return total


def _args():
    r = np.random.default_rng(5)
    return r.normal(size=(11, 4)), r.normal(size=(11, 4))


def test_callee_cotangent_summed_into_its_own_array():
    V, U = _args()
    g = s2s.jit(s2s.grad(table_loss, argnums=(0, 1)))
    src = s2s.source(g, V, U)  # (passes/row_sums.py then keeps its rows alone: test_row_sums.py)
    assert "rt.tree_add_into(" in src or "rt.row_sums_into(" in src
    gV, gU = g(V, U)
    wV, wU = s2s.grad(table_loss, argnums=(0, 1))(V, U)
    np.testing.assert_allclose(gU, wU, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(gV, wV, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(gU, fd_grad(lambda u: table_loss(V, u), U), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gV, fd_grad(lambda v: table_loss(v, U), V), rtol=1e-6, atol=1e-8)
    again = g(V, U)  # (a second call: no array of the first is written into)
    np.testing.assert_array_equal(again[1], gU)
    np.testing.assert_array_equal(gU, g(V, U)[1])


def _run(src, params):
    fn = gast.parse("def f(" + ", ".join(params) + "):\n" + textwrap.indent(textwrap.dedent(src), "    ")).body[0]
    body, changed = sum_into.PASS(fn.body, set(params))
    return changed, to_source(fn)


def test_rewrites_a_dead_addend():
    changed, code = _run("""
        b_u = rt.zeros_like_tree(u)
        for i in r1:
            b_u = rt.add_at(b_u, w, v)
        acc = rt.tree_add(acc, b_u)
        return acc
    """, ["u", "r1", "w", "v", "acc"])
    assert changed and "rt.tree_add_into(acc, b_u)" in code


@pytest.mark.parametrize("src", [
    # read again after the sum
    """
    b_u = rt.zeros_like_tree(u)
    b_u = rt.add_at(b_u, w, v)
    acc = rt.tree_add(acc, b_u)
    return acc, b_u
    """,
    # live after the sum: the next iteration adds rows into it again
    """
    b_u = rt.zeros_like_tree(u)
    for i in r1:
        b_u = rt.add_at(b_u, w, v)
        acc = rt.tree_add(acc, b_u)
    return acc
    """,
    # another name holds the array
    """
    b_u = rt.zeros_like_tree(u)
    keep = b_u
    acc = rt.tree_add(acc, b_u)
    return acc, keep
    """,
    # bound to something that is not its own array
    """
    b_u = g
    b_u = rt.add_at(b_u, w, v)
    acc = rt.tree_add(acc, b_u)
    return acc
    """,
    # added to two accumulators
    """
    b_u = rt.zeros_like_tree(u)
    acc = rt.tree_add(acc, b_u)
    acc2 = rt.tree_add(acc2, b_u)
    return acc, acc2
    """,
    # an item store into it
    """
    b_u = rt.zeros_like_tree(u)
    b_u[0] = v
    acc = rt.tree_add(acc, b_u)
    return acc
    """,
])
def test_leaves_an_addend_that_may_be_seen(src):
    changed, code = _run(src, ["u", "r1", "w", "v", "acc", "acc2", "g"])
    if "acc2 = " in src:  # (the second sum, after which it is dead, may write into it; the first may not)
        assert "acc = rt.tree_add(acc, b_u)" in code
        return
    assert not changed and "tree_add_into" not in code


def test_a_parameter_is_never_written():
    changed, code = _run("""
    acc = rt.tree_add(acc, b_u)
    return acc
    """, ["acc", "b_u"])
    assert not changed


@pytest.mark.parametrize("make", [
    lambda: (np.arange(6.0).reshape(2, 3), np.ones((2, 3)) / 3),
    lambda: (np.arange(6.0, dtype=np.float32).reshape(2, 3), np.ones((2, 3), np.float32) / 3),
    lambda: (np.arange(3.0) * 1j, np.ones(3) * (1 - 2j)),
    lambda: (np.arange(6.0).reshape(2, 3), np.ones(3)),              # broadcast: a new array
    lambda: (np.arange(3.0), np.ones(3, np.float32)),                # dtypes differ: a new array
    lambda: (np.arange(3), np.zeros(3, int)),                         # ints: the long way
    lambda: (None, np.ones(2)),
    lambda: ([np.ones(2), 1.0], [np.ones(2), 2.0]),
    lambda: (np.float64(2.0), np.float64(3.0)),
    lambda: (np.array(2.0), np.array(3.0)),                            # 0-d: tree_add's NumPy scalar
])
def test_helper_equals_tree_add(make):
    a, b = make()
    want = rt.tree_add(*make())
    got = rt.tree_add_into(a, b)
    assert type(got) is type(want)
    for x, y in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want]):
        assert type(x) is type(y) and np.shape(x) == np.shape(y) and np.result_type(x) == np.result_type(y)
        np.testing.assert_array_equal(x, y)


def test_helper_writes_into_the_addend_only():
    a, b = np.arange(4.0), np.ones(4)
    a0 = a.copy()
    out = rt.tree_add_into(a, b)
    assert out is b and np.array_equal(a, a0)
    ro = np.ones(4)
    ro.flags.writeable = False
    out = rt.tree_add_into(a, ro)
    assert out is not ro and np.array_equal(out, a0 + 1) and np.array_equal(ro, np.ones(4))


def test_rewrites_shape_foldings_form_of_the_sum():
    """`acc = acc + b_u`, where shape folding wrote `rt.tree_add` as `+`: `+`'s value where the
    operands are not two float arrays of one shape (a list's `+` concatenates)."""
    changed, code = _run("""
        b_u = rt.zeros_like_tree(u)
        for i in r1:
            b_u = rt.add_at(b_u, w, v)
        acc = acc + b_u
        return acc
    """, ["u", "r1", "w", "v", "acc"])
    assert changed and "rt.tree_add_into(acc, b_u, True)" in code
    assert rt.tree_add_into([1.0], [2.0], True) == [1.0, 2.0]
    assert rt.tree_add_into([1.0], [2.0]) == [3.0]
    a, b = np.arange(3.0), np.ones(3)
    out = rt.tree_add_into(a, b, True)
    assert out is b and np.array_equal(out, np.arange(3.0) + 1)
