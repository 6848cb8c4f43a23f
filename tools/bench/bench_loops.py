"""Loop programs from public NumPy code (issue 46, section 2): s2s's `jit(grad)` of each author's
forward against the author's own hand-written loop backward, at the sizes their assignments use.

    python tools/bench/bench_loops.py --blas-threads 1                 # every program (a few minutes)
    python tools/bench/bench_loops.py --blas-threads 1 --out loops.md  # also write the table to a file
    python tools/bench/bench_loops.py --quick                          # tiny sizes, short samples
    python tools/bench/bench_loops.py --only svm --only rnn            # some programs (a prefix of the name)

The programs are the authors' files kept byte for byte in tests/corpus/ (with their licences,
SOURCE.md and UPSTREAM.sha1): this tool loads them from there and copies no code. Each program is
a loss a user would differentiate (`svm_loss_naive(W, X, y, reg)[0]`) and the author's forward +
backward, which returns the same gradient. For each program: the first call of s2s's
`jit(grad(loss))` (transform, compile and run, in this process, which has not seen the program
before), then both timed alternately, one sample of each in turn, round after round; the ratio is
the median over turns of s2s's sample over the hand-written sample of the same turn (as
tools/bench/bench.py does). Every s2s result is checked against the author's gradient first
(np.testing.assert_allclose). JAX's `grad` and `jax.jit(grad)` of the same source (the author's
module with `np` bound to `jax.numpy`) are timed when JAX is installed; a failure (an in-place
store, a Python `if` on a traced value) is reported in the table, not hidden.

Entry points for other tools: `programs(quick)` lists the `Program`s; `Program.build()` returns
(loss, argnums, args, hand), with `s2s.grad(loss, argnums)(*args)` equal to `hand(*args)`.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import importlib.util
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
sys.path[:0] = [str(ROOT), str(CORPUS), str(Path(__file__).resolve().parent)]

import harness  # noqa: E402  (tests/corpus/harness.py: loads the authors' files)
from bench_util import calls_per_sample, fmt_time, machine_lines, markdown_table, time_samples  # noqa: E402

import s2s  # noqa: E402

BLAS_VARS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
_LIMITS = []  # threadpoolctl's limits for the run (kept alive: leaving one restores BLAS)


@dataclasses.dataclass
class Program:
    """One author's loop program: `build()` -> (loss, argnums, args, hand), where `loss(*args)` is
    what a user differentiates and `hand(*args)` the author's forward + backward, returning what
    `s2s.grad(loss, argnums)(*args)` returns. `module` gives JAX's column the author's module and
    a builder of the same loss over a copy of it (None: no JAX column)."""

    name: str
    source: str
    size: str
    kind: str  # "scalar loop" (a loop over examples or steps of small arrays) or "array loop"
    build: Callable[[], tuple]
    jax_loss: Callable | None = None  # (module copy with np = jax.numpy) -> the same loss


def _upstream(source: str, relpath: str, py2: bool = False):
    """The author's module from tests/corpus/<source>/upstream/<relpath>, loaded by the corpus
    harness (the same module the corpus tests use)."""
    return harness.load(str(CORPUS / source / "cases.py"), relpath, py2=py2)


def _copy_with(source: str, relpath: str, np_module, py2: bool = False):
    """A fresh copy of the author's module whose global `np` is `np_module` (JAX's column)."""
    path = CORPUS / source / "upstream" / relpath
    spec = importlib.util.spec_from_file_location(f"bench_loops_copy_{source}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    module.np = np_module
    if py2:
        module.xrange = range
    return module


# ---- the programs ---------------------------------------------------------------------------------

def _linear(which: str, n: int, d: int, c: int):
    """cs231n's linear classifier losses with loops (budmitr/cs231n, assignment 1)."""
    rel = f"assignment1/cs231n/classifiers/{'linear_svm' if which == 'svm' else 'softmax'}.py"
    name = "svm_loss_naive" if which == "svm" else "softmax_loss_naive"

    def build():
        author = getattr(_upstream("cs231n_budmitr", rel, py2=True), name)
        rng = np.random.default_rng(231)
        W = rng.normal(size=(d, c)) * 1e-4  # the assignment's initialization
        X = rng.normal(size=(n, d))
        y = rng.integers(0, c, n)

        def loss(W, X, y, reg):
            return author(W, X, y, reg)[0]

        return loss, 0, (W, X, y, 5e-6), lambda W, X, y, reg: author(W, X, y, reg)[1]

    def jax_loss(module):
        author = getattr(module, name)
        return lambda W, X, y, reg: author(W, X, y, reg)[0]

    return Program(name, "cs231n_budmitr (MIT)", f"N={n}, D={d}, C={c}", "scalar loop", build,
                   (lambda jnp: jax_loss(_copy_with("cs231n_budmitr", rel, jnp, py2=True))))


