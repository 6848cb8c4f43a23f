"""Change tracking in the optimization pipeline (issue 14): a pass runs again only when something
changed since it ran, which is right only if (1) every pass declared idempotent finds nothing to
do on its own output, and (2) the tracked pipeline gives what running every pass, round after
round, until a whole round changes nothing, gives (also where jit starts the passes that read no
argument facts settled, on a transform's optimized output). Checked on the optimizer inputs of grad, jit
and hessian over the control-flow corpus and the compile-time benchmark's programs."""
import sys

import corpus
import gast
import numpy as np
import pytest
from paths import BENCH

import s2s
from s2s.compiler import driver, passes
from s2s.compiler.passes import base

sys.path.insert(0, str(BENCH))
import bench_compile  # noqa: E402
from bench_util import load_program  # noqa: E402

# one worker computes this file's module fixture once (.ci/run: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_pass_tracking")

FUNCS = corpus.CORPUS[::3]  # every third: control flow of every kind, in a few seconds


def _inputs(monkeypatch, tmp_path) -> list:
    """(function, known) of each optimize call while transforming the functions."""
    seen = []
    real = driver.optimize

    def spy(fn, known=None, trace=None, settled=()):
        seen.append((base.clone(fn), known, settled))
        return real(fn, known, trace, settled=settled)
    monkeypatch.setattr(driver, "optimize", spy)
    s2s.clear_caches()  # functions other tests compiled would not reach optimize again
    rng = np.random.default_rng(0)
    for fn, make_args in FUNCS:
        args = make_args(rng)
        s2s.grad(fn)(*args)
        s2s.jit(fn)(*args)
        s2s.jit(s2s.grad(fn))(*args)
    for variant in bench_compile.VARIANTS:
        mod = load_program(bench_compile.make_program(60, variant), str(tmp_path), f"_s2s_track_{variant}")
        for transform in ("grad", "jvp", "hessian", "jit"):
            bench_compile.first_call(transform, mod.prog)
    monkeypatch.setattr(driver, "optimize", real)
    assert len(seen) > 40
    assert any(settled for _, _, settled in seen)  # jit starting from a transform's fixed point
    return seen


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    try:
        yield _inputs(mp, tmp_path_factory.mktemp("track"))
    finally:
        mp.undo()


def _own(known):
    """`known` with a namespace of its own (inlining binds the callees' names into it, so a second
    run on the same one picks the next free names)."""
    return dict(known, ns=dict(known["ns"])) if known and "ns" in known else known


def _every_round(fn, known):
    """The pipeline without tracking: every pass, every round, until a round changes nothing."""
    params = {a.id for a in fn.args.args}
    changed = True
    while changed:
        changed = False
        for p in passes.PIPELINE:
            fn.body, c = p(fn.body, params, known)
            changed |= c
    return fn


def test_tracked_pipeline_gives_what_every_round_gives(inputs):
    for fn, known, settled in inputs:
        tracked = passes.optimize(base.clone(fn), _own(known), settled=settled)
        full = _every_round(base.clone(fn), _own(known))
        assert gast.dump(tracked) == gast.dump(full), fn.name


def test_each_pass_finds_nothing_left_at_the_fixed_point(inputs):
    for fn, known, settled in inputs:
        out = passes.optimize(base.clone(fn), known, settled=settled)
        params = {a.id for a in out.args.args}
        for p in passes.PIPELINE:
            out.body, changed = p(out.body, params, known)
            assert not changed, (p.name, fn.name)


def test_idempotent_passes_find_nothing_on_their_own_output(inputs, monkeypatch):
    """After every run of a pass that changed something, inside the pipeline, the same pass run
    again at once (with nothing remembered) changes nothing."""
    real = base.Pass.apply
    failures = []

    def twice(self, body, params, known=None, dirty=None, memo=None, notes=None):
        body, changed = real(self, body, params, known, dirty, memo, notes)
        if self.idempotent and (changed is None or changed):
            body, again = real(self, body, params, known)
            if again is None or again:
                failures.append(self.name)
        return body, changed
    monkeypatch.setattr(base.Pass, "apply", twice)
    for fn, known, settled in inputs:
        passes.optimize(base.clone(fn), known, settled=settled)
    assert not failures


def test_a_pass_that_reports_a_bool_is_rerun_after_any_change(inputs, monkeypatch):
    """Backwards compatible: a pass returning `(body, True)` changed "anything" (every pass runs
    again), `(body, False)` nothing; and it is not skipped after its own change."""
    calls = []

    def legacy(body, params, facts):
        calls.append(facts["dirty"])
        return body, len(calls) == 1
    extra = base.Pass("legacy", legacy)
    monkeypatch.setattr(passes, "PIPELINE", passes.PIPELINE + (extra,))
    fn, known = next((f, k) for f, k, _ in inputs if len(f.body) > 20)
    trace: list = []
    passes.optimize(base.clone(fn), known, trace)
    assert calls[0] is None and calls[1] is None  # ran again after its own change, told "anything"
    assert trace.count("legacy") == 1


def test_passes_run_a_bounded_number_of_times():
    """The number of pass runs of one optimize does not grow with the program."""
    from s2s.base.stats import STATS
    runs = []
    for n in (100, 800):
        before = STATS["pass_run"]
        bench_compile.work_per_statement("grad", n, "straight", warm=False)
        runs.append(STATS["pass_run"] - before)
    assert runs[1] <= runs[0] + len(passes.PIPELINE)
    assert runs[1] <= 3 * len(passes.PIPELINE) + 1  # one optimize, one finalize
