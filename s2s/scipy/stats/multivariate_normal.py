"""The multivariate normal distribution (jax.scipy.stats.multivariate_normal): `x` of shape
(..., n), `mean` (n,), `cov` (n, n); a scalar or 1-element `cov` is a variance."""
from __future__ import annotations

import numpy as np

__all__ = ["logpdf", "pdf"]

_LOG_2PI = 1.8378770664093453


def logpdf(x, mean, cov, allow_singular=None):
    """log N(x; mean, cov) = -(n log 2 pi + log det cov + d^T cov^-1 d) / 2 with d = x - mean."""
    d = x - mean
    if np.ndim(cov) < 2:
        out = -0.5 * (_LOG_2PI + np.log(cov) + d * d / cov)
    else:
        quad = np.sum(d * (d @ np.linalg.inv(cov)), axis=-1)  # (inv: vmap(grad) of a solve is not yet batched)
        out = -0.5 * (np.shape(cov)[-1] * _LOG_2PI + np.linalg.slogdet(cov)[1] + quad)
    return out

def pdf(x, mean, cov, allow_singular=None):
    return np.exp(logpdf(x, mean, cov))
