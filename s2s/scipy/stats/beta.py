"""The beta distribution with shapes `a`, `b` on [loc, loc + scale] (jax.scipy.stats.beta)."""
from __future__ import annotations

import numpy as np

from ..special import betainc, betaln, xlog1py, xlogy

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, b, loc=0, scale=1):
    y = (x - loc) / scale
    inside = xlogy(a - 1, y) + xlog1py(b - 1, -y) - betaln(a, b) - np.log(scale)
    return np.where((y < 0) | (y > 1), -np.inf, inside)


def pdf(x, a, b, loc=0, scale=1):
    return np.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0, scale=1):
    """I_y(a, b) at y = (x - loc) / scale clipped to [0, 1] (differentiable in x, loc, scale; not a, b)."""
    return betainc(a, b, np.clip((x - loc) / scale, 0.0, 1.0))


def logcdf(x, a, b, loc=0, scale=1):
    return np.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    return betainc(b, a, np.clip((loc - x) / scale + 1.0, 0.0, 1.0))


def logsf(x, a, b, loc=0, scale=1):
    return np.log(sf(x, a, b, loc, scale))
