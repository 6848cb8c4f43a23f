"""Row sums (passes/row_sums.py, issue 46 section 2): a callee's cotangent of a large table, zeros
with a few rows added, kept as its rows and added row by row into the caller's accumulator.
Checked bitwise against grad without jit (which adds the dense zeros), against central
differences, with rows repeated within one call and across calls and negative indices; the pass
left alone where the accumulator may be held elsewhere; the helpers against the dense helpers
over the values they may meet."""
import re
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s import runtime as rt
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import row_sums


def rows_loss(c, U, rows):
    """A loss over a few rows of a table, each read by a gather `U[k]` (a row may come twice)."""
    loss = 0.0
    for k in rows:
        loss += np.log(1.0 + np.exp(-np.dot(U[k], c)))
    return loss


CONTEXTS = [3, 7, 7, 1]


def table_loss(V, U):
    total = 0.0
    for o in CONTEXTS:
        total += rows_loss(V[o], U, [o, (o * 5) % 11, 2, o, -1, 10])  # (o twice; -1 and 10: one row)
    return total


def _args():
    r = np.random.default_rng(7)
    return r.normal(size=(11, 4)), r.normal(size=(11, 4))


def test_rows_summed_into_the_accumulator_bitwise():
    V, U = _args()
    g = s2s.jit(s2s.grad(table_loss, argnums=(0, 1)))
    src = s2s.source(g, V, U)
    assert "rt.row_sums_into(" in src and "rt.row_add(" in src and "rt.row_zeros" in src
    gV, gU = g(V, U)
    wV, wU = s2s.grad(table_loss, argnums=(0, 1))(V, U)
    np.testing.assert_array_equal(gU, wU)  # (the dense sums' values, bit for bit)
    np.testing.assert_array_equal(gV, wV)
    np.testing.assert_allclose(gU, fd_grad(lambda u: table_loss(V, u), U), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gV, fd_grad(lambda v: table_loss(v, U), V), rtol=1e-6, atol=1e-8)
    again = g(V, U)  # (a second call starts from zeros again: nothing of the first is added into)
    np.testing.assert_array_equal(again[1], gU)
    np.testing.assert_array_equal(again[0], gV)


def test_repeated_rows_add_each_time():
    """A row gathered three times in one call: its gradient is three terms (a loop over them by hand)."""
    U = np.random.default_rng(3).normal(size=(6, 3))
    c = np.array([0.5, -1.0, 2.0])

    def loss(U):
        total = 0.0
        for _ in range(2):
            total += rows_loss(c, U, [4, 4, 1, 4])
        return total

    got = s2s.jit(s2s.grad(loss))(U)
    assert "rt.row_sums_into(" in s2s.source(s2s.jit(s2s.grad(loss)), U)
    want = np.zeros_like(U)
    for _ in range(2):
        for k in [4, 4, 1, 4]:
            s = 1.0 / (1.0 + np.exp(np.dot(U[k], c)))
            want[k] += -s * c
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(got, s2s.grad(loss)(U))


def test_an_index_of_another_kind_takes_the_dense_way():
    """Rows by a slice and by an array of indices (repeats included): the dense array, the same values."""
    U = np.random.default_rng(4).normal(size=(8, 3))
    c = np.array([1.0, 0.25, -0.5])

    def part(c, U, k):
        return np.sum(np.tanh(U[k] @ c))

    def loss(U):
        total = 0.0
        for k in [1, slice(2, 5), np.array([0, 0, 6])]:
            total += part(c, U, k)
        return total

    got = s2s.jit(s2s.grad(loss))(U)
    np.testing.assert_array_equal(got, s2s.grad(loss)(U))
    np.testing.assert_allclose(got, fd_grad(loss, U), rtol=1e-6, atol=1e-8)


