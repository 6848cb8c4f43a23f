"""Shapes through an RNN's loops under jit (issue 46 section 2, the Elman RNN of bench_loops): a
batch loop over a dataset of one batch runs its body once (passes/onetrip.py), names it rebinds
with other shapes are followed binding by binding (shapefold's flow names in `known_shapes`), a
slice's length, a transpose's axes and a size read from a shape are known (shape_facts.py), and
an inlined step's record pushed on the control list keeps its items' shapes when the backward
sweep copies it; then the backward loop's `rt.unbroadcast` and `rt.operand_cotangent` fold.
Every gradient is checked against central differences and grad without jit."""
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import onetrip, shape_facts
from s2s.compiler.passes.shapefold import shape_of


def tanh(x):
    return (np.exp(2 * x) - 1) / (np.exp(2 * x) + 1)


def forward(w_ih, w_hh, b_ih, X, batch_size=4):
    """The Elman RNN's forward of raphaelsenn_rnn_numpy in miniature: a batch loop whose names are
    rebound with other shapes, and an inlined tanh whose record goes on the control list."""
    outs = []
    for i in range(0, X.shape[0], batch_size):
        x = X[i:i + batch_size]
        x = x.transpose(1, 0, 2)
        batch_size = x.shape[1]
        h_prev = np.zeros((batch_size, w_hh.shape[0]))
        hs = []
        for t in range(x.shape[0]):
            h = tanh(x[t] @ w_ih.T + b_ih + h_prev @ w_hh.T)
            hs.append(h.copy())
            h_prev = h
        outs.append(np.stack(hs, axis=0).transpose(1, 0, 2).reshape(batch_size, -1))
    return np.concatenate(outs, axis=0)


def loss(w_ih, w_hh, b_ih, X):
    return np.sum(forward(w_ih, w_hh, b_ih, X) ** 2)


def _args(n):
    r = np.random.default_rng(46)
    return r.normal(size=(5, 3)) * 0.5, r.normal(size=(5, 5)) * 0.4, r.normal(size=5) * 0.3, r.normal(size=(n, 6, 3))


