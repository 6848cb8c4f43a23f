"""The multivariate normal distribution (jax.scipy.stats.multivariate_normal): `x` of shape
(..., n), `mean` (n,), `cov` (n, n); a scalar or 1-element `cov` is a variance.

`allow_singular=True` (SciPy's and autograd's; JAX has none) reads a positive semidefinite `cov`
as SciPy does: by its eigenvalues, those below 1e6 machine epsilons of the largest counting as
zero; the density lives on the range of `cov` (the pseudo-inverse and pseudo-determinant, -inf
off it). It is differentiable in `x` and `mean`; a derivative in `cov` is refused (the rank may
change under any perturbation of a singular matrix)."""
from __future__ import annotations

import numpy as np

from ...runtime.special import singular_cov

__all__ = ["entropy", "logpdf", "pdf"]

_LOG_2PI = 1.8378770664093453
_RANK_TOL = 2.220446049250313e-10  # 1e6 float64 epsilons (SciPy's _PSD cut-off)


def _pseudo(cov):
    """(eigenvalues, eigenvectors, which eigenvalues count, log pseudo-determinant, rank, cut-off)."""
    s, u = np.linalg.eigh(singular_cov(cov))
    eps = _RANK_TOL * np.max(np.abs(s))
    keep = s > eps
    log_pdet = np.sum(np.where(keep, np.log(np.where(keep, s, 1.0)), 0.0))
    return s, u, keep, log_pdet, np.sum(keep), eps


def logpdf(x, mean, cov, allow_singular=None):
    """log N(x; mean, cov) = -(n log 2 pi + log det cov + d^T cov^-1 d) / 2 with d = x - mean (with
    `allow_singular`, the rank, pseudo-determinant and pseudo-inverse of cov)."""
    d = x - mean
    if np.ndim(cov) < 2:
        return -0.5 * (_LOG_2PI + np.log(cov) + d * d / cov)
    if allow_singular:
        s, u, keep, log_pdet, rank, eps = _pseudo(cov)
        proj = d @ u
        quad = np.sum(np.where(keep, proj * proj / np.where(keep, s, 1.0), 0.0), axis=-1)
        off = np.sum(np.where(keep, 0.0, proj * proj), axis=-1)  # |the part of d outside cov's range|^2
        out = -0.5 * (rank * _LOG_2PI + log_pdet + quad)
        return np.where(off < (1e3 * eps) ** 2, out, -np.inf)
    quad = np.sum(d * (d @ np.linalg.inv(cov)), axis=-1)  # (inv: vmap(grad) of a solve is not yet batched)
    return -0.5 * (np.shape(cov)[-1] * _LOG_2PI + np.linalg.slogdet(cov)[1] + quad)


def pdf(x, mean, cov, allow_singular=None):
    return np.exp(logpdf(x, mean, cov, allow_singular))


def entropy(mean, cov, allow_singular=None):
    """The differential entropy (n (1 + log 2 pi) + log det cov) / 2, which does not depend on
    `mean` (autograd's and SciPy's signature; with `allow_singular`, over the range of cov)."""
    if np.ndim(cov) < 2:
        return 0.5 * (1.0 + _LOG_2PI + np.log(cov))
    if allow_singular:
        _, _, _, log_pdet, rank, _ = _pseudo(cov)
        return 0.5 * (rank * (1.0 + _LOG_2PI) + log_pdet)
    return 0.5 * (np.shape(cov)[-1] * (1.0 + _LOG_2PI) + np.linalg.slogdet(cov)[1])
