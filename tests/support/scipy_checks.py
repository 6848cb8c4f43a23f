"""Checks shared by the s2s.scipy tests (tests/namespaces/test_scipy_*.py): central differences of
SciPy's own functions, and a scalar loss of a function of a fixed number of arguments."""
import numpy as np

import s2s


def fd_vjp(ref, args, u, i, eps=1e-6):
    """<u, d ref / d args[i]> by central differences of SciPy's function, entry by entry."""
    out = np.zeros_like(args[i])
    for k in np.ndindex(args[i].shape):
        hi = [np.array(a, dtype=float) for a in args]
        lo = [np.array(a, dtype=float) for a in args]
        hi[i][k] += eps
        lo[i][k] -= eps
        out[k] = np.sum(u * (ref(*hi) - ref(*lo))) / (2 * eps)
    return out


def check_vjp_and_jvp(fn, ref, args, seed, masks=None):
    """s2s's VJP and JVP of `fn` at `args`, along random directions, against central differences of
    SciPy's function `ref`; `masks[i]`: where argument i's cotangent is compared (elsewhere zero:
    entries SciPy's function does not read)."""
    rng = np.random.default_rng(seed)
    out, pull = s2s.vjp(fn, *args)
    u = rng.standard_normal(np.shape(out))
    cot = pull(u)
    tangents = tuple(rng.standard_normal(a.shape) for a in args)
    _, tan = s2s.jvp(fn, args, tangents)
    eps = 1e-6
    want_tan = (ref(*(a + eps * t for a, t in zip(args, tangents)))
                - ref(*(a - eps * t for a, t in zip(args, tangents)))) / (2 * eps)
    np.testing.assert_allclose(tan, want_tan, rtol=1e-6, atol=1e-7)
    for i in range(len(args)):
        want = fd_vjp(ref, args, u, i)
        if masks and i in masks:
            want = np.where(masks[i], want, 0.0)
        np.testing.assert_allclose(cot[i], want, rtol=1e-6, atol=1e-7)


def sum_sin(fn, n):
    """sum(sin(fn(...))) of `n` arguments (a transformed function has plain positional parameters)."""
    if n == 1:
        return lambda a: np.sum(np.sin(fn(a)))
    if n == 2:
        return lambda a, b: np.sum(np.sin(fn(a, b)))
    return lambda a, b, c: np.sum(np.sin(fn(a, b, c)))
