"""An argument's transpose written in a loop, `h @ w.T` (issue 46 section 2): reverse mode's
backward sweep recomputes `xp.transpose(w)` (a view) where each iteration starts instead of
saving it on the tape every step and popping it back (transforms/tape.py, `recomputable`).
Counted on the record the forward sweep leaves, values against central differences and the
same loop written with the transposes outside it; a transpose of something the function
changes stays saved."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s.api import memory


def elman(w_ih, w_hh, b, xs):
    h = np.zeros((xs.shape[1], w_hh.shape[0]))
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ w_ih.T + h @ w_hh.T + b)
    return np.sum(h ** 2)


def hoisted(w_ih, w_hh, b, xs):
    a, c = w_ih.T, w_hh.T
    h = np.zeros((xs.shape[1], w_hh.shape[0]))
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ a + h @ c + b)
    return np.sum(h ** 2)


def scaled(w, xs):
    h = np.zeros((xs.shape[1], w.shape[0]))
    for t in range(xs.shape[0]):
        w = w * 0.9            # (w changes in the loop: its transpose is the step's, saved)
        h = np.tanh(xs[t] @ w.T + h)
    return np.sum(h)


def _args(T=6):
    r = np.random.default_rng(7)
    return r.normal(size=(5, 3)) * 0.4, r.normal(size=(5, 5)) * 0.4, r.normal(size=5) * 0.1, r.normal(size=(T, 4, 3))


def test_transposes_are_not_on_the_tape():
    T = 6
    args = _args(T)
    code = s2s.source(s2s.grad(elman, argnums=(0, 1, 2)))
    assert code.count("recomputed, not saved") == 3  # xs[t], w_ih.T, w_hh.T
    rec = memory.tape_record(elman, *args, argnums=(0, 1, 2))
    assert rec.views == 0  # (two transposes a step before: 2 * (T - 1) views and their pushes)
    assert rec.arrays == T and rec.nbytes == T * 4 * 5 * 8  # h before each step
    want = memory.tape_record(hoisted, *args, argnums=(0, 1, 2))
    assert (rec.arrays, rec.nbytes, rec.stubs, rec.pushes) == (want.arrays, want.nbytes, want.stubs, want.pushes)


@pytest.mark.parametrize("jitted", [False, True])
def test_values(jitted):
    args = _args()
    g = s2s.grad(elman, argnums=(0, 1, 2))
    got = (s2s.jit(g) if jitted else g)(*args)
    want = s2s.grad(hoisted, argnums=(0, 1, 2))(*args)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(got[1], fd_grad(lambda v: elman(args[0], v, *args[2:]), args[1]), rtol=1e-6, atol=1e-8)


def test_a_changing_weight_stays_saved():
    r = np.random.default_rng(8)
    w, xs = r.normal(size=(5, 3)) * 0.4, r.normal(size=(4, 2, 3))
    code = s2s.source(s2s.grad(scaled))
    assert code.count("recomputed, not saved") == 1  # (xs[t] alone: the transpose is saved)
    np.testing.assert_allclose(s2s.grad(scaled)(w, xs), fd_grad(lambda v: scaled(v, xs), w), rtol=1e-6, atol=1e-8)
