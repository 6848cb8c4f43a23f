"""The gamma distribution with shape `a` (jax.scipy.stats.gamma)."""
from __future__ import annotations

import numpy as np

from ..special import gammaln, xlogy

__all__ = ["logpdf", "pdf"]


def logpdf(x, a, loc=0, scale=1):
    y = (x - loc) / scale
    inside = xlogy(a - 1, y) - y - gammaln(a) - np.log(scale)
    return np.where(y < 0, -np.inf, inside)


def pdf(x, a, loc=0, scale=1):
    return np.exp(logpdf(x, a, loc, scale))
