"""Spreads along the first axis (passes/spread_axis.py, issue 46 section 2): the cotangent of a
sum along axis 0 added into an array of the summed one's shape is NumPy's broadcasting of the
cotangent, not `rt.sum_vjp`'s copy. Checked against grad without jit (bitwise: the same
additions), central differences and the plain function's value; the rule left alone where
the sum runs along another axis or keeps its dimension (the rule of shapefold.py), and on the
pass's own input."""
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import shapefold, spread_axis


def column_softmax_loss(w, h, k):
    z = w @ h
    e = np.exp(z - np.max(z))
    p = e / e.sum(axis=0)  # (the char RNN's softmax: a column of probabilities)
    return -np.log(p[k, 0])


def rows_softmax_loss(w, h, k):
    z = h.T @ w.T
    e = np.exp(z - np.max(z))
    p = e / e.sum(axis=1)  # (along the last axis: the helper stays)
    return -np.log(p[0, k])


def _args():
    r = np.random.default_rng(46)
    return r.normal(size=(7, 5)), r.normal(size=(5, 1)), 3


@pytest.mark.parametrize("fn, folded", [(column_softmax_loss, True), (rows_softmax_loss, False)])
def test_gradient_against_grad_and_differences(fn, folded):
    w, h, k = _args()
    g = s2s.jit(s2s.grad(fn, argnums=(0, 1)))
    got = g(w, h, k)
    code = s2s.source(g, w, h, k)
    assert ("rt.sum_vjp(" not in code) is folded, code
    want = s2s.grad(fn, argnums=(0, 1))(w, h, k)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)  # (the same additions in the same order)
    np.testing.assert_allclose(got[0], fd_grad(lambda v: fn(v, h, k), w), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got[1], fd_grad(lambda v: fn(w, v, k), h), rtol=1e-6, atol=1e-8)
    assert s2s.jit(fn)(w, h, k) == fn(w, h, k)


def _spread(src, shapes):
    v = gast.parse(textwrap.dedent(src)).body[0].value
    table = shapefold.Shapes(shapes)
    out = spread_axis.spread(v, table, shapefold.shape_of)
    if out is None:
        return None
    fn = gast.parse("def f():\n    return 0").body[0]
    fn.body[0].value = out
    return to_source(fn).strip().splitlines()[-1].strip().removeprefix("return ")


@pytest.mark.parametrize("src, shapes, want", [
    ("a + rt.sum_vjp(g, e, 0, False)", {"a": (27, 1), "g": (1,), "e": (27, 1)}, "a + g"),
    ("rt.sum_vjp(g, e, -2, False) * a", {"a": (4, 3), "g": (3,), "e": (4, 3)}, "g * a"),
    ("a - rt.sum_vjp(g, e, 0, False)", {"a": (4, 3, 2), "g": (3, 2), "e": (4, 3, 2)}, "a - g"),
    ("a + rt.sum_vjp(g, e, 1, False)", {"a": (4, 3), "g": (4,), "e": (4, 3)}, None),  # (another axis)
    ("a + rt.sum_vjp(g, e, 0, True)", {"a": (4, 3), "g": (1, 3), "e": (4, 3)}, None),  # (shapefold's own)
    ("a + rt.sum_vjp(g, e, 0, False)", {"a": (1, 3), "g": (3,), "e": (4, 3)}, None),  # (a is smaller)
    ("a + rt.sum_vjp(g, e, 0, False)", {"a": (4, 3), "e": (4, 3)}, None),  # (g's shape unknown)
    ("a / rt.sum_vjp(g, e, 0, False)", {"a": (4, 3), "g": (3,), "e": (4, 3)}, None),  # (a division)
])
def test_rule(src, shapes, want):
    assert _spread(src, shapes) == want


def test_not_where_a_float32_may_arise():
    table = shapefold.Shapes({"a": (4, 3), "g": (3,), "e": (4, 3)})
    table.narrow = True
    v = gast.parse("a + rt.sum_vjp(g, e, 0, False)").body[0].value
    assert spread_axis.spread(v, table, shapefold.shape_of) is None


def test_values_equal_the_helpers():
    r = np.random.default_rng(3)
    from s2s import runtime as rt
    for shape in [(27, 1), (4, 3), (2, 3, 2)]:
        a, e = r.normal(size=shape), r.normal(size=shape)
        g = r.normal(size=shape[1:])
        np.testing.assert_array_equal(a + g, a + rt.sum_vjp(g, e, 0, False))
        np.testing.assert_array_equal(g * a, rt.sum_vjp(g, e, 0, False) * a)


def spread_complex_loss(w, c):
    """The sum's cotangent is complex (`s * c`, `c` complex), the summed `x` real: the spread
    adds it into `x`'s cotangent, which goes into `w[1:8]`'s (rt.add_at into a real array)."""
    x = np.tanh(w[1:8])
    s = x.sum(axis=0)
    return np.real(np.sum(s * c * (0.3 - 1.1j))) + np.sum(x * x)


def keepdims_complex_loss(w, c):
    """The same through `x.sum(axis=1, keepdims=True)` (shapefold's `_spread` of a kept axis)."""
    x = np.tanh(w[1:8])
    s = x.sum(axis=1, keepdims=True)
    return np.real(np.sum(s * c * (0.3 - 1.1j))) + np.sum(x * x)


def same_shape_complex_loss(w, c):
    """`rt.unbroadcast(b_y * c, x)` of one shape is `b_y * c` (shape folding): complex too."""
    x = np.tanh(w[1:8])
    return np.real(np.sum(x * c * (0.3 - 1.1j)))


def abs_spread_loss(w, c):
    """A real `x = |z|` of a complex `z`, summed, the sum times complex numbers: `np.abs`'s
    cotangent takes the real part of what arrives (rt.abs_vjp)."""
    x = np.abs(w * c)
    s = x.sum(axis=0)
    return np.real(np.sum(x * s * c * (0.3 - 1.1j)))


@pytest.mark.parametrize("fn, cshape", [(spread_complex_loss, (3,)), (keepdims_complex_loss, (7, 1)),
                                        (same_shape_complex_loss, (7, 3)),
                                        (abs_spread_loss, (9, 3))])
def test_a_complex_cotangent_of_a_real_value(fn, cshape):
    """jit(grad) of real parameters through complex intermediates: what grad without jit gives and
    central differences (the real part of a complex cotangent is the one a real value takes)."""
    r = np.random.default_rng(31)
    w, c = r.normal(size=(9, 3)), r.normal(size=cshape) + 1j * r.normal(size=cshape)
    g = s2s.jit(s2s.grad(fn))
    want = s2s.grad(fn)(w, c)
    for _ in range(2):
        got = g(w, c)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(got, fd_grad(lambda v: fn(v, c), w), rtol=1e-6, atol=1e-8)
    if fn in (spread_complex_loss, keepdims_complex_loss):
        assert "b_x = b_x + b_s\n" in s2s.source(g, w, c)  # (the spread: as for a real cotangent)
