"""Checks shared by the s2s.scipy tests (tests/namespaces/test_scipy_*.py): central differences of
SciPy's own functions, and a scalar loss of a function of a fixed number of arguments."""
import numpy as np


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


def sum_sin(fn, n):
    """sum(sin(fn(...))) of `n` arguments (a transformed function has plain positional parameters)."""
    if n == 1:
        return lambda a: np.sum(np.sin(fn(a)))
    if n == 2:
        return lambda a, b: np.sum(np.sin(fn(a, b)))
    return lambda a, b, c: np.sum(np.sin(fn(a, b, c)))
