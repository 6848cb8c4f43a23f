"""The chi-squared distribution with `df` degrees of freedom (jax.scipy.stats.chi2): the gamma
distribution of shape df / 2 and scale 2."""
from __future__ import annotations

import numpy as np

from ..special import gammainc, gammaincc, gammaln, xlogy

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LOG2 = 0.6931471805599453


def logpdf(x, df, loc=0, scale=1):
    """(df/2 - 1) log y - y/2 - log Gamma(df/2) - (df/2) log 2 - log scale at y = (x - loc) / scale;
    -inf below the support."""
    y = (x - loc) / scale
    half = 0.5 * df
    inside = xlogy(half - 1, y) - 0.5 * y - gammaln(half) - half * _LOG2 - np.log(scale)
    return np.where(y < 0, -np.inf, inside)


def pdf(x, df, loc=0, scale=1):
    return np.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0, scale=1):
    """P(df/2, y/2), 0 below the support (differentiable in x, loc, scale; not df)."""
    return gammainc(0.5 * df, 0.5 * np.maximum((x - loc) / scale, 0.0))


def logcdf(x, df, loc=0, scale=1):
    return np.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    return gammaincc(0.5 * df, 0.5 * np.maximum((x - loc) / scale, 0.0))


def logsf(x, df, loc=0, scale=1):
    return np.log(sf(x, df, loc, scale))
