"""Hand-written NumPy against s2s's `jit` by CPU time, one process, the two called in turn: the
rows of tools/bench/bench.py where the call path or a few microseconds decide (issue 46), each
timed by this thread's CPU time (`time.thread_time`), which neither waiting for a core nor
another process's slow stretch inflates, so that a loaded machine favours neither side.

    S2S_THREADS=1 python tools/bench/bench_cpu_ab.py                     # every row
    S2S_THREADS=1 python tools/bench/bench_cpu_ab.py --only W9 --calls 1000
    S2S_THREADS=1 python tools/bench/bench_cpu_ab.py --only W1 --only W3 --only W5 --checkout DIR

Rows (the method each row had in the tool it came from, so that its numbers compare with them):

- W1 B=2, W3 B=10, W5 16x32x64 (`best`): the best of 7 repeats of N calls for hand and for
  jit, three rounds; the median ratio with the rounds' lowest and highest.
- W2 n=5,B=2 and n=1000,B=128 (`rounds`): `--rounds` rounds of N calls of hand, of jit and of
  the jit version alone (`shapes_tested=True`, no call path); medians, the ratio's quartiles.
- W7, W9, W10 gradients (`calls`): hand and `jit(grad)` called in turn, call by call, each call
  timed; the 10th and 25th percentiles of the per-call time and jit's over hand's (the calls
  other processes disturbed least). `--flat` adds `jit(grad)` of the function written with one
  parameter per array.

`--method` times every chosen row one way (`--only W9 --method best` is the former small-rows
W9 B=128 row). BLAS runs on `--blas-threads` threads (1 unless `default`). `--checkout DIR`
times another checkout's s2s (before and after); without it, `PYTHONPATH`'s if set, else this one.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import timeit
from typing import NamedTuple

import numpy as np

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(TOOLS))
METHODS = ("best", "rounds", "calls")
sys.path[:0] = [p for p in (TOOLS, os.path.join(ROOT, "examples")) if p not in sys.path]  # (the programs)


class Row(NamedTuple):
    name: str         # the row's name in the tool it came from (and in docs/benchmarks.md)
    method: str       # how it is timed by default (METHODS)
    block: int        # calls per sample of the `best` and `rounds` methods
    impls: list       # [(implementation, function, arguments)], hand first
    calls: int = 500  # calls per implementation of the `calls` method


def _s2s_path(checkout: str | None) -> None:
    """Put the s2s to time first on sys.path."""
    if checkout is not None:
        sys.path.insert(0, checkout)
    elif not os.environ.get("PYTHONPATH"):
        sys.path.insert(0, ROOT)


def _flat(loss, n: int):
    """`loss(params, *rest)` as a function of the `n` arrays of `params` and the rest."""
    def flat(*args):
        return loss(tuple(args[:n]), *args[n:])
    return flat


def _gradient_row(s2s, name, loss, hand, args, flat: bool) -> Row:
    impls = [("hand", hand, args), ("jit(grad)", s2s.jit(s2s.grad(loss)), args)]
    if flat:
        n = len(args[0])
        impls.append(("jit(grad) flat", s2s.jit(s2s.grad(_flat(loss, n), argnums=tuple(range(n)))),
                      tuple(args[0]) + tuple(args[1:])))
    return Row(name, "calls", 30, impls)


def rows(only=None, flat: bool = False) -> list[Row]:
    """The rows whose first word (W1, W2, ...) is in `only` (all where None), in table order."""
    import bench_programs as P
    from linear_mse import make_data

    import s2s
    want = lambda key: only is None or key in only  # noqa: E731
    out = []
    if want("W1"):
        out.append(Row("W1 B=2", "best", 20000, [
            ("hand", P.td_hand, P.td_data(2)),
            ("jit", s2s.jit(s2s.vmap(s2s.grad(P.td_loss), in_axes=(None, 0, 0, 0))), P.td_data(2))]))
    if want("W2"):
        for n, b, calls in ((5, 2, 20000), (1000, 128, 60)):
            xs, ws = P.conv_data(n, b)
            f = s2s.jit(s2s.vmap(P.convolve))  # (one per size: the first shapes of a signature get their own version)
            f(xs, ws)
            version = f.version_for((xs, ws))
            out.append(Row(f"W2 n={n},B={b}", "rounds", calls, [
                ("hand", P.convolve_hand, (xs, ws)), ("jit", f, (xs, ws)),
                ("version alone", lambda xs, ws, v=version: v(xs, ws, shapes_tested=True), (xs, ws))]))
    if want("W3"):
        P.MAT = P.rng(1).normal(size=(150, 100))
        v = (P.rng(2).normal(size=(10, 100)),)
        out.append(Row("W3 B=10", "best", 20000, [("hand", P.matvec_hand, v),
                                                  ("jit", s2s.jit(s2s.vmap(P.apply_matrix)), v)]))
    if want("W5"):
        data = make_data(16, 32, 64, dtype=np.float64)
        out.append(Row("W5 16x32x64", "best", 5000, [("hand", P.linear_hand, data),
                                                      ("jit", s2s.jit(s2s.grad(P.linear_loss)), data)]))
    if want("W7"):
        out.append(_gradient_row(s2s, "W7 mlp-grad B=256 64-128-128-10", P.mlp_loss, P.mlp_hand, P.mlp_data(), flat))
    if want("W9"):
        out.append(_gradient_row(s2s, "W9 xent-mlp-grad B=128 784-256-10", P.xent_loss, P.xent_hand,
                                 P.mlp_data(128, (784, 256, 10)), flat))
    if want("W10"):
        out.append(_gradient_row(s2s, "W10 attention-grad n=128,d=64", P.attention_loss, P.attention_hand,
                                 P.attention_data(), flat))
    return out


def check(row: Row) -> None:
    """Each implementation gives hand's result (or the row means nothing); twice: the general
    path, then the fast path."""
    _, hand, args = row.impls[0]
    want = hand(*args)
    want = want if isinstance(want, tuple) else (want,)
    for _, fn, args in row.impls[1:]:
        for _ in range(2):
            got = fn(*args)
            for g, w in zip(got if isinstance(got, tuple) else (got,), want):
                np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


def percentile(values, p: float) -> float:
    v = sorted(values)
    return v[int(p * (len(v) - 1))]


def best_us(f, calls: int, clock=time.thread_time) -> float:
    """The best of 7 repeats of `calls` calls of `f`, per call, in microseconds of CPU time."""
    return min(timeit.Timer(f, timer=clock).repeat(number=calls, repeat=7)) / calls * 1e6


def per_call_us(f, calls: int, clock=time.thread_time) -> float:
    t0 = clock()
    for _ in range(calls):
        f()
    return (clock() - t0) / calls * 1e6


def time_row(impls, calls: int, clock=time.thread_time_ns) -> dict:
    """implementation -> its per-call CPU times (ns), the implementations called in turn."""
    for _, fn, args in impls:  # (compile, warm the caches)
        fn(*args)
    times: dict = {name: [] for name, _, _ in impls}
    for _ in range(calls):
        for name, fn, args in impls:
            t0 = clock()
            fn(*args)
            times[name].append(clock() - t0)
    return times


def table(name: str, times: dict) -> str:
    """The `calls` method's line: each implementation's p10 and jit's ratios to hand's p10, p25."""
    hand = {p: percentile(times["hand"], p) for p in (0.1, 0.25)}
    cells = [f"{k} p10 {percentile(v, 0.1) / 1e3:,.1f} us x{percentile(v, 0.1) / hand[0.1]:.3f} "
             f"p25 x{percentile(v, 0.25) / hand[0.25]:.3f}" for k, v in times.items()]
    return f"{name}: " + " | ".join(cells)


def _closures(row: Row) -> list:
    return [(lambda fn=fn, args=args: fn(*args)) for _, fn, args in row.impls]


def best_line(row: Row, calls: int, rounds: int = 3) -> str:
    """The `best` method's line: hand and jit's medians of `rounds` bests, the ratio's median and range."""
    hand, jit = _closures(row)[:2]
    got = [(best_us(hand, calls), best_us(jit, calls)) for _ in range(rounds)]
    ratios = [j / h for h, j in got]
    hand_us, jit_us = statistics.median(h for h, _ in got), statistics.median(j for _, j in got)
    return (f"{row.name}: hand {hand_us:.2f} us, jit {jit_us:.2f} us, "
            f"jit / hand {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")


