"""tools/bench/bench_cpu_ab.py without timing: every row's jit versions (W7, W9, W10 also with one
parameter per array) give the hand-written results, and each method's line has jit's ratio to
hand from a fake clock (or fake timings)."""
import sys

import pytest
from paths import BENCH

sys.path.insert(0, str(BENCH))
import bench_cpu_ab  # noqa: E402

NAMES = ["W1 B=2", "W2 n=5,B=2", "W2 n=1000,B=128", "W3 B=10", "W5 16x32x64", "W7 mlp-grad B=256 64-128-128-10",
         "W9 xent-mlp-grad B=128 784-256-10", "W10 attention-grad n=128,d=64"]


def test_rows_compute_what_the_hand_written_code_computes():
    rows = bench_cpu_ab.rows(flat=True)
    assert [r.name for r in rows] == NAMES
    assert [r.method for r in rows] == ["best", "rounds", "rounds", "best", "best", "calls", "calls", "calls"]
    for row in rows:
        bench_cpu_ab.check(row)  # (assert_allclose of each implementation against hand)
        if row.method == "calls":
            assert [n for n, _, _ in row.impls] == ["hand", "jit(grad)", "jit(grad) flat"]


def test_only_picks_rows_by_their_first_word():
    assert [r.name for r in bench_cpu_ab.rows({"W2", "W9"})] == [NAMES[1], NAMES[2], NAMES[6]]


def test_table_ratios_from_a_fake_clock():
    ticks = iter(range(0, 10 ** 9, 1000))
    impls = [("hand", lambda: None, ()), ("jit(grad)", lambda: next(ticks), ())]  # (jit's call ticks once more)
    times = bench_cpu_ab.time_row(impls, 5, clock=lambda: next(ticks))
    assert times["hand"] == [1000] * 5 and times["jit(grad)"] == [2000] * 5
    assert "jit(grad) p10 2.0 us x2.000 p25 x2.000" in bench_cpu_ab.table("W0", times)


@pytest.mark.parametrize("method, want", [
    ("best", "W3 B=10: hand 2.00 us, jit 2.00 us, jit / hand 1.000 (1.000-1.000)"),
    ("rounds", "W3 B=10 BLAS 1: hand 2.00 us, jit 2.00 us, jit/hand 1.000 [1.000-1.000]"),
])
def test_main_prints_a_line_per_row(monkeypatch, capsys, method, want):
    monkeypatch.setattr(bench_cpu_ab, "best_us", lambda f, calls: 2.0)
    monkeypatch.setattr(bench_cpu_ab, "per_call_us", lambda f, calls: 2.0)
    bench_cpu_ab.main(["--only", "w3", "--method", method, "--rounds", "3"])
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[1].startswith(want + " (load ")
