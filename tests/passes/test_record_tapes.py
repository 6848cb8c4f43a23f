"""Dead records across a call's record (passes/record_tapes.py, issue 46 section 2): an inlined
call's forward sweep no longer pushes, nor its backward sweep pops, a saved value that nobody
reads after its restores, though the two sweeps' tapes are a list and its copy through the
call's record. Checked against grad without jit (bitwise), central differences and the plain
function; the pass alone on a sweep that reads the value back, or whose record another statement
reads, changes nothing."""
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import assert_jit_grad_of_both
from rnn_steps import by_step, by_step_read, loss_of

import s2s
from s2s.compiler import passes
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import record_tapes


def _version(fn, args, monkeypatch, without):
    """jit(grad(fn))'s code and results, with or without this pass in the pipeline."""
    if without:
        monkeypatch.setattr(passes, "PIPELINE", tuple(p for p in passes.PIPELINE if p.name != "record_tapes"))
    s2s.clear_caches()
    g = s2s.jit(s2s.grad(fn, argnums=(0, 1)))
    got = g(*args)
    code = s2s.source(g, *args)
    monkeypatch.undo()
    s2s.clear_caches()
    return code, got


@pytest.mark.parametrize("step", [by_step, by_step_read])
def test_gradient_against_grad_and_differences(step, monkeypatch):
    fn = loss_of(step)
    r = np.random.default_rng(0)
    w, h0 = r.normal(size=(4, 4)), r.normal(size=(4, 1))
    code, got = _version(fn, (w, h0), monkeypatch, False)
    before, _ = _version(fn, (w, h0), monkeypatch, True)
    assert code.count(".append(") < before.count(".append("), code
    assert code.count(".append(") == code.count(".pop()")  # (every push still meets its pop)
    assert_jit_grad_of_both(fn, got, (w, h0))


SWEEPS = """
    tape = []
    for t in r0:
        tape.append(rt.shape_stub(t14))
        t14 = y[t]
        tape.append(t16)
        t16 = t14[0]
    saved0 = (tape, t14, t16)
    {extra}
    (b_tape, b_t14, b_t16) = rt.copy_saved(saved0)
    for t in r1:
        g = g / b_t16 {read}
        b_t16 = b_tape.pop()
        b_t14 = b_tape.pop()
    return g
"""


@pytest.mark.parametrize("extra, read, dropped", [
    ("", "", True),
    ("", "+ b_t14[0]", False),  # (the restored value is read in the next step)
    ("keep = saved0", "", False),  # (the record reaches other code)
    ("n = len(tape)", "", False),  # (the forward list is measured)
])
def test_pass_alone(extra, read, dropped):
    src = textwrap.dedent(SWEEPS.format(extra=extra or "pass", read=read))
    fn = gast.parse("def f(r0, r1, y, g):\n" + textwrap.indent(src, "    ")).body[0]
    before = to_source(fn)
    _, changed = record_tapes.PASS(fn.body, {"r0", "r1", "y", "g"})
    after = to_source(fn)
    assert changed is dropped and ("rt.shape_stub(t14)" not in after) is dropped, after
    assert (after == before) is not dropped


def _body(src):
    return gast.parse("def f(r0, r1, y, g, c):\n" + textwrap.indent(textwrap.dedent(src), "    ")).body[0].body


def test_only_a_record_copys_unpack_pairs_lists():
    """The pass looks for pairs only where a statement, at any depth, unpacks a record's copy
    (the backward list comes from nowhere else): a gradient without one (every `grad` that
    inlines no call) costs one scan of its statements."""
    sweeps = SWEEPS.format(extra="pass", read="")
    assert record_tapes._unpacks_record(_body(sweeps))
    nested = sweeps.replace("    (b_tape,", "    if c:\n        (b_tape,")
    assert record_tapes._unpacks_record(_body(nested))
    assert not record_tapes._unpacks_record(_body(sweeps.replace("rt.copy_saved(saved0)", "saved0")))
    fn = gast.parse("def f(r0, r1, y, g, c):\n" + textwrap.indent(textwrap.dedent(
        sweeps.replace("rt.copy_saved(saved0)", "saved0")), "    ")).body[0]
    before = to_source(fn)
    assert record_tapes.PASS(fn.body, {"r0", "r1", "y", "g", "c"}) == (fn.body, False)
    assert to_source(fn) == before
