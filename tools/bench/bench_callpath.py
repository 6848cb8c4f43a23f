"""Where the microseconds of a small transformed call go: the hand-written NumPy version, the
transformed function as users call it, its generated code called directly (no call path), and
the pieces of the call path (the cache-key watch, the argument-type key, the size check jit makes).

    OPENBLAS_NUM_THREADS=1 python tools/bench/bench_callpath.py           # every row
    OPENBLAS_NUM_THREADS=1 python tools/bench/bench_callpath.py --small   # the small-input rows only
    OPENBLAS_NUM_THREADS=1 python tools/bench/bench_callpath.py --small --cpu   # this thread's CPU time

The rows are W1 per-example gradients at B=2 and W6 Hessian of dot(x, x) at n=3, the two
workloads of tools/bench/bench.py whose ratios to hand are set by per-call overhead, and
jit(grad) of activations and losses on 300 numbers (SELU, mean squared error, softmax
cross-entropy, log-sigmoid) against their hand-written gradients (issue 46), with the call path
alone (`call path only`: jit's fast path, its argument tests and the staleness watch, calling a
version that returns at once). Each number is the best of 7 repeats of 100,000 calls (10,000 for
the losses), in microseconds; the rounds (`--rounds`, 3 by default) time every row in turn, and
`× hand` is the median over rounds of each round's time over hand's in the same round, with the
rounds' lowest and highest. `--cpu` times the CPU time of this thread (`time.thread_time`)
where wall time is the default: on a machine other processes load, a ratio of CPU times does not
count the time the process waits for a core.
"""

from __future__ import annotations

import operator
import os
import statistics
import sys
import time
import timeit

import numpy as np

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(TOOLS)))  # this checkout's s2s, not an installed one
sys.path.insert(0, TOOLS)

import bench_programs as P  # noqa: E402

import s2s  # noqa: E402

_SIZE = operator.attrgetter("size")


TIMER = [time.perf_counter]  # what best_us times with (main's --cpu: time.thread_time)


def best_us(f, calls: int = 100_000) -> float:
    return min(timeit.Timer(f, timer=TIMER[0]).repeat(number=calls, repeat=7)) / calls * 1e6


def call_path_only(jitted, args):
    """A call of `jitted` through its fast path with the version replaced by a function that
    returns at once: what the call costs besides the generated code (None: no fast path). The
    fast path that runs the version's statements itself (s2s/api/merged_entry.py) is built again
    around a call of that function (`args`: a call like the ones the fast path was made for)."""
    entry = jitted.__dict__.get("_entry")
    spec = jitted.__dict__.get("_entry_spec")
    if entry is None or spec is None:
        return None
    nop = lambda *a, **k: None  # noqa: E731
    ns, calls, ranks, fallback, shapes = spec
    ns = {k: nop if callable(v) and k in ("version", "small", "large") else v for k, v in ns.items()}
    fast = s2s.api.dispatch.entry(entry.__name__, args, jitted._unchanged, jitted._general, calls, ns, ranks,
                                  fallback, shapes)
    return None if fast is None else (lambda: fast(*args))


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


def _small_losses():
    """Activations and losses on 300 numbers (issue 46 section 2: small-input jit(grad) against
    the hand-written gradient): (name, loss, hand-written gradient, arguments)."""
    x = P.rng().normal(size=300)
    y = P.rng().normal(size=300)

    def mse(p, t):
        return np.mean((p - t) ** 2)

    def softmax_xent(z, k):
        z = z - np.max(z)
        return np.log(np.sum(np.exp(z))) - z[k]

    def softmax_xent_hand(z, k):
        e = np.exp(z - np.max(z))
        p = e / np.sum(e)
        p[k] -= 1.0
        return p

    def log_sigmoid(v):
        return np.sum(np.log(1.0 + np.exp(-v)))

    return [("selu n=300", P.sum_selu, P.selu_grad_hand, (x,)),
            ("mse n=300", mse, lambda p, t: 2.0 * (p - t) / p.size, (x, y)),
            ("softmax xent n=300", softmax_xent, softmax_xent_hand, (x, 7)),
            ("log-sigmoid loss n=300", log_sigmoid, lambda v: -1.0 / (1.0 + np.exp(v)), (x,))]


def small_rows():
    out = []
    for name, loss, hand, args in _small_losses():
        jitted = s2s.jit(s2s.grad(loss))
        np.testing.assert_allclose(jitted(*args), hand(*args), rtol=1e-9, atol=1e-12)
        jitted(*args)  # (the second call installs the fast path)
        inner = jitted.version_for(args)
        rows = [("numpy-hand", lambda h=hand, a=args: h(*a)),
                ("jit(grad)", lambda j=jitted, a=args: j(*a)),
                ("jit's generated code", lambda i=inner, a=args: i(*a, shapes_tested=True))]
        path = call_path_only(jitted, args)
        out.append((name, rows + ([("call path only", path)] if path is not None else [])))
    return out


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    small_only = "--small" in argv  # (only the small-input rows)
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 3
    if "--cpu" in argv:
        TIMER[0] = time.thread_time
    print(f"{'CPU' if '--cpu' in argv else 'wall'} time, {rounds} rounds\n")
    print("| workload | what | µs (each round) | × hand (median; lowest-highest) |")
    print("|---|---|---|---:|")
    for workload, rows in ((*small_rows(),) if small_only else (w1_rows(), w6_rows(), *small_rows())):
        calls = 100_000 if workload.startswith("W") else 10_000
        times: dict = {name: [] for name, _ in rows}
        for _ in range(rounds):  # (every row in each round: a round's ratios share its load)
            for name, f in rows:
                times[name].append(best_us(f, calls))
        hand = times["numpy-hand"]
        for name, ts in times.items():
            ratios = [t / h for t, h in zip(ts, hand)]
            print(f"| {workload} | {name} | {' / '.join(f'{t:.2f}' for t in ts)} | "
                  f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f}) |")


if __name__ == "__main__":
    main()
