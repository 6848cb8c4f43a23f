"""How far two evaluations of one matrix product may differ: BLAS picks its kernel by CPU
(OpenBLAS's Haswell and SkylakeX sgemm sum in different orders, with or without FMA), and a
product computed by blocks or by another routine sums in yet another order. Both results lie
within the classic inner-product error bound of the exact product, so they lie within twice it of
each other; tests compare within that bound instead of a tolerance that held on one CPU."""
import numpy as np


def gamma(n: int, dtype) -> float:
    """Higham's gamma_n = n*u / (1 - n*u), u = eps/2 of `dtype`: a sum of n products computed in
    any order (FMA or not) is within gamma_n * sum(|products|) of the exact sum."""
    u = float(np.finfo(dtype).eps) / 2
    assert n * u < 1, (n, dtype)
    return n * u / (1 - n * u)


def sum_bound(abs_sum, n: int, dtype) -> np.ndarray:
    """Bound on |got - want| for two evaluations of sums of `n` products in `dtype` whose absolute
    values add up to `abs_sum` (elementwise): 2 * gamma_n * abs_sum, each result being within
    gamma_n of the exact sum. Computing `abs_sum` itself rounds by at most gamma_n relative, so the
    bound is widened by that factor."""
    g = gamma(max(int(n), 1), dtype)
    return 2 * g * (1 + g) * np.asarray(abs_sum, dtype=np.float64)


def _abs_parts(x):
    """|Re x| + |Im x| (|x| for real x): what a complex product's real and imaginary parts sum."""
    x = np.asarray(x)
    return np.abs(x.real) + np.abs(x.imag) if x.dtype.kind == "c" else np.abs(x)


def product_bound(a, b, dtype=None) -> np.ndarray:
    """Elementwise bound on the difference of two evaluations of `a @ b` (any summation order, any
    blocking): k products per element, 2k per real or imaginary part when complex."""
    a, b = np.asarray(a), np.asarray(b)
    dtype = np.result_type(a, b) if dtype is None else np.dtype(dtype)
    k = a.shape[-1]
    n = 2 * k if dtype.kind == "c" else k
    abs_sum = _abs_parts(a).astype(np.float64) @ _abs_parts(b).astype(np.float64)
    return sum_bound(abs_sum, n, dtype)


def assert_product_close(got, a, b, want=None):
    """`got` is `a @ b` (or `want`, another evaluation of it) up to the rounding of its sums."""
    want = np.asarray(a) @ np.asarray(b) if want is None else np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    bound = product_bound(a, b, want.dtype)
    for part in ((lambda z: z.real, lambda z: z.imag) if want.dtype.kind == "c" else (lambda z: z,)):
        err = np.abs(part(got).astype(np.float64) - part(want).astype(np.float64))
        bad = err > bound
        worst = float(np.max(err / np.maximum(bound, np.finfo(np.float64).tiny)))
        assert not bad.any(), f"{bad.sum()} of {bad.size} elements beyond the rounding bound (worst {worst:.3g}x it)"