def _char_rnn(steps: int, vocab: int, hidden: int):
    """The Dinosaur Island character-level RNN over a name (eliben/deep-learning-samples's copy of
    the deeplearning.ai helpers): rnn_forward's loss against rnn_backward."""
    names = ("Wax", "Waa", "Wya", "b", "by")

    def build():
        rnn = _upstream("eliben_deep_learning_samples", "rnn_provided.py")
        rng = np.random.default_rng(27)
        params = (rng.normal(size=(hidden, vocab)) * 0.01, rng.normal(size=(hidden, hidden)) * 0.01,
                  rng.normal(size=(vocab, hidden)) * 0.01, np.zeros((hidden, 1)), np.zeros((vocab, 1)))
        chars = [None] + [int(k) for k in rng.integers(1, vocab, steps - 1)]
        following = chars[1:] + [0]
        a0 = np.zeros((hidden, 1))

        def loss(Wax, Waa, Wya, b, by, a0):
            params = {"Wax": Wax, "Waa": Waa, "Wya": Wya, "b": b, "by": by}
            return rnn.rnn_forward(chars, following, a0, params, vocab)[0]

        def hand(Wax, Waa, Wya, b, by, a0):
            p = dict(zip(names, (Wax, Waa, Wya, b, by)))
            _, cache = rnn.rnn_forward(chars, following, a0, p, vocab)
            grads, _ = rnn.rnn_backward(chars, following, p, cache)
            return tuple(grads["d" + k] for k in names)

        return loss, (0, 1, 2, 3, 4), (*params, a0), hand

    return Program("rnn_forward (char RNN)", "eliben_deep_learning_samples (Unlicense)",
                   f"T={steps}, vocab={vocab}, hidden={hidden}", "scalar loop", build)


def _elman_rnn(n: int, steps: int, features: int, hidden: int, classes: int):
    """raphaelsenn's Elman RNN over time (softmax over all steps' hidden states), against the
    gradient its `fit` computes by backpropagation through time."""
    names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_out", "bias_out")

    def build():
        rnn_np = _upstream("raphaelsenn_rnn_numpy", "nn_np/rnn_np.py")
        np.random.seed(0)
        model = rnn_np.RNN_1FC_ALL(features, hidden, steps, classes)
        rng = np.random.default_rng(28)
        X = rng.normal(size=(n, steps, features))
        labels = rng.integers(0, classes, n)
        start = tuple(getattr(model, k).copy() for k in names)

        def loss(weight_ih, weight_hh, bias_ih, bias_hh, weight_out, bias_out, X, y):
            model.weight_ih, model.weight_hh, model.bias_ih = weight_ih, weight_hh, bias_ih
            model.bias_hh, model.weight_out, model.bias_out = bias_hh, weight_out, bias_out
            y_pred = model.forward(X)
            return -sum(np.log(y_pred[np.arange(len(X)), y])) / len(X)

        def hand(*a):
            """The gradient `fit` applies: one epoch, one batch, learning rate 1 (old - new)."""
            for k, p in zip(names, a[:6]):
                setattr(model, k, p.copy())
            model.fit(a[6], a[7], epochs=1, batch_size=len(a[6]), learning_rate=1.0, verbose=False)
            return tuple(p - getattr(model, k) for k, p in zip(names, a[:6]))

        return loss, (0, 1, 2, 3, 4, 5), (*start, X, labels), hand  # (fit one-hot encodes 10 classes)

    return Program("RNN_1FC_ALL forward (Elman RNN)", "raphaelsenn_rnn_numpy (MIT)",
                   f"N={n}, T={steps}, D={features}, H={hidden}, C={classes}", "array loop", build)


class _Draws:
    """The assignment's dataset object, with fixed draws over the vocabulary (each check gets a
    fresh copy, so s2s and the author see the same draws)."""

    def __init__(self, vocab: int):
        self.vocab, self.k = vocab, 0

    def sampleTokenIdx(self):  # noqa: N802 (the assignment's name)
        self.k += 1
        return (self.k * 7919) % self.vocab


