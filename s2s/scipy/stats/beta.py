"""The beta distribution with shapes `a`, `b` on [loc, loc + scale] (jax.scipy.stats.beta)."""
from __future__ import annotations

import numpy as np

from ..special import betaln, xlog1py, xlogy

__all__ = ["logpdf", "pdf"]


def logpdf(x, a, b, loc=0, scale=1):
    y = (x - loc) / scale
    inside = xlogy(a - 1, y) + xlog1py(b - 1, -y) - betaln(a, b) - np.log(scale)
    return np.where((y < 0) | (y > 1), -np.inf, inside)


def pdf(x, a, b, loc=0, scale=1):
    return np.exp(logpdf(x, a, b, loc, scale))
