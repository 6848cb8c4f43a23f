"""What each test of a jit fast path costs (issue 46: W1 B=2 and W3 B=10 are bound by the call
path): the fast path that runs its version's statements itself (s2s/api/merged_entry.py) is
built again around a body that returns at once, with its whole test, with none, and with each
group of its terms left out (the arguments' types, dtypes and shapes; the key's watch; the rest:
no extra arguments, NumPy the backend); the difference from the whole test is that group's cost.
(A single term's difference, 5-50 ns, is within the noise of a loaded machine; a group's is not.)

    python tools/bench/bench_guard_terms.py [--rounds 40] [--new-axes]

Each figure is the best over rounds of 5,000 calls by this thread's CPU time, the variants
called in turn in each round, in nanoseconds (differences of a few ns are noise). `--new-axes`
times instead the indexes passes/newaxis.py rewrites, and W1 B=2 (hand, and jit built with and
without that pass, from two copies of the loss so that neither reuses the other's code).
"""
from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import os
import sys
import tempfile
import time
import timeit
import types

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(TOOLS), TOOLS]  # this checkout's s2s

import bench_programs as P  # noqa: E402
import numpy as np  # noqa: E402

import s2s  # noqa: E402
import s2s.compiler.passes as passes  # noqa: E402
from s2s.api import merged_entry  # noqa: E402


def _captured(make_jit, args) -> dict:
    """The guard, names and version `merged_entry.merged` is called with for the fast path."""
    got: dict = {}
    real = merged_entry.merged

    def spy(guard, env, fn, nargs):
        got.update(guard=guard, env=env, fn=fn, nargs=nargs)
        return real(guard, env, fn, nargs)
    merged_entry.merged = spy
    try:
        jitted = make_jit()
        for _ in range(3):
            jitted(*args)
    finally:
        merged_entry.merged = real
    return got


def _variant(spec: dict, terms: list[str]):
    """The merged fast path over the test `terms` (all of them: True) and a body `return None`."""
    env, fn, nargs = spec["env"], spec["fn"], spec["nargs"]
    d, _ = merged_entry._version_def(fn, nargs)
    test = ast.parse(" and ".join(terms) or "True", mode="eval").body
    local = {f"a{i}" for i in range(nargs)} | {"more", "kw"}
    used = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    env = dict(env, **{n: getattr(builtins, n) for n in used - set(env) - local if hasattr(builtins, n)})
    params = [p.arg for p in d.args.args]
    table = {f"a{i}": p for i, p in enumerate(params)} | {n: "fp_" + n for n in [*env, "more", "kw"]}
    test = merged_entry._Rename(table).visit(test)
    names = sorted(env)
    code = merged_entry._compile(d, ast.parse("return None").body, test, params, ["fp_" + n for n in names],
                                 "fp_", fn)
    return types.FunctionType(code, fn.__globals__)(*[env[n] for n in names])


def _terms(guard: str) -> list[str]:
    """The guard's terms, the watch's parenthesized group split too."""
    expr = ast.parse(guard, mode="eval").body
    out = []
    for v in expr.values:
        out.extend(ast.unparse(w) for w in (v.values if isinstance(v, ast.BoolOp) else [v]))
    return out


def rows():
    w1 = P.td_data(2)
    P.MAT = P.rng(1).normal(size=(150, 100))
    w3 = (P.rng(2).normal(size=(10, 100)),)
    return [("W1 B=2", lambda: s2s.jit(s2s.vmap(s2s.grad(P.td_loss), in_axes=(None, 0, 0, 0))), w1),
            ("W3 B=10", lambda: s2s.jit(s2s.vmap(P.apply_matrix)), w3)]


def _best_ns(fns: dict, rounds: int, calls: int) -> dict:
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(rounds):
        for k, f in fns.items():
            best[k] = min(best[k], timeit.Timer(f, timer=time.thread_time).timeit(calls) / calls * 1e9)
    return best


def _td_copy() -> str:
    """The source of a module with W1's loss under another name (its code is not the original's)."""
    return ("import numpy as np\nfrom s2s import stop_gradient\n\n\n" + inspect.getsource(P.value_fn) + "\n\n"
            + inspect.getsource(P.td_loss).replace("def td_loss(", "def td_loss_copy("))


def new_axes(rounds: int) -> None:
    """The indexes passes/newaxis.py rewrites, and W1 B=2 with and without it."""
    x = np.ones(2)
    best = dict.fromkeys(("x[:, None]", "x[..., None]", "x[None, :]", "x[None]"), float("inf"))
    for _ in range(rounds):
        for stmt in best:
            t = timeit.Timer(stmt, globals={"x": x}, timer=time.thread_time).timeit(50_000) / 50_000 * 1e9
            best[stmt] = min(best[stmt], t)
    print("indexes of a vector of 2 (ns):", {s: round(t) for s, t in best.items()})
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "td_copy_for_bench.py"), "w") as f:
            f.write(_td_copy())
        sys.path.insert(0, d)
        copy = importlib.import_module("td_copy_for_bench")
        args = P.td_data(2)
        full = passes.FINAL_JIT
        passes.FINAL_JIT = tuple(p for p in full if p.name != "new_axes")
        try:
            without = s2s.jit(s2s.vmap(s2s.grad(copy.td_loss_copy), in_axes=(None, 0, 0, 0)))
            for _ in range(3):
                without(*args)
        finally:
            passes.FINAL_JIT = full
        with_ = s2s.jit(s2s.vmap(s2s.grad(P.td_loss), in_axes=(None, 0, 0, 0)))
        for _ in range(3):
            with_(*args)
        assert with_(*args).tobytes() == without(*args).tobytes()
        best = _best_ns({"hand": lambda: P.td_hand(*args), "jit without newaxis": lambda: without(*args),
                         "jit": lambda: with_(*args)}, rounds, 2000)
    print("W1 B=2 (ns):", {k: round(t) for k, t in best.items()},
          f"without/hand {best['jit without newaxis'] / best['hand']:.3f}, jit/hand {best['jit'] / best['hand']:.3f}, "
          f"jit/without {best['jit'] / best['jit without newaxis']:.3f}")


def _group(term: str) -> str:
    if term.startswith(("type(a", "a")) and not term.startswith("all"):
        return "the arguments' types, dtypes and shapes"
    return "the key's watch" if term.startswith("w_") else "no extra arguments, NumPy the backend"


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 40
    if "--new-axes" in argv:
        new_axes(rounds)
        return
    for name, make_jit, args in rows():
        spec = _captured(make_jit, args)
        terms = _terms(spec["guard"])
        groups: dict = {}
        for t in terms:
            groups.setdefault(_group(t), []).append(t)
        variants = {"(no test)": _variant(spec, []), "(the whole test)": _variant(spec, terms)}
        variants.update({g: _variant(spec, [t for t in terms if t not in ts]) for g, ts in groups.items()})
        best = dict.fromkeys(variants, float("inf"))
        for _ in range(rounds):
            for k, f in variants.items():
                t = timeit.Timer(lambda f=f: f(*args), timer=time.thread_time).timeit(5000) / 5000 * 1e9
                best[k] = min(best[k], t)
        whole = best["(the whole test)"]
        print(f"\n{name}: the whole test {whole - best['(no test)']:.0f} ns over a call with none "
              f"({best['(no test)']:.0f} ns)")
        for g, ts in groups.items():
            print(f"  {whole - best[g]:5.0f} ns  {g}: {len(ts)} terms, {(whole - best[g]) / len(ts):.0f} ns each")
            for t in ts:
                print(f"             {t}")


if __name__ == "__main__":
    main()
