"""The benchmark suite: workloads W1-W8 of ``../shared/reference/peer-baselines.md`` and W4b, W9,
W10 and X1 of issue 29, s2s against hand-written NumPy (and autograd and JAX, float64, when the
``bench`` extra is installed), in one process.

    python tools/bench/bench.py                      # every workload and size (several minutes)
    python tools/bench/bench.py --quick              # smallest sizes, fewer repeats (under 2 minutes)
    python tools/bench/bench.py --only W4 --only W7  # some workloads
    python tools/bench/bench.py --out results.md     # also write the tables to a file (+ .png)
    python tools/bench/bench.py --docs               # write the run's tables into docs/benchmarks.md
    python tools/bench/bench.py --only W --blas-threads 1 --peers jax   # W rows, BLAS on one thread, no autograd
    python tools/bench/bench.py --only W --json w.json --first-calls 0  # rows as JSON; no new-process first calls

For every (workload, size) each implementation is built and called once (that call is the
"first call" column: transform, compile and run; for s2s each implementation gets a fresh copy
of tools/bench/bench_programs.py, so nothing is cached), its result is checked against the
hand-written NumPy version (np.testing.assert_allclose), and then all implementations are timed
alternately, one sample of each in turn, round after round; the ratio to the hand-written
version is the median over turns (7 by default) of each sample against the hand-written sample
of its turn, in wall time and in the process's CPU time.
``--blas-threads 1`` or ``default`` sets BLAS's threads for the whole run (through threadpoolctl,
else by running again in a process whose environment sets them before NumPy loads BLAS); the
page's "BLAS threads" line says what BLAS ran.
Rows whose s2s version needs a feature s2s does not have yet (``s2s.vmap``) say so and are
skipped; they run once the feature exists. Only the ratios to the hand-written version
(``× hand``) mean something; absolute times depend on the machine and its load. On a machine
shared with other work, run it as ``OPENBLAS_NUM_THREADS=1 python tools/bench/bench.py``: multithreaded
BLAS on oversubscribed cores makes some calls 100x slower than others (the "min" column shows it).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import dataclasses
import itertools
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(TOOLS)))  # this checkout's s2s, not an installed one
sys.path.insert(0, TOOLS)
sys.path.insert(0, os.path.join(TOOLS, "..", "..", "examples"))

import bench_programs as P  # noqa: E402
from bench_util import (  # noqa: E402
    blocking,
    calls_per_sample,
    fmt_time,
    load_note,
    load_program,
    machine_lines,
    markdown_table,
    summarize,
    time_both,
    write_report,
)

import s2s  # noqa: E402

HAND = "numpy-hand"
_fresh_ids = itertools.count()


_COPIES = tempfile.mkdtemp(prefix="s2s-bench-")
atexit.register(shutil.rmtree, _COPIES, ignore_errors=True)


def fresh(path: str = P.__file__, patch: dict | None = None):
    """A new copy of the module at ``path``, with the globals in ``patch`` replaced (``np`` by
    ``jax.numpy`` for a peer). The copy is a temporary file whose lines are shifted down by a
    different number of blank lines each time: code objects that differ only in their file
    compare equal, and s2s would find an earlier copy's transform in its cache."""
    k = next(_fresh_ids)
    name = f"_bench_copy_{k}_{os.path.splitext(os.path.basename(path))[0]}"
    with open(path) as f:
        mod = load_program(f.read(), _COPIES, name, pad=k)
    for key, value in (patch or {}).items():
        setattr(mod, key, value)
    return mod


@dataclasses.dataclass
class Impl:
    """One implementation of a row group: ``build()`` returns the function to time."""
    name: str
    build: Callable[[], Callable]
    needs: tuple[str, ...] = ()          # s2s attributes it needs (e.g. "vmap")
    convert: Callable[[tuple], tuple] | None = None   # arguments in this system's arrays
    context: Callable[[], Any] = contextlib.nullcontext  # entered around its calls
    note: str = ""
    loose: bool = False                  # float32: check with a looser tolerance
    check: bool = True                   # False: a reference computing something else (not checked)

    def missing(self) -> list[str]:
        return [n for n in self.needs if not hasattr(s2s, n)]


@dataclasses.dataclass
class Group:
    """One (workload, size): its arguments, the hand-written version and the other versions."""
    workload: str
    size: str
    data: Callable[[], tuple]
    hand: Callable
    impls: list[Impl]
    quick: bool = True                   # part of --quick
    hand_note: str = ""


# ---------------------------------------------------------------- peers

