"""The Laplace distribution (jax.scipy.stats.laplace)."""
from __future__ import annotations

import numpy as np

__all__ = ["cdf", "logpdf", "pdf"]

_LOG2 = 0.6931471805599453


def logpdf(x, loc=0, scale=1):
    return -_LOG2 - np.log(scale) - np.abs((x - loc) / scale)


def pdf(x, loc=0, scale=1):
    return np.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    z = (x - loc) / scale
    half_tail = 0.5 * np.exp(-np.abs(z))
    return np.where(z < 0, half_tail, 1.0 - half_tail)
