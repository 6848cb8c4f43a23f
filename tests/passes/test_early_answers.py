"""Passes that answer "nothing to do" before their costly facts (`grad` of the 1,600-statement
rebinding program, issue 46): scalar fill asks where a full reduction's cotangent is read before
it computes the shape roots (a cotangent read inside a block or nowhere after it is not filled
whatever the shapes; that program's one, `b_y`, is read in every branch of the backward sweep);
dead records look for pops only when a list has a push of a shape stub (reverse mode's tape of a
value whose shape is all that is kept)."""
import textwrap

import gast
import numpy as np
import pytest

import s2s
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import base, fill, records

FILLED = """
b_t2 = rt.sum_vjp(b_t3, t1, None, False)
b_t1 = b_t2 * t1
return b_t1
"""

IN_A_BLOCK = """
b_t2 = rt.sum_vjp(b_t3, t1, None, False)
if c:
    b_t2 = b_t2 * 0.9
b_t1 = b_t2 * t1
return b_t1
"""


def _run(src, monkeypatch, roots_allowed):
    fn = gast.parse("def f(b_t3, t1, c):\n" + textwrap.indent(textwrap.dedent(src), "    ")).body[0]
    if not roots_allowed:
        monkeypatch.setitem(base.ANALYSES, "shape_roots", lambda body, params: pytest.fail("roots computed"))
    fn.body, changed = fill.PASS(fn.body, {"b_t3", "t1", "c"})
    return changed, to_source(fn)


def test_a_cotangent_read_in_a_block_needs_no_roots(monkeypatch):
    changed, src = _run(IN_A_BLOCK, monkeypatch, roots_allowed=False)
    assert not changed and "rt.sum_vjp(b_t3, t1, None, False)" in src


def test_a_cotangent_read_after_it_is_filled(monkeypatch):
    changed, src = _run(FILLED, monkeypatch, roots_allowed=True)
    assert changed and "b_t2 = b_t3\n" in src, src


def prog(x, v):
    y = v * x
    y = np.sin(y) * 0.5 + x
    if np.sum(y) > 0.5:
        y = y * 0.9
    y = np.tanh(y * 0.8) + x * 0.5
    return np.sum(y)


def test_rebinding_gradient_against_central_differences():
    x, v = 0.3, np.linspace(0.1, 0.4, 4)
    g = s2s.grad(prog)(x, v)
    h = 1e-6
    want = (prog(x + h, v) - prog(x - h, v)) / (2 * h)
    np.testing.assert_allclose(g, want, rtol=1e-6)


TAPE = """
tape = []
tape.append({pushed})
y = xp.sin(g)
g = g * y
y = tape.pop()
return g
"""


@pytest.mark.parametrize("pushed, dropped", [("y", False), ("rt.shape_stub(y)", True)])
def test_dead_records_pops_only_with_a_stub(pushed, dropped, monkeypatch):
    fn = gast.parse("def f(y, g):\n" + textwrap.indent(textwrap.dedent(TAPE.format(pushed=pushed)), "    ")).body[0]
    if not dropped:
        monkeypatch.setattr(records, "pop_of", lambda s: pytest.fail("pops looked at"))
    fn.body, changed = records.PASS(fn.body, {"y", "g"})
    src = to_source(fn)
    assert changed is dropped and ("tape.pop()" not in src) is dropped, src