def _autograd(patch_extra=None):
    try:
        import autograd  # noqa: F401
        import autograd.numpy as anp
        from autograd.tracer import getval
    except ImportError:
        return None
    return fresh(patch={"np": anp, "stop_gradient": getval, **(patch_extra or {})})


def _jax():
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return jax


@contextlib.contextmanager
def _x64(flag: bool):
    import jax
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", flag)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", old)


def _jax_convert(args):
    import jax
    import jax.numpy as jnp
    return jax.tree_util.tree_map(lambda a: jnp.asarray(a), args)


def jax_impls(make: Callable, mat=None) -> list[Impl]:
    """jax-jit with x64 (float64) and without (float32): ``make(jax, module)`` returns the
    un-jitted transform of the module's program."""
    jax = _jax()
    if jax is None:
        return []

    def build():
        import jax.numpy as jnp
        mod = fresh(patch={"np": jnp, "stop_gradient": jax.lax.stop_gradient,
                           "MAT": None if mat is None else jnp.asarray(mat)})
        return blocking(jax.jit(make(jax, mod)), jax.block_until_ready)
    return [Impl("jax-jit", build, convert=_jax_convert),
            Impl("jax-jit-x32", build, convert=_jax_convert, context=lambda: _x64(False),
                 note="jax_enable_x64 off: float32", loose=True)]


def autograd_impl(make: Callable, name="autograd", note="") -> list[Impl]:
    try:
        import autograd
    except ImportError:
        return []
    return [Impl(name, lambda: make(autograd, _autograd()), note=note)]


def s2s_impls(make: Callable, needs=(), names=("s2s", "s2s-jit"), path=P.__file__, setup=None) -> list[Impl]:
    """s2s's transform ``make(module)`` of a fresh copy of the program, and its ``jit``."""
    def build(jit):
        def go():
            mod = fresh(path)
            if setup:
                setup(mod)
            fn = make(mod)
            return s2s.jit(fn) if jit else fn
        return go
    return [Impl(names[0], build(False), needs), Impl(names[1], build(True), needs)]


# ---------------------------------------------------------------- workloads

def _td(b):
    td = lambda m: s2s.vmap(s2s.grad(m.td_loss), in_axes=(None, 0, 0, 0))  # noqa: E731
    impls = s2s_impls(td, needs=("vmap",))
    if b <= 1024:
        def loop(ag, m):
            g = ag.grad(m.td_loss)
            return lambda th, s1, r, s2: np.stack([g(th, s1[i], r[i], s2[i]) for i in range(len(r))])
        impls += autograd_impl(loop, "autograd-loop", "Python loop of autograd.grad over examples")
    impls += jax_impls(lambda jax, m: jax.vmap(jax.grad(m.td_loss), in_axes=(None, 0, 0, 0)))
    return Group("W1 td-per-ex-grad", f"B={b}", lambda: P.td_data(b), P.td_hand, impls, quick=b <= 1024)


def _conv(n, b):
    impls = s2s_impls(lambda m: s2s.vmap(m.convolve), needs=("vmap",))
    impls += jax_impls(lambda jax, m: jax.vmap(m.convolve))
    return Group("W2 conv1d-vmap", f"n={n},B={b}", lambda: P.conv_data(n, b), P.convolve_hand, impls,
                 quick=n < 1000)


def _matvec(b):
    mat = P.rng(1).normal(size=(150, 100))
    P.MAT = mat
    impls = s2s_impls(lambda m: s2s.vmap(m.apply_matrix), needs=("vmap",),
                      setup=lambda m: setattr(m, "MAT", mat))
    impls += jax_impls(lambda jax, m: jax.vmap(m.apply_matrix), mat=mat)
    return Group("W3 matvec-vmap", f"B={b}", lambda: (P.rng(2).normal(size=(b, 100)),), P.matvec_hand, impls,
                 quick=b < 10000, hand_note="dot(V, mat.T)")


def _selu():
    x = lambda: (P.rng().normal(size=1_000_000),)  # noqa: E731
    plain = s2s_impls(lambda m: m.selu, names=("s2s (plain call)", "s2s-jit"))[1:]
    plain += jax_impls(lambda jax, m: m.selu)
    grad = s2s_impls(lambda m: s2s.grad(m.sum_selu))
    grad += autograd_impl(lambda ag, m: ag.grad(m.sum_selu))
    grad += jax_impls(lambda jax, m: jax.grad(m.sum_selu))
    return [Group("W4 selu", "n=1e6", x, P.selu, plain, hand_note="the plain NumPy program"),
            Group("W4b selu-grad", "n=1e6", x, P.selu_grad_hand, grad)]


