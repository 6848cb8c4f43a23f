"""Compile time grows linearly with the program (issue 14), measured without a clock: the work
the compiler reports (s2s.base.stats.STATS) plus the nodes it walks, visits and deep-copies, per
statement of tools/bench/bench_compile.py's generated programs at two sizes four times apart."""
import functools
import sys

import pytest
from paths import BENCH

from s2s.base.stats import STATS
from s2s.compiler import analysis
from s2s.compiler.frontend import aliases, static_locals
from s2s.compiler.passes import base as passes_base
from s2s.compiler.transforms import base, batching, forward, reverse

sys.path.insert(0, str(BENCH))
import bench_compile  # noqa: E402

SIZES = {"grad": (60, 240), "jvp": (60, 240), "jit": (60, 240), "vmap": (60, 240),
         "hessian": (30, 120)}  # hessian: slower
FLAT = ("total", "s2s", "walk", "visit", "stmt_walk", "load_walk", "node_walk", "clone", "live_stmt", "assigned_stmt",
        "build_walk", "join_key", "note_made")


@pytest.mark.parametrize("variant", ("straight", "loops"))
@pytest.mark.parametrize("transform", bench_compile.TRANSFORMS)
def test_compile_work_per_statement_is_flat(transform, variant):
    n_small, n_large = SIZES[transform]
    small = bench_compile.work_per_statement(transform, n_small, variant)
    large = bench_compile.work_per_statement(transform, n_large, variant)
    assert small["s2s"] > 0 and small["walk"] > 0 and small["visit"] > 0
    for key in FLAT:
        assert large.get(key, 0) <= 1.5 * small.get(key, 0), (key, small.get(key), large.get(key))
    # Live-set elements the liveness analyses and dead code handle at branches and loops: flat
    # too (in a gradient every saved value is live across every branch, so a set of everything
    # live built per block would grow with the program).
    assert large["live_set"] <= 1.5 * small["live_set"], (small["live_set"], large["live_set"])


def test_a_rescan_per_branch_shows_as_growing_work(monkeypatch):
    """The measure can fail: the reverse transform's old rescan of the whole body for every `if`
    makes the work per statement grow with the program."""
    def rescan(self, var):
        return sum(var in analysis.targets(s) for s in analysis.walk_stmts(self.body)) + (var in self.params)
    monkeypatch.setattr(reverse.Reverse, "assigned_count", rescan)
    small = bench_compile.work_per_statement("grad", 100, "straight")
    large = bench_compile.work_per_statement("grad", 1600, "straight")  # the optimization passes' flat
    assert large["total"] > 1.5 * small["total"]                          # work dilutes it at 800


# Issue 46's program (one array rebound by every line, an `if` every tenth): N and 4N statements
REBIND_SIZES = {"grad": (30, 120), "jvp": (30, 120), "jit": (30, 120), "vmap": (30, 120), "hessian": (15, 60)}


@functools.cache
def _rebind_work(transform, n):
    """(count_compile_work's counts per statement, statements) of one first call on the program."""
    return bench_compile.work_per_statement(transform, n, "rebind"), \
        bench_compile.count_statements(bench_compile.make_program(n, "rebind"))


@pytest.mark.parametrize("transform", bench_compile.TRANSFORMS)
def test_twice_the_statements_is_at_most_2_4_times_the_work(transform):
    """Issue 46's target for each transform, counted rather than timed: the compiler's whole work
    (count_compile_work's total: nodes and statements its analyses and passes walk, visits,
    copies, pass runs) on the rebinding program of 2N statements is at most 2.4 times that of N
    statements."""
    n = 30 if transform == "hessian" else REBIND_SIZES[transform][1]  # (sizes the test below reuses)
    (small, n_small), (large, n_large) = _rebind_work(transform, n), _rebind_work(transform, 2 * n)
    assert n_large == 2 * n_small
    assert small["total"] > 0 and small["pass_run"] > 0
    for key in ("total", "s2s", "pass_run"):
        assert large[key] * n_large <= 2.4 * small[key] * n_small, (transform, key, small[key], large[key])


@pytest.mark.parametrize("transform", bench_compile.TRANSFORMS)
def test_compile_work_of_a_long_rebinding_function_is_linear(transform):
    """Four times the statements is four times the work: the totals within 20%, and no count
    more than 20% over four times (give or take 1% of the total: a count of a few nodes per
    statement moves with the program's shape; a small count may grow less: work done once)."""
    (small, _), (large, _) = (_rebind_work(transform, n) for n in REBIND_SIZES[transform])
    assert small["build_walk"] > 0 and small["total"] > 0
    for key in ("total", "s2s"):
        assert 0.8 <= large[key] / small[key] <= 1.2, (transform, key, small[key], large[key])
    # (alias_walk, the alias model's checks of updates in place, only here: the loops program's
    # every `v[k + 1] = ...` is checked against each earlier view `t = v[i]`, which grows with it)
    for key in FLAT + ("live_set", "alias_walk"):
        assert large.get(key, 0) <= 1.2 * small.get(key, 0) + 0.01 * small["total"], \
            (transform, key, small.get(key), large.get(key))


def test_a_walk_of_the_function_per_addition_shows_as_growing_work(monkeypatch):
    """The measure can fail: the frontend's facts about the function's bindings computed again for
    every `+` (issue 46's quadratic) make the work per statement grow with the program."""
    facts = static_locals.function_facts

    def uncached(norm):
        norm._s2s_bindings = None
        return facts(norm)
    monkeypatch.setattr(static_locals, "function_facts", uncached)
    small = bench_compile.work_per_statement("jvp", 30, "rebind")
    large = bench_compile.work_per_statement("jvp", 120, "rebind")
    assert large["build_walk"] > 2 * small["build_walk"]