def _run(src, params):
    fn = gast.parse("def f(" + ", ".join(params) + "):\n" + textwrap.indent(textwrap.dedent(src), "    ")).body[0]
    body, changed = row_sums.PASS(fn.body, set(params))
    return changed, to_source(fn)


def test_rewrites_rows_into_an_owned_accumulator():
    changed, code = _run("""
        acc = xp.zeros((n, d))
        for o in r0:
            b_u = xp.zeros((n, d))
            for i in r1:
                b_u = rt.add_at(b_u, w, v)
            acc = rt.tree_add_into(acc, b_u, True)
        return acc
    """, ["n", "d", "r0", "r1", "w", "v"])
    assert changed
    assert "b_u = rt.row_zeros((n, d), xp)" in code and "b_u = rt.row_add(b_u, w, v)" in code
    assert "acc = rt.row_sums_into(acc, b_u, True)" in code
    changed, code = _run("""
        acc = rt.zeros_like_tree(u)
        b_u = rt.zeros_like_tree(u)
        b_u = rt.add_at(b_u, w, v)
        acc = rt.tree_add_into(acc, b_u)
        return acc
    """, ["u", "w", "v"])
    assert changed and "b_u = rt.row_zeros_like(u)" in code and "rt.row_sums_into(acc, b_u)" in code


_LOOP = "\nb_u = xp.zeros((n, d))\nb_u = rt.add_at(b_u, w, v)\nacc = rt.tree_add_into(acc, b_u, True)\n"


@pytest.mark.parametrize("src", [
    # the accumulator is a parameter (the caller's array)
    "for o in r0:" + textwrap.indent(_LOOP, "    ") + "return acc",
    # another name holds the accumulator's array while sums go into it
    "acc = xp.zeros((n, d))\nfor o in r0:\n    keep.append(acc)" + textwrap.indent(_LOOP, "    ") + "return acc",
    # the accumulator starts from another value (it may hold -0.0, or be another's array)
    "acc = g\nfor o in r0:" + textwrap.indent(_LOOP, "    ") + "return acc",
    # another sum into it, of an addend that may be anyone's
    "acc = xp.zeros((n, d))\nfor o in r0:" + textwrap.indent(_LOOP, "    ") + "    acc = rt.tree_add(acc, g)\nreturn acc",
    # the addend is read again
    "acc = xp.zeros((n, d))\nfor o in r0:" + textwrap.indent(_LOOP, "    ") + "    keep.append(b_u)\nreturn acc",
    # the addend is bound to something that is not its own zeros
    "acc = xp.zeros((n, d))\nfor o in r0:\n    b_u = g\n    b_u = rt.add_at(b_u, w, v)\n"
    "    acc = rt.tree_add_into(acc, b_u, True)\nreturn acc",
])
def test_leaves_an_accumulator_that_may_be_seen(src):
    changed, code = _run(src, ["n", "d", "r0", "w", "v", "g", "keep"] + (["acc"] if src.startswith("for") else []))
    assert not changed and "row_" not in code


# ---- the helpers against the dense ones ----

def _dense_and_rows(shape, dtype, updates):
    """(dense, rows): the cotangent through rt.add_at into zeros, and through rt.row_add."""
    dense, rows = np.zeros(shape, dtype), rt.row_zeros_like(np.zeros(shape, dtype))
    for i, v in updates:
        dense = rt.add_at(dense, i, v)
        rows = rt.row_add(rows, i, v)
    return dense, rows


