"""jit(f) against f on every row of the benchmark suite (tools/bench/bench.py): issue 12's "jit(f) never
more than 5% slower than f, with or without the `s2s[fast]` extra".

    python tools/bench/bench_jit.py                    # every row, with numba if installed
    S2S_NO_NUMBA=1 python tools/bench/bench_jit.py     # without it (blocked NumPy kernels)
    python tools/bench/bench_jit.py --only W2 --rounds 40

Only the two s2s implementations of each row are built (fresh copies of the programs, as in
tools/bench/bench.py) and timed alternately in short samples, three of each per round, the order
alternating. The main figure is the median over rounds of the round's ratio of *CPU time* of
the process (`time.process_time`), as tools/bench/bench.py pairs its samples (the ratio of the two
fastest samples, the figure before, let one lucky sample decide): on a machine whose cores
other work oversubscribes, wall time mostly measures waiting for a core, CPU time does not (it
includes the kernel's work for page faults, and for a fused kernel the CPU time of all its
threads, so it never credits jit for threads that run in parallel). The median ratio of wall
times over rounds is given beside it, and the page faults per call of each (fresh memory the
kernel hands out: on large arrays much of the time, and independent of the load). For W4 selu,
which has no transformed plain version, "plain" is the NumPy program itself.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time

import bench
from bench_util import calls_per_sample, load_note, markdown_table


def _pair(group):
    """(plain, jit) functions of `group`, built fresh, or None when the row has no jit version."""
    impls = {i.name: i for i in group.impls if i.name.startswith("s2s") and not i.missing()}
    if "s2s-jit" not in impls:
        return None
    plain = impls["s2s"].build() if "s2s" in impls else group.hand
    return plain, impls["s2s-jit"].build()


def faults(fn, args, calls: int = 10) -> float:
    """Minor page faults per call of `fn(*args)` (after one warm-up call)."""
    fn(*args)
    start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        fn(*args)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start) / calls


def _sample(fn, args, number: int) -> tuple[float, float]:
    """(CPU seconds, wall seconds) per call over `number` calls."""
    c0, w0 = time.process_time(), time.perf_counter()
    for _ in range(number):
        fn(*args)
    return (time.process_time() - c0) / number, (time.perf_counter() - w0) / number


def measure(group, rounds: int, sample: float) -> dict | None:
    """jit/plain of one row: the medians over rounds of each round's ratio of CPU times and of
    wall times (the two versions sampled one after the other, in alternating order)."""
    pair = _pair(group)
    if pair is None:
        return None
    args = group.data()
    want = group.hand(*args)
    for fn, name in zip(pair, ("s2s", "s2s-jit")):
        bench.check_equal(fn(*args), want, f"{group.workload} {group.size} {name}")
    # CPU time advances in clock ticks on some systems: samples of at least ~20 ms
    numbers = [calls_per_sample(fn, args, max(sample / 3, 0.02)) for fn in pair]
    cpu, cpu_ratios, wall_ratios = ([], []), [], []
    for k in range(rounds):
        got = {}
        for i in ((0, 1) if k % 2 == 0 else (1, 0)):
            samples = [_sample(pair[i], args, numbers[i]) for _ in range(3)]
            cpu[i].extend(c for c, _ in samples)
            got[i] = tuple(statistics.median(x) for x in zip(*samples))
        cpu_ratios.append(got[1][0] / got[0][0])
        wall_ratios.append(got[1][1] / got[0][1])
    return {"plain": statistics.median(cpu[0]), "jit": statistics.median(cpu[1]),
            "cpu": statistics.median(cpu_ratios), "wall": statistics.median(wall_ratios),
            "faults": tuple(faults(fn, args) for fn in pair)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], metavar="W4")
    parser.add_argument("--rounds", type=int, default=15, help="alternating rounds per row (default 15)")
    parser.add_argument("--sample", type=float, default=0.06, help="seconds per sample triple (default 0.06)")
    args = parser.parse_args(argv)
    load0 = os.getloadavg()[0]
    body, worst = [], (0.0, "")
    for g in bench.groups():
        if args.only and not any(g.workload.startswith(o) for o in args.only):
            continue
        t0 = time.perf_counter()
        r = measure(g, args.rounds, args.sample)
        if r is None:
            continue
        worst = max(worst, (r["cpu"], f"{g.workload} {g.size}"))
        pf = "/".join(f"{f:.0f}" for f in r["faults"])
        flag = "" if r["cpu"] <= 1.05 else "  > 1.05"
        print(f"{g.workload} {g.size}: jit/plain CPU {r['cpu']:.3f}, wall {r['wall']:.3f}; "
              f"page faults plain/jit {pf}  ({time.perf_counter() - t0:.1f} s){flag}", flush=True)
        body.append([g.workload, g.size, f"{r['plain'] * 1e6:,.1f}", f"{r['jit'] * 1e6:,.1f}",
                     f"{r['cpu']:.3f}", f"{r['wall']:.3f}", pf])
    numba = "off (S2S_NO_NUMBA)" if os.environ.get("S2S_NO_NUMBA") else "on if installed"
    env = "".join(f"{k}={os.environ[k]} " for k in ("S2S_NO_NUMBA", "OPENBLAS_NUM_THREADS") if os.environ.get(k))
    print(f"\nCommand: `{env}python tools/bench/bench_jit.py"
          + "".join(" " + a for a in (argv if argv is not None else sys.argv[1:])) + f"` (numba {numba})")
    print(f"- {load_note(load0)}\n")
    print(markdown_table(["workload", "size", "plain CPU µs", "jit CPU µs", "jit/plain CPU", "jit/plain wall",
                          "page faults/call plain/jit"], body, [False, False] + [True] * 5))
    print(f"worst jit/plain (CPU): {worst[0]:.3f}, {worst[1]} (target <= 1.05)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