def test_a_walk_over_every_name_per_update_in_place_shows_as_growing_work(monkeypatch):
    """The measure can fail: the alias model's old check of an update in place, a reach from
    every name (issue 46's hessian quadratic: the generated gradient it normalizes again updates
    its tape in place at every step), makes hessian's work per statement grow with the program."""
    def every_name(self, name, elements=False):
        changed = set(self.objects(name)) | (self.elements(name) if elements else set())
        out = set()
        for n, objs in self.points.items():
            seen, todo = set(), list(objs)
            while todo:
                o = todo.pop()
                if o not in seen:
                    seen.add(o)
                    todo += self.holds.get(o, ())
            STATS["alias_walk"] += len(seen)
            if n != name and seen & changed:
                out.add(n)
        return out
    monkeypatch.setattr(aliases.Aliases, "sharers", every_name)
    small = bench_compile.work_per_statement("hessian", 15, "rebind")
    large = bench_compile.work_per_statement("hessian", 60, "rebind")
    assert large["alias_walk"] > 2 * small["alias_walk"]
    assert large["total"] > 1.2 * small["total"]


def test_a_live_set_built_per_branch_shows_as_growing_work(monkeypatch):
    """The measure can fail: vmap building the whole live set after each batched `if` (its old
    union with the names the other branch reads first) makes the work per statement grow."""
    if_ = batching.Batcher.if_

    def built(self, s, mask):
        set(self.live.after[s])
        return if_(self, s, mask)
    monkeypatch.setattr(batching.Batcher, "if_", built)
    small = bench_compile.work_per_statement("vmap", 30, "rebind")
    large = bench_compile.work_per_statement("vmap", 120, "rebind")
    assert large["live_set"] > 2 * small["live_set"]


@pytest.mark.parametrize("variant", ("straight", "rebind"))
def test_forward_joins_look_at_what_the_branches_changed(variant):
    """jvp's join of the tangents at each `if` (an `if` every 5th or 10th statement) looks at the
    tangents its branches set or removed (`join_key`), not at every tangent defined so far, which
    grows with the program: a handful per statement at any size."""
    small = bench_compile.work_per_statement("jvp", 60, variant)
    large = bench_compile.work_per_statement("jvp", 480, variant)
    assert 0 < small["join_key"] < 2
    assert large["join_key"] <= 1.2 * small["join_key"] + 0.05, (small["join_key"], large["join_key"])


def test_a_join_over_every_tangent_shows_as_growing_work(monkeypatch):
    """The measure can fail: forward mode's old join, over every tangent defined before the `if`
    (each one checked for liveness), makes the join's work per statement grow with the program."""
    join = base.join
    monkeypatch.setattr(forward, "join", lambda paths, companions, live, fill, keys=None:
                        join(paths, companions, live, fill))
    small = bench_compile.work_per_statement("jvp", 60, "straight")
    large = bench_compile.work_per_statement("jvp", 480, "straight")
    assert large["join_key"] > 4 * small["join_key"]


def test_the_passes_note_a_statement_again_only_when_it_changed(monkeypatch):
    """The optimization passes share facts per statement (`passes.base.Notes`); after a pass that
    forgets what it changed in place (`Pass.forgets`), the others keep theirs. In the rebinding
    program every line names `y`, so forgetting every statement that names a changed name (the
    old way, shown failing below) noted most of the function again after each pass that changed
    anything: about 3 times the notes of `grad`."""
    made = _rebind_work("grad", 120)[0]["note_made"]
    assert made <= 1.05 * _rebind_work("grad", 30)[0]["note_made"]
    changed = passes_base.Notes.changed
    monkeypatch.setattr(passes_base.Notes, "changed", lambda self, names, forgot=False: changed(self, names))
    by_name = bench_compile.work_per_statement("grad", 120, "rebind")["note_made"]
    assert 0 < made < 0.5 * by_name, (made, by_name)


class _CopiedAssigned(forward._Assigned):
    """The old way: each path of an `if` starts from a copy of every variable assigned before it."""

    def __init__(self, base=None):
        super().__init__(None)
        while base is not None:
            self.own |= base.own
            base = base.base


@pytest.mark.parametrize("variant", ("straight", "rebind"))
def test_forward_branches_read_through_what_was_assigned_before(variant, monkeypatch):
    """Forward mode's sets of certainly assigned variables and maps of defined tangents for the
    paths of an `if` read through to those before it (`forward._Assigned`, `base.Defined`), where
    each path copied them: a copy of everything assigned so far at each `if` made `jvp` quadratic
    (0.4 s of 7 s at 6,400 statements). The copying way, shown below, grows with the program."""
    small = bench_compile.work_per_statement("jvp", 60, variant)
    large = bench_compile.work_per_statement("jvp", 480, variant)
    assert 0 < small["branch_set"] < 3
    assert large["branch_set"] <= 1.2 * small["branch_set"] + 0.05, (small["branch_set"], large["branch_set"])
    monkeypatch.setattr(forward, "_Assigned", _CopiedAssigned)
    small = bench_compile.work_per_statement("jvp", 60, variant)
    large = bench_compile.work_per_statement("jvp", 480, variant)
    assert large["branch_set"] > 4 * small["branch_set"]
