"""`s2s.scipy.special`: JAX's `jax.scipy.special` functions, with JAX's signatures (SciPy's for
those JAX lacks: rgamma, erfcinv, the Bessel functions j0, j1, jn, y0, y1, yn, iv, ive, stdtr).

gammaln, digamma, polygamma, erf, erfc, erfinv, erfcinv, ndtri, log_ndtr, gamma, rgamma,
gammasgn, the Bessel functions (i0, i1, i0e, i1e, iv, ive, j0, j1, jn, y0, y1, yn), stdtr,
gammainc, gammaincc and betainc are primitives (SciPy computes them; their rules are in
s2s/compiler/primitives/rules_special.py;
the incomplete gamma and beta functions and stdtr are differentiable in x only: a derivative in a
shape parameter is an error, as is one in a Bessel function's order); the rest are plain
Python over those and NumPy calls, which s2s differentiates and batches like user code.
"""
from __future__ import annotations

import numpy as np

from ..api.entry_points import stop_gradient
from ..runtime.special import (
    betainc,
    digamma,
    erf,
    erfc,
    erfcinv,
    erfinv,
    gamma,
    gammainc,
    gammaincc,
    gammaln,
    gammasgn,
    i0,
    i0e,
    i1,
    i1e,
    iv,
    ive,
    j0,
    j1,
    jn,
    log_ndtr,
    ndtri,
    polygamma,
    rgamma,
    stdtr,
    y0,
    y1,
    yn,
)

__all__ = ["beta", "betainc", "betaln", "digamma", "entr", "erf", "erfc", "erfcinv", "erfinv", "expit", "gamma",
           "gammainc", "gammaincc", "gammaln", "gammasgn", "i0", "i0e", "i1", "i1e", "iv", "ive", "j0", "j1", "jn",
           "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi",
           "rgamma", "softmax", "stdtr", "xlog1py", "xlogy", "y0", "y1", "yn"]

_SQRT1_2 = 0.7071067811865476  # 1 / sqrt(2)
_LOG_PI = 1.1447298858494002


def expit(x):
    """The logistic function 1 / (1 + exp(-x)), as exp(-log(1 + exp(-x))): no overflow, and
    accurate relative to its value in both tails."""
    return np.exp(-np.logaddexp(0.0, -x))


def logit(x):
    """log(x / (1 - x)), the inverse of expit."""
    return np.log(x) - np.log1p(-x)


def ndtr(x):
    """The standard normal CDF, erfc(-x / sqrt(2)) / 2 (accurate in the lower tail)."""
    return 0.5 * erfc(-x * _SQRT1_2)


def xlogy(x, y):
    """x * log(y), 0 where x == 0 (whatever y is). Its derivative in x at x == 0 is log(y) (JAX's):
    only where log(y) is not finite is y replaced, by 1."""
    zero = (x + np.zeros_like(y)) == 0  # (an array of y's backend even for a number x: CuPy's where wants one)
    return x * np.log(np.where(zero & ~((y > 0) & (y < np.inf)), 1.0, y))


def xlog1py(x, y):
    """x * log1p(y), 0 where x == 0 (whatever y is); its derivative in x at x == 0 is log1p(y)."""
    zero = (x + np.zeros_like(y)) == 0  # (an array of y's backend even for a number x: CuPy's where wants one)
    return x * np.log1p(np.where(zero & ~((y > -1) & (y < np.inf)), 0.0, y))


def entr(x):
    """-x log(x) for x > 0, 0 at 0, -inf for x < 0."""
    pos = x > 0
    inside = -x * np.log(np.where(pos, x, 1.0))
    return np.where(pos, inside, np.where(x == 0, 0.0, -np.inf))


def betaln(a, b):
    """log |B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b)."""
    return gammaln(a) + gammaln(b) - gammaln(a + b)


def beta(a, b):
    """The beta function B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b): the sign of the three gammas
    times exp(betaln(a, b)), so no gamma overflows."""
    return gammasgn(a) * gammasgn(b) * gammasgn(a + b) * np.exp(betaln(a, b))


def psi(x):
    """The digamma function (SciPy's other name for it)."""
    return digamma(x)


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension `d` (a Python int):
    d (d - 1) / 4 log(pi) + sum_j gammaln(a - j / 2) for j = 0 .. d - 1."""
    out = 0.25 * d * (d - 1) * _LOG_PI
    for j in range(d):
        out = out + gammaln(a - 0.5 * j)
    return out


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """log(sum(b * exp(a))) over `axis` (all axes by default), shifted by the (constant) maximum so
    nothing overflows. With `return_sign`, (log |sum|, sign of the sum): `b` may be negative."""
    m = stop_gradient(np.max(a, axis=axis, keepdims=True))
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(a - m)
    if b is not None:
        e = b * e
    s = np.sum(e, axis=axis, keepdims=True)
    if return_sign:
        sign = stop_gradient(np.sign(s))
        out = np.log(np.abs(s)) + m
        if not keepdims:
            out = np.squeeze(out, axis=axis)
            sign = np.squeeze(sign, axis=axis)
        return out, sign
    out = np.log(s) + m
    if not keepdims:
        out = np.squeeze(out, axis=axis)
    return out


def softmax(x, axis=None):
    """exp(x) / sum(exp(x)) over `axis` (all axes by default), shifted by the constant maximum."""
    unnormalized = np.exp(x - stop_gradient(np.max(x, axis=axis, keepdims=True)))
    return unnormalized / np.sum(unnormalized, axis=axis, keepdims=True)


def log_softmax(x, axis=None):
    """x - logsumexp(x) over `axis` (all axes by default)."""
    shifted = x - stop_gradient(np.max(x, axis=axis, keepdims=True))
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