def rounds_line(row: Row, calls: int, rounds: int, blas: str) -> str:
    """The `rounds` method's line: `rounds` rounds of each implementation's `calls` calls in turn."""
    fns = _closures(row)
    got = [[per_call_us(f, calls) for f in fns] for _ in range(rounds)]
    us = np.array(got)
    r = us[:, 1] / us[:, 0]
    line = (f"{row.name} BLAS {blas}: hand {np.median(us[:, 0]):.2f} us, jit {np.median(us[:, 1]):.2f} us, "
            f"jit/hand {np.median(r):.3f} [{np.percentile(r, 25):.3f}-{np.percentile(r, 75):.3f}]")
    if len(fns) > 2:
        line += f", {row.impls[2][0]}/hand {np.median(us[:, 2] / us[:, 0]):.3f}"
    return line


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", help="W1, W2, W3, W5, W7, W9 or W10 (repeatable, or comma-separated)")
    ap.add_argument("--method", choices=METHODS, help="time every row this way (default: each row's own)")
    ap.add_argument("--calls", type=int, help="calls per sample (best, rounds) or per implementation (calls); "
                                              "default: each row's")
    ap.add_argument("--rounds", type=int, default=21, help="rounds of the `rounds` method (default 21)")
    ap.add_argument("--flat", action="store_true", help="W7, W9, W10: also jit(grad) with one parameter per array")
    ap.add_argument("--blas-threads", default="1", help="1 (default), or 'default' (BLAS's own count)")
    ap.add_argument("--checkout", help="the checkout whose s2s runs (default: PYTHONPATH's, else this one)")
    a = ap.parse_args(argv)
    only = None if not a.only else {k.strip().upper() for o in a.only for k in o.split(",")}
    _s2s_path(a.checkout)
    import s2s
    if a.blas_threads != "default":
        try:
            from threadpoolctl import threadpool_limits
            threadpool_limits(int(a.blas_threads))
        except ImportError:  # (then OPENBLAS_NUM_THREADS, as set by the caller)
            pass
    print(f"s2s from {os.path.dirname(s2s.__file__)}", flush=True)
    for row in rows(only, a.flat):
        check(row)
        method = a.method or row.method
        if method == "best":
            line = best_line(row, a.calls or row.block)
        elif method == "rounds":
            line = rounds_line(row, a.calls or row.block, a.rounds, a.blas_threads)
        else:
            line = table(row.name, time_row(row.impls, a.calls or row.calls))
        print(line, f"(load {os.getloadavg()[0]:.1f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
