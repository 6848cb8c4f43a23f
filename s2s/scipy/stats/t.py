"""Student's t distribution with `df` degrees of freedom (jax.scipy.stats.t)."""
from __future__ import annotations

import numpy as np

from ..special import gammaln

__all__ = ["logpdf", "pdf"]

_LOG_PI = 1.1447298858494002


def logpdf(x, df, loc=0, scale=1):
    z = (x - loc) / scale
    norm = gammaln(0.5 * (df + 1)) - gammaln(0.5 * df) - 0.5 * (np.log(df) + _LOG_PI) - np.log(scale)
    return norm - 0.5 * (df + 1) * np.log1p(z * z / df)


def pdf(x, df, loc=0, scale=1):
    return np.exp(logpdf(x, df, loc, scale))
