"""A fuzzing campaign over several processes (`python tools/fuzz.py --campaign 12 ...`): each worker
runs tools/fuzz.py on its own seed with one generator of the mix, under a wall-clock budget, and
writes its counts as JSON; this module starts them, waits, and merges their counts into one summary
(a JSON file and one line of text) with a command that reproduces each failure.

    python tools/fuzz.py --campaign 12 --n 900 --seed 4401 --mix default,state,views,keywords,nested \\
        --budget-s 500 --json campaign.json

Worker `i` runs generator `mix[i % len(mix)]` with seed `seed * 1000 + i`; a failure's `reproduce`
is `python tools/fuzz.py --seed <its seed> <its generator's flag> --program <its number>`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

FUZZ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz.py")
# a generator's command-line flags (tools/fuzz.py)
GENERATORS = {"default": [], "state": ["--state"], "views": ["--views"], "keywords": ["--keywords"],
              "nested": ["--nested"]}
COUNTS = ("drawn", "checked", "skipped", "refused", "numpy_error")
GRACE_S = 180  # past the budget, a worker still checking its last program is waited for this long


def worker_seed(seed: int, i: int) -> int:
    """The seed of worker `i` of a campaign seeded `seed` (disjoint streams for distinct workers)."""
    return seed * 1000 + i


def _command(gen: str, seed: int, n: int, budget_s: float, path: str, props: str) -> list[str]:
    return [sys.executable, FUZZ, "--n", str(n), "--seed", str(seed), *GENERATORS[gen], "--budget-s", str(budget_s),
            "--json", path, "--no-shrink", "--quiet", *(["--props", props] if props else [])]


def merge(results: list[dict], seed: int, n: int, budget_s: float, wall_s: float) -> dict:
    """One summary of the workers' results (each: generator, seed, counts, failures)."""
    gens: dict[str, dict] = {}
    for r in results:
        g = gens.setdefault(r["generator"], {**{c: 0 for c in COUNTS}, "failures": {}, "seconds": 0.0,
                                             "cpu_seconds": 0.0, "workers": 0})
        for c in COUNTS:
            g[c] += r.get(c, 0)
        for prop, k in r.get("failures", {}).items():
            g["failures"][prop] = g["failures"].get(prop, 0) + k
        g["seconds"] += r.get("seconds", 0.0)
        g["cpu_seconds"] += r.get("cpu_seconds", 0.0)
        g["workers"] += 1
    for g in gens.values():
        g["programs_per_s"] = round(g["drawn"] / g["seconds"], 3) if g["seconds"] else 0.0
        g["programs_per_cpu_s"] = round(g["drawn"] / g["cpu_seconds"], 3) if g["cpu_seconds"] else 0.0
        g["seconds"], g["cpu_seconds"] = round(g["seconds"], 1), round(g["cpu_seconds"], 1)
    total = {c: sum(g[c] for g in gens.values()) for c in COUNTS}
    total["failures"] = sum(sum(g["failures"].values()) for g in gens.values())
    failing = [{**f, "generator": r["generator"],
                "reproduce": " ".join(["python tools/fuzz.py", "--seed", str(f["seed"]), *GENERATORS[r["generator"]],
                                       "--program", str(f["program"])])}
               for r in results for f in r.get("failing", [])]
    missing = [r["worker"] for r in results if r.get("missing")]
    return {"seed": seed, "n": n, "budget_s": budget_s, "wall_s": round(wall_s, 1), "workers": len(results),
            "missing_workers": missing, "generators": gens, "total": total, "failing": failing}


def line(summary: dict) -> str:
    """The summary in one line of text."""
    t = summary["total"]
    per = ", ".join(f"{name} {g['drawn']} ({sum(g['failures'].values())} failing)"
                    for name, g in summary["generators"].items())
    missing = f"; workers without a result: {summary['missing_workers']}" if summary["missing_workers"] else ""
    return (f"campaign seed {summary['seed']}: {t['drawn']} programs drawn, {t['checked']} checked "
            f"({t['numpy_error']} NumPy errors raised by every transform), {t['refused']} refused at the user's "
            f"line, {t['skipped']} not smooth, {t['failures']} failures in {summary['wall_s']} s by "
            f"{summary['workers']} workers [{per}]{missing}")


def run(workers: int, n: int, seed: int, mix: list[str], budget_s: float, json_path: str | None,
        props: str = "") -> int:
    """Start the workers, wait for them (killing one that outlives the budget by GRACE_S), merge
    their results, write the JSON and print the line; 1 when a program failed or a worker gave no
    result."""
    unknown = [g for g in mix if g not in GENERATORS]
    if unknown:
        raise SystemExit(f"unknown generators {unknown}; choose among {', '.join(GENERATORS)}")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    tmp = tempfile.mkdtemp(prefix="s2s_campaign_")
    start = time.time()
    jobs = []
    for i in range(workers):
        gen, wseed = mix[i % len(mix)], worker_seed(seed, i)
        path = os.path.join(tmp, f"worker{i}.json")
        log = open(os.path.join(tmp, f"worker{i}.log"), "w")
        proc = subprocess.Popen(_command(gen, wseed, n, budget_s, path, props), stdout=log, stderr=subprocess.STDOUT,
                                env=env)
        jobs.append((i, gen, wseed, path, proc, log))
    results = []
    for i, gen, wseed, path, proc, log in jobs:
        try:
            proc.wait(timeout=max(1.0, budget_s + GRACE_S - (time.time() - start)))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        try:
            with open(path) as fh:
                results.append({**json.load(fh), "generator": gen, "worker": i})
        except (OSError, ValueError):
            results.append({"generator": gen, "worker": i, "seed": wseed, "missing": True,
                            "log": os.path.join(tmp, f"worker{i}.log")})
    summary = merge(results, seed, n, budget_s, time.time() - start)
    text = line(summary)
    path = json_path or f"fuzz_campaign_seed{seed}.json"
    with open(path, "w") as fh:
        json.dump(summary, fh, indent=1)
    print(text)
    print(f"summary: {path}; worker logs: {tmp}")
    for f in summary["failing"][:20]:
        print(f"FAIL {f['generator']} {f['property']}: {f['message'][:300]}\n  reproduce: {f['reproduce']}")
    return 1 if summary["total"]["failures"] or summary["missing_workers"] else 0
