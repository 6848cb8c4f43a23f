"""The Dirichlet distribution with concentrations `alpha` (K,) (jax.scipy.stats.dirichlet): `x`
has the K components on its first axis (K - 1 of them: the last is 1 minus their sum)."""
from __future__ import annotations

import numpy as np

from ..special import gammaln, xlogy

__all__ = ["logpdf", "pdf"]


def logpdf(x, alpha):
    if np.shape(x)[0] == np.shape(alpha)[0] - 1:
        x = np.concatenate([x, 1.0 - np.sum(x, axis=0, keepdims=True)], axis=0)
    xs = np.moveaxis(x, 0, -1)
    norm = gammaln(np.sum(alpha)) - np.sum(gammaln(alpha))
    inside = np.sum(xlogy(alpha - 1, xs), axis=-1) + norm
    simplex = np.all(xs >= 0, axis=-1) & (np.abs(np.sum(xs, axis=-1) - 1.0) < 1e-6)
    return np.where(simplex, inside, -np.inf)


def pdf(x, alpha):
    return np.exp(logpdf(x, alpha))