def _linear(b, d1, d2):
    from linear_mse import make_data
    impls = s2s_impls(lambda m: s2s.grad(m.linear_loss))
    impls += autograd_impl(lambda ag, m: ag.grad(m.linear_loss))
    impls += jax_impls(lambda jax, m: jax.grad(m.linear_loss))
    # float64 like every workload (peer-baselines.md): the example's data are float32 (JAX's default),
    # which no float64 peer (autograd, jax with x64) reproduces to the 1e-9 of the check
    return Group("W5 linear-mse-grad", f"{b}x{d1}x{d2}", lambda: make_data(b, d1, d2, dtype=np.float64),
                 P.linear_hand, impls, quick=b < 1024)


def _hessian(which, n):
    f = {"dot": "f_dot", "tanh3": "f_tanh3"}[which]
    hand = {"dot": P.hess_dot_hand, "tanh3": P.hess_tanh3_hand}[which]
    impls = s2s_impls(lambda m: s2s.jacfwd(s2s.jacrev(getattr(m, f))))
    impls.append(Impl("s2s-hessian", lambda: s2s.hessian(getattr(fresh(), f))))
    impls += autograd_impl(lambda ag, m: ag.hessian(getattr(m, f)), note="autograd.hessian")
    impls += jax_impls(lambda jax, m: jax.jacfwd(jax.jacrev(getattr(m, f))))
    return Group(f"W6 hessian-{which}", f"n={n}", lambda: (P.rng().normal(size=n),), hand, impls)


def _mlp():
    impls = s2s_impls(lambda m: s2s.grad(m.mlp_loss))
    impls += autograd_impl(lambda ag, m: ag.grad(m.mlp_loss))
    impls += jax_impls(lambda jax, m: jax.grad(m.mlp_loss))
    return Group("W7 mlp-grad", "B=256 64-128-128-10", P.mlp_data, P.mlp_hand, impls)


def _nested(order):
    def nest(grad, f):
        for _ in range(order):
            f = grad(f)
        return f
    impls = s2s_impls(lambda m: nest(s2s.grad, m.cubic))
    if order == 4:
        impls.append(Impl("cubic f itself", lambda: fresh().cubic, check=False,
                              note="reference, not checked: issue 12 wants s2s <= 5x this"))
    impls += autograd_impl(lambda ag, m: nest(ag.grad, m.cubic))
    impls += jax_impls(lambda jax, m: nest(jax.grad, m.cubic))
    name = "W8 d4f-scalar" if order == 4 else "W8 d1f-scalar (extra)"
    hand, note = (P.d4_hand, "analytic: f''''=0") if order == 4 else (P.d1_hand, "analytic: 3x^2+4x-3")
    return Group(name, "x=1.0", lambda: (1.0,), hand, impls, hand_note=note)


def _xent():
    impls = s2s_impls(lambda m: s2s.grad(m.xent_loss))
    impls += autograd_impl(lambda ag, m: ag.grad(m.xent_loss))
    impls += jax_impls(lambda jax, m: jax.grad(m.xent_loss))
    return Group("W9 xent-mlp-grad", "B=128 784-256-10", lambda: P.mlp_data(128, (784, 256, 10)), P.xent_hand,
                 impls)


def _attention():
    impls = s2s_impls(lambda m: s2s.grad(m.attention_loss))
    impls += autograd_impl(lambda ag, m: ag.grad(m.attention_loss))
    impls += jax_impls(lambda jax, m: jax.grad(m.attention_loss))
    return Group("W10 attention-grad", "n=128,d=64", P.attention_data, P.attention_hand, impls)


def _scan_rnn(jax, m):
    """X1 as a JAX user writes it: the loop as `lax.scan` (a Python loop is unrolled by tracing)."""
    jnp = m.np

    def loss(params, xs, h0):
        wx, wh, b = params

        def step(h, x):
            return jnp.tanh(x @ wx + h @ wh + b), None
        h, _ = jax.lax.scan(step, h0, xs)
        return jnp.mean(h ** 2)
    return jax.grad(loss)


def _rnn(t):
    impls = s2s_impls(lambda m: s2s.grad(m.rnn_loss))
    impls += autograd_impl(lambda ag, m: ag.grad(m.rnn_loss))
    impls += jax_impls(_scan_rnn)
    return Group("X1 rnn-grad", f"T={t},B=8,H=32", lambda: P.rnn_data(t), P.rnn_hand, impls, quick=t <= 100,
                 hand_note="hand-written BPTT")


def groups() -> list[Group]:
    """Every row group of the suite, in the order of peer-baselines.md (then the extras)."""
    out = [_td(2), _td(1024), _td(65536), _conv(5, 2), _conv(1000, 128), _matvec(10), _matvec(10000)]
    out += _selu()
    out += [_linear(16, 32, 64), _linear(1024, 512, 512)]
    out += [_hessian(w, n) for w in ("dot", "tanh3") for n in (3, 200)]
    out += [_mlp(), _nested(4), _nested(1), _xent(), _attention(), _rnn(100), _rnn(1000)]
    return out


