"""Derivative helpers of norms, condition numbers and chained products (primitives/rules_linalg.py,
with linalg.py: the family's helpers in two modules of under 700 lines). Written with primitives,
so s2s differentiates them again for higher orders."""
from __future__ import annotations

import numpy as np

from ..errors import S2SValueError
from ._linalg_common import LETTERS, mm
from .core import on_backend_of
from .linalg import svdvals_jvp, svdvals_vjp

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("norm_is_matrix", "norm_grad", "matrix_norm_grad", "norm_vjp_any", "norm_jvp_any", "svd_check",
           "vecdot_spec", "vector_norm_vjp", "vector_norm_jvp", "cond_vjp", "cond_jvp", "multi_dot_vjp",
           "multi_dot_jvp")


def _norm_axes(x, axis):
    if axis is None:
        return tuple(range(np.ndim(x)))
    return (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)


def norm_is_matrix(x, ord, axis):
    return len(_norm_axes(x, axis)) == 2 and not (axis is None and ord is None)


def norm_grad(x, ans, ord, axis, keepdims, vector=False):
    """d norm(x, ord, axis) / dx, shaped like `x` (the derivative of each norm NumPy offers;
    at kinks the convention of the matching `abs`/`max` rule). `vector`: the entries along two
    axes are one vector (linalg.vector_norm), not a matrix."""
    ax = _norm_axes(x, axis)
    a = np.expand_dims(ans, ax) if not keepdims and axis is not None else np.reshape(ans, (1,) * np.ndim(x)) \
        if not keepdims else ans
    if norm_is_matrix(x, ord, axis) and not vector:
        return matrix_norm_grad(x, ord, ax)
    if ord is None or ord == 2:
        return x / np.where(a == 0, 1.0, a)
    if ord == 1:
        return np.sign(x)
    if ord == np.inf or ord == -np.inf:
        ab = np.abs(x)
        hit = (ab == a).astype(x.dtype)  # ties share the derivative; float, so float32 stays float32
        return np.sign(x) * hit / np.sum(hit, axis=ax, keepdims=True)
    if ord == 0:
        return np.zeros_like(x)
    ab = np.abs(x)
    return np.sign(x) * (ab / np.where(a == 0, 1.0, a)) ** (ord - 1)


def matrix_norm_grad(x, ord, ax):
    xm = np.moveaxis(x, ax, (-2, -1))
    if ord is None or ord == "fro":
        out = xm / np.expand_dims(np.expand_dims(np.sqrt(np.sum(xm * xm, axis=(-2, -1))), -1), -1)
    elif ord == "nuc":
        usv = np.linalg.svd(xm, full_matrices=False)
        out = mm(usv[0], usv[2])
    elif ord == 2 or ord == -2:
        usv = np.linalg.svd(xm, full_matrices=False)
        i = 0 if ord == 2 else -1
        out = np.expand_dims(usv[0][..., :, i], -1) * np.expand_dims(usv[2][..., i, :], -2)
    else:
        cols = ord in (1, -1)
        s = np.sum(np.abs(xm), axis=-2 if cols else -1, keepdims=True)
        best = np.max(s, axis=-1 if cols else -2, keepdims=True) if ord in (1, np.inf) else \
            np.min(s, axis=-1 if cols else -2, keepdims=True)
        hit = (s == best).astype(xm.dtype)
        out = np.sign(xm) * hit / np.sum(hit, axis=(-2, -1), keepdims=True)  # ties within each matrix share
    return np.moveaxis(out, (-2, -1), ax)


def norm_vjp_any(g, x, ans, ord, axis, keepdims, vector=False):
    ax = _norm_axes(x, axis)
    g = on_backend_of(g, x)
    gx = g if keepdims else np.expand_dims(g, ax) if axis is not None else np.reshape(g, (1,) * np.ndim(x))
    return gx * norm_grad(x, ans, ord, axis, keepdims, vector)


def norm_jvp_any(dx, x, ans, ord, axis, keepdims, vector=False):
    ax = _norm_axes(x, axis)
    return np.sum(dx * norm_grad(x, ans, ord, axis, keepdims, vector), axis=ax, keepdims=keepdims)


def svd_check(a, full_matrices, compute_uv):
    """The SVD rules cover the thin factorization (or the values alone)."""
    if compute_uv and full_matrices and np.shape(a)[-1] != np.shape(a)[-2]:
        raise S2SValueError("s2s differentiates np.linalg.svd of a non-square matrix with "
                            "full_matrices=False (or compute_uv=False) only")
    return full_matrices


def vecdot_spec(a, b, axis):
    """The einsum subscripts of `vecdot(a, b, axis=axis)` (broadcasting over the other axes)."""
    n = max(np.ndim(a), np.ndim(b))
    letters = LETTERS[:n]
    k = letters[axis % n]
    out = letters.replace(k, "")
    sa = letters[n - np.ndim(a):]
    sb = letters[n - np.ndim(b):]
    return sa + "," + sb + "->" + out


