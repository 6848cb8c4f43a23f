"""GPU benchmark: NumPy (host) against CuPy (GPU) through s2s, one table.

    python tools/bench/gpu_bench.py

Rows: the quickstart's `dot(x, x.T)` on 3000x3000 float32 (s2s.numpy after device_put), the MLP
gradient of tools/bench/bench_programs.py (W7, at two batch sizes, and under jit) and SELU with its
gradient (W4). `jit` on CuPy runs each fused elementwise expression as one CUDA kernel
(s2s/compiler/emit/cupy_kernels.py); the "CuPy ops" rows run the same function op by op on CuPy
arrays (no s2s), the unfused baseline. Each GPU time includes `block_until_ready` (a stream
synchronize); each row checks that CuPy's result matches NumPy's: float32 `dot` to within its
summation's rounding scale (sqrt(n) * eps32 times the summed magnitudes), the others relatively.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_programs as P  # noqa: E402

import s2s  # noqa: E402
import s2s.numpy as jnp  # noqa: E402
from s2s.base.tree import tree_leaves, tree_map  # noqa: E402


def best(fn, repeat=5):
    fn()  # compile / warm up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        s2s.block_until_ready(fn())
        times.append(time.perf_counter() - start)
    return min(times)


def host(tree):
    return [a.get() if hasattr(a, "get") else np.asarray(a) for a in tree_leaves(tree)]


def relative_error(args, got, want):
    """Largest |got - want| / (|want| + 1) over the result's leaves."""
    return max(float(np.max(np.abs(a - b) / (np.abs(b) + 1.0))) for a, b in zip(got, want))


def gram_error(args, got, want):
    """Largest |got - want| of `x @ x.T` in units of its rounding-error scale: each entry sums n
    products in x's precision, and NumPy's BLAS and cuBLAS add them in different orders, so two
    correct results differ by about sqrt(n) * eps times the sum of the products' magnitudes
    (|x| @ |x|.T), not by a fixed fraction of the entry (which can be near 0)."""
    (x,) = args
    n = x.shape[1]
    scale = np.sqrt(n) * np.finfo(x.dtype).eps * (np.abs(x) @ np.abs(x).T)
    return float(np.max(np.abs(got[0].astype(np.float64) - want[0]) / scale))


def row(name, size, make_args, fn, rtol, error=relative_error):
    import cupy as cp
    args = make_args()
    t_np = best(lambda: fn(*args))
    dev = tree_map(cp.asarray, args)
    t_cp = best(lambda: fn(*dev))
    err = error(args, host(fn(*dev)), host(fn(*args)))
    ok = "ok" if err <= rtol else f"MISMATCH > {rtol:g}"
    return f"| {name} | {size} | {t_np * 1e3:.2f} | {t_cp * 1e3:.2f} | {t_np / t_cp:.1f}x | {err:.1e} {ok} |", err <= rtol


def _fused_kernels():
    """Every fused expression jit has built in this process (each keeps its CuPy kernels)."""
    import gc

    from s2s.compiler.emit.kernels import Fused
    return [o for o in gc.get_objects() if isinstance(o, Fused)]


def main() -> int:
    try:
        import cupy as cp
        gpu = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"].decode()
    except Exception as exc:
        print(f"no GPU benchmark: CuPy or a GPU is missing ({type(exc).__name__}: {exc})")
        return 1
    rng = np.random.default_rng(0)
    mlp_grad = s2s.grad(P.mlp_loss)
    mlp_grad_jit = s2s.jit(s2s.grad(P.mlp_loss))
    selu_jit = s2s.jit(P.selu)
    selu_grad = s2s.grad(P.sum_selu)
    selu_grad_jit = s2s.jit(s2s.grad(P.sum_selu))
    n = 10**7
    rows = [
        row("dot(x, x.T) (quickstart)", "3000x3000 f32",
            lambda: (rng.standard_normal((3000, 3000)).astype(np.float32),), lambda x: jnp.dot(x, x.T), 1.0,
            error=gram_error),  # (its error column: in units of sqrt(n) * eps32 * (|x| @ |x|.T))
        row("W7 MLP gradient", "B=256 64-128-128-10", P.mlp_data, mlp_grad, 1e-8),
        row("W7 MLP gradient", "B=65536 64-128-128-10", lambda: P.mlp_data(b=65536), mlp_grad, 1e-8),
        row("W7 MLP gradient (jit)", "B=65536 64-128-128-10", lambda: P.mlp_data(b=65536), mlp_grad_jit, 1e-8),
        row("W4 SELU (CuPy ops, unfused)", "n=1e7 f64", lambda: (rng.standard_normal(n),), P.selu, 1e-12),
        row("W4 SELU (jit: one CUDA kernel)", "n=1e7 f64", lambda: (rng.standard_normal(n),), selu_jit, 1e-12),
        row("W4 SELU (CuPy ops, unfused)", "n=1e7 f32", lambda: (rng.standard_normal(n).astype(np.float32),),
            P.selu, 1e-5),
        row("W4 SELU (jit: one CUDA kernel)", "n=1e7 f32", lambda: (rng.standard_normal(n).astype(np.float32),),
            selu_jit, 1e-5),
        row("W4 SELU gradient", "n=1e7 f64", lambda: (rng.standard_normal(n),), selu_grad, 1e-12),
        row("W4 SELU gradient (jit)", "n=1e7 f64", lambda: (rng.standard_normal(n),), selu_grad_jit, 1e-12),
    ]
    built = sum(len(f.gpu_kernels) for f in _fused_kernels())
    print(f"GPU: {gpu}; CuPy {cp.__version__}; NumPy {np.__version__}; best of 5, ms\n")
    print("| workload | size | NumPy ms | CuPy ms | speed-up | max rel. diff |")
    print("|---|---|---|---|---|---|")
    for text, _ in rows:
        print(text)
    print(f"\nCUDA kernels built for jit's fused expressions: {built}")
    return 0 if all(ok for _, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