def _skipgram(vocab: int, dim: int, window: int, negatives: int):
    """CS224n word2vec: skip-gram over one center word and its 2 * window outside words with the
    negative-sampling loss (leehanchung/cs224n), against the gradients the author returns."""
    def build():
        w2v = _upstream("leehanchung_cs224n", "word2vec.py")
        rng = np.random.default_rng(224)
        words = [f"w{i}" for i in range(vocab)]
        tokens = {w: i for i, w in enumerate(words)}
        center = words[3]
        outside = [words[int(k)] for k in rng.integers(0, vocab, 2 * window)]
        V = (rng.random((vocab, dim)) - 0.5) / dim
        U = np.zeros((vocab, dim)) + rng.normal(size=(vocab, dim)) * 0.1

        def neg(c, o, U, ds):
            return w2v.negSamplingLossAndGradient(c, o, U, ds, K=negatives)

        def loss(V, U, ds):
            return w2v.skipgram(center, window, outside, tokens, V, U, ds, neg)[0]

        def hand(V, U, ds):
            return w2v.skipgram(center, window, outside, tokens, V, U, ds, neg)[1:]

        return loss, (0, 1), (V, U, _Draws(vocab)), hand

    return Program("skipgram + negSamplingLossAndGradient", "leehanchung_cs224n (MIT)",
                   f"V={vocab}, d={dim}, C={window}, K={negatives}", "scalar loop", build)


def programs(quick: bool = False) -> list[Program]:
    """The benchmark's programs, at the sizes their assignments use (tiny ones when `quick`)."""
    if quick:
        return [_linear("svm", 12, 20, 4), _linear("softmax", 12, 20, 4), _char_rnn(6, 7, 5),
                _elman_rnn(4, 3, 2, 5, 10), _skipgram(30, 4, 2, 3)]
    return [_linear("svm", 500, 3073, 10), _linear("softmax", 500, 3073, 10), _char_rnn(20, 27, 50),
            _elman_rnn(64, 28, 28, 128, 10), _skipgram(19539, 10, 5, 10)]


# ---- running one program ------------------------------------------------------------------------

def check(got, want, what: str) -> None:
    """np.testing.assert_allclose over matching structures (a tuple of gradients or one)."""
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want), (what, len(got), len(want))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-9, err_msg=what)


def prepare(program: Program) -> dict:
    """Build the program, run s2s's jit(grad) once (the first call) and check it and grad
    against the author's gradient; the pieces the timing needs."""
    loss, argnums, args, hand = program.build()
    want = hand(*copy.deepcopy(args))
    g = s2s.jit(s2s.grad(loss, argnums=argnums))
    fresh = copy.deepcopy(args)
    start = time.perf_counter()
    got = g(*fresh)
    first = time.perf_counter() - start
    check(got, want, f"{program.name}: s2s jit(grad) against the author's backward")
    check(s2s.grad(loss, argnums=argnums)(*copy.deepcopy(args)), want,
          f"{program.name}: s2s grad against the author's backward")
    return {"loss": loss, "argnums": argnums, "args": args, "hand": hand, "s2s": g, "first": first, "want": want}


def paired(a: list[float], b: list[float]) -> float:
    """The median over turns of a[k] / b[k] (each sample against the one of its own turn)."""
    return statistics.median(x / y for x, y in zip(a, b))


def time_pair(fn, base, args, rounds: int, min_time: float) -> tuple[list[float], list[float]]:
    """`rounds` samples of seconds per call of `fn` and of `base`, alternating."""
    n_fn, n_base = calls_per_sample(fn, args, min_time), calls_per_sample(base, args, min_time)
    a, b = [], []
    for _ in range(rounds):
        a += time_samples(fn, args, n_fn, 1)
        b += time_samples(base, args, n_base, 1)
    return a, b


def jax_columns(program: Program, prep: dict, rounds: int, min_time: float) -> dict:
    """JAX's grad and jax.jit(grad) of the same source (first call, ratio to hand), or why not."""
    if importlib.util.find_spec("jax") is None:
        return {"jax": "n/a (JAX not installed)", "jax_jit": "n/a (JAX not installed)"}
    if program.jax_loss is None:
        return {"jax": "n/a (not wired)", "jax_jit": "n/a (not wired)"}
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    out = {}
    for key, make in (("jax", lambda f: jax.grad(f, argnums=prep["argnums"])),
                      ("jax_jit", lambda f: jax.jit(jax.grad(f, argnums=prep["argnums"])))):
        try:
            fn = make(program.jax_loss(jnp))

            def call(*a, fn=fn):
                return jax.block_until_ready(fn(*a))
            start = time.perf_counter()
            got = call(*prep["args"])
            first = time.perf_counter() - start
            check(tuple(np.asarray(x) for x in got) if isinstance(got, tuple) else np.asarray(got), prep["want"],
                  f"{program.name}: {key}")
            a, b = time_pair(call, prep["hand"], prep["args"], rounds, min_time)
            out[key] = f"{paired(a, b):.2f}x (first call {first:.2f} s)"
        except Exception as e:  # noqa: BLE001 - reported in the table
            msg = (str(e).strip().splitlines() or [""])[0][:80]
            out[key] = f"failed: {type(e).__name__}: {msg}"
    return out


