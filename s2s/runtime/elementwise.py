"""Derivative helpers of elementwise operations (primitives/rules.py's operators and functions,
rules_math.py): powers at their edge cases, mod's derivative in y, tie-splitting of maximum and
minimum, and the zero-safe log and reciprocal."""
from __future__ import annotations

import numpy as np

from ._values import float_dtype
from .core import asarray, namespace

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("mod_dy", "fmod_dy", "pow_d", "pow_d_dy", "inv0", "pick", "clip_mask", "clip_low", "clip_high", "log0",
           "sinc_deriv", "tanh_by_exp", "tanh_by_exps", "softmax_by_exp")


def mod_dy(x, y, g):
    """d(x mod y)/dy times g: -floor(x / y) g (np.mod, np.remainder, %)."""
    return -np.floor(np.divide(x, y)) * g


def fmod_dy(x, y, g):
    """d(fmod(x, y))/dy times g: -trunc(x / y) g (the quotient rounds toward zero)."""
    return -np.trunc(np.divide(x, y)) * g


def _falling(y, k):
    """y (y - 1) ... (y - k + 1): the coefficient of the k-th x-derivative of x ** y."""
    c = 1.0
    for i in range(k):
        c = c * (y - i)
    return c


def pow_d(x, y, k=1):
    """The k-th x-derivative of x ** y, y (y-1)...(y-k+1) x ** (y - k), taken as 0 where the
    coefficient is 0 (as JAX does for k = 1), so that x ** 0 has derivative 0 even at x = 0."""
    c = _falling(y, k)
    if isinstance(y, (int, float)) and isinstance(c, float):
        if c == 0:
            return 0.0 * x
        with np.errstate(divide="ignore"):
            return c * np.power(asarray(x, dtype=float_dtype(asarray(x))), y - k)[()]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(c == 0, 0.0 * x, c * np.power(x, np.where(c == 0, k, y) - k))


def pow_d_dy(x, y, k=1):
    """d/dy of pow_d(x, y, k): (c'(y) + c(y) log x) x ** (y - k), log taken as 0 at x = 0.
    Plain NumPy that s2s can differentiate again."""
    c = 1.0
    dc = 0.0
    for i in range(k):
        dc = dc * (y - i) + c
        c = c * (y - i)
    return (dc + c * log0(x)) * x ** (y - k)


def inv0(x):
    """1 / x where x != 0, else 0: a derivative formula in terms of `ans` that would divide by a
    zero `ans` (sqrt, std at 0) takes the value 0 there."""
    if isinstance(x, float):
        return 1.0 / x if x != 0.0 else 0.0
    x = asarray(x)
    nz = x != 0
    return np.where(nz, 1.0 / np.where(nz, x, 1.0), 0.0).astype(float_dtype(x), copy=False)


def pick(x, y, out=None):
    """1 where x > y, 1/2 where x == y, else 0: how max(x, y) splits its derivative. For a float
    array against a number or an array of its shape, the comparison writes the float result
    directly and only ties are then set to 1/2 (two passes over the array, not five: a ReLU's
    backward feels them). `out`: an array of the result's dtype and shape to write it into (a
    jit version's dead `x` itself, passes/reuse.py), where that fast form applies."""
    dt = np.result_type(x, y)
    if type(x) is np.ndarray and x.ndim and dt.kind == "f" and \
            (type(y) in (float, int) or type(y) is np.ndarray and y.shape == x.shape):
        ties = np.equal(x, y)  # (before `out`, which may be `x`, is written)
        out = np.greater(x, y, out=np.empty(x.shape, dt) if out is None else out)
        if ties.any():
            np.copyto(out, 0.5, where=ties)
        return out
    out = (x > y) + 0.5 * (x == y)
    return out.astype(dt, copy=False) if dt.kind == "f" and hasattr(out, "astype") else out


def clip_mask(a, lo, hi):
    m = namespace(a).ones(np.shape(a), dtype=bool)
    if lo is not None:
        m = m & (a >= lo)
    if hi is not None:
        m = m & (a <= hi)
    return m


def clip_low(a, lo, hi):
    """Where np.clip(a, lo, hi) is `lo`: below it, unless the bounds cross (lo > hi: NumPy gives hi)."""
    m = a < lo
    return m if hi is None else m & ~(lo > hi)


def clip_high(a, lo, hi):
    """Where np.clip(a, lo, hi) is `hi`: above it, and everywhere the bounds cross (lo > hi)."""
    m = a > hi
    return m if lo is None else m | (lo > hi)


def log0(x):
    """log(x) where x > 0 and 0 elsewhere: the y-derivative of x ** y at x = 0 is 0 for y > 0."""
    return np.log(np.where(x > 0, x, 1.0))


def sinc_deriv(x):
    px = np.pi * x  # float32 stays float32 (Python floats are weak in NumPy 2); any backend's array
    safe = np.where(px == 0, 1.0, px)
    return np.where(px == 0, 0.0, (np.cos(safe) * safe - np.sin(safe)) / (safe * safe) * np.pi)


def tanh_by_exp(x):
    """`(exp(2 * x) - 1) / (exp(2 * x) + 1)` as an author writes tanh, computed as written (the same
    NumPy calls, so the same values), which reverse mode differentiates as tanh, `1 - ans * ans`
    (transforms/tanh_idioms.py)."""
    e = namespace(x).exp(2 * x)
    return (e - 1) / (e + 1)


def tanh_by_exps(x):
    """`(exp(x) - exp(-x)) / (exp(x) + exp(-x))`, computed as written; tanh to reverse mode."""
    xp = namespace(x)
    p, m = xp.exp(x), xp.exp(-x)
    return (p - m) / (p + m)


def softmax_by_exp(x, max_axis=None, sum_axis=None):
    """`e = exp(x - max(x, max_axis)); e / sum(e, sum_axis)` as an author writes softmax, computed
    as written (the same NumPy calls; the max and the sum kept as dimensions, which changes no
    value where the written form broadcasts back in place), which reverse mode differentiates as
    softmax along `sum_axis`, `ans * (g - sum(g * ans))` (transforms/softmax_idioms.py)."""
    if type(x) is np.ndarray:  # (the array's methods: NumPy's functions add a Python wrapper, about 1 us each)
        e = np.exp(x - (x.max() if max_axis is None else x.max(axis=max_axis, keepdims=True)))
        return e / (e.sum() if sum_axis is None else e.sum(axis=sum_axis, keepdims=True))
    xp = namespace(x)
    e = xp.exp(x - xp.max(x, axis=max_axis, keepdims=True))
    return e / xp.sum(e, axis=sum_axis, keepdims=True)
