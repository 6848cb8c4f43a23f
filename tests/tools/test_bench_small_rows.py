"""tools/bench/bench_small_rows.py without timing: each row's jit version gives the hand-written
result, and the table prints one line per row."""
import sys

import numpy as np
from paths import BENCH

sys.path.insert(0, str(BENCH))
import bench_small_rows  # noqa: E402


def test_rows_compute_what_the_hand_written_code_computes():
    rows = bench_small_rows.rows(w9=False)
    assert [r[0] for r in rows] == ["W1 B=2", "W3 B=10", "W5 16x32x64"]
    for _, hand, jitted, args, _ in rows:
        for _ in range(3):  # (the general path, then the fast path)
            want, got = hand(*args), jitted(*args)
            for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
                np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


def test_main_prints_a_line_per_row(monkeypatch, capsys):
    monkeypatch.setattr(bench_small_rows, "best_us", lambda f, calls: 2.0)
    bench_small_rows.main([])
    out = capsys.readouterr().out.splitlines()
    assert out[1:] == [f"{n}: hand 2.00 us, jit 2.00 us, jit / hand 1.000 (1.000-1.000)"
                       for n in ("W1 B=2", "W3 B=10", "W5 16x32x64")]