def run(program: Program, rounds: int, min_time: float, peers: bool = True) -> dict:
    """One row: the program checked, then timed against the author's forward + backward."""
    prep = prepare(program)
    a, b = time_pair(prep["s2s"], prep["hand"], prep["args"], rounds, min_time)
    row = {"program": program.name, "source": program.source, "size": program.size, "kind": program.kind,
           "ratio": paired(a, b), "s2s": statistics.median(a), "hand": statistics.median(b), "first": prep["first"],
           "samples": len(a)}
    if peers:
        row.update(jax_columns(program, prep, rounds, min_time))
    return row


def table(rows: list[dict]) -> str:
    header = ["program (source)", "size", "kind", "s2s jit(grad) / hand", "s2s µs", "hand µs",
              "s2s first call ms", "JAX grad / hand", "jax.jit(grad) / hand"]
    body = [[f"{r['program']} ({r['source']})", r["size"], r["kind"], f"{r['ratio']:.2f}x", fmt_time(r["s2s"]),
             fmt_time(r["hand"]), f"{r['first'] * 1e3:,.0f}", r.get("jax", "-"), r.get("jax_jit", "-")]
            for r in rows]
    return markdown_table(header, body, [False, False, False, True, True, True, True, False, False])


def blas_threads(setting: str | None) -> int | None:
    """BLAS on `setting` threads for the run ("1" or "default"): through threadpoolctl, else by
    running again with the environment set (the exit status is returned then)."""
    if setting is None:
        return None
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        want = {v: "1" for v in BLAS_VARS} if setting == "1" else {}
        if {v: os.environ[v] for v in BLAS_VARS if v in os.environ} != want:
            env = {k: v for k, v in os.environ.items() if k not in BLAS_VARS} | want
            return subprocess.run([sys.executable, os.path.abspath(__file__), *sys.argv[1:]], env=env).returncode
        return None
    _LIMITS.append(threadpool_limits(1 if setting == "1" else os.cpu_count(), user_api="blas"))
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, short samples")
    parser.add_argument("--only", action="append", default=[], metavar="PREFIX",
                        help="run only the programs whose name starts with this (repeatable)")
    parser.add_argument("--rounds", type=int, default=None, help="alternating samples of each (default 7; quick 3)")
    parser.add_argument("--min-time", type=float, default=None, help="seconds per sample (default 0.2; quick 0.02)")
    parser.add_argument("--blas-threads", choices=("default", "1"), help="BLAS threads for the run")
    parser.add_argument("--out", help="write the table (with the machine and the command) to this Markdown file")
    parser.add_argument("--peers", choices=("jax", "none"), default="jax",
                        help="jax (default): JAX's columns where JAX is installed; none: s2s and hand only")
    parser.add_argument("--json", metavar="PATH", help="also write the rows, the machine and BLAS as JSON")
    args = parser.parse_args(argv)
    status = blas_threads(args.blas_threads)
    if status is not None:
        return status
    rounds = args.rounds or (3 if args.quick else 7)
    min_time = args.min_time or (0.02 if args.quick else 0.2)
    load0 = os.getloadavg()[0]
    machine = machine_lines()
    rows = []
    for p in programs(args.quick):
        if args.only and not any(p.name.startswith(o) for o in args.only):
            continue
        t0 = time.perf_counter()
        row = run(p, rounds, min_time, peers=args.peers == "jax")
        rows.append(row)
        if args.json:  # (after each program: a run stopped at a time limit keeps the rows it finished)
            Path(args.json).write_text(json.dumps({"machine": machine, "rows": rows}, indent=1), encoding="utf-8")
        print(f"{p.name} {p.size}: s2s jit(grad) {row['ratio']:.2f}x hand, first call {row['first'] * 1e3:.0f} ms"
              f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
    try:
        from threadpoolctl import threadpool_info
        blas = ", ".join(f"{i.get('internal_api')} {i.get('num_threads')} threads" for i in threadpool_info()
                         if i.get("user_api") == "blas") or "none found"
    except ImportError:
        blas = "threadpoolctl not installed"
    command = shlex.join(["python", "tools/bench/bench_loops.py", *(argv if argv is not None else sys.argv[1:])])
    text = (f"Command: `{command}`\n\n" + "\n".join(machine) + f"\n- BLAS: {blas}\n"
            f"- 1-min load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end\n\n" + table(rows) +
            "\ns2s jit(grad) / hand = median over turns of s2s's sample / the author's forward + backward sample "
            "of the same turn; µs = median per call; first call = transform + compile + run of jit(grad) in "
            "this process.\n")
    print()
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps({"command": command, "machine": machine, "blas": blas,
                                               "rows": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
