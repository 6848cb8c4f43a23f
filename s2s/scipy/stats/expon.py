"""The exponential distribution (jax.scipy.stats.expon)."""
from __future__ import annotations

import numpy as np

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    z = (x - loc) / scale
    return np.where(z < 0, -np.inf, -z - np.log(scale))


def pdf(x, loc=0, scale=1):
    return np.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    z = (x - loc) / scale
    return np.where(z < 0, 0.0, -np.expm1(-np.maximum(z, 0.0)))


def logcdf(x, loc=0, scale=1):
    return np.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    z = (x - loc) / scale
    return np.where(z < 0, 1.0, np.exp(-np.maximum(z, 0.0)))


def logsf(x, loc=0, scale=1):
    z = (x - loc) / scale
    return np.where(z < 0, 0.0, -z)


def ppf(q, loc=0, scale=1):
    return loc - scale * np.log1p(-q)
