"""Time 10**7 standard normals from s2s.random against NumPy's own generator; print the ratio.

    python tools/bench/bench_random.py            # float32 (the default dtype), classic layout
    python tools/bench/bench_random.py --n 1000000 --dtype float64 --partitionable
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import s2s
from s2s import random


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10**7)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--partitionable", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    s2s.config.update("threefry_partitionable", args.partitionable)
    key = random.PRNGKey(0)
    rng = np.random.default_rng(0)
    ours = best_of(lambda: random.normal(key, (args.n,), dtype=args.dtype), args.repeat)
    numpy_time = best_of(lambda: rng.standard_normal(args.n), args.repeat)
    layout = "partitionable" if args.partitionable else "classic"
    print(f"s2s.random.normal ({args.dtype}, {layout}): {ours * 1e3:.0f} ms for {args.n} draws")
    print(f"numpy default_rng().standard_normal: {numpy_time * 1e3:.0f} ms")
    print(f"ratio: {ours / numpy_time:.2f}")


if __name__ == "__main__":
    main()
