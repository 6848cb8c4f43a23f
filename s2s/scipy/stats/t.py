"""Student's t distribution with `df` degrees of freedom (jax.scipy.stats.t; the CDFs are
autograd's and SciPy's: SciPy's stdtr, differentiable in x, loc and scale, not df)."""
from __future__ import annotations

import numpy as np

from ..special import gammaln, stdtr

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LOG_PI = 1.1447298858494002


def logpdf(x, df, loc=0, scale=1):
    z = (x - loc) / scale
    norm = gammaln(0.5 * (df + 1)) - gammaln(0.5 * df) - 0.5 * (np.log(df) + _LOG_PI) - np.log(scale)
    return norm - 0.5 * (df + 1) * np.log1p(z * z / df)


def pdf(x, df, loc=0, scale=1):
    return np.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0, scale=1):
    return stdtr(df, (x - loc) / scale)


def logcdf(x, df, loc=0, scale=1):
    return np.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    return stdtr(df, (loc - x) / scale)


def logsf(x, df, loc=0, scale=1):
    return np.log(sf(x, df, loc, scale))
