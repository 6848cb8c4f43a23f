"""What stands between jit(selu) and XLA (issue 12, W4): a vectorized `exp` inside the fused loop.

    python tools/bench_vexp.py      # needs numba (the `s2s[fast]` extra)

SELU on 10^6 float64, one thread, minimum over samples: NumPy as written; one numba loop calling
the C library's scalar `exp` (what s2s's numba engine would run, so `numba_kernels.wanted` keeps
expressions with `exp` on NumPy's SIMD ufuncs instead); and one numba loop with `exp` written as
arithmetic (Cody-Waite range reduction, a degree-12 polynomial, 2**k added to the exponent bits),
which LLVM vectorizes with the machine's widest SIMD registers, as XLA does with its own `exp`.
It prints the times, their ratios to NumPy, and how far that `exp` is from NumPy's in ulps.
An experiment, not used by s2s: it clamps the argument (no inf, NaN or subnormal handling).
"""
from __future__ import annotations

import math
import time

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover - the experiment needs numba
    raise SystemExit("tools/bench_vexp.py needs numba (pip install 's2s[fast]')") from None

N = 1_000_000
LOG2E = 1.4426950408889634
LN2_HI, LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
SHIFT = 6755399441055744.0  # 1.5 * 2**52: (v + SHIFT) - SHIFT rounds v to an integer, branch-free
jit = numba.njit(nogil=True, error_model="numpy")


def selu_numpy(x):
    return 1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67)


@jit
def selu_libm(x, out):
    for i in range(x.size):
        v = x[i]
        out[i] = 1.05 * (v if v > 0 else 1.67 * math.exp(v) - 1.67)


@jit
def exp_poly(x, out, k2):
    """exp(x) for x in [-700, 700] into `out`, in loops LLVM vectorizes (`k2`: scratch)."""
    for i in range(x.size):
        v = min(max(x[i], -700.0), 700.0)
        k = (v * LOG2E + SHIFT) - SHIFT
        r = (v - k * LN2_HI) - k * LN2_LO  # |r| <= ln2 / 2
        p = 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        out[i] = p * r + 1.0
        k2[i] = np.int64(k) << 52
    bits = out.view(np.int64)
    for i in range(x.size):
        bits[i] += k2[i]  # times 2**k


@jit
def selu_poly(x, out, k2):
    exp_poly(x, out, k2)
    for i in range(x.size):
        v = x[i]
        out[i] = 1.05 * (v if v > 0 else 1.67 * out[i] - 1.67)


def _best(fn, samples=30) -> float:
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    numba.set_num_threads(1)
    rng = np.random.default_rng(0)
    x, out, k2 = rng.normal(size=N), np.empty(N), np.empty(N, np.int64)
    selu_libm(x, out)
    selu_poly(x, out, k2)
    np.testing.assert_allclose(out, selu_numpy(x), rtol=1e-11, atol=1e-15)
    for wide in (False, True):
        xs = rng.uniform(-700.0, 700.0, size=N) if wide else x
        exp_poly(xs, out, k2)
        ref = np.exp(xs)
        ulps = np.abs(out - ref) / np.spacing(ref)
        where = "uniform on [-700, 700]" if wide else "standard normal"
        print(f"polynomial exp vs np.exp, x {where}: max {ulps.max():.0f} ulp, "
              f"{np.mean(out == ref):.0%} bitwise equal")
    for _ in range(3):
        t_np = _best(lambda: selu_numpy(x))
        t_libm = _best(lambda: selu_libm(x, out))
        t_poly = _best(lambda: selu_poly(x, out, k2))
        print(f"SELU 1e6 float64, one thread: NumPy {t_np * 1e3:.2f} ms; numba + C-library exp "
              f"{t_libm * 1e3:.2f} ms ({t_libm / t_np:.2f}); numba + polynomial exp {t_poly * 1e3:.2f} ms "
              f"({t_poly / t_np:.2f})")


if __name__ == "__main__":
    main()