def smallest() -> list[Group]:
    """The first (smallest) size of every workload: what the smoke test checks."""
    seen, out = set(), []
    for g in groups():
        if g.workload not in seen:
            seen.add(g.workload)
            out.append(g)
    return out


# ---------------------------------------------------------------- checking and timing

def _leaves(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in _leaves(t)]
    return [np.asarray(tree, dtype=float)]


def check_equal(got, want, name: str, loose: bool = False) -> None:
    """``got`` equals ``want`` leaf by leaf (float64: 1e-9 relative; float32 runs: 2e-3)."""
    g, w = _leaves(got), _leaves(want)
    assert len(g) == len(w), f"{name}: {len(g)} outputs, the hand-written version has {len(w)}"
    for a, b in zip(g, w):
        scale = float(np.max(np.abs(b))) if b.size else 1.0
        rtol, atol = (2e-3, 2e-3 * scale + 1e-6) if loose else (1e-9, 1e-12 * scale + 1e-13)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=name)


@dataclasses.dataclass
class Prepared:
    impl: Impl
    fn: Callable
    args: tuple
    first: float
    samples: list = dataclasses.field(default_factory=list)   # wall seconds per call
    cpu: list = dataclasses.field(default_factory=list)       # CPU seconds per call (all threads)
    number: int = 1


def prepare(group: Group, impl: Impl, args: tuple, want) -> Prepared:
    """Build ``impl``, time its first call and check its result against ``want``."""
    with impl.context():
        start = time.perf_counter()
        fn = impl.build()
        call_args = impl.convert(args) if impl.convert else args
        out = fn(*call_args)
        first = time.perf_counter() - start
    if impl.check:
        check_equal(out, want, f"{group.workload} {group.size} {impl.name}", impl.loose)
    return Prepared(impl, fn, call_args, first)


def verify(group: Group, peers: bool = True) -> list[str]:
    """Check every available implementation of ``group`` against the hand-written version (no
    timing); return the names of the s2s implementations skipped for a missing feature."""
    args = group.data()
    want = group.hand(*args)
    skipped = []
    for impl in group.impls:
        if impl.missing():
            skipped.append(impl.name)
        elif peers or impl.name.startswith("s2s"):
            prepare(group, impl, args, want)
    return skipped


def run_group(group: Group, rounds: int, min_time: float, repeat: int) -> list[dict]:
    """Result rows of one group: checked, then timed alternately in ``rounds`` rounds."""
    ours = [i for i in group.impls if i.name.startswith("s2s")]
    if ours and all(i.missing() for i in ours):  # nothing of s2s to compare: skip the peers too
        return [_row(group, {"impl": i.name, "skip": f"n/a (needs {', '.join(i.missing())})"}) for i in ours]
    args = group.data()
    start = time.perf_counter()
    want = group.hand(*args)
    hand = Prepared(Impl(HAND, lambda: group.hand, note=group.hand_note), group.hand, args,
                    time.perf_counter() - start)
    prepared, rows = [hand], []
    for impl in group.impls:
        missing = impl.missing()
        if missing:
            rows.append({"impl": impl.name, "skip": f"n/a (needs {', '.join(missing)})"})
            continue
        try:
            prepared.append(prepare(group, impl, args, want))
        except Exception as e:  # noqa: BLE001 - reported in the table, and the exit status
            msg = str(e).strip().splitlines()[0][:120] if str(e).strip() else type(e).__name__
            rows.append({"impl": impl.name, "error": f"FAILED: {type(e).__name__}: {msg}"})
    if len(prepared) == 1:
        return [_row(group, r) for r in rows]
    for p in prepared:
        with p.impl.context():
            p.number = calls_per_sample(p.fn, p.args, min_time / repeat)
    for _ in range(rounds):  # sample by sample in turn: a slow drift of the machine's speed meets every row alike
        for _ in range(repeat):
            for p in prepared:
                with p.impl.context():
                    wall, cpu = time_both(p.fn, p.args, p.number)
                p.samples.append(wall)
                p.cpu.append(cpu)
    out = []
    for p in prepared:
        out.append(_row(group, {"impl": p.impl.name, **summarize(p.samples), "ratio": paired(p.samples, hand.samples),
                                "cpu_ratio": paired(p.cpu, hand.cpu),
                                "first": p.first, "samples": f"{len(p.samples)}×{p.number}",
                                "times": p.samples, "note": p.impl.note}))
    return out + [_row(group, r) for r in rows]


