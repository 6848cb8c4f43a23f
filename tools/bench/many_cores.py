"""Issue 46 section 3 in one command: the W rows (s2s, hand-written NumPy and JAX) with BLAS at its
default threads and on one thread, and the loop programs of tools/bench/bench_loops.py, on the
machine it runs on, within a fixed time budget; the tables (Markdown and JSON) go to one folder.

    python tools/bench/many_cores.py --out results/            # the full run (at most --budget s)
    bash tools/bench/many_cores.sh                             # the same into $OUT
    python tools/bench/many_cores.py --out results/mc-quick --quick --peers none   # a smoke test

Each measurement is its own process (a BLAS setting holds for a whole process; a kernel's thread
decisions start afresh), run in this order, each killed at its time limit and at the budget's end
(a step that does not finish is reported as such, and the steps after it still run if time is left):

1. `bench.py --only W --blas-threads default --peers none` (BLAS's thread per usable core, what
   users run): s2s and hand,
2. the same with `--blas-threads 1`,
3. `bench_loops.py` with BLAS on one thread and at its default, s2s and hand only,
4. with `--peers jax`: JAX's W columns, `bench.py --peers jax-only` in each BLAS setting (JAX and
   hand in a process of their own: OpenBLAS's workers spin for a while after each threaded
   product, s2s's or hand's, and slow XLA's thread pool in the same process; each ratio is to
   the hand time of its own process), then `bench_loops.py` with JAX's columns (JAX's `grad` of
   a Python loop runs op by op and its `jax.jit` traces the unrolled loop: each program in its
   own process, so one slow JAX call costs only its own row),
5. where s2s may use more than 8 threads, and only with the budget's time left: the rows whose
   kernels and products s2s shares out (W4, W5, W9, W10), BLAS on one thread, with
   S2S_THREADS=8, the most before issue 46 (does a 13-core machine's every core pay?).

The BLAS threads variables (OPENBLAS/MKL/OMP_NUM_THREADS) are removed from the children's
environment, so "default" is what a user who sets nothing gets (each page says what BLAS ran), and
JAX_PLATFORMS=cpu is set (a machine with an accelerator would otherwise run JAX there). Within a
process the versions are timed one sample of each in turn. Written into the folder:
`many_cores.md` and `many_cores.json` (the summary: machine, BLAS, both settings side by side, each
step's status and seconds), each step's own page, JSON (written after each row, so a step stopped
at its limit keeps what it finished) and log, and `lscpu.txt`.

The time limits (120 s for each W run of s2s, 80 s for each of JAX, 40 s for each loops run, 45 s
for each JAX loop program) sum to 570 s, within the 600 s budget with its reserve; a shorter
`--budget` skips the last steps. On the idle 13-core machine a W run of s2s and JAX together took
about 90 s at `--min-time 0.05`.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))

from bench_util import fmt_time, machine_lines, markdown_table  # noqa: E402

BLAS_VARS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
JAX_LOOPS = ("svm_loss_naive", "softmax_loss_naive")  # bench_loops' programs with a JAX column
RESERVE = 10.0  # seconds of the budget kept for the summary
EIGHT = 8  # s2s's threads for one call at most before issue 46 (the comparison step's S2S_THREADS)
THREADED_ROWS = ("W4", "W5 linear-mse-grad", "W9", "W10")  # rows whose kernels or products s2s shares out


def steps(args, most_threads: int = 1) -> list[tuple[str, list[str], float, dict]]:
    """(name, command line, time limit in seconds, environment added) of each measurement, in the
    order they run. Where s2s may use more than `EIGHT` threads (`most_threads`), a last step, run
    only if the budget has time left, times the rows with large products and kernels again with
    S2S_THREADS=8 (the most before issue 46), so one run says whether the extra cores pay."""
    quick = ["--quick"] if args.quick else []
    timing = ["--rounds", str(args.rounds), "--min-time", str(args.min_time)]
    out = []
    for setting in ("default", "1"):
        name = f"w-blas-{setting}"
        out.append((name, ["bench.py", "--only", "W", "--blas-threads", setting, "--peers", "none",
                           "--first-calls", "0", *timing, *quick, "--out", f"{name}.md", "--json", f"{name}.json"],
                    args.w_limit, {}))
    loop_timing = ["--rounds", str(args.rounds), "--min-time", str(args.loops_min_time)]
    for setting in ("1", "default"):
        name = f"loops-blas-{setting}"
        out.append((name, ["bench_loops.py", "--blas-threads", setting, "--peers", "none", *loop_timing, *quick,
                           "--out", f"{name}.md", "--json", f"{name}.json"], args.loops_limit, {}))
    if args.peers == "jax":  # (JAX's W columns from processes of their own: OpenBLAS's workers, spinning
        # after a threaded product, slow XLA's thread pool in the same process)
        for setting in ("default", "1"):
            name = f"w-blas-{setting}-jax"
            out.append((name, ["bench.py", "--only", "W", "--blas-threads", setting, "--peers", "jax-only",
                               "--first-calls", "0", *timing, *quick, "--out", f"{name}.md", "--json", f"{name}.json"],
                        args.jax_w_limit, {}))
        for program in JAX_LOOPS:
            name = f"loops-jax-{program}"
            out.append((name, ["bench_loops.py", "--blas-threads", "1", "--only", program, "--rounds", "3",
                               "--min-time", str(args.loops_min_time), *quick,
                               "--out", f"{name}.md", "--json", f"{name}.json"], args.jax_loops_limit, {}))
    if most_threads > EIGHT:
        name = f"w-blas-1-s2s-threads-{EIGHT}"
        only = [a for w in THREADED_ROWS for a in ("--only", w)]
        out.append((name, ["bench.py", *only, "--blas-threads", "1", "--peers", "none", "--first-calls", "0",
                           *timing, *quick, "--out", f"{name}.md", "--json", f"{name}.json"],
                    args.w_limit, {"S2S_THREADS": str(EIGHT)}))
    return out


def run_step(argv: list[str], folder: Path, log: Path, limit: float, extra_env: dict | None = None) -> tuple[str, float]:
    """Run one step's tool in its own process group, in `folder`; ("ok" | "exit N" | "timed out
    after N s", seconds). A step past its limit is killed with everything it started."""
    env = {k: v for k, v in os.environ.items() if k not in BLAS_VARS} | {"JAX_PLATFORMS": "cpu"} | (extra_env or {})
    start = time.perf_counter()
    with open(log, "w", encoding="utf-8") as f:
        child = subprocess.Popen([sys.executable, str(TOOLS / argv[0]), *argv[1:]], cwd=folder, env=env,
                                 stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = child.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            return f"timed out after {limit:.0f} s", time.perf_counter() - start
    return ("ok" if code == 0 else f"exit {code}"), time.perf_counter() - start


def cpu_info(folder: Path) -> dict:
    """The CPU as `lscpu` reports it (model, cores, threads per core, AVX2/AVX-512), saved whole
    as lscpu.txt; /proc/cpuinfo's model where lscpu is missing."""
    info = {"usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
            "cpu_count": os.cpu_count(), "machine": platform.machine()}
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        text = ""
    (folder / "lscpu.txt").write_text(text or "lscpu not available\n", encoding="utf-8")
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    for key, name in (("Model name", "model"), ("CPU(s)", "cpus"), ("Thread(s) per core", "threads_per_core"),
                      ("Core(s) per socket", "cores_per_socket"), ("Socket(s)", "sockets"), ("NUMA node(s)", "numa")):
        if key in fields:
            info[name] = fields[key]
    flags = set(fields.get("Flags", "").split())
    if not flags and os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name") and "model" not in info:
                    info["model"] = line.split(":", 1)[1].strip()
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    info["avx2"], info["avx512f"] = "avx2" in flags, "avx512f" in flags
    return info


def blas_info() -> dict:
    """NumPy's BLAS: its build configuration and, with threadpoolctl, the loaded library and its
    default threads (no file paths)."""
    import numpy as np
    info: dict = {"numpy": np.__version__}
    try:
        config = np.show_config(mode="dicts")
        info["build"] = config.get("Build Dependencies", {}).get("blas", {})
        for key in ("include directory", "lib directory", "pc file directory"):
            info["build"].pop(key, None)
    except TypeError:  # (NumPy before 1.26: no dicts)
        info["build"] = "numpy.show_config(mode='dicts') not available"
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        info["loaded"] = "threadpoolctl not installed"
    else:
        info["loaded"] = [{k: v for k, v in lib.items() if k != "filepath"} for lib in threadpool_info()]
    return info


def _s2s_threads() -> int:
    """The most threads s2s's kernels and products share a call among here (cores.most_threads)."""
    sys.path.insert(0, str(TOOLS.parent.parent))  # (this checkout's s2s)
    from s2s.compiler.emit import cores
    return cores.most_threads()


def _load(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _merged(run, jax):
    """A W run of s2s with the rows of JAX's own run of the same setting (each ratio is to the hand
    time of its own process)."""
    if not jax:
        return run
    return {**(run or {}), "rows": [*(run or {}).get("rows", []), *jax.get("rows", [])]}


def _ratio(rows, workload, size, impl):
    for r in rows:
        if r["workload"] == workload and r["size"] == size and r["impl"] == impl:
            return r.get("ratio"), r.get("median")
    return None, None


OURS = ("s2s", "s2s-jit", "s2s-hessian")
SCALAR = "W8"  # a derivative of a scalar formula against the formula written out: no "≤ 1.0x hand" target


def w_table(runs: dict) -> tuple[str, list[dict]]:
    """The W rows, BLAS default and 1 side by side: hand's µs, s2s's, s2s-jit's and jax-jit's
    ratios to hand; `holds`: the best s2s version ≤ 1.0× hand and ≤ jax-jit in each setting."""
    keys = []
    for run in runs.values():
        for r in (run or {}).get("rows", []):
            if (r["workload"], r["size"]) not in keys:
                keys.append((r["workload"], r["size"]))
    body, records = [], []
    for w, s in keys:
        line, record, holds = [w, s], {"workload": w, "size": s}, []
        for setting, run in runs.items():
            rows = (run or {}).get("rows", [])
            _, hand = _ratio(rows, w, s, "numpy-hand")
            cells = {impl: _ratio(rows, w, s, impl)[0] for impl in (*OURS, "jax-jit")}
            ours = [v for k, v in cells.items() if k in OURS and v is not None]
            best, jax = (min(ours) if ours else None), cells["jax-jit"]
            ok = best is not None and best <= 1.0 and (jax is None or best <= jax)
            if w.startswith(SCALAR):  # (its target is a multiple of the function's own cost: bench.py's)
                ok, verdict = None, "n/a"
            else:
                verdict = "yes" if ok else "no" if best is not None else "-"
            holds.append(f"{setting}: {verdict}")
            record[setting] = {"hand_s": hand, **cells, "best_s2s": best, "holds": ok}
            line += [fmt_time(hand) if hand else "-"] + \
                    [f"{cells[i]:.2f}" if cells[i] is not None else "" for i in ("s2s", "s2s-jit", "jax-jit")]
        body.append(line + ["; ".join(holds)])
        records.append(record)
    header = ["workload", "size"]
    for setting in runs:
        header += [f"BLAS {setting}: hand µs", "s2s", "s2s-jit", "jax-jit"]
    return markdown_table(header + ["best s2s ≤ 1.0× hand and ≤ jax-jit"], body,
                          [False, False] + [True] * 4 * len(runs) + [False]), records


def loops_table(runs: dict, statuses: dict | None = None) -> str:
    """The loop programs: s2s jit(grad) / hand in each BLAS setting, and JAX's columns (a JAX step
    that did not finish: its status, from `statuses`, step name -> status)."""
    names = []
    for run in runs.values():
        for r in (run or {}).get("rows", []):
            if (r["program"], r["size"]) not in names:
                names.append((r["program"], r["size"]))
    body = []
    for program, size in names:
        line, jax = [program, size], ["-", "-"]
        for step, status in (statuses or {}).items():
            if step.startswith("loops-jax-") and program.startswith(step[len("loops-jax-"):]) and status != "ok":
                jax = [status, status]
        for step, run in runs.items():
            for r in (run or {}).get("rows", []):
                if r["program"] == program and r["size"] == size:
                    if step.startswith("loops-jax"):
                        jax = [r.get("jax", "-"), r.get("jax_jit", "-")]
                    else:
                        line.append(f"{r['ratio']:.2f}x")
                    break
            else:
                if not step.startswith("loops-jax"):
                    line.append("-")
        body.append(line + jax)
    header = ["program", "size"] + [f"s2s / hand, BLAS {s.rsplit('-', 1)[1]}" for s in runs
                                    if not s.startswith("loops-jax")]
    header += ["JAX grad / hand (BLAS 1)", "jax.jit(grad) / hand (BLAS 1)"]
    return markdown_table(header, body, [False, False] + [True] * (len(header) - 4) + [False, False])


def arguments() -> argparse.ArgumentParser:
    """The command line: the folder, the budget and each step's time limit (their sum fits it)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("OUT"), help="folder for the results (default $OUT)")
    parser.add_argument("--quick", action="store_true", help="smallest sizes (a smoke test of the script)")
    parser.add_argument("--peers", choices=("jax", "none"),
                        default="jax" if importlib.util.find_spec("jax") else "none",
                        help="jax: JAX's columns too (default where JAX is installed)")
    parser.add_argument("--budget", type=float, default=600.0, help="seconds for the whole run (default 600)")
    parser.add_argument("--rounds", type=int, default=7, help="alternating timing rounds per row (default 7)")
    parser.add_argument("--min-time", type=float, default=0.05, help="seconds per sample in the W rows (0.05)")
    parser.add_argument("--loops-min-time", type=float, default=0.05, help="seconds per sample in the loops (0.05)")
    parser.add_argument("--w-limit", type=float, default=120.0, help="seconds for each W run of s2s at most (120)")
    parser.add_argument("--jax-w-limit", type=float, default=80.0, help="seconds for each W run of JAX at most (80)")
    parser.add_argument("--loops-limit", type=float, default=40.0, help="seconds for each loops run at most (40)")
    parser.add_argument("--jax-loops-limit", type=float, default=45.0,
                        help="seconds for each loop program under JAX at most (45)")
    return parser


def main(argv=None) -> int:
    parser = arguments()
    args = parser.parse_args(argv)
    if not args.out:
        parser.error("give --out FOLDER or set $OUT")
    folder = Path(args.out).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    deadline = start + args.budget - RESERVE
    summary = {"command": " ".join(["python tools/bench/many_cores.py", *(argv if argv is not None else sys.argv[1:])]),
               "machine": machine_lines(), "cpu": cpu_info(folder), "blas": blas_info(), "steps": [],
               "s2s_threads": _s2s_threads()}
    for name, step_argv, limit, extra_env in steps(args, summary["s2s_threads"]):
        left = deadline - time.perf_counter()
        if left < 5:
            summary["steps"].append({"step": name, "status": "not run: the budget was spent", "seconds": 0.0})
            print(f"{name}: not run, the budget was spent", flush=True)
            continue
        status, seconds = run_step(step_argv, folder, folder / f"{name}.log", min(limit, left), extra_env)
        summary["steps"].append({"step": name, "status": status, "seconds": round(seconds, 1),
                                 "command": " ".join(["python", f"tools/bench/{step_argv[0]}", *step_argv[1:]])})
        print(f"{name}: {status} ({seconds:.1f} s)", flush=True)
    w_runs = {s: _merged(_load(folder / f"w-blas-{s}.json"), _load(folder / f"w-blas-{s}-jax.json"))
              for s in ("default", "1")}
    w_text, summary["w"] = w_table(w_runs)
    eight = _load(folder / f"w-blas-1-s2s-threads-{EIGHT}.json")
    threads_text = ""
    if eight:  # (the same rows of the BLAS 1 run, s2s on every core, beside S2S_THREADS=8)
        every = {"rows": [r for r in (w_runs["1"] or {}).get("rows", []) if r["workload"].startswith(THREADED_ROWS)]}
        threads_text, summary["threads"] = w_table({f"1, s2s on {summary['s2s_threads']} threads": every,
                                                    f"1, S2S_THREADS={EIGHT}": eight})
        threads_text = (f"## s2s's threads: {summary['s2s_threads']} against {EIGHT}, BLAS on one thread\n\n"
                        "Two processes, so compare each ratio to hand, not the hand times:\n\n" + threads_text)
    loop_runs = {step["step"]: _load(folder / f"{step['step']}.json") for step in summary["steps"]
                 if step["step"].startswith("loops")}
    summary["loops"] = {k: (v or {}).get("rows") for k, v in loop_runs.items()}
    summary["seconds"] = round(time.perf_counter() - start, 1)
    cpu, blas = summary["cpu"], summary["blas"]
    loaded = blas["loaded"] if isinstance(blas["loaded"], str) else ", ".join(
        f"{lib.get('internal_api')} {lib.get('version')} ({lib.get('num_threads')} threads by default, "
        f"{lib.get('architecture')})" for lib in blas["loaded"] if lib.get("user_api") == "blas")
    text = "\n".join([
        "# Many cores and BLAS's own threads (issue 46 section 3)", "",
        f"Command: `{summary['command']}` ({summary['seconds']:.0f} s)", "",
        f"- CPU: {cpu.get('model', '?')}; {cpu.get('cpus', cpu['cpu_count'])} CPUs, "
        f"{cpu.get('threads_per_core', '?')} threads per core, {cpu.get('sockets', '?')} socket(s); "
        f"{cpu['usable_cores']} usable; AVX2 {'yes' if cpu['avx2'] else 'no'}, "
        f"AVX-512 {'yes' if cpu['avx512f'] else 'no'}",
        f"- NumPy {blas['numpy']}, BLAS: {loaded}",
        f"- s2s's own threads for one call at most: {summary['s2s_threads']} "
        f"(S2S_THREADS {os.environ.get('S2S_THREADS', 'unset')}; fewer where BLAS is threaded)",
        *summary["machine"], "",
        "## Steps", "",
        markdown_table(["step", "status", "seconds"], [[s["step"], s["status"], s["seconds"]]
                                                       for s in summary["steps"]], [False, False, True]),
        "## W rows: wall time × hand (median over turns)", "",
        w_text,
        threads_text,
        "## Loop programs: s2s jit(grad) / the author's forward + backward", "",
        loops_table(loop_runs, {step["step"]: step["status"] for step in summary["steps"]}),
        "Each step's page (`<step>.md`) has its per-row details, CPU-time ratios and load.", ""])
    (folder / "many_cores.md").write_text(text, encoding="utf-8")
    (folder / "many_cores.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print()
    print(text)
    return 0 if all(s["status"] == "ok" for s in summary["steps"]) else 1


if __name__ == "__main__":
    sys.exit(main())
