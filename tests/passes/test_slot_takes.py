"""A slot's cotangent added and taken back out in one call (passes/slot_takes.py, issue 46
section 2): a dict's item stored then read in one step (`ys[t] = p` ... `ys[t][k, 0]`) gives
the backward step `rt.add_take_at` where it had `rt.add_at` then `rt.take_at`. Checked against
grad without jit (bitwise), central differences and the plain function; the pass left alone
where another statement runs between the two; the helper against the two helpers."""
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import assert_jit_grad_of_both
from rnn_steps import step_loss as by_step

import s2s
from s2s import runtime as rt
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import slot_takes


def test_gradient_against_grad_and_differences():
    r = np.random.default_rng(0)
    w, h0 = r.normal(size=(4, 4)), r.normal(size=(4, 1))
    g = s2s.jit(s2s.grad(by_step, argnums=(0, 1)))
    got = g(w, h0)
    assert "rt.add_take_at(" in s2s.source(g, w, h0)
    assert_jit_grad_of_both(by_step, got, (w, h0))


def _run(src):
    fn = gast.parse("def f(b, t, v, like, L):\n" + textwrap.indent(textwrap.dedent(src), "    ")).body[0]
    _, changed = slot_takes.PASS(fn.body, {"b", "t", "v", "like", "L"})
    return changed, to_source(fn)


@pytest.mark.parametrize("between, fused", [
    ("x = L.pop()", True),
    ("", True),
    ("like = L.pop()", False),  # (the take's `like` rebound between)
    ("x = v + 1.0", False),  # (anything but a pop)
    ("t = L.pop()", False),  # (the slot's index rebound)
])
def test_fused_only_across_pops(between, fused):
    changed, code = _run(f"""
        b = rt.add_at(b, t, v)
        {between}
        ct, b = rt.take_at(b, t, like)
        return ct, b
    """)
    assert changed is fused and ("rt.add_take_at(b, t, v, like)" in code) is fused, code


@pytest.mark.parametrize("case", ["dict", "list", "array", "number slot", "other shape"])
def test_helper_against_the_two_helpers(case):
    r = np.random.default_rng(1)
    like = r.normal(size=(3, 1))
    v = r.normal(size=(3, 1))
    if case == "dict":
        acc, k = {0: r.normal(size=(3, 1)), 1: r.normal(size=(3, 1))}, 1
    elif case == "list":
        acc, k = [r.normal(size=(3, 1)), r.normal(size=(3, 1))], 0
    elif case == "array":
        acc, k = r.normal(size=(2, 3, 1)), 1
    elif case == "number slot":
        acc, k, v, like = {0: 0.0}, 0, 2.5, 1.0
    else:
        acc, k = {0: np.zeros((1, 1))}, 0  # (a slot of another shape: summed down to `like`'s)

    def fresh(a):
        return {i: np.copy(x) for i, x in a.items()} if isinstance(a, dict) else \
            [np.copy(x) for x in a] if isinstance(a, list) else np.copy(a)
    want_ct, want_acc = rt.take_at(rt.add_at(fresh(acc), k, v), k, like)
    got_ct, got_acc = rt.add_take_at(fresh(acc), k, v, like)
    np.testing.assert_array_equal(got_ct, want_ct)
    assert type(got_ct) is type(want_ct) and type(got_acc) is type(want_acc)
    for i in (range(len(want_acc)) if not isinstance(want_acc, dict) else want_acc):
        np.testing.assert_array_equal(got_acc[i], want_acc[i])
