"""Dead-code elimination sweeps each branch and loop body with a live set of its own (the names
the block assigns or mutates, and what it reads), merged into the enclosing set in place, so its
work is linear in the program (issue 14). It must keep and drop exactly what the sweep with
copies of the whole live set at every block does (the form kept for blocks that `break` or
`continue` out): compared on every optimizer input of the pass-tracking corpus."""
import gast
import pytest
from test_pass_tracking import _inputs

from s2s.compiler.passes import base, dce

# one worker computes this file's module fixture once (.ci/run: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_dce_blocks")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    try:
        yield _inputs(mp, tmp_path_factory.mktemp("dce"))
    finally:
        mp.undo()


def _dce(fn, copying: bool, monkeypatch):
    fn = base.clone(fn)
    params = {a.id for a in fn.args.args}
    with monkeypatch.context() as m:
        if copying:
            m.setattr(dce, "_jumps", lambda stmts: True)
        fn.body, _ = dce.PASS(fn.body, params)
    return gast.dump(fn)


def test_local_live_sets_keep_what_whole_copies_keep(inputs, monkeypatch):
    differ = [fn.name for fn, _, _ in inputs if _dce(fn, False, monkeypatch) != _dce(fn, True, monkeypatch)]
    assert not differ


def test_the_comparison_can_fail(inputs, monkeypatch):
    """A sweep that forgets a branch's reads keeps less: the comparison sees it."""
    real = dce._Sweep.branches

    def forgetful(self, s, live, loop, commit):
        before = set(live)
        out = real(self, s, live, loop, commit)
        return before if not (_jumps_any(s)) else out
    monkeypatch.setattr(dce._Sweep, "branches", forgetful)
    fn = next(fn for fn, _, _ in inputs if any(isinstance(s, gast.If) for s in fn.body))
    with monkeypatch.context() as m:
        m.setattr(dce, "_jumps", lambda stmts: False)
        local = _dce(fn, False, monkeypatch)
    monkeypatch.setattr(dce._Sweep, "branches", real)
    assert local != _dce(fn, True, monkeypatch)


def _jumps_any(s) -> bool:
    return dce._jumps(s.body) or dce._jumps(s.orelse)
