"""Compile time grows linearly with the program (issue 14), measured without a clock: the work
the compiler reports (s2s.stats.STATS) plus the nodes it walks, visits and deep-copies, per
statement of tools/bench/bench_compile.py's generated programs at two sizes four times apart."""
import sys

import pytest
from paths import BENCH

from s2s import analysis
from s2s.transforms import reverse

sys.path.insert(0, str(BENCH))
import bench_compile  # noqa: E402

SIZES = {"grad": (60, 240), "jvp": (60, 240), "jit": (60, 240), "vmap": (60, 240),
         "hessian": (30, 120)}  # hessian: slower
FLAT = ("total", "s2s", "walk", "visit", "stmt_walk", "load_walk", "node_walk", "clone", "live_stmt", "assigned_stmt")


@pytest.mark.parametrize("variant", bench_compile.VARIANTS)
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
