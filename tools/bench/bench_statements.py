"""A jit version's statements, each timed alone (issue 46: where a small call's microseconds go
besides the call path): the version's printed source is run statement by statement in its own
namespace, then each statement's value is timed by this thread's CPU time with the names it reads
bound to the values they held, best of `--rounds` interleaved rounds, with the hand-written
function of the row and the whole `jit` call for comparison.

    OPENBLAS_NUM_THREADS=1 python tools/bench/bench_statements.py [--rounds 30]

Rows: softmax cross-entropy on 300 numbers (bench_callpath.py's), W1 B=2 and W3 B=10.
"""
from __future__ import annotations

import ast
import os
import sys
import time
import timeit

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(TOOLS), TOOLS]  # this checkout's s2s

import bench_callpath  # noqa: E402
import bench_programs as P  # noqa: E402

import s2s  # noqa: E402
from s2s.base import record  # noqa: E402


def statements(version, args) -> list:
    """(source of the value, namespace holding the names it reads) per assignment or return of
    `version`'s body, after its shape test, run in order on `args`."""
    d = ast.parse(record.of(version).source).body[0]
    ns = dict(version.__globals__, **dict(zip([a.arg for a in d.args.args], args)))
    out = []
    for s in d.body:
        if isinstance(s, ast.If) and "shapes_tested" in ast.unparse(s.test):
            continue
        if isinstance(s, (ast.Assign, ast.Return)) and s.value is not None:
            src = ast.unparse(s.value)
            out.append((src, ns))
            value = eval(compile(src, "<statement>", "eval"), ns)  # noqa: S307 - the version's own code
            if isinstance(s, ast.Assign):
                ns = dict(ns, **{s.targets[0].id: value}) if isinstance(s.targets[0], ast.Name) else ns
        elif not isinstance(s, ast.Delete):
            exec(compile(ast.Module(body=[s], type_ignores=[]), "<statement>", "exec"), ns)  # noqa: S102
    return out


def rows():
    name, loss, hand, args = next(r for r in bench_callpath._small_losses() if r[0].startswith("softmax"))
    P.MAT = P.rng(1).normal(size=(150, 100))
    return [(name, hand, s2s.jit(s2s.grad(loss)), args),
            ("W1 B=2", P.td_hand, s2s.jit(s2s.vmap(s2s.grad(P.td_loss), in_axes=(None, 0, 0, 0))), P.td_data(2)),
            ("W3 B=10", P.matvec_hand, s2s.jit(s2s.vmap(P.apply_matrix)), (P.rng(2).normal(size=(10, 100)),))]


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 30
    for name, hand, jitted, args in rows():
        for _ in range(3):
            jitted(*args)
        timers = {"hand-written": timeit.Timer(lambda h=hand: h(*args), timer=time.thread_time),
                  "jit, as users call it": timeit.Timer(lambda: jitted(*args), timer=time.thread_time)}
        stmts = statements(jitted.version_for(args), args)
        timers.update({src: timeit.Timer(src, globals=ns, timer=time.thread_time) for src, ns in stmts})
        best = dict.fromkeys(timers, float("inf"))
        for _ in range(rounds):
            for k, t in timers.items():
                best[k] = min(best[k], t.timeit(1000) / 1000 * 1e9)
        print(f"\n{name} (ns, best of {rounds} rounds of 1,000):")
        for k, t in best.items():
            print(f"  {t:7.0f}  {k}")
        print(f"  {sum(best[s] for s, _ in stmts):7.0f}  the statements together")


if __name__ == "__main__":
    main()
