"""tools/bench/bench_cpu_ab.py without timing: its rows' jit(grad) versions (tuple parameters and
one parameter per array) give the hand-written gradients, and its table has jit's ratio to hand
from a fake clock."""
import sys

import numpy as np
from paths import BENCH

sys.path.insert(0, str(BENCH))
import bench_cpu_ab  # noqa: E402


def test_rows_compute_the_hand_gradients():
    rows = bench_cpu_ab.rows(flat=True)
    assert [name.split()[0] for name, _ in rows] == ["W7", "W9", "W10"]
    for _, impls in rows:
        assert [n for n, _, _ in impls] == ["hand", "jit(grad)", "jit(grad) flat"]
        hand = impls[0][1](*impls[0][2])
        for _, fn, args in impls[1:]:
            for g, h in zip(fn(*args), hand):
                np.testing.assert_allclose(g, h, rtol=1e-9, atol=1e-12)


def test_table_ratios_from_a_fake_clock():
    ticks = iter(range(0, 10 ** 9, 1000))
    impls = [("hand", lambda: None, ()), ("jit(grad)", lambda: next(ticks), ())]  # (jit's call ticks once more)
    times = bench_cpu_ab.time_row(impls, 5, clock=lambda: next(ticks))
    assert times["hand"] == [1000] * 5 and times["jit(grad)"] == [2000] * 5
    assert "jit(grad) p10 2.0 us x2.000 p25 x2.000" in bench_cpu_ab.table("W0", times)
