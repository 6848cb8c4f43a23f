"""np.linalg.lstsq's derivatives (rules_linalg): at full rank the solution is x = pinv(a) @ b for a
tall or a wide `a` alike, so its derivative is pinv's applied to b (and pinv(a) @ db); the sums of
squared residuals r = b - a @ x change by 2 r . (db - da @ x) (a's columns are orthogonal to r at
the optimum); the singular values as svdvals'. The rank has no derivative. A rank-deficient `a`
(under lstsq's rcond) is refused: there the solution jumps with the numerical rank.

The helpers are written with primitives (registered as composites), so s2s differentiates them
again: every order has rules.
"""
from __future__ import annotations

import numpy as np

from ..errors import S2SValueError
from .linalg import pinv_jvp, pinv_vjp, svdvals_jvp, svdvals_vjp

__all__ = ["lstsq_full_rank", "pinv_kept", "lstsq_jvp_a", "lstsq_jvp_b", "lstsq_vjp_a", "lstsq_vjp_b"]


def lstsq_full_rank(a, rank):
    """`a` itself, refused when lstsq found it rank-deficient (`rank` below its smaller side)."""
    if int(np.min(rank)) < min(np.shape(a)[-2:]):
        raise S2SValueError(f"the derivative of np.linalg.lstsq at a rank-deficient matrix (rank {int(np.min(rank))} "
                            f"of {min(np.shape(a)[-2:])}, under its rcond): the solution jumps with the numerical "
                            "rank there, so s2s does not differentiate it. Regularize the problem (a ridge term) "
                            "or drop dependent columns")
    return a


def pinv_kept(a, rcond, rtol, hermitian):
    """`a` itself, refused when np.linalg.pinv's cutoff (`rcond` or `rtol` times the largest
    singular value) drops one of its singular values: pinv's derivative rule is that of the full
    rank pseudo-inverse, and a dropped value changes it (the truncated factor's own derivative).
    Without either cutoff, NumPy's default (machine precision) is kept as before, with no check."""
    if rcond is None and rtol is None:
        return a
    cut = rtol if rcond is None else rcond
    s = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    dropped = s <= np.expand_dims(np.asarray(cut), -1) * np.max(s, axis=-1, keepdims=True)
    if np.any(dropped):
        raise S2SValueError(f"the derivative of np.linalg.pinv where its cutoff drops {int(np.sum(dropped))} singular "
                            "value(s): s2s's rule is that of the pseudo-inverse at full rank, and the truncated "
                            "one has another derivative. Lower rcond/rtol so that no value is dropped, or "
                            "regularize the matrix (a ridge term)")
    return a


def _columns(v, rows):
    """`v` (a vector or a matrix with `rows` rows) as a matrix."""
    return np.reshape(v, (rows, -1))


def lstsq_jvp_a(da, a, b, ans):
    """Tangent of lstsq(a, b)'s (x, residuals, rank, s) along `da`."""
    a_ = lstsq_full_rank(a, ans[2])
    m, n = np.shape(a)
    x2 = _columns(ans[0], n)
    dx = np.reshape(pinv_jvp(da, a_, np.linalg.pinv(a_)) @ _columns(b, m), np.shape(ans[0]))
    r = _columns(b, m) - a_ @ x2
    dres = (-2.0 * np.sum(r * (da @ x2), axis=0))[: np.size(ans[1])]
    return dx, dres, np.zeros_like(ans[2]), svdvals_jvp(da, a_)


def lstsq_jvp_b(db, a, b, ans):
    """Tangent of lstsq(a, b)'s (x, residuals, rank, s) along `db`."""
    a_ = lstsq_full_rank(a, ans[2])
    m, n = np.shape(a)
    dx = np.reshape(np.linalg.pinv(a_) @ _columns(db, m), np.shape(ans[0]))
    r = _columns(b, m) - a_ @ _columns(ans[0], n)
    dres = (2.0 * np.sum(r * _columns(db, m), axis=0))[: np.size(ans[1])]
    return dx, dres, np.zeros_like(ans[2]), np.zeros_like(ans[3])


def lstsq_vjp_a(g, a, b, ans):
    """Cotangent of `a` from the cotangents `g` of lstsq(a, b)'s (x, residuals, rank, s)."""
    a_ = lstsq_full_rank(a, ans[2])
    m, n = np.shape(a)
    b2, x2 = _columns(b, m), _columns(ans[0], n)
    ct = pinv_vjp(_columns(g[0], n) @ np.swapaxes(b2, -1, -2), a_, np.linalg.pinv(a_)) + svdvals_vjp(g[3], a_)
    if np.size(ans[1]) > 0:
        ct = ct - 2.0 * ((b2 - a_ @ x2) * g[1]) @ np.swapaxes(x2, -1, -2)
    return ct


def lstsq_vjp_b(g, a, b, ans):
    """Cotangent of `b` from the cotangents `g` of lstsq(a, b)'s (x, residuals, rank, s)."""
    a_ = lstsq_full_rank(a, ans[2])
    m, n = np.shape(a)
    ct = np.swapaxes(np.linalg.pinv(a_), -1, -2) @ _columns(g[0], n)
    if np.size(ans[1]) > 0:
        ct = ct + 2.0 * (_columns(b, m) - a_ @ _columns(ans[0], n)) * g[1]
    return np.reshape(ct, np.shape(b))
