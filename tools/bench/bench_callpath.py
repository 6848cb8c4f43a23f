"""Where the microseconds of a small transformed call go: the hand-written NumPy version, the
transformed function as users call it, its generated code called directly (no call path), and
the pieces of the call path (the cache-key watch, the argument-type key, the size check jit makes).

    OPENBLAS_NUM_THREADS=1 python tools/bench/bench_callpath.py

The rows are W1 per-example gradients at B=2 and W6 Hessian of dot(x, x) at n=3, the two
workloads of tools/bench/bench.py whose ratios to hand are set by per-call overhead. Each number is
the best of 7 repeats of 100,000 calls, in microseconds, three rounds side by side.
"""

from __future__ import annotations

import operator
import os
import sys
import timeit

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(TOOLS)))  # this checkout's s2s, not an installed one
sys.path.insert(0, TOOLS)

import bench_programs as P  # noqa: E402

import s2s  # noqa: E402

_SIZE = operator.attrgetter("size")


def best_us(f, calls: int = 100_000) -> float:
    return min(timeit.repeat(f, number=calls, repeat=7)) / calls * 1e6


def w1_rows():
    args = P.td_data(2)
    plain = s2s.vmap(s2s.grad(P.td_loss), in_axes=(None, 0, 0, 0))
    jitted = s2s.jit(s2s.vmap(s2s.grad(P.td_loss), in_axes=(None, 0, 0, 0)))
    plain(*args)
    jitted(*args)
    inner = jitted._by_kind[s2s.api.jitted.kinds(args)][0]  # the version jit runs for these arguments
    watch = jitted._unchanged
    return "W1 B=2", [
        ("numpy-hand", lambda: P.td_hand(*args)),
        ("vmap(grad)", lambda: plain(*args)),
        ("jit(vmap(grad))", lambda: jitted(*args)),
        ("jit's generated code", lambda: inner(*args)),
        ("key watch", watch),
        ("argument-kind key", lambda: jitted._by_kind.get(s2s.api.jitted.kinds(args))),
        ("largest size", lambda: max(map(_SIZE, args))),
    ]


def w6_rows():
    x = P.rng().normal(size=3)
    hess = s2s.hessian(P.f_dot)
    jitted = s2s.jit(s2s.hessian(P.f_dot))
    hess(x)
    jitted(x)
    inner = hess._fast or hess.compiled  # (no fast path: the compiled version)
    return "W6 dot n=3", [
        ("numpy-hand", lambda: P.hess_dot_hand(x)),
        ("hessian", lambda: hess(x)),
        ("jit(hessian)", lambda: jitted(x)),
        ("hessian's generated code", lambda: inner(x)),
        ("key watch", hess._unchanged),
    ]


def main() -> None:
    print("| workload | what | µs (3 rounds) | × hand (best round) |")
    print("|---|---|---|---:|")
    for workload, rows in (w1_rows(), w6_rows()):
        times = {name: [best_us(f) for _ in range(3)] for name, f in rows}
        hand = min(times["numpy-hand"])
        for name, ts in times.items():
            print(f"| {workload} | {name} | {' / '.join(f'{t:.2f}' for t in ts)} | {min(ts) / hand:.2f} |")


if __name__ == "__main__":
    main()
