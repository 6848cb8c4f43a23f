"""The optimization passes' share of one first call (issue 46): each pass's CPU time (every run of
it summed, and the first runs listed), then `passes.optimize` alone, run again on clones of the
function the first call gave it, the fastest of `--repeat` runs with the collector paused as in a
compile (what to compare between two checkouts: alternate them).

    python tools/bench/bench_passes.py grad:1600:rebind
    PYTHONPATH=/path/to/other/checkout python tools/bench/bench_passes.py grad:1600:rebind --repeat 4

It measures the checkout `PYTHONPATH` names (its own without one), and says which.
"""
from __future__ import annotations

import argparse
import collections
import gc
import os
import sys
import tempfile
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
import bench_compile  # noqa: E402  (it puts this checkout first on sys.path)
from bench_util import load_program  # noqa: E402

sys.path.insert(0, os.environ.get("PYTHONPATH") or os.path.dirname(os.path.dirname(TOOLS)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", help="TRANSFORM:SIZE:VARIANT, e.g. grad:1600:rebind")
    parser.add_argument("--repeat", type=int, default=4, help="runs of passes.optimize alone (default 4)")
    args = parser.parse_args(argv)
    transform, size, variant = args.spec.split(":")
    from s2s.compiler import driver, passes
    from s2s.compiler.passes import base
    runs: dict = collections.defaultdict(list)
    real_apply, real_optimize = base.Pass.apply, passes.optimize
    inputs = []

    def apply(self, *a, **k):
        start = time.process_time()
        out = real_apply(self, *a, **k)
        runs[self.name].append(time.process_time() - start)
        return out

    def optimize(fn, *a, **k):
        inputs.append((base.clone(fn), a, k))
        return real_optimize(fn, *a, **k)
    base.Pass.apply, driver.optimize = apply, optimize
    with tempfile.TemporaryDirectory() as tmp:
        mod = load_program(bench_compile.make_program(int(size), variant), tmp, f"_s2s_passes_{variant}_{size}")
        start = time.process_time()
        bench_compile.first_call(transform, mod.prog)
        first = time.process_time() - start
    base.Pass.apply = real_apply
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(passes.__file__))))
    print(f"{args.spec} ({root}): first call {first:.3f} s CPU, "
          f"{len(inputs)} optimize call(s)")
    for name, times in sorted(runs.items(), key=lambda kv: -sum(kv[1])):
        if sum(times) >= 0.0005:
            print(f"  {name:24s} {sum(times):7.3f}  runs " + " ".join(f"{t:.3f}" for t in times[:6]))
    alone = []
    for _ in range(args.repeat):
        total = 0.0
        for fn, a, k in inputs:
            fn = base.clone(fn)
            gc.collect()
            gc.disable()
            start = time.process_time()
            real_optimize(fn, *a, **k)
            total += time.process_time() - start
            gc.enable()
        alone.append(total)
    print(f"passes.optimize alone: fastest {min(alone):.3f} s of " + ", ".join(f"{t:.3f}" for t in alone))
    return 0


if __name__ == "__main__":
    sys.exit(main())