def paired(samples, base) -> float:
    """The median over turns of ``samples[k] / base[k]``: each sample against the one of the base
    taken in the same turn, next to it in time. On a host whose speed drifts and jumps, this
    ratio moves several times less between runs than the ratio of the two medians."""
    return statistics.median(a / b for a, b in zip(samples, base))


def _row(group, r):
    return {"workload": group.workload, "size": group.size, **r}


# ---------------------------------------------------------------- reporting

def detail_table(rows: list[dict]) -> str:
    header = ["workload", "size", "impl", "median µs", "min µs", "× hand", "spread %", "first call ms",
              "samples×calls", "note"]
    body = []
    for r in rows:
        if "median" in r:
            body.append([r["workload"], r["size"], r["impl"], fmt_time(r["median"]), fmt_time(r["min"]),
                         f"{r['ratio']:.2f}", f"{100 * r['spread']:.0f}", fmt_time(r["first"], "ms"),
                         r["samples"], r["note"]])
        else:
            body.append([r["workload"], r["size"], r["impl"], "-", "-", "-", "-", "-", "-",
                         r.get("skip") or r.get("error")])
    return markdown_table(header, body, [False] * 3 + [True] * 6 + [False])


def ratio_table(rows: list[dict], key: str = "ratio") -> str:
    """One line per (workload, size), one column per implementation: its ratio to hand (`paired`,
    `key`: "ratio" in wall time, "cpu_ratio" in CPU time), and the best s2s version's over JAX's."""
    impls = list(dict.fromkeys(r["impl"] for r in rows if r["impl"] != HAND))
    keys = list(dict.fromkeys((r["workload"], r["size"]) for r in rows))
    cell = {}
    for r in rows:
        if key in r:
            cell[r["workload"], r["size"], r["impl"]] = f"{r[key]:.2f}"
        else:
            cell[r["workload"], r["size"], r["impl"]] = r.get("skip") or "FAILED"
    hand = {(r["workload"], r["size"]): fmt_time(r["median"]) for r in rows if r["impl"] == HAND}
    body = []
    for w, s in keys:
        ours = [v for i in OURS if (v := _find(rows, w, s, i, key)) is not None]
        jax = _find(rows, w, s, "jax-jit", key)
        versus = f"{min(ours) / jax:.2f}" if ours and jax else ""
        body.append([w, s, hand.get((w, s), "-")] + [cell.get((w, s, i), "") for i in impls] + [versus])
    return markdown_table(["workload", "size", "hand µs"] + impls + ["best s2s / jax-jit"], body,
                          [False, False] + [True] * (2 + len(impls)))


OURS = ("s2s", "s2s-jit", "s2s-hessian")


def _find(rows, workload, size, impl, key="ratio"):
    for r in rows:
        if r["workload"] == workload and r["size"] == size and r["impl"] == impl and key in r:
            return r[key]
    return None


TARGETS = [  # (what, workload, size, s2s impls, limit) -- issues 9, 12 and 29, ratios to hand
    ("W1 per-example grads", "W1 td-per-ex-grad", "B=2", ("s2s-jit",), 1.2),
    ("W1 per-example grads", "W1 td-per-ex-grad", "B=1024", ("s2s-jit",), 1.3),
    ("W2 convolution (issue 9)", "W2 conv1d-vmap", "n=1000,B=128", ("s2s", "s2s-jit"), 2.0),
    ("W3 vmap(apply_matrix) (issue 9)", "W3 matvec-vmap", "B=10000", ("s2s", "s2s-jit"), 1.2),
    ("W4 SELU under jit", "W4 selu", "n=1e6", ("s2s-jit",), 0.5),
    ("W4b jit(grad(sum∘selu)) (issue 29)", "W4b selu-grad", "n=1e6", ("s2s-jit",), 0.5),
    ("W5 linear gradient", "W5 linear-mse-grad", "16x32x64", ("s2s", "s2s-jit"), 1.3),
    ("W5 linear gradient", "W5 linear-mse-grad", "1024x512x512", ("s2s", "s2s-jit"), 1.0),
    ("W6 Hessian of sum(tanh(x)**3)", "W6 hessian-tanh3", "n=3", ("s2s-hessian", "s2s", "s2s-jit"), 1.5),
    ("W6 Hessian of sum(tanh(x)**3)", "W6 hessian-tanh3", "n=200", ("s2s-hessian", "s2s", "s2s-jit"), 1.5),
    ("W6 Hessian of dot(x, x)", "W6 hessian-dot", "n=3", ("s2s-hessian", "s2s", "s2s-jit"), 1.5),
    ("W6 Hessian of dot(x, x)", "W6 hessian-dot", "n=200", ("s2s-hessian", "s2s", "s2s-jit"), 1.5),
    ("W7 MLP gradient", "W7 mlp-grad", "B=256 64-128-128-10", ("s2s", "s2s-jit"), 1.05),
    ("W9 softmax cross-entropy MLP gradient (issue 29)", "W9 xent-mlp-grad", "B=128 784-256-10",
     ("s2s", "s2s-jit"), 1.05),
    ("W10 self-attention gradient (issue 29)", "W10 attention-grad", "n=128,d=64", ("s2s", "s2s-jit"), 1.1),
    ("X1 tanh RNN gradient (issue 29)", "X1 rnn-grad", "T=100,B=8,H=32", ("s2s", "s2s-jit"), 1.0),
    ("X1 tanh RNN gradient (issue 29)", "X1 rnn-grad", "T=1000,B=8,H=32", ("s2s", "s2s-jit"), 1.0),
]


