"""Smoke test of the benchmark tools: every workload's s2s versions agree with its hand-written
NumPy version at the smallest size (no timing), and the compile benchmark's generated programs
are what it says they are. Catches a benchmark broken by a change to s2s or to the tools."""
import ast
import copy
import statistics
import sys

import gast
import numpy as np
import pytest
from paths import BENCH

import s2s

sys.path.insert(0, str(BENCH))
import bench  # noqa: E402
import bench_compile  # noqa: E402

GROUPS = bench.smallest()


def test_every_workload_is_listed():
    names = {g.workload.split()[0] for g in GROUPS}
    assert {f"W{i}" for i in range(1, 11)} | {"W4b", "X1"} <= names


@pytest.mark.parametrize("group", GROUPS, ids=[f"{g.workload} {g.size}" for g in GROUPS])
def test_s2s_matches_hand(group):
    skipped = bench.verify(group, peers=False)
    if skipped:
        pytest.skip(f"{group.workload}: {', '.join(skipped)} need features s2s lacks")


def test_check_equal_rejects_a_wrong_result():
    with pytest.raises(AssertionError):
        bench.check_equal((np.ones(3), 2.0), (np.ones(3), 2.0 + 1e-6), "wrong")
    with pytest.raises(AssertionError):
        bench.check_equal((np.ones(3),), (np.ones(3), 1.0), "missing output")
    bench.check_equal((np.ones(3), 2.0), (np.ones(3), 2.0), "same")


@pytest.mark.parametrize("variant", bench_compile.VARIANTS)
def test_compile_programs_have_their_size_and_gradient(variant, tmp_path):
    for n in (50, 200):
        assert abs(bench_compile.count_statements(bench_compile.make_program(n, variant)) - n) <= 3
    mod = bench_compile.load_program(bench_compile.make_program(50, variant), str(tmp_path), f"_smoke_{variant}")
    x, v = bench_compile.arguments()
    eps = 1e-6
    want = (mod.prog(x + eps, v) - mod.prog(x - eps, v)) / (2 * eps)
    np.testing.assert_allclose(s2s.grad(mod.prog)(x, v), want, rtol=1e-6)


def test_count_compile_work_counts_and_restores():
    walk, visit, deepcopy = ast.walk, ast.NodeVisitor.visit, copy.deepcopy
    work = bench_compile.work_per_statement("grad", 20, "straight")
    assert work["walk"] > 0 and work["visit"] > 0 and work["stmt_walk"] > 0 and work["live_stmt"] > 0
    assert work["total"] == pytest.approx(work["s2s"] + work["walk"] + work["visit"] + work["deepcopy"])
    assert work["total"] > work["s2s"] > 0
    assert ast.walk is walk and gast.walk is walk and ast.NodeVisitor.visit is visit and copy.deepcopy is deepcopy


def test_paired_ratio_cancels_a_drift_of_the_machine():
    # the machine slows 3x over the run, then jumps: each turn's pair sees the same speed
    speed = [1.0 + 0.2 * k for k in range(10)] + [5.0, 0.7]
    hand = [1e-3 * s for s in speed]
    ours = [1.25e-3 * s for s in speed]
    assert bench.paired(ours, hand) == pytest.approx(1.25)
    assert statistics.median(ours) / statistics.median(hand) == pytest.approx(1.25)  # (equal drift: both fine)
    ours[3] *= 4  # one sample of ours meets a burst of other work
    assert bench.paired(ours, hand) == pytest.approx(1.25)


def test_first_call_target_reads_new_processes():
    rows = [{"workload": "W7 mlp-grad", "size": "B=256 64-128-128-10", "impl": "s2s-jit", "first": 0.5}]
    assert "| no |" in bench.target_table(rows)  # the in-process figure, when nothing else was measured
    table = bench.target_table(rows, [0.08, 0.09, 0.07])
    assert "80 ms (median of 3: 70–90)" in table and "new process" in table and "| yes |" in table
