"""tools/bench/many_cores.py, the one command of issue 46 section 3 for a many-core machine: its
steps cover both BLAS settings and fit the time budget, a step past its limit is killed with the
processes it started, and the summary's verdict is the issue's target (best s2s version at most
1.0x hand and at most JAX). Nothing is timed here but the kill."""
import os
import sys
import textwrap
import time

import pytest
from paths import BENCH

sys.path.insert(0, str(BENCH))
import many_cores  # noqa: E402


def _args(*extra):
    return many_cores.arguments().parse_args(["--out", "unused", *extra])


@pytest.mark.parametrize("peers", ["jax", "none"])
def test_steps_cover_both_blas_settings_within_the_budget(peers):
    args = _args("--peers", peers)
    steps = many_cores.steps(args, 8)
    names = [name for name, _, _, _ in steps]
    assert names[:4] == ["w-blas-default", "w-blas-1", "loops-blas-1", "loops-blas-default"]
    assert any(n.startswith("loops-jax") for n in names) == (peers == "jax")
    for name, argv, _, env in steps:
        assert env == {}
        setting = argv[argv.index("--blas-threads") + 1]
        assert setting in ("default", "1") and argv[argv.index("--json") + 1] == f"{name}.json"
        if name.startswith("w-"):  # (JAX's columns from processes of their own)
            want = ("jax-only", f"w-blas-{setting}-jax") if name.endswith("-jax") else ("none", f"w-blas-{setting}")
            assert (argv[argv.index("--peers") + 1], name) == want
    assert sum(n.startswith("w-blas") and n.endswith("-jax") for n in names) == (2 if peers == "jax" else 0)
    assert sum(limit for _, _, limit, _ in steps) <= args.budget - many_cores.RESERVE


def test_on_more_than_8_cores_a_last_step_times_s2s_on_8_threads():
    main = many_cores.steps(_args("--peers", "none"), 8)
    more = many_cores.steps(_args("--peers", "none"), 13)
    assert more[:-1] == main
    name, argv, _, env = more[-1]
    assert name == "w-blas-1-s2s-threads-8" and env == {"S2S_THREADS": "8"}
    assert argv[argv.index("--blas-threads") + 1] == "1" and "W9" in argv and "W" not in argv


def test_a_step_past_its_limit_is_killed_with_its_children(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text(textwrap.dedent("""
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open("child.pid", "w").write(str(child.pid))
        time.sleep(60)
    """))
    start = time.perf_counter()
    status, seconds = many_cores.run_step([str(script)], tmp_path, tmp_path / "slow.log", 3.0)
    assert status == "timed out after 3 s" and seconds < 30 and time.perf_counter() - start < 30
    pid = int((tmp_path / "child.pid").read_text())
    for _ in range(50):  # (the killed grandchild is reaped by init: wait until it is gone)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        with open(f"/proc/{pid}/stat") as f:
            if f.read().split()[2] == "Z":
                break
        time.sleep(0.1)
    else:
        pytest.fail("the step's child process is still running")


def test_a_step_sees_no_blas_threads_variables(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    script = tmp_path / "env.py"
    script.write_text("import os\nopen('env.txt', 'w').write(repr(sorted(k for k in os.environ "
                      "if k.endswith('_NUM_THREADS'))) + os.environ['JAX_PLATFORMS'])\n")
    assert many_cores.run_step([str(script)], tmp_path, tmp_path / "env.log", 60.0)[0] == "ok"
    assert (tmp_path / "env.txt").read_text() == "[]cpu"


def _run(rows):
    return {"rows": [{"workload": w, "size": s, "impl": i, "ratio": r, "median": 1e-3} for w, s, i, r in rows]}


def test_the_verdict_is_the_issues_target():
    hand = [("W5 linear", "big", "numpy-hand", 1.0), ("W9 xent", "B", "numpy-hand", 1.0),
            ("W8 d4f-scalar", "x=1.0", "numpy-hand", 1.0)]
    runs = {
        "default": _run(hand + [("W5 linear", "big", "s2s", 1.2), ("W5 linear", "big", "s2s-jit", 0.9),
                                ("W5 linear", "big", "jax-jit", 0.95), ("W9 xent", "B", "s2s-jit", 0.9),
                                ("W9 xent", "B", "jax-jit", 0.7), ("W8 d4f-scalar", "x=1.0", "s2s-jit", 3.0)]),
        "1": _run(hand + [("W5 linear", "big", "s2s-jit", 1.01), ("W9 xent", "B", "s2s-jit", 0.5)]),
    }
    text, records = many_cores.w_table(runs)
    by = {r["workload"]: r for r in records}
    assert by["W5 linear"]["default"]["holds"] is True and by["W5 linear"]["default"]["best_s2s"] == 0.9
    assert by["W5 linear"]["1"]["holds"] is False           # 1.01x hand
    assert by["W9 xent"]["default"]["holds"] is False        # behind JAX
    assert by["W9 xent"]["1"]["holds"] is True               # no JAX column in that run
    assert by["W8 d4f-scalar"]["default"]["holds"] is None   # no "x hand" target
    assert "| W5 linear | big | 1,000 | 1.20 | 0.90 | 0.95 | 1,000 |  | 1.01 |  | default: yes; 1: no |" in text


def test_a_missing_run_leaves_its_columns_empty():
    text, records = many_cores.w_table({"default": _run([("W4 selu", "n", "numpy-hand", 1.0),
                                                         ("W4 selu", "n", "s2s-jit", 0.2)]), "1": None})
    assert records[0]["1"]["best_s2s"] is None and records[0]["default"]["holds"] is True
    assert text.splitlines()[-1].endswith("| default: yes; 1: - |")


def test_the_loops_table_says_which_jax_step_did_not_finish():
    row = {"program": "svm_loss_naive", "size": "N=500", "ratio": 0.5}
    runs = {"loops-blas-1": {"rows": [row]}, "loops-blas-default": {"rows": [dict(row, ratio=0.6)]},
            "loops-jax-svm_loss_naive": None}
    text = many_cores.loops_table(runs, {"loops-jax-svm_loss_naive": "timed out after 45 s"})
    assert "| svm_loss_naive | N=500 | 0.50x | 0.60x | timed out after 45 s | timed out after 45 s |" in text
    runs["loops-jax-svm_loss_naive"] = {"rows": [dict(row, jax="9.00x (first call 3.00 s)", jax_jit="failed: X")]}
    text = many_cores.loops_table(runs, {"loops-jax-svm_loss_naive": "ok"})
    assert "| 0.50x | 0.60x | 9.00x (first call 3.00 s) | failed: X |" in text


def test_jaxs_columns_come_from_its_own_run():
    """JAX's W run (`--peers jax-only`, a process of its own) is merged into s2s's run of the same
    setting: the verdict compares s2s's ratio with JAX's, each to the hand time of its process."""
    ours = _run([("W9 xent", "B", "numpy-hand", 1.0), ("W9 xent", "B", "s2s-jit", 0.4)])
    jax = _run([("W9 xent", "B", "numpy-hand", 1.0), ("W9 xent", "B", "jax-jit", 0.6)])
    merged = many_cores._merged(ours, jax)
    assert many_cores._merged(ours, None) is ours and many_cores._merged(None, jax)["rows"] == jax["rows"]
    _, records = many_cores.w_table({"1": merged})
    assert records[0]["1"]["jax-jit"] == 0.6 and records[0]["1"]["holds"] is True
    _, records = many_cores.w_table({"1": many_cores._merged(ours, _run([("W9 xent", "B", "jax-jit", 0.3)]))})
    assert records[0]["1"]["holds"] is False
