"""The Poisson distribution with rate `mu` (jax.scipy.stats.poisson)."""
from __future__ import annotations

import numpy as np

from ..special import gammaln, xlogy

__all__ = ["logpmf", "pmf"]


def logpmf(k, mu, loc=0):
    x = k - loc
    inside = xlogy(x, mu) - gammaln(x + 1) - mu
    return np.where((x < 0) | (x != np.round(x)), -np.inf, inside)


def pmf(k, mu, loc=0):
    return np.exp(logpmf(k, mu, loc))
