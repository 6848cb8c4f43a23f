"""Scalar-factor collection first asks whether two factors could meet at all (`scalars._may_merge`,
an over-approximation of the run), and skips a run that would only move factors and undo the
moves (the 1,600-statement rebinding program's `grad`: 0.27 s of the passes' 2.2 s). At every
run of the pass in the pipeline over the pass-tracking corpus's optimizer inputs, a run the
check skips changes nothing when made in full."""
import gast
import pytest
import test_pass_tracking as tracking

from s2s.compiler import passes
from s2s.compiler.passes import base, scalars

# one worker computes the corpus's optimizer inputs once for this file (.ci/run: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_scalar_merges")
inputs = tracking.inputs  # (the pass-tracking corpus's optimizer inputs: its module fixture)


def _full(body, params, facts):
    """The pass's run without the check: (its body's dump after, what it reported)."""
    body = base.clone(body)
    real = scalars._may_merge
    scalars._may_merge = lambda body, binds: True
    try:
        body, changed = scalars.collect(body, params, dict(facts, notes=base.Notes(), memo={}))
    finally:
        scalars._may_merge = real
    return gast.dump(gast.Module(body=body, type_ignores=[])), changed


def test_a_skipped_run_would_change_nothing(inputs, monkeypatch):
    runs = {True: 0, False: 0}
    real = scalars.collect

    def checked(body, params, facts):
        if any(isinstance(s, gast.Assign) and scalars._scaled(s.value) is not None for s in
               scalars.analysis.walk_stmts(body)):
            may = scalars._may_merge(body, scalars._binds(body, params))
            runs[may] += 1
            if not may:
                before = gast.dump(gast.Module(body=body, type_ignores=[]))
                assert _full(body, params, facts) == (before, set())
        return real(body, params, facts)
    monkeypatch.setattr(passes, "PIPELINE", tuple(
        base.Pass(p.name, checked, p.needs, p.idempotent, p.forgets) if p is scalars.PASS else p
        for p in passes.PIPELINE))
    for fn, known, settled in inputs:
        passes.optimize(base.clone(fn), tracking._own(known), settled=settled)
    assert runs[False] > 10 and runs[True] > 0, runs


def _body(src):
    return gast.parse(src).body[0].body


def test_factors_that_meet_are_seen():
    """`b = 2.0 * y; a = b * 3.0`: a lender and a literal meet; through a product that only
    moves a factor (`c = b * z`) too; two lenders meet in `a = b + c`; a name bound twice lends nothing."""
    cases = {
        "def f(y):\n b = 2.0 * y\n a = b * 3.0\n return a": True,
        "def f(y, z):\n b = 2.0 * y\n c = b * z\n a = c * 3.0\n return a": True,
        "def f(y, w):\n b = 2.0 * y\n c = 2.0 * w\n a = b + c\n return a": True,
        "def f(y, z):\n b = 2.0 * y\n a = b * z\n return a": False,
        "def f(y, w):\n b = 2.0 * y\n b = 2.0 * w\n a = b * 3.0\n return a": False,
    }
    for src, want in cases.items():
        body = _body(src)
        params = [a.id for a in gast.parse(src).body[0].args.args]
        assert scalars._may_merge(body, scalars._binds(body, params)) is want, src
