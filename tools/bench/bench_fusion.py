"""The two forms of a fused kernel against plain NumPy, per expression: which one `jit` should pick.

    python tools/bench/bench_fusion.py            # one thread, CPU time (the load of a shared machine stays out)
    python tools/bench/bench_fusion.py --threads  # all threads, wall time

For each expression, jit(f) is built on 10^6 float64 elements and run with its fused kernel as
NumPy blocks and as numba (when installed), alternately with f itself; the table gives the
minimum over the samples in ms and the ratio to f. s2s picks numba for expressions without a
transcendental function other than `exp` (`s2s.compiler.emit.numba_kernels.wanted`), and no kernel at
all where NumPy allocates only one array and the kernel would be NumPy blocks (`s2s.compiler.passes.fusion`;
the row then times the kernel s2s would have built, called directly).
"""
from __future__ import annotations

import argparse
import inspect
import os
import sys
import time

import gast
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import s2s  # noqa: E402
from s2s.compiler.emit import kernels, numba_kernels, scheduler  # noqa: E402


def arith(x, y):
    return np.maximum(x * 2.0 + y * y - 0.5 * x, y) / (1.0 + np.abs(x))


def reduction(x, y):
    return np.sum(x * x + y * 3.0)


def selu(x, y):
    return 1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67)


def relu_mix(x, y):
    return np.where(x > y, x - y, 0.0) * 0.5 + np.sqrt(np.abs(y))


def logistic(x, y):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


def square_mix(x, y):
    return (x - 1.0) ** 2 * 0.5 + y


def affine(x, y):
    return x * 2.0 + y * 0.5 - 1.0


def exp_affine(x, y):
    return np.exp(x) * 2.0 + 1.0


def tanh_grad(x, y):
    return y * (1.0 - x * x)


def sigmoid(x, y):
    return 1.0 / (1.0 + np.exp(-x))


def tanh_mix(x, y):
    return np.tanh(x) * y + x * 0.5


def log_mix(x, y):
    return np.log(np.abs(x) + 1.0) * y - x


def softplus(x, y):
    return np.log(1.0 + np.exp(x))


def log_likelihood(x, y):
    return np.sum(np.log(x * x + 1.0) * 0.5)


# a bias `b` of 1,000 elements broadcast against `x` of 1000x1000 (the kernels' blocks in whole rows:
# s2s.compiler.emit.broadcast)
def bias_affine(x, b):
    return (x + b) * 2.0 - x * 0.5


def bias_tanh(x, b):
    return np.tanh(x + b) * x


def bias_relu(x, b):
    return np.maximum(x + b, 0.0) * x + b


EXPRESSIONS = (arith, reduction, selu, relu_mix, logistic, square_mix, affine, exp_affine, tanh_grad, sigmoid,
               tanh_mix, log_mix, softplus, log_likelihood, bias_affine, bias_tanh, bias_relu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", action="store_true", help="all threads and wall time")
    ap.add_argument("--samples", type=int, default=9)
    ap.add_argument("--only", action="append", default=[], metavar="NAME", help="these expressions (repeat)")
    opts = ap.parse_args()
    clock = time.perf_counter if opts.threads else time.process_time
    if not opts.threads:
        scheduler.threads = lambda: 1
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=10 ** 6), rng.normal(size=10 ** 6)
    engines = ["numpy"] + (["numba"] if numba_kernels.available() else [])
    print("| expression | NumPy ms | " + " | ".join(f"{e} kernel ms (× NumPy)" for e in engines) + " | s2s picks |")
    print("|---|---:|" + "---:|" * len(engines) + "---|")
    for f in EXPRESSIONS:
        if opts.only and f.__name__ not in opts.only:
            continue
        params = list(inspect.signature(f).parameters)
        args = (x.reshape(1000, 1000), y[:1000].copy()) if params == ["x", "b"] else (x, y)
        j = s2s.jit(f)
        j(*args)
        (run,) = j._versions.values()
        fused = run.__globals__.get("fused_0")
        picked = fused.engine if fused else "no kernel (NumPy allocates one array)"
        forced = None
        if fused is None:  # the kernel s2s would have built, run alone
            forced = kernels.Fused("fused_0", sorted(params), gast.parse(inspect.getsource(f)).body[0].body[0].value,
                                   None, None)
        times = {"hand": []} | {e: [] for e in engines}
        for _ in range(opts.samples):
            for name in times:
                if name != "hand":
                    (fused or forced).engine = name
                g = f if name == "hand" else (j if fused else forced)
                t0 = clock()
                for _ in range(10):
                    g(*args)
                times[name].append((clock() - t0) / 10)
        if fused:
            fused.engine = picked
        best = {k: min(v) for k, v in times.items()}
        cells = " | ".join(f"{best[e] * 1e3:.2f} ({best[e] / best['hand']:.2f})" for e in engines)
        print(f"| `{f.__name__}` | {best['hand'] * 1e3:.2f} | {cells} | {picked} |")

if __name__ == "__main__":
    main()
