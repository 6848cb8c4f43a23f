"""Shape folding in loops (passes/shapefold.py's `uniform_shapes`): a name rebound every
iteration, and restored from the tape in the backward sweep, keeps one shape, so the broadcasting
helpers of a recurrence's gradient (issue 29's X1, a tanh RNN) fold inside its loops; a name whose
bindings differ in shape, or a list holding values of several shapes, keeps its helpers. Values
against hand-written backpropagation through time and central differences."""
import sys

import numpy as np
from helpers_compare import assert_trees_close
from paths import BENCH

import s2s
from s2s.test_util import check_grads

sys.path.insert(0, str(BENCH))
from bench_programs import rnn_hand, rnn_loss  # noqa: E402  (X1's program and its hand-written gradient)


def _rnn_args(t=6):
    rng = np.random.default_rng(0)
    params = (rng.normal(size=(5, 4)) / 2, rng.normal(size=(4, 4)) / 2, 0.1 * rng.normal(size=4))
    return params, rng.normal(size=(t, 3, 5)), np.zeros((3, 4))


def _body(fn, *args) -> str:
    return s2s.source(fn, *args).split("return any_shape(")[1].split("\n# ")[0]


def test_rnn_gradient_folds_its_helpers_inside_the_loops():
    args = _rnn_args()
    g = s2s.jit(s2s.grad(rnn_loss))
    assert_trees_close(g(*args), rnn_hand(*args), rtol=1e-12)
    body = _body(g, *args)
    for helper in ("rt.unbroadcast", "rt.dot_vjp", "rt.tree_add"):
        assert helper not in body, helper
    assert "sum(cat_0, axis=0)" in body and "wh.T)" in body  # (the sum deferred: passes/accumulate.py)
    check_grads(rnn_loss, args, order=1, modes=("rev",))


def test_rnn_gradient_for_other_shapes_and_no_steps():
    g = s2s.jit(s2s.grad(rnn_loss))
    args = _rnn_args(4)
    assert_trees_close(g(*args), rnn_hand(*args), rtol=1e-12)
    args = _rnn_args(0)  # (a zero-trip loop: the temporaries stay None, nothing reads them)
    assert_trees_close(g(*args), rnn_hand(*args), rtol=1e-12)


def growing(x, w):
    y = x
    for _ in range(3):
        y = np.concatenate([y, y]) * w  # another shape every iteration
    return np.sum(y ** 2)


def test_a_name_changing_shape_in_a_loop_keeps_its_helpers():
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(2, 3)), rng.normal(size=3)
    g = s2s.jit(s2s.grad(growing, argnums=(0, 1)))
    assert_trees_close(g(x, w), s2s.grad(growing, argnums=(0, 1))(x, w), rtol=1e-13)
    assert "rt.unbroadcast" in _body(g, x, w)
    check_grads(growing, (x, w), order=1, modes=("rev",))


def stacked(x, v):
    stack = []
    y = x
    for _ in range(2):
        stack.append(y)
        stack.append(v)  # the list holds two shapes: what a pop gives is not known
        y = stack.pop() * 2.0
        y = stack.pop() + y
    return np.sum(np.sin(y) * x)


def test_a_list_of_values_of_several_shapes_is_no_shape():
    rng = np.random.default_rng(2)
    x, v = rng.normal(size=(3, 4)), rng.normal(size=4)
    g = s2s.jit(s2s.grad(stacked, argnums=(0, 1)))
    assert_trees_close(g(x, v), s2s.grad(stacked, argnums=(0, 1))(x, v), rtol=1e-13)
    check_grads(stacked, (x, v), order=1, modes=("rev",))


def test_rnn_gradient_loses_dead_restores_and_hoists_its_input_projection():
    """passes/restores.py: the tape keeps only `h` (the stubs of `t3`..`t5` were read only by the
    folded helpers); passes/hoist.py: `xs[t] @ wx` is one `xs @ wx` before the loop. NumPy's
    stacked matmul multiplies each matrix as alone; the weight gradients' sums are deferred
    (passes/accumulate.py) and added in another order: equal up to rounding."""
    args = _rnn_args(7)
    g = s2s.jit(s2s.grad(rnn_loss))
    assert_trees_close(g(*args), s2s.grad(rnn_loss)(*args), rtol=1e-13, atol=1e-15)
    body = _body(g, *args)
    assert "rt.shape_stub" not in body and body.count("tape.append(") == 1 and body.count("tape.pop()") == 1
    code = "\n".join(line for line in body.split("\n") if not line.strip().startswith("#"))
    assert "proj_0 = xs @ wx" in code and "proj_0[t]" in code and "xs[t] @ wx" not in code


def partial_rows(xs, w):
    h = np.zeros(w.shape[1])
    for t in range(xs.shape[0] - 1):  # not every row: no projection hoisted
        h = np.tanh(xs[t] @ w + h)
    return np.sum(h ** 2)


def rebound_weight(xs, w):
    h = np.zeros((xs.shape[1], w.shape[1]))
    for t in range(xs.shape[0]):
        w = w * 0.5  # another matrix every iteration
        h = np.tanh(xs[t] @ w + h)
    return np.sum(h ** 2)


def test_projections_stay_in_the_loop_unless_every_row_meets_one_matrix():
    rng = np.random.default_rng(3)
    xs, w = rng.normal(size=(5, 3, 4)), rng.normal(size=(4, 2))
    for f in (partial_rows, rebound_weight):
        args = (xs[:, 0], w) if f is partial_rows else (xs, w)
        g = s2s.jit(s2s.grad(f, argnums=(0, 1)))
        assert_trees_close(g(*args), s2s.grad(f, argnums=(0, 1))(*args), rtol=1e-13)
        assert "proj_" not in _body(g, *args)
        check_grads(f, args, order=1, modes=("rev",))