def _backward_loop(src):
    """The lines of the innermost loop of the backward sweep."""
    lines = src.splitlines()
    start = max(k for k, line in enumerate(lines) if line.lstrip().startswith("for bwd_"))
    indent = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for line in lines[start + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    return "\n".join(body)


@pytest.mark.parametrize("n", [4, 8, 6])  # one batch (one trip), two batches, a batch and a part
def test_rnn_gradient(n):
    args = _args(n)
    g = s2s.jit(s2s.grad(loss, argnums=(0, 1, 2)))
    got = g(*args)
    want = s2s.grad(loss, argnums=(0, 1, 2))(*args)
    for k, (a, b) in enumerate(zip(got, want)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
        rest = list(args)

        def f(w, k=k):
            rest[k] = w
            return loss(*rest)

        np.testing.assert_allclose(a, fd_grad(f, args[k].copy()), rtol=1e-6, atol=1e-8)
    assert np.array_equal(g(*args)[0], got[0])  # (the second call: the fast path)


def test_one_batch_folds_the_backward_loop():
    args = _args(4)
    src = s2s.source(s2s.jit(s2s.grad(loss, argnums=(0, 1, 2))), *args)
    loop = _backward_loop(src)
    assert "tanh" in loop and "rt.unbroadcast(" not in loop and "rt.operand_cotangent(" not in loop
    # (the bias's cotangent: the sum `operand_cotangent` made, or its rows kept for one sum after the
    # loop, a deferred sum, where the loop is at the top level once the backward batch loop's one trip is
    # known through the record: passes/record_ranges.py)
    assert ".sum(axis=0)" in loop or "sum_0.append(bwd_tanh_b_x)" in loop
    two = _backward_loop(s2s.source(s2s.jit(s2s.grad(loss, argnums=(0, 1, 2))), *_args(8)))
    assert "rt.operand_cotangent(" in two  # (two trips: which binding a read sees is not known)


def _pass(src):
    fn = gast.parse(textwrap.dedent(src)).body[0]
    body, changed = onetrip.PASS(fn.body, {a.id for a in fn.args.args}, {"shapes": {"x": (3,)}})
    fn.body = body
    return to_source(fn), changed


def test_one_trip_loop_pass():
    out, changed = _pass("""
        def f(x):
            r0 = range(0, 64, 64)
            for i in r0:
                y = x * i
            return y, i
        """)
    assert changed and "for " not in out and "i = 0" in out
    for loop in ("range(0, 128, 64)", "range(0)", "range(3, 2)"):  # (two trips, none)
        out, changed = _pass(f"""
            def f(x):
                y = x
                for i in {loop}:
                    y = x * i
                return y
            """)
        assert not changed and "for " in out
    for jump in ("break", "continue"):  # (a jump of its own: stays a loop)
        out, changed = _pass(f"""
            def f(x):
                y = x
                for i in range(1):
                    y = x * 2.0
                    if y[0] > 0:
                        {jump}
                    y = y + 1.0
                return y
            """)
        assert not changed


def test_one_trip_loop_with_a_jump_keeps_values():
    def f(x):
        y = x * 1.0
        for i in range(0, 3, 5):
            y = np.sin(y) * (i + 2.0)
            if np.sum(y) > 100.0:
                break
            y = y * y
        return np.sum(y)

    x = np.array([0.3, -0.7, 1.1])
    got = s2s.jit(s2s.grad(f))(x)
    np.testing.assert_allclose(got, fd_grad(f, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("lo,hi,step", [(0, 64, None), (2, None, None), (None, -3, None), (-5, 100, 2),
                                        (5, 2, None), (1, 9, 3), (None, None, -1)])
def test_slice_shapes(lo, hi, step):
    def node(k):
        return None if k is None else gast.Constant(value=k, kind=None) if k >= 0 else \
            gast.UnaryOp(op=gast.USub(), operand=gast.Constant(value=-k, kind=None))
    sub = gast.Subscript(value=gast.Name(id="a", ctx=gast.Load(), annotation=None, type_comment=None),
                         slice=gast.Slice(lower=node(lo), upper=node(hi), step=node(step)), ctx=gast.Load())
    shapes = {"a": (10, 4)}
    want = np.zeros((10, 4))[lo:hi:step].shape
    got = shape_facts.sliced(sub, shapes, shape_of)
    assert got is None or got == want  # (a negative literal is `-k`, which the int values may not read)
    if all(k is None or k >= 0 for k in (lo, hi, step)):
        assert got == want


def rebound_between_loops(x, w):
    """`y` rebound at the top level with another shape, read by loops between its bindings; a
    one-trip loop whose variable is read after it."""
    y = x * 2.0
    acc = np.zeros(2)
    for i in range(3):
        acc = acc + y[i] * w[i]
    y = np.outer(x, x) @ w
    for j in range(0, 5, 7):
        y = y + np.tanh(acc) * (j + 1.5)
    z = y.reshape(2, 3)
    for k in range(2):
        z = z * np.sin(z[:, k:k + 1]) + acc[:, None]
    return np.sum(z ** 2) + j


@pytest.mark.parametrize("wrt", [0, 1])
def test_names_rebound_with_other_shapes(wrt):
    x, w = np.array([0.3, -0.8, 1.1]), np.linspace(-0.5, 0.7, 6).reshape(3, 2)
    args = [x, w]
    got = s2s.jit(s2s.grad(rebound_between_loops, argnums=wrt))(*args)
    np.testing.assert_allclose(got, s2s.grad(rebound_between_loops, argnums=wrt)(*args), rtol=1e-12, atol=1e-14)

    def f(v):
        a = list(args)
        a[wrt] = v
        return rebound_between_loops(*a)

    np.testing.assert_allclose(got, fd_grad(f, args[wrt].copy()), rtol=1e-6, atol=1e-8)
    assert s2s.jit(rebound_between_loops)(x, w) == rebound_between_loops(x, w)
