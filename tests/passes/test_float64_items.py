"""float64 items of dicts (passes/float64_items.py, issue 46 section 2): a dict of parameters and
dicts filled by time step (the char RNN's `a[t]`, `y_hat[t]`, `x[t]`) whose items are all
float64 make the items read back float64, so the zero cotangent of an item is `xp.zeros(S)`.
Checked against grad without jit (bitwise), central differences and the plain function; a
float32 dict item, or a dict other code can reach, keeps the helper."""
import numpy as np
import pytest
from helpers_compare import assert_jit_grad_of_both

import s2s

XS = [2, 0, 3, 1, 1]


def by_step(w, h0):
    p = {"w": w}
    hs, ps = {}, {}
    hs[-1] = np.copy(h0)
    total = 0.0
    for t in range(len(XS)):
        hs[t] = np.tanh(np.dot(p["w"], hs[t - 1]))
        ps[t] = hs[t] * hs[t]
        total -= np.log(ps[t][XS[t], 0] + 1.0)  # (an item of a step's column: its zero cotangent, then one add)
    return total


def reached(w, h0):
    hs = {}
    hs[-1] = np.copy(h0)
    total = 0.0
    for t in range(len(XS)):
        hs[t] = np.tanh(np.dot(w, hs[t - 1]))
        total -= np.log(hs[t][XS[t], 0] ** 2 + 1.0)
    return total + float(len(list(hs.values())))  # (code other than indexing reaches the dict)


def _args(dtype=np.float64):
    r = np.random.default_rng(0)
    return r.normal(size=(4, 4)).astype(dtype), r.normal(size=(4, 1)).astype(dtype)


@pytest.mark.parametrize("fn, folded", [(by_step, True), (reached, False)])
def test_gradient_and_zero_of_an_item(fn, folded):
    w, h0 = _args()
    g = s2s.jit(s2s.grad(fn, argnums=(0, 1)))
    got = g(w, h0)
    code = s2s.source(g, w, h0)
    assert ("xp.zeros((4, 1))" in code) is folded, code
    assert_jit_grad_of_both(fn, got, (w, h0))


def test_float32_items_keep_their_dtype():
    w, h0 = _args(np.float32)
    g = s2s.jit(s2s.grad(by_step, argnums=(0, 1)))
    got = g(w, h0)
    assert "xp.zeros((4, 1))" not in s2s.source(g, w, h0)  # (a float32 item's zero is float32: the helper)
    want = s2s.grad(by_step, argnums=(0, 1))(w, h0)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype == np.float32
        np.testing.assert_array_equal(a, b)
