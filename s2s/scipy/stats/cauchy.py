"""The Cauchy distribution (jax.scipy.stats.cauchy)."""
from __future__ import annotations

import numpy as np

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]

_LOG_PI = 1.1447298858494002
_INV_PI = 0.3183098861837907


def logpdf(x, loc=0, scale=1):
    z = (x - loc) / scale
    return -_LOG_PI - np.log(scale) - np.log1p(z * z)


def pdf(x, loc=0, scale=1):
    return np.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    return 0.5 + _INV_PI * np.arctan((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    return np.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    return 0.5 - _INV_PI * np.arctan((x - loc) / scale)


def logsf(x, loc=0, scale=1):
    return np.log(sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    return loc + scale * np.tan(np.pi * (q - 0.5))


def isf(q, loc=0, scale=1):
    return loc + scale * np.tan(np.pi * (0.5 - q))