_FIRST_CALL = """
import sys, time
sys.path[:0] = {paths!r}
import bench_programs as P
import s2s
args = P.mlp_data()
start = time.perf_counter()
s2s.jit(s2s.grad(P.mlp_loss))(*args)
print(time.perf_counter() - start)
"""


def fresh_first_calls(n: int) -> list[float]:
    """Seconds of the first call (transform, compile, run) of `jit(grad(mlp_loss))` in `n` new
    processes without numba (`S2S_NO_NUMBA=1`, s2s without the `fast` extra): what issue 12's
    first-call target is about, as a user starting a program meets it."""
    code = _FIRST_CALL.format(paths=[os.path.dirname(os.path.dirname(TOOLS)), TOOLS])
    env = dict(os.environ, S2S_NO_NUMBA="1")
    return [float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                 check=True).stdout.split()[-1]) for _ in range(n)]


def target_table(rows: list[dict], first_calls: list[float] = ()) -> str:
    """The issues' targets next to what this run measured (best listed s2s version holds it);
    `first_calls`: `fresh_first_calls`'s, for the first-call target (else the in-process one)."""
    body = []
    for what, w, size, impls, limit in TARGETS:
        got = [(i, _find(rows, w, size, i)) for i in impls]
        got = [(i, v) for i, v in got if v is not None]
        if got:
            best = min(v for _, v in got)
            body.append([what, size, ", ".join(f"{i} {v:.2f}" for i, v in got), f"≤ {limit}",
                         "yes" if best <= limit else f"no ({best / limit:.1f}× over)"])
    d4, cubic = (_find(rows, "W8 d4f-scalar", "x=1.0", i, "median") for i in ("s2s", "cubic f itself"))
    d4j = _find(rows, "W8 d4f-scalar", "x=1.0", "s2s-jit", "median")
    if d4 and cubic:
        best = min(v for v in (d4, d4j) if v) / cubic
        body.append(["W8 4th derivative / cubic", "x=1.0", f"s2s {d4 / cubic:.1f}" +
                     (f", s2s-jit {d4j / cubic:.1f}" if d4j else ""), "≤ 5", "yes" if best <= 5 else "no"])
    first = _find(rows, "W7 mlp-grad", "B=256 64-128-128-10", "s2s-jit", "first")
    if first_calls:
        first = statistics.median(first_calls)
        body.append(["first call of jit(grad(mlp_loss)), new process, no numba", "B=256",
                     f"{first * 1e3:.0f} ms (median of {len(first_calls)}: "
                     f"{min(first_calls) * 1e3:.0f}–{max(first_calls) * 1e3:.0f})", "< 100 ms",
                     "yes" if first < 0.1 else "no"])
    elif first is not None:
        body.append(["first call of jit(grad(mlp_loss)), in this process", "B=256", f"{first * 1e3:.0f} ms",
                     "< 100 ms", "yes" if first < 0.1 else "no"])
    worst = None
    for r in rows:
        plain = _find(rows, r["workload"], r["size"], "s2s", "median")
        if r["impl"] == "s2s-jit" and "median" in r and plain:
            ratio = paired(r["times"], _find(rows, r["workload"], r["size"], "s2s", "times"))
            if worst is None or ratio > worst[0]:
                worst = (ratio, f"{r['workload']} {r['size']}")
    if worst:
        body.append(["jit(f) / f, worst row", worst[1], f"{worst[0]:.2f}", "≤ 1.05",
                     "yes" if worst[0] <= 1.05 else "no"])
    return markdown_table(["target", "size", "measured (× hand)", "limit", "holds"], body,
                          [False, False, True, True, False])


