"""Transposed sums in loops (passes/transposed_sums.py, issue 46 section 2): a weight used as
`w.T` in a loop gets its cotangent added as a transpose once per step, which the accumulator
keeps transposed (`rt.add_transposed`). Checked against central differences and grad without
jit; the helper against `a + v.T` bit for bit; the pass only in loops and only for a statement
that rebinds its left operand."""
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s import runtime as rt
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import transposed_sums


def elman(w_ih, w_hh, xs):
    """An Elman RNN in PyTorch's layout (`x @ w.T`), the loss over its last state."""
    h = np.zeros((xs.shape[1], w_hh.shape[0]))
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ w_ih.T + h @ w_hh.T)
    return np.sum(h ** 2)


def _args():
    r = np.random.default_rng(11)
    return r.normal(size=(5, 3)) * 0.5, r.normal(size=(5, 5)) * 0.4, r.normal(size=(6, 4, 3))


def test_weights_through_a_transpose():
    w_ih, w_hh, xs = _args()
    g = s2s.jit(s2s.grad(elman, argnums=(0, 1)))
    assert "rt.add_transposed(" in s2s.source(g, w_ih, w_hh, xs)
    got = g(w_ih, w_hh, xs)
    want = s2s.grad(elman, argnums=(0, 1))(w_ih, w_hh, xs)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[0], fd_grad(lambda w: elman(w, w_hh, xs), w_ih), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got[1], fd_grad(lambda w: elman(w_ih, w, xs), w_hh), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(g(w_ih, w_hh, xs)[1], got[1])  # (a second call: the same)


@pytest.mark.parametrize("make", [
    lambda r: (r.normal(size=(3, 4)), r.normal(size=(4, 3))),
    lambda r: (r.normal(size=(3, 4)), r.normal(size=(1, 3))),                  # broadcast
    lambda r: (r.normal(size=(2, 3, 4)), r.normal(size=(4, 3, 2))),
    lambda r: (r.normal(size=(3, 4)).astype(np.float32), r.normal(size=(4, 3))),
    lambda r: (r.normal(size=(3, 4)) * 1j, r.normal(size=(4, 3))),
    lambda r: (np.arange(12).reshape(3, 4), np.arange(12).reshape(4, 3)),
    lambda r: (np.asfortranarray(r.normal(size=(3, 4))), r.normal(size=(4, 3))[:, ::-1]),
    lambda r: (0.0, r.normal(size=(4, 3))),                                      # a number: the long way
    lambda r: (r.normal(size=3), r.normal(size=3)),                              # vectors: the long way
    lambda r: (r.normal(size=(3, 4)), r.normal(size=4)),                         # ranks differ
    lambda r: (np.float64(1.5), np.float64(2.0)),
])
def test_helper_equals_the_sum(make):
    a, v = make(np.random.default_rng(12))
    want = a + rt.transpose_vjp(v, None)
    got = rt.add_transposed(a, v)
    assert type(got) is type(want) and np.shape(got) == np.shape(want) and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_an_accumulator_stays_transposed_and_right():
    r = np.random.default_rng(13)
    acc, want = np.zeros((5, 7)), np.zeros((5, 7))
    for _ in range(4):
        v = r.normal(size=(7, 5))
        acc, want = rt.add_transposed(acc, v), want + v.T
    np.testing.assert_array_equal(acc, want)


def _run(src):
    fn = gast.parse("def f(r1, b_w, v, c):\n" + textwrap.indent(textwrap.dedent(src), "    ")).body[0]
    _, changed = transposed_sums.PASS(fn.body, {"r1", "b_w", "v", "c"})
    return changed, to_source(fn)


def test_rewrites_an_accumulator_in_a_loop_only():
    changed, code = _run("""
        for t in r1:
            b_w = b_w + rt.transpose_vjp(v, None)
        b_w = b_w + rt.transpose_vjp(v, None)
        other = b_w + rt.transpose_vjp(v, None)
        return b_w, other
    """)
    assert changed and code.count("rt.add_transposed(b_w, v)") == 1 and code.count("rt.transpose_vjp(v, None)") == 2


@pytest.mark.parametrize("src", [
    "for t in r1:\n    c = b_w + rt.transpose_vjp(v, None)\nreturn c\n",            # not an accumulator
    "for t in r1:\n    b_w = b_w + rt.transpose_vjp(v, (1, 0, 2))\nreturn b_w\n",  # other axes
    "for t in r1:\n    b_w = b_w - rt.transpose_vjp(v, None)\nreturn b_w\n",        # a difference
    "for t in r1:\n    b_w = rt.transpose_vjp(v, None) + b_w\nreturn b_w\n",        # the other order
])
def test_leaves_other_forms(src):
    changed, code = _run(src)
    assert not changed and "add_transposed" not in code
