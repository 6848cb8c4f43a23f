"""Select cotangents on numbers (passes/scalar_selects.py, issue 46 section 2): np.where's
cotangent on NumPy numbers, the number itself or a zero where it goes into arithmetic. Checked
bitwise against grad without jit and against central differences on a sigmoid written with
np.where in a loop over numbers; the gradient's type kept where the select's value is returned;
the helper against the rule's expression over the values it may meet."""
import re
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s import runtime as rt
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import scalar_selects


def sigmoid(x):
    """The stable sigmoid of a CS224n solution (numbers or arrays)."""
    return np.where(x >= 0, 1 / (1 + np.exp(-x)), np.exp(x) / (1 + np.exp(x)))


def pairs_loss(U, c, rows):
    loss = 0.0
    for k in rows:
        loss += -np.log(sigmoid(-np.dot(U[k], c)))
    return loss


ROWS = [0, 2, 2, 4, 1]


def test_sigmoid_over_numbers_bitwise():
    r = np.random.default_rng(11)
    U, c = r.normal(size=(5, 3)) * 3, r.normal(size=3)  # (products of both signs: both branches)
    g = s2s.jit(s2s.grad(pairs_loss, argnums=(0, 1)))
    assert "rt.where_cotangent(" in s2s.source(g, U, c, ROWS) and "rt.where_numbers(" in s2s.source(g, U, c, ROWS)
    gU, gc = g(U, c, ROWS)
    wU, wc = s2s.grad(pairs_loss, argnums=(0, 1))(U, c, ROWS)
    np.testing.assert_array_equal(gU, wU)
    np.testing.assert_array_equal(gc, wc)
    np.testing.assert_allclose(gU, fd_grad(lambda u: pairs_loss(u, c, ROWS), U), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gc, fd_grad(lambda v: pairs_loss(U, v, ROWS), c), rtol=1e-6, atol=1e-8)
    # by hand: d/ds of -log(sigmoid(-s)) is sigmoid(s)
    want = np.zeros_like(U)
    for k in ROWS:
        want[k] += c / (1 + np.exp(-np.dot(U[k], c)))
    np.testing.assert_allclose(gU, want, rtol=1e-12, atol=1e-14)


def last_sigmoid(U, c, rows):
    s = 0.0
    for k in rows:
        s = sigmoid(np.dot(U[k], c))
    return s


def test_a_select_in_a_loop_returned_as_numpy_gives_it():
    """jit of the plain function: the loop's select is np.where's 0-d array, bit for bit."""
    r = np.random.default_rng(2)
    U, c = r.normal(size=(5, 3)) * 3, r.normal(size=3)
    j = s2s.jit(last_sigmoid)
    assert "rt.where_numbers(" in s2s.source(j, U, c, ROWS)
    for rows in (ROWS, [1], [3, 0]):
        got, want = j(U, c, rows), last_sigmoid(U, c, rows)
        assert type(got) is type(want) and got.shape == want.shape and got.dtype == want.dtype
        assert got.tobytes() == want.tobytes()


def test_arrays_take_the_rules_way():
    """The same code on a vector of products: the helper's long way, the rule's values."""
    def loss(x):
        return np.sum(-np.log(sigmoid(-x)) * 1.5)
    x = np.array([-3.0, -0.5, 0.0, 0.5, 4.0])
    got = s2s.jit(s2s.grad(loss))(x)
    np.testing.assert_array_equal(got, s2s.grad(loss)(x))
    np.testing.assert_allclose(got, 1.5 / (1 + np.exp(-x)), rtol=1e-13)


def relu_scaled(x):
    return np.where(x > 0, x, 0.0) * 3.0


@pytest.mark.parametrize("x", [np.float64(2.0), 2.0, np.float64(-1.0)])
def test_a_returned_select_keeps_its_type(x):
    g = s2s.jit(s2s.grad(relu_scaled))
    assert "rt.where_cotangent(" not in s2s.source(g, x)
    got, want = g(x), s2s.grad(relu_scaled)(x)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)


def _run(src, params):
    fn = gast.parse("def f(" + ", ".join(params) + "):\n" + textwrap.indent(textwrap.dedent(src), "    ")).body[0]
    body, changed = scalar_selects.PASS(fn.body, set(params))
    return changed, to_source(fn)


def test_rewrites_selects_that_go_into_arithmetic():
    changed, code = _run("""
        b = rt.unbroadcast(xp.where(c, 0.0, g), t8)
        b2 = -rt.unbroadcast(rt.unbroadcast(xp.where(c, g, 0.0), t4) * t4, t3) / t3
        return b * t8 + b / t7 + b2
    """, ["c", "g", "t8", "t4", "t3", "t7"])
    assert changed
    assert "b = rt.where_cotangent(c, g, t8, False, xp)" in code
    assert "b2 = -rt.unbroadcast(rt.where_cotangent(c, g, t4, True, xp) * t4, t3) / t3" in code