CHART = ("s2s-jit", "jax-jit")  # the versions the chart compares


def bar_chart(rows: list[dict], path: str) -> bool:
    """Log-scale bars of s2s-jit's and JAX's ratios to hand per (workload, size), in wall time and
    in CPU time (needs matplotlib; False without it)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    keys = list(dict.fromkeys((r["workload"], r["size"]) for r in rows if r["impl"] in CHART and "ratio" in r))
    if not keys:
        return False
    fig, axes = plt.subplots(2, 1, figsize=(max(8, 0.6 * len(keys)), 8), sharex=True)
    width = 0.8 / len(CHART)
    for ax, key, title in zip(axes, ("ratio", "cpu_ratio"), ("wall time", "CPU time (all threads)")):
        for j, impl in enumerate(CHART):
            xs, ys = [], []
            for k, (w, s) in enumerate(keys):
                v = _find(rows, w, s, impl, key)
                if v is not None:
                    xs.append(k + j * width)
                    ys.append(v)
            ax.bar(xs, ys, width, label=impl)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_ylabel(f"{title} / hand-written NumPy")
        ax.legend(fontsize=8)
    axes[-1].set_xticks([k + 0.4 - width / 2 for k in range(len(keys))])
    axes[-1].set_xticklabels([f"{w.split()[0]} {s}" for w, s in keys], fontsize=7, rotation=45, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


DOCS_PAGE = os.path.join(os.path.dirname(os.path.dirname(TOOLS)), "docs", "benchmarks.md")
DOCS_BEGIN = "<!-- written by `python tools/bench/bench.py --docs`"
DOCS_END = "<!-- end of the benchmark run -->"


def write_docs(text: str, path: str = DOCS_PAGE) -> None:
    """Put a run's tables (`text`, what `--out` writes under its title) on the benchmarks page,
    in place of the run between its markers; the page's prose around them stays."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(DOCS_BEGIN)) + 1
    end = lines.index(DOCS_END, start)
    lines[start:end] = ["", *text.rstrip("\n").split("\n"), ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def write_json(path: str, command: str, machine: list[str], blas_line: str, note: str, rows: list[dict],
               first_calls: list[float]) -> None:
    """The run as JSON, for tools that gather several runs (tools/bench/many_cores.py): the command,
    the machine's lines, what BLAS ran, the load, and every row (seconds; ratios to hand)."""
    from s2s.compiler.emit import cores
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"command": command, "machine": machine, "blas": blas_line, "load": note,
                   "blas_threads": cores.blas_threads(), "usable_cores": cores.usable_cores(),
                   "first_calls": first_calls, "rows": rows}, f, indent=1)


BLAS_VARS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
BLAS_LIMITS = []  # the threadpool_limits in force for the run (kept alive: leaving it restores BLAS)


