"""The Poisson distribution with rate `mu` (jax.scipy.stats.poisson)."""
from __future__ import annotations

import numpy as np

from ..special import gammaincc, gammaln, xlogy

__all__ = ["cdf", "logpmf", "pmf"]


def logpmf(k, mu, loc=0):
    x = k - loc
    inside = xlogy(x, mu) - gammaln(x + 1) - mu
    return np.where((x < 0) | (x != np.round(x)), -np.inf, inside)


def pmf(k, mu, loc=0):
    return np.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """P(K <= k) = Q(floor(k - loc) + 1, mu), 0 below the support (differentiable in mu)."""
    x = k - loc
    return np.where(x < 0, 0.0, gammaincc(np.floor(np.maximum(x, 0.0)) + 1.0, mu))
