"""The gamma distribution with shape `a` (jax.scipy.stats.gamma)."""
from __future__ import annotations

import numpy as np

from ..special import gammainc, gammaincc, gammaln, xlogy

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, loc=0, scale=1):
    y = (x - loc) / scale
    inside = xlogy(a - 1, y) - y - gammaln(a) - np.log(scale)
    return np.where(y < 0, -np.inf, inside)


def pdf(x, a, loc=0, scale=1):
    return np.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    """P(a, y) at y = (x - loc) / scale, 0 below the support (differentiable in x, loc, scale; not a)."""
    return gammainc(a, np.maximum((x - loc) / scale, 0.0))


def logcdf(x, a, loc=0, scale=1):
    return np.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    return gammaincc(a, np.maximum((x - loc) / scale, 0.0))


def logsf(x, a, loc=0, scale=1):
    return np.log(sf(x, a, loc, scale))