def blas_threads(setting: str | None, argv: list[str]) -> tuple[int | None, str]:
    """BLAS's threads for the run: "1", or "default" (BLAS's own choice: a thread per usable core).
    Set in this process through threadpoolctl when it is installed; else the run is done again in
    a new process whose environment sets (or unsets) `BLAS_VARS` before NumPy loads BLAS, and its
    exit status is returned as the first item. The second item says what BLAS runs, for the page."""
    from s2s.compiler.emit import cores
    if setting is not None:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            want = {v: "1" for v in BLAS_VARS} if setting == "1" else {}
            if {v: os.environ[v] for v in BLAS_VARS if v in os.environ} != want:
                env = {k: v for k, v in os.environ.items() if k not in BLAS_VARS} | want
                return subprocess.run([sys.executable, os.path.abspath(__file__), *argv], env=env).returncode, ""
        else:
            n = 1 if setting == "1" else cores.usable_cores()
            BLAS_LIMITS.append(threadpool_limits(n, user_api="blas"))
    cores.forget()
    how = "threadpoolctl" if cores.blas_libraries() else "the environment"
    return None, f"BLAS threads: {cores.blas_threads()} of {cores.usable_cores()} usable cores " \
                 f"(--blas-threads {setting or 'not given'}; as {how} reports it)"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smallest sizes, 1 round of short samples")
    parser.add_argument("--only", action="append", default=[], metavar="W4",
                        help="run only this workload (repeatable; a prefix of the name: W4, W6 hessian-dot)")
    parser.add_argument("--rounds", type=int, default=None, help="alternating timing rounds (default 7; quick 3)")
    parser.add_argument("--min-time", type=float, default=None,
                        help="seconds per implementation per round (default 0.2; quick 0.05)")
    parser.add_argument("--repeat", type=int, default=1, help="samples per implementation per round (default 1)")
    parser.add_argument("--out", help="write the tables to this Markdown file (and a .png chart beside it)")
    parser.add_argument("--docs", action="store_true",
                        help="write the tables into docs/benchmarks.md, in place of the run there")
    parser.add_argument("--blas-threads", choices=("default", "1"),
                        help="BLAS threads for the run: its default (a thread per core) or 1; "
                             "not given: as the environment set them")
    parser.add_argument("--peers", choices=("all", "jax", "none", "jax-only"), default="all",
                        help="which peers to time beside s2s and hand (default all; jax: no autograd; "
                             "jax-only: JAX and hand, no s2s, for JAX's columns from a process of their own)")
    parser.add_argument("--first-calls", type=int, default=None, metavar="N",
                        help="new processes timing W7's first call (default 9; quick 3; 0: none)")
    parser.add_argument("--json", metavar="PATH", help="also write the run's rows, machine and BLAS threads as JSON")
    args = parser.parse_args(argv)
    status, blas_line = blas_threads(args.blas_threads, list(argv if argv is not None else sys.argv[1:]))
    if status is not None:
        return status
    rounds = args.rounds or (3 if args.quick else 7)
    min_time = args.min_time or (0.05 if args.quick else 0.2)
    load0 = os.getloadavg()[0]
    machine = machine_lines()
    selected = [g for g in groups() if (not args.quick or g.quick)
                and (not args.only or any(g.workload.startswith(o) for o in args.only))]
    for g in selected:
        if args.peers == "jax-only":  # (a row with no JAX version keeps none: hand alone is not timed)
            g.impls = [i for i in g.impls if i.name.startswith("jax")]
        else:
            g.impls = [i for i in g.impls if args.peers == "all" or i.name.startswith("s2s") or not i.check
                       or (args.peers == "jax" and i.name.startswith("jax"))]
    rows = []
    for g in selected:
        t0 = time.perf_counter()
        group_rows = run_group(g, rounds, min_time, args.repeat)
        rows += group_rows
        print(f"{g.workload} {g.size}: " + ", ".join(
            f"{r['impl']} {r['ratio']:.2f}" if "ratio" in r else f"{r['impl']} {r.get('skip') or r.get('error')}"
            for r in group_rows) + f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
        if args.json:  # (after each row: a run stopped at a time limit keeps the rows it finished)
            write_json(args.json, "", machine, blas_line, "(unfinished run)", rows, [])
    first_calls = []
    n_first = args.first_calls if args.first_calls is not None else (3 if args.quick else 9)
    if n_first > 0 and any(g.workload.startswith("W7") for g in selected):
        first_calls = fresh_first_calls(n_first)
        print("first call of jit(grad(mlp_loss)) in new processes: "
              + ", ".join(f"{t * 1e3:.0f}" for t in first_calls) + " ms", flush=True)
    command = shlex.join(["python", "tools/bench/bench.py", *(argv if argv is not None else sys.argv[1:])])
    note = load_note(load0)
    text = (f"Command: `{command}`\n\n" + "\n".join(machine) + f"\n- {blas_line}\n- {note}\n\n"
            "### Ratios to the hand-written NumPy version (median over turns of time / hand's time in the same turn)\n\n"
            "Wall time:\n\n" + ratio_table(rows) + "\nCPU time of the process (every thread; a threaded "
            "kernel or XLA's thread pool takes less wall time than CPU time):\n\n" + ratio_table(rows, "cpu_ratio") +
            "\n### Targets (issues 9, 12 and 29)\n\n" + target_table(rows, first_calls) +
            "\n### Details\n\nmedian = median seconds per call over all samples of all rounds; "
            "× hand = median over turns of the sample / the hand-written version's sample of the same turn "
            "(jit(f) / f likewise, s2s-jit's samples against s2s's); "
            "spread = IQR / median; first call = build + first call in a fresh module "
            "(transform + compile + run for s2s, trace + compile + run for jax-jit); "
            "samples×calls = samples × calls per sample.\n\n" + detail_table(rows))
    print()
    print(text)
    if args.json:
        write_json(args.json, command, machine, blas_line, note, rows, first_calls)
    if args.out:
        write_report(args.out, "Benchmark suite results", text, lambda png: bar_chart(rows, png))
        print(f"tables: {os.path.relpath(args.out)}")
    if args.docs:
        png = os.path.splitext(DOCS_PAGE)[0] + ".png"
        if bar_chart(rows, png):
            text = f"![s2s-jit and jax-jit against hand-written NumPy]({os.path.basename(png)})\n\n" + text
            print(f"chart: {os.path.relpath(png)}")
        write_docs(text)
        print(f"tables: {os.path.relpath(DOCS_PAGE)}")
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
