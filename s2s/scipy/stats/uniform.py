"""The uniform distribution on [loc, loc + scale] (jax.scipy.stats.uniform)."""
from __future__ import annotations

import numpy as np

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


def logpdf(x, loc=0, scale=1):
    outside = (x < loc) | (x > loc + scale)
    return np.where(outside, -np.inf, -np.log(scale) + 0.0 * x)


def pdf(x, loc=0, scale=1):
    return np.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    return np.clip((x - loc) / scale, 0.0, 1.0)


def ppf(q, loc=0, scale=1):
    return np.where((q < 0) | (q > 1), np.nan, loc + q * scale)