def vector_norm_vjp(g, x, ans, ord, axis, keepdims):
    """Cotangent of `linalg.vector_norm`: `axis=None` means every entry as one vector."""
    if axis is None:
        flat = np.ravel(x)
        return np.reshape(norm_vjp_any(np.reshape(g, ()), flat, np.reshape(ans, ()), ord, 0, False), np.shape(x))
    return norm_vjp_any(g, x, ans, ord, axis, keepdims, True)  # (two axes: one vector, not a matrix)


def vector_norm_jvp(dx, x, ans, ord, axis, keepdims):
    if axis is None:
        t = norm_jvp_any(np.ravel(dx), np.ravel(x), np.reshape(ans, ()), ord, 0, False)
        return np.reshape(t, np.shape(ans))
    return norm_jvp_any(dx, x, ans, ord, axis, keepdims, True)


def cond_vjp(g, x, ans, p):
    """Cotangent of `linalg.cond(x, p)`: through the singular values for p in (None, 2, -2),
    else through `norm(x, p) * norm(inv(x), p)`. (s2s differentiates this source at higher orders,
    so it calls `np.*` functions every array library has: generated code reaches the arguments' library.)"""
    if p is None or p == 2 or p == -2:
        s = np.linalg.svd(x, compute_uv=False)
        n = np.shape(s)[-1]
        hi = s[..., :1]
        lo = s[..., -1:]
        pos = np.cumsum(np.ones_like(s), axis=-1)  # 1..n along the last axis, in s's module
        first = pos == 1
        last = pos == n
        ds = first / lo - last * hi / (lo * lo)
        if p == -2:
            ds = last / hi - first * lo / (hi * hi)
        return svdvals_vjp(np.expand_dims(on_backend_of(g, x), -1) * ds, x)
    xi = np.linalg.inv(x)
    n1 = np.linalg.norm(x, p, (-2, -1))
    n2 = np.linalg.norm(xi, p, (-2, -1))
    gx = norm_vjp_any(g * n2, x, n1, p, (-2, -1), False)
    gi = norm_vjp_any(g * n1, xi, n2, p, (-2, -1), False)
    xit = np.swapaxes(xi, -1, -2)
    return gx - mm(xit, mm(gi, xit))


def cond_jvp(dx, x, ans, p):
    if p is None or p == 2 or p == -2:
        s = np.linalg.svd(x, compute_uv=False)
        ds = svdvals_jvp(dx, x)
        hi = s[..., 0]
        lo = s[..., -1]
        if p == -2:
            return ds[..., -1] / hi - lo * ds[..., 0] / (hi * hi)
        return ds[..., 0] / lo - hi * ds[..., -1] / (lo * lo)
    xi = np.linalg.inv(x)
    dxi = -mm(xi, mm(dx, xi))
    n1 = np.linalg.norm(x, p, (-2, -1))
    n2 = np.linalg.norm(xi, p, (-2, -1))
    return norm_jvp_any(dx, x, n1, p, (-2, -1), False) * n2 + n1 * norm_jvp_any(dxi, xi, n2, p, (-2, -1), False)


def _chain(mats, lo, hi):
    """mats[lo] @ ... @ mats[hi - 1] (None when empty)."""
    if hi <= lo:
        return None
    out = mats[lo]
    for j in range(lo + 1, hi):
        out = out @ mats[j]
    return out


def _chain_mats(arrays):
    """The operands of a multi_dot as matrices: a 1-D first one a row, a 1-D last one a column."""
    k = len(arrays)
    mats = []
    for i in range(k):
        m = arrays[i]
        if i == 0 and np.ndim(m) == 1:
            m = np.expand_dims(m, 0)
        if i == k - 1 and np.ndim(m) == 1:
            m = np.expand_dims(m, 1)
        mats.append(m)
    return mats


def multi_dot_vjp(g, arrays):
    """Cotangents of the operands of `np.linalg.multi_dot(arrays)`: left.T @ g @ right.T each."""
    mats = _chain_mats(arrays)
    k = len(mats)
    gm = np.reshape(g, (np.shape(mats[0])[0], np.shape(mats[k - 1])[1]))
    out = []
    for i in range(k):
        ct = gm
        right = _chain(mats, i + 1, k)
        if right is not None:
            ct = ct @ np.swapaxes(right, -1, -2)
        left = _chain(mats, 0, i)
        if left is not None:
            ct = np.swapaxes(left, -1, -2) @ ct
        out.append(np.reshape(ct, np.shape(arrays[i])))
    return out


def multi_dot_jvp(tangents, arrays):
    """Tangent of `np.linalg.multi_dot(arrays)`: one term per operand's tangent."""
    k = len(arrays)
    total = 0.0
    for i in range(k):
        parts = []
        for j in range(k):
            if j == i:
                parts.append(tangents[j])
            else:
                parts.append(arrays[j])
        chain = parts[0]
        for part in parts[1:]:
            chain = np.dot(chain, part)
        total = total + chain
    return total
