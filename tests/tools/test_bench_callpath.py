"""tools/bench/bench_callpath.py without timing: its small-input rows call jit(grad) versions that
give the hand-written gradients, its `call path only` row runs jit's fast path (with the version
replaced) and returns what the replacement returns, and its table has one ratio per round."""
import sys

import numpy as np
from paths import BENCH

sys.path.insert(0, str(BENCH))
import bench_callpath  # noqa: E402

ROWS = ["numpy-hand", "jit(grad)", "jit's generated code", "call path only"]


def test_small_rows_compute_the_hand_gradients_and_the_call_path():
    rows = bench_callpath.small_rows()
    assert [name for name, _ in rows] == ["selu n=300", "mse n=300", "softmax xent n=300", "log-sigmoid loss n=300"]
    for _, impls in rows:
        assert [name for name, _ in impls] == ROWS
        run = dict(impls)
        hand = run["numpy-hand"]()
        np.testing.assert_allclose(run["jit(grad)"](), hand, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(run["jit's generated code"](), hand, rtol=1e-9, atol=1e-12)
        assert run["call path only"]() is None  # (the fast path ran, and called the stand-in version)


def test_call_path_only_is_none_without_a_fast_path():
    import s2s

    once = s2s.jit(s2s.grad(lambda v: np.sum(v ** 2)))
    once(np.ones(3))  # (one call: the general path; the fast path comes with the second)
    assert bench_callpath.call_path_only(once, (np.ones(3),)) is None


def test_table_has_a_ratio_per_round(monkeypatch, capsys):
    times = iter([2.0, 3.0, 1.0, 0.5] * 8)  # (each round: hand, jit, code, path; the same in every row)
    monkeypatch.setattr(bench_callpath, "best_us", lambda f, calls=0: next(times))
    monkeypatch.setattr(bench_callpath, "TIMER", [None])
    bench_callpath.main(["--small", "--cpu", "--rounds", "2"])
    out = capsys.readouterr().out
    assert out.startswith("CPU time, 2 rounds")
    assert "| softmax xent n=300 | jit(grad) | 3.00 / 3.00 | 1.50 (1.50-1.50) |" in out
    assert "| log-sigmoid loss n=300 | call path only | 0.50 / 0.50 | 0.25 (0.25-0.25) |" in out