@pytest.mark.parametrize("src", [
    "b = rt.unbroadcast(xp.where(c, 0.0, g), t)\nreturn b",                  # returned
    "b = rt.unbroadcast(xp.where(c, 0.0, g), t)\nacc[0] = b\nreturn b * 2",  # stored
    "return f(rt.unbroadcast(xp.where(c, g, 0.0), t))",                      # passed to a call
    "b = rt.unbroadcast(xp.where(c, g, 0.0), t)\nreturn b @ m",              # a matrix product
    "b = rt.unbroadcast(xp.where(c, g, 0.0), t)\nreturn b ** 3.0",           # a power: another library's
    "return rt.unbroadcast(xp.where(c, g, -0.0), t) * 2",                   # not the rule's zero
    "return rt.unbroadcast(xp.where(c, g, h), t) * 2",                      # not the rule
])
def test_leaves_selects_whose_value_is_seen(src):
    changed, code = _run(src, ["c", "g", "t", "acc", "f", "m", "h"])
    assert not changed and "where_cotangent" not in code


@pytest.mark.parametrize("c", [np.True_, np.False_, True, False])
@pytest.mark.parametrize("g", [np.float64(0.75), np.float64(-0.0), np.float64(np.nan), np.float64(-np.inf)])
@pytest.mark.parametrize("like", [np.float64(2.0), 2.0])
@pytest.mark.parametrize("first", [True, False])
def test_helper_on_numbers(c, g, like, first):
    want = rt.unbroadcast(np.where(c, g, 0.0) if first else np.where(c, 0.0, g), like)
    got = rt.where_cotangent(c, g, like, first, np)
    assert type(got) is np.float64 and np.asarray(want).dtype == np.float64
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got) == np.signbit(want)
    assert np.array_equal(got * 3.0, want * 3.0, equal_nan=True) and type(got * 3.0) is type(want * 3.0)


@pytest.mark.parametrize("c, g, like", [
    (np.array([True, False]), np.array([1.5, -2.0]), np.zeros(2)),       # arrays
    (np.array([True, False]), np.float64(1.5), np.float64(0.0)),          # broadcast: summed down
    (np.True_, np.float32(1.5), np.float32(0.0)),                         # float32: its dtype
    (np.True_, np.float64(1.5), np.zeros(())),                            # a 0-d operand
    (np.True_, 1.5, 2.0),                                                 # a Python float cotangent
])
@pytest.mark.parametrize("first", [True, False])
def test_helper_otherwise_is_the_rule(c, g, like, first):
    want = rt.unbroadcast(np.where(c, g, 0.0) if first else np.where(c, 0.0, g), like)
    got = rt.where_cotangent(c, g, like, first, np)
    assert type(got) is type(want) and np.result_type(got) == np.result_type(want)
    np.testing.assert_array_equal(got, want)


def test_docstring_example():
    """The module's Before -> After example (tests/passes/test_passes.py's check, for this pass)."""
    doc = scalar_selects.__doc__
    before, after = (textwrap.dedent(re.search(label + r"(?: \([^)]*\))?::\n\n((?:    .*\n|\n)+)", doc).group(1))
                     for label in ("Before", "After"))
    fn, want = (gast.parse("def f():\n" + textwrap.indent(src, "    ")).body[0] for src in (before, after))
    body, changed = scalar_selects.PASS(fn.body, set())
    assert changed and to_source(fn) == to_source(want)


def test_wheres_in_loops_pick_numbers():
    changed, code = _run("""
        s = xp.where(c, a, b)
        for i in r:
            s = xp.where(c, a, b) + xp.where(c)[0]
        return s
    """, ["c", "a", "b", "r"])
    assert changed and "s = xp.where(c, a, b)\n" in code  # (outside a loop: as it was)
    assert "s = rt.where_numbers(c, a, b, xp) + xp.where(c)[0]" in code


@pytest.mark.parametrize("c", [np.True_, np.False_, True])
@pytest.mark.parametrize("a, b", [
    (np.float64(0.75), np.float64(-0.0)), (np.float64(np.nan), 2.0), (1.5, np.float64(np.inf)), (1.5, -2.5),
    (np.float32(1.0), 2.0),                                     # float32: NumPy's own (a float32 result)
    (np.ones(2), 0.0), (1, 2), (np.float64(1.0), np.zeros(())),  # arrays, ints: NumPy's own
])
def test_where_numbers_is_np_where(c, a, b):
    want = np.where(c, a, b)
    got = rt.where_numbers(c, a, b, np)
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    assert got.flags.writeable and got.flags.owndata and got.flags.c_contiguous
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    assert got.tobytes() == want.tobytes()  # (a NaN's payload too)


def test_another_array_module_gets_its_own_where():
    calls = []

    class FakeXp:
        @staticmethod
        def where(c, a, b):
            calls.append((c, a, b))
            return np.array(7.0)

    assert rt.where_numbers(np.True_, 1.0, 2.0, FakeXp) == 7.0 and calls == [(np.True_, 1.0, 2.0)]
    got = rt.where_cotangent(np.True_, np.float64(1.0), np.float64(2.0), True, FakeXp)
    assert got == 7.0 and calls[1] == (np.True_, np.float64(1.0), 0.0)