@pytest.mark.filterwarnings("ignore:overflow encountered")
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("updates", [
    [(2, np.arange(3.0)), (2, np.ones(3) / 3), (np.int64(0), -np.ones(3)), (-1, np.full(3, 0.1)), (4, 0.5)],
    [(1, np.array([-0.0, 0.0, -0.0]))],                          # a signed zero, added to zeros
    [(3, np.array([np.inf, np.nan, 1e308])), (3, np.array([1.0, 2.0, 1e308]))],
    [(1, np.ones(3)), (slice(0, 2), np.ones(3)), (1, np.ones(3))],  # a slice: dense from there on
    [(0, np.ones(3)), (np.array([0, 0, 4]), np.ones((3, 3)))],       # fancy, repeats: np.add.at's sums
])
def test_row_helpers_equal_the_dense_ones(dtype, updates):
    dense, rows = _dense_and_rows((5, 3), dtype, updates)
    acc = np.random.default_rng(1).normal(size=(5, 3)).astype(dtype)
    want = rt.tree_add_into(acc.copy(), dense, True)
    got = rt.row_sums_into(acc.copy(), rows, True)
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got.real), np.signbit(want.real))


def test_row_sums_into_writes_into_the_accumulator():
    acc = np.zeros((4, 2))
    rows = rt.row_add(rt.row_zeros((4, 2), np), 1, np.ones(2))
    out = rt.row_sums_into(acc, rows)
    assert out is acc and np.array_equal(acc, [[0, 0], [1, 1], [0, 0], [0, 0]])


@pytest.mark.parametrize("acc", [
    None,                                          # no accumulator yet: the dense array
    np.zeros((4, 3)),                              # another shape: broadcasting's error, as dense
    np.zeros((4, 2), np.float32),                  # another dtype: a new array
    np.zeros((4, 2))[:, ::-1],                     # a view (writeable): into it, as its own
])
def test_row_sums_into_other_accumulators(acc):
    def rows():
        return rt.row_add(rt.row_add(rt.row_zeros((4, 2), np), 3, np.array([1.0, -2.0])), 3, 0.5)
    dense = np.zeros((4, 2))
    dense[3] += np.array([1.0, -2.0])
    dense[3] += 0.5
    a1 = acc.copy() if acc is not None else None
    a2 = acc.copy() if acc is not None else None
    try:
        want = rt.tree_add_into(a1, dense.copy())
    except ValueError:
        with pytest.raises(ValueError):
            rt.row_sums_into(a2, rows())
        return
    got = rt.row_sums_into(a2, rows())
    assert type(got) is type(want) and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_out_of_range_row_raises_as_dense():
    with pytest.raises(IndexError):
        rt.add_at(np.zeros((3, 2)), 3, np.ones(2))
    with pytest.raises(IndexError):
        rt.row_add(rt.row_zeros((3, 2), np), 3, np.ones(2))
    with pytest.raises(IndexError):
        rt.row_add(rt.row_zeros((3, 2), np), -4, np.ones(2))


def test_zeros_of_other_kinds_stay_dense():
    class FakeXp:
        @staticmethod
        def zeros(shape):
            return ("zeros", shape)

    assert rt.row_zeros((3, 2), FakeXp) == ("zeros", (3, 2))  # another array module: its own zeros
    for like in (np.zeros(4), np.zeros((2, 3), int), [np.zeros((2, 2))], 0.0):
        want, got = rt.zeros_like_tree(like), rt.row_zeros_like(like)
        assert type(got) is type(want)
        np.testing.assert_array_equal(np.asarray(got, dtype=object) if isinstance(got, list) else got,
                                      np.asarray(want, dtype=object) if isinstance(want, list) else want)
    z = rt.row_zeros([3, 2], np)  # (a list shape: NumPy's zeros)
    assert type(z) is np.ndarray and z.shape == (3, 2)


def test_docstring_example():
    """The module's Before -> After example (tests/passes/test_passes.py's check, for this pass)."""
    doc = row_sums.__doc__
    before, after = (textwrap.dedent(re.search(label + r"(?: \([^)]*\))?::\n\n((?:    .*\n|\n)+)", doc).group(1))
                     for label in ("Before", "After"))
    fn, want = (gast.parse("def f():\n" + textwrap.indent(src, "    ")).body[0] for src in (before, after))
    body, changed = row_sums.PASS(fn.body, set())
    assert changed and to_source(fn) == to_source(want)
