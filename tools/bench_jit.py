"""jit(f) against f on every row of the benchmark suite (tools/bench.py): issue 12's "jit(f) never
more than 5% slower than f, with or without the `s2s[fast]` extra".

    python tools/bench_jit.py                    # every row, with numba if installed
    S2S_NO_NUMBA=1 python tools/bench_jit.py     # without it (blocked NumPy kernels)
    python tools/bench_jit.py --only W2 --rounds 40

Only the two s2s implementations of each row are built (fresh copies of the programs, as in
tools/bench.py) and timed, in short alternating samples: the ratio jit/plain is the median over
rounds of each round's ratio, so a burst of load from other processes hits both sides of a ratio
alike. For W4 selu, which has no transformed plain version, "plain" is the NumPy program itself.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time

import bench
from bench_util import calls_per_sample, load_note, markdown_table, time_samples


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


def measure(group, rounds: int, sample: float) -> dict | None:
    """jit/plain of one row: the median over rounds of the per-round ratio of medians."""
    pair = _pair(group)
    if pair is None:
        return None
    args = group.data()
    want = group.hand(*args)
    for fn, name in zip(pair, ("s2s", "s2s-jit")):
        bench.check_equal(fn(*args), want, f"{group.workload} {group.size} {name}")
    numbers = [calls_per_sample(fn, args, sample / 3) for fn in pair]
    ratios, times, everything = [], ([], []), ([], [])
    for k in range(rounds):
        order = (0, 1) if k % 2 == 0 else (1, 0)
        got = {}
        for i in order:
            samples = time_samples(pair[i], args, numbers[i], 3)
            everything[i].extend(samples)
            got[i] = statistics.median(samples)
            times[i].append(got[i])
        ratios.append(got[1] / got[0])
    q = statistics.quantiles(ratios, n=4) if len(ratios) >= 4 else (min(ratios), 0, max(ratios))
    return {"plain": statistics.median(times[0]), "jit": statistics.median(times[1]),
            "ratio": statistics.median(ratios), "q1": q[0], "q3": q[2],
            "best": min(everything[1]) / min(everything[0]),
            "faults": tuple(faults(fn, args) for fn in pair)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], metavar="W4")
    parser.add_argument("--rounds", type=int, default=15, help="alternating rounds per row (default 15)")
    parser.add_argument("--sample", type=float, default=0.06, help="seconds per sample triple (default 0.06)")
    args = parser.parse_args(argv)
    load0 = os.getloadavg()[0]
    body, worst = [], 0.0
    for g in bench.groups():
        if args.only and not any(g.workload.startswith(o) for o in args.only):
            continue
        t0 = time.perf_counter()
        r = measure(g, args.rounds, args.sample)
        if r is None:
            continue
        worst = max(worst, r["ratio"])
        flag = "" if r["ratio"] <= 1.05 else "  > 1.05"
        pf = "/".join(f"{f:.0f}" for f in r["faults"])
        print(f"{g.workload} {g.size}: jit/plain {r['ratio']:.3f} [{r['q1']:.3f}, {r['q3']:.3f}] best {r['best']:.3f}"
              f" page faults plain/jit {pf}  ({time.perf_counter() - t0:.1f} s){flag}", flush=True)
        body.append([g.workload, g.size, f"{r['plain'] * 1e6:,.1f}", f"{r['jit'] * 1e6:,.1f}",
                     f"{r['ratio']:.3f}", f"{r['q1']:.3f}-{r['q3']:.3f}", f"{r['best']:.3f}", pf])
    numba = "off (S2S_NO_NUMBA)" if os.environ.get("S2S_NO_NUMBA") else "on if installed"
    print(f"\nCommand: `{'S2S_NO_NUMBA=1 ' if os.environ.get('S2S_NO_NUMBA') else ''}python tools/bench_jit.py"
          + "".join(" " + a for a in (argv if argv is not None else sys.argv[1:])) + f"` (numba {numba})")
    print(f"- {load_note(load0)}\n")
    print(markdown_table(["workload", "size", "plain µs", "jit µs", "jit/plain", "IQR", "best/best",
                          "page faults/call"], body, [False, False] + [True] * 6))
    print(f"worst jit/plain: {worst:.3f} (target <= 1.05)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
