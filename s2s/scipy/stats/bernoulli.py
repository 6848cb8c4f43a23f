"""The Bernoulli distribution with success probability `p` (jax.scipy.stats.bernoulli)."""
from __future__ import annotations

import numpy as np

from ..special import xlog1py, xlogy

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def logpmf(k, p, loc=0):
    x = k - loc
    inside = xlogy(x, p) + xlog1py(1 - x, -p)
    return np.where((x < 0) | (x > 1), -np.inf, inside)


def pmf(k, p, loc=0):
    return np.exp(logpmf(k, p, loc))


def cdf(k, p):
    return np.where(k < 0, 0.0, np.where(k < 1, 1.0 - p, 1.0))


def ppf(q, p):
    return np.where((q < 0) | (q > 1), np.nan, np.where(q <= 1.0 - p, 0.0, 1.0))
