"""The logistic distribution (jax.scipy.stats.logistic)."""
from __future__ import annotations

import numpy as np

from ..special import expit, logit

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    z = (x - loc) / scale
    return -z - 2.0 * np.logaddexp(0.0, -z) - np.log(scale)


def pdf(x, loc=0, scale=1):
    return np.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    return expit((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    return -np.logaddexp(0.0, (loc - x) / scale)


def sf(x, loc=0, scale=1):
    return expit((loc - x) / scale)


def logsf(x, loc=0, scale=1):
    return -np.logaddexp(0.0, (x - loc) / scale)


def ppf(q, loc=0, scale=1):
    return loc + scale * logit(q)


def isf(q, loc=0, scale=1):
    return loc - scale * logit(q)
