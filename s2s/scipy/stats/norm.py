"""The normal distribution with mean `loc` and standard deviation `scale` (jax.scipy.stats.norm)."""
from __future__ import annotations

import numpy as np

from ..special import log_ndtr, ndtr, ndtri

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]

_HALF_LOG_2PI = 0.9189385332046727


def logpdf(x, loc=0, scale=1):
    z = (x - loc) / scale
    return -0.5 * z * z - np.log(scale) - _HALF_LOG_2PI


def pdf(x, loc=0, scale=1):
    return np.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    return ndtr((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    return log_ndtr((x - loc) / scale)


def sf(x, loc=0, scale=1):
    return ndtr((loc - x) / scale)


def logsf(x, loc=0, scale=1):
    return log_ndtr((loc - x) / scale)


def ppf(q, loc=0, scale=1):
    return ndtri(q) * scale + loc


def isf(q, loc=0, scale=1):
    return loc - ndtri(q) * scale
