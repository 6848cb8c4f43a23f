"""The multivariate normal distribution (jax.scipy.stats.multivariate_normal): `x` of shape
(..., n), `mean` (n,), `cov` (n, n); a scalar or 1-element `cov` is a variance.

`allow_singular=True` (SciPy's and autograd's; JAX has none) reads a positive semidefinite `cov`
as SciPy does: by its eigenvalues, those below 1e6 machine epsilons of the largest counting as
zero; the density lives on the range of `cov` (its pseudo-inverse and pseudo-determinant, -inf
off it). Both are computed from the full-rank matrix P cov P + (I - P), with P the projector on
the range (a constant): so the derivative in `cov` is the one along perturbations within its
range (a singular matrix's rank changes under any other), autograd's `C^+ - C^+ d d^T C^+` form."""
from __future__ import annotations

import numpy as np

from ...api.entry_points import stop_gradient

__all__ = ["entropy", "logpdf", "pdf"]

_LOG_2PI = 1.8378770664093453
_RANK_TOL = 2.220446049250313e-10  # 1e6 float64 epsilons (SciPy's _PSD cut-off)


def _on_range(cov):
    """(P, P cov P + (I - P), rank, the eigenvalue cut-off) with P the projector on cov's range."""
    s, u = np.linalg.eigh(stop_gradient(cov))
    eps = _RANK_TOL * np.max(np.abs(s))
    keep = s > eps
    proj = (u * keep) @ np.swapaxes(u, -1, -2)
    return proj, proj @ cov @ proj + (np.eye(np.shape(cov)[-1]) - proj), np.sum(keep), eps


def logpdf(x, mean, cov, allow_singular=None):
    """log N(x; mean, cov) = -(n log 2 pi + log det cov + d^T cov^-1 d) / 2 with d = x - mean (with
    `allow_singular`, the rank, pseudo-determinant and pseudo-inverse of cov)."""
    d = x - mean
    if np.ndim(cov) < 2:
        return -0.5 * (_LOG_2PI + np.log(cov) + d * d / cov)
    if allow_singular:
        proj, full, rank, eps = _on_range(cov)
        inside = d @ proj
        quad = np.sum(inside * (inside @ np.linalg.inv(full)), axis=-1)
        off = np.sum((d - inside) * (d - inside), axis=-1)  # |the part of d outside cov's range|^2
        out = -0.5 * (rank * _LOG_2PI + np.linalg.slogdet(full)[1] + quad)
        return np.where(stop_gradient(off) < (1e3 * eps) ** 2, out, -np.inf)
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
        _, full, rank, _ = _on_range(cov)
        return 0.5 * (rank * (1.0 + _LOG_2PI) + np.linalg.slogdet(full)[1])
    return 0.5 * (np.shape(cov)[-1] * (1.0 + _LOG_2PI) + np.linalg.slogdet(cov)[1])
