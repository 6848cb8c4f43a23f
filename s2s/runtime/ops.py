"""Runtime helpers for the NumPy coverage rules (linear algebra, shapes, reductions).

Generated code reaches them as `rt.<name>` (s2s.runtime re-exports this module). Two kinds:
plain helpers written with NumPy functions that have rules, so s2s differentiates their source
for higher orders, and primitives (declared in the rules_* tables) with their own rules. Each
uses NumPy functions and array methods, which dispatch to the array's own module.
"""
from __future__ import annotations

import string

import numpy as np

from ..errors import S2SValueError
from . import core as _rt

# ---- einsum: every cotangent is another einsum (plus constant ones/identity factors) ----

_LETTERS = string.ascii_letters


def _einsum_parse(subscripts, ops):
    """Explicit per-operand subscripts and output, with '...' replaced by letters."""
    spec = subscripts.replace(" ", "")
    ins, arrow, out = spec.partition("->")
    parts = ins.split(",")
    used = set(spec) - set(".,->")
    free = [c for c in _LETTERS if c not in used]
    nell = max((np.ndim(o) - len(p.replace("...", "")) for p, o in zip(parts, ops) if "..." in p), default=0)
    ell = "".join(free[:nell])
    full = []
    for p, o in zip(parts, ops):
        if "..." in p:
            k = np.ndim(o) - len(p.replace("...", ""))
            p = p.replace("...", ell[nell - k:] if k else "")
        full.append(p)
    if not arrow:
        counts = {c: "".join(full).count(c) for c in set("".join(full))}
        out = ell + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell))
    else:
        out = out.replace("...", ell)
    return full, out


def _present(*ops):
    return [o for o in ops if o is not None]


def einsum_n(spec, a, b=None, c=None, d=None, e=None, f=None, g_=None, h=None):
    """`einsum(spec, ...)` over the operands that are not None (at most seven: the output
    cotangent and six operands; `h` is set only when the user passed more than six)."""
    if h is not None:
        raise S2SValueError("s2s differentiates np.einsum with at most 6 operands")
    return np.einsum(spec, *_present(a, b, c, d, e, f, g_))


def einsum_spec1(subscripts, k, a, b=None, c=None, d=None, e=None, f=None):
    """Subscripts of the contraction of the output cotangent with every operand but `k`."""
    ops = _present(a, b, c, d, e, f)
    full, out = _einsum_parse(subscripts, ops)
    others = [p for i, p in enumerate(full) if i != k]
    avail = set(out).union(*others) if others else set(out)
    target = "".join(dict.fromkeys(c for c in full[k] if c in avail))
    return ",".join([out] + others) + "->" + target


def einsum_spec2(subscripts, k, a, b=None, c=None, d=None, e=None, f=None):
    """Subscripts that spread the contraction back over operand `k`'s axes: axes only `k` has
    get ones, a repeated index becomes a diagonal (an identity factor)."""
    ops = _present(a, b, c, d, e, f)
    full, out = _einsum_parse(subscripts, ops)
    others = [p for i, p in enumerate(full) if i != k]
    avail = set(out).union(*others) if others else set(out)
    target = "".join(dict.fromkeys(c for c in full[k] if c in avail))
    used = set("".join(full) + out)
    free = iter(c for c in _LETTERS if c not in used)
    seen, res, const = set(), "", ""
    for c in full[k]:
        if c in seen:
            n = next(free)
            res += n
            const += c + n
        else:
            seen.add(c)
            res += c
            if c not in avail:
                const += c
    return target + "," + const + "->" + res


def einsum_const(subscripts, k, a, b=None, c=None, d=None, e=None, f=None):
    """The constant factor for `einsum_spec2`: ones over axes only operand `k` has, identities
    over repeated indices (a 0-d one when there are none)."""
    ops = _present(a, b, c, d, e, f)
    full, out = _einsum_parse(subscripts, ops)
    others = [p for i, p in enumerate(full) if i != k]
    avail = set(out).union(*others) if others else set(out)
    sizes = dict(zip(full[k], np.shape(ops[k])))
    dt = _float(ops[k])
    xp = _rt.namespace(ops[k])
    result = xp.ones((), dtype=dt)
    seen = set()
    for c in full[k]:
        if c in seen:
            result = xp.multiply.outer(result, xp.eye(sizes[c], dtype=dt))
        else:
            seen.add(c)
            if c not in avail:
                result = xp.multiply.outer(result, xp.ones(sizes[c], dtype=dt))
    return result


def _eye_like(x, n):
    """The n-by-n identity in `x`'s array module and dtype: built from `ones_like` of `x` (never
    allocated with NumPy by name), so CuPy arrays stay CuPy and s2s still differentiates its callers."""
    return np.triu(np.tril(np.ones_like(x, shape=(n, n))))


def _float(x):
    dt = getattr(x, "dtype", None)
    return dt if dt is not None and dt.kind in "fc" else np.float64


def tensordot_spec(a, b, axes=2):
    """The einsum subscripts of `tensordot(a, b, axes)`."""
    na, nb = np.ndim(a), np.ndim(b)
    if isinstance(axes, (int, np.integer)):
        ax_a, ax_b = list(range(na - axes, na)), list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, (int, np.integer)) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, (int, np.integer)) else list(ax_b)
    ax_a = [i % na for i in ax_a]
    ax_b = [i % nb for i in ax_b]
    sa = _LETTERS[:na]
    sb = list(_LETTERS[na:na + nb])
    for i, j in zip(ax_a, ax_b):
        sb[j] = sa[i]
    sb = "".join(sb)
    out = "".join(c for i, c in enumerate(sa) if i not in ax_a) + "".join(c for j, c in enumerate(sb) if j not in ax_b)
    return sa + "," + sb + "->" + out


def inner_spec(a, b):
    """The einsum subscripts of `inner(a, b)` (a scalar operand multiplies)."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        return tensordot_spec(a, b, 0)
    return tensordot_spec(a, b, ([na - 1], [nb - 1]))


def kron_spec(a, b, k):
    """Subscripts for the cotangent of operand `k` of `kron(a, b)` from the interleaved cotangent."""
    n = max(np.ndim(a), np.ndim(b))
    sa, sb = _LETTERS[:n], _LETTERS[n:2 * n]
    inter = "".join(x + y for x, y in zip(sa, sb))
    return inter + "," + (sb + "->" + sa if k == 0 else sa + "->" + sb)


def kron_shape(a, b):
    n = max(np.ndim(a), np.ndim(b))
    sa = (1,) * (n - np.ndim(a)) + np.shape(a)
    sb = (1,) * (n - np.ndim(b)) + np.shape(b)
    return tuple(d for pair in zip(sa, sb) for d in pair)


def kron_pad(x, other):
    """`x` with leading axes of length 1 up to `kron`'s rank."""
    n = max(np.ndim(x), np.ndim(other))
    return np.reshape(x, (1,) * (n - np.ndim(x)) + np.shape(x))


# ---- linear algebra: written with primitives, so s2s differentiates them again ----

def _mm(x, y):
    """`x @ y` for stacks of matrices (the operator's rules keep batch axes apart)."""
    return x @ y


def mT(x):
    return np.swapaxes(x, -1, -2)


def expand2(x):
    """`x` with two trailing axes of length 1 (scales a stack of matrices)."""
    return np.expand_dims(np.expand_dims(x, -1), -1)


def solve_vjp_a(g, a, ans):
    gb = np.linalg.solve(np.swapaxes(a, -1, -2), g)
    if np.ndim(ans) == 1:
        return -np.outer(gb, ans)
    return -_mm(gb, np.swapaxes(ans, -1, -2))


def _lower_half(x):
    """The lower triangle of `x` with its diagonal halved."""
    return np.tril(x) - 0.5 * x * _eye_like(x, np.shape(x)[-1])


def cholesky_jvp(da, ans):
    x = np.linalg.solve(ans, np.swapaxes(np.linalg.solve(ans, da), -1, -2))
    return _mm(ans, _lower_half(x))


def cholesky_vjp(g, ans):
    p = _lower_half(_mm(np.swapaxes(ans, -1, -2), g))
    x = np.linalg.solve(np.swapaxes(ans, -1, -2), p)
    out = np.swapaxes(np.linalg.solve(np.swapaxes(ans, -1, -2), np.swapaxes(x, -1, -2)), -1, -2)
    return 0.5 * (out + np.swapaxes(out, -1, -2))


def _gap_inverse(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    n = np.shape(w)[-1]
    eye = _eye_like(w, n)
    d = np.expand_dims(w, -2) - np.expand_dims(w, -1)
    return (1 - eye) / (d + eye)


def eigh_jvp(da, a, ans):
    w = ans[0]
    v = ans[1]
    m = _mm(np.swapaxes(v, -1, -2), _mm(da, v))
    dw = np.diagonal(m, 0, -2, -1)
    dv = _mm(v, _gap_inverse(w) * m)
    return (dw, dv)


def eigh_vjp(g, a, ans):
    w = ans[0]
    v = ans[1]
    gw = g[0]
    gv = g[1]
    eye = _eye_like(w, np.shape(w)[-1])
    inner = _gap_inverse(w) * _mm(np.swapaxes(v, -1, -2), gv) + np.expand_dims(gw, -1) * eye
    out = _mm(v, _mm(inner, np.swapaxes(v, -1, -2)))
    return 0.5 * (out + np.swapaxes(out, -1, -2))


def eigvalsh_vjp(g, a):
    ans = np.linalg.eigh(a)
    v = ans[1]
    out = _mm(v * np.expand_dims(g, -2), np.swapaxes(v, -1, -2))
    return 0.5 * (out + np.swapaxes(out, -1, -2))


def eigvalsh_jvp(da, a):
    ans = np.linalg.eigh(a)
    v = ans[1]
    return np.diagonal(_mm(np.swapaxes(v, -1, -2), _mm(da, v)), 0, -2, -1)


def svdvals_vjp(g, a):
    ans = np.linalg.svd(a, full_matrices=False)
    return _mm(ans[0] * np.expand_dims(g, -2), ans[2])


def svdvals_jvp(da, a):
    ans = np.linalg.svd(a, full_matrices=False)
    return np.diagonal(_mm(np.swapaxes(ans[0], -1, -2), _mm(da, np.swapaxes(ans[2], -1, -2))), 0, -2, -1)


def svd_vjp(g, a, ans, full_matrices, compute_uv):
    """Cotangent of the thin SVD (distinct singular values), or of the values alone."""
    if not compute_uv:
        return svdvals_vjp(g, a)
    u = ans[0]
    s = ans[1]
    vh = ans[2]
    gu = g[0]
    gs = g[1]
    gvh = g[2]
    v = np.swapaxes(vh, -1, -2)
    gv = np.swapaxes(gvh, -1, -2)
    ut = np.swapaxes(u, -1, -2)
    f = _gap_inverse(s * s)
    j = f * (_mm(ut, gu) - _mm(np.swapaxes(gu, -1, -2), u))
    k = f * (_mm(vh, gv) - _mm(np.swapaxes(gv, -1, -2), v))
    sm = np.expand_dims(s, -2)
    core = j * sm + np.expand_dims(gs, -1) * _eye_like(s, np.shape(s)[-1]) + np.expand_dims(s, -1) * k
    out = _mm(u, _mm(core, vh))
    m = np.shape(a)[-2]
    n = np.shape(a)[-1]
    if m > n:
        out = out + _mm(gu - _mm(u, _mm(ut, gu)), vh / np.expand_dims(s, -1))
    if n > m:
        out = out + _mm(u / sm, np.swapaxes(gv - _mm(v, _mm(vh, gv)), -1, -2))
    return out


def svd_jvp(da, a, ans, full_matrices, compute_uv):
    if not compute_uv:
        return svdvals_jvp(da, a)
    u = ans[0]
    s = ans[1]
    vh = ans[2]
    v = np.swapaxes(vh, -1, -2)
    ut = np.swapaxes(u, -1, -2)
    p = _mm(ut, _mm(da, v))
    ds = np.diagonal(p, 0, -2, -1)
    f = _gap_inverse(s * s)
    sm = np.expand_dims(s, -2)
    sc = np.expand_dims(s, -1)
    pt = np.swapaxes(p, -1, -2)
    du = _mm(u, f * (p * sm + sc * pt))
    dv = _mm(v, f * (sc * p + pt * sm))
    m = np.shape(a)[-2]
    n = np.shape(a)[-1]
    if m > n:
        du = du + _mm(da - _mm(u, _mm(ut, da)), v / sm)
    if n > m:
        dv = dv + _mm(np.swapaxes(da, -1, -2) - _mm(v, _mm(vh, np.swapaxes(da, -1, -2))), u / sm)
    return (du, ds, np.swapaxes(dv, -1, -2))


def qr_jvp(da, a, ans):
    q = ans[0]
    r = ans[1]
    rinv_t = np.linalg.inv(r)
    c = _mm(np.swapaxes(q, -1, -2), _mm(da, rinv_t))
    low = np.tril(c, -1)
    omega = low - np.swapaxes(low, -1, -2)
    dq = _mm(q, omega) + _mm(da - _mm(q, _mm(np.swapaxes(q, -1, -2), da)), rinv_t)
    dr = _mm(c - omega, r)
    return (dq, dr)


def qr_vjp(g, a, ans):
    q = ans[0]
    r = ans[1]
    gq = g[0]
    gr = g[1]
    m = _mm(r, np.swapaxes(gr, -1, -2)) - _mm(np.swapaxes(gq, -1, -2), q)
    low = np.tril(m, -1)
    sym = low + np.swapaxes(low, -1, -2) + m * _eye_like(m, np.shape(m)[-1])
    b = gq + _mm(q, sym)
    return np.swapaxes(np.linalg.solve(r, np.swapaxes(b, -1, -2)), -1, -2)


def pinv_jvp(da, a, ans):
    p = ans
    dat = np.swapaxes(da, -1, -2)
    pt = np.swapaxes(p, -1, -2)
    ap = _mm(a, p)
    pa = _mm(p, a)
    eye_m = _eye_like(a, np.shape(a)[-2])
    eye_n = _eye_like(a, np.shape(a)[-1])
    return (-_mm(p, _mm(da, p)) + _mm(_mm(p, pt), _mm(dat, eye_m - ap))
            + _mm(eye_n - pa, _mm(dat, _mm(pt, p))))


def pinv_vjp(g, a, ans):
    p = ans
    pt = np.swapaxes(p, -1, -2)
    gt = np.swapaxes(g, -1, -2)
    eye_m = _eye_like(a, np.shape(a)[-2])
    eye_n = _eye_like(a, np.shape(a)[-1])
    ap = _mm(a, p)
    pa = _mm(p, a)
    return (-_mm(pt, _mm(g, pt)) + _mm(eye_m - ap, _mm(gt, _mm(p, pt)))
            + _mm(_mm(pt, p), _mm(gt, eye_n - pa)))


def matrix_power_jvp(da, a, n):
    if n < 0:
        b = np.linalg.inv(a)
        db = -_mm(b, _mm(da, b))
        return matrix_power_jvp(db, b, -n)
    out = np.zeros_like(da)
    for k in range(n):
        out = out + _mm(np.linalg.matrix_power(a, k), _mm(da, np.linalg.matrix_power(a, n - 1 - k)))
    return out


def matrix_power_vjp(g, a, n):
    if n < 0:
        b = np.linalg.inv(a)
        gb = matrix_power_vjp(g, b, -n)
        bt = np.swapaxes(b, -1, -2)
        return -_mm(bt, _mm(gb, bt))
    at = np.swapaxes(a, -1, -2)
    out = np.zeros_like(g)
    for k in range(n):
        out = out + _mm(np.linalg.matrix_power(at, k), _mm(g, np.linalg.matrix_power(at, n - 1 - k)))
    return out


def _norm_axes(x, axis):
    if axis is None:
        return tuple(range(np.ndim(x)))
    return (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)


def norm_is_matrix(x, ord, axis):
    return len(_norm_axes(x, axis)) == 2 and not (axis is None and ord is None)


def norm_grad(x, ans, ord, axis, keepdims):
    """d norm(x, ord, axis) / dx, shaped like `x` (the derivative of each norm NumPy offers;
    at kinks the convention of the matching `abs`/`max` rule)."""
    ax = _norm_axes(x, axis)
    a = np.expand_dims(ans, ax) if not keepdims and axis is not None else np.reshape(ans, (1,) * np.ndim(x)) \
        if not keepdims else ans
    if norm_is_matrix(x, ord, axis):
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
        out = _mm(usv[0], usv[2])
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
        out = np.sign(xm) * hit / np.sum(hit)
    return np.moveaxis(out, (-2, -1), ax)


def norm_vjp_any(g, x, ans, ord, axis, keepdims):
    ax = _norm_axes(x, axis)
    g = _rt.on_backend_of(g, x)
    gx = g if keepdims else np.expand_dims(g, ax) if axis is not None else np.reshape(g, (1,) * np.ndim(x))
    return gx * norm_grad(x, ans, ord, axis, keepdims)


def norm_jvp_any(dx, x, ans, ord, axis, keepdims):
    ax = _norm_axes(x, axis)
    return np.sum(dx * norm_grad(x, ans, ord, axis, keepdims), axis=ax, keepdims=keepdims)


# ---- shapes and indexing: linear maps and their transposes ----

def sort_perm(a, axis):
    return np.argsort(a, axis=axis, kind="stable") if axis is not None else np.argsort(a, axis=None, kind="stable")


def sort_jvp(v, a, axis):
    """`v` permuted as `sort(a, axis)` permutes `a`."""
    if axis is None:
        return np.ravel(v)[sort_perm(a, None)]
    return np.take_along_axis(v, sort_perm(a, axis), axis=axis)


def sort_vjp(v, a, axis):
    """Transpose of `sort_jvp`: put each entry back where it came from."""
    return _put_back(v, a, sort_perm(a, axis), axis)


def partition_perm(a, kth, axis):
    return np.argpartition(a, kth, axis=axis)


def partition_jvp(v, a, kth, axis):
    if axis is None:
        return np.ravel(v)[partition_perm(np.ravel(a), kth, 0)]
    return np.take_along_axis(v, partition_perm(a, kth, axis), axis=axis)


def partition_vjp(v, a, kth, axis):
    return _put_back(v, a, partition_perm(np.ravel(a), kth, 0) if axis is None else partition_perm(a, kth, axis), axis)


def _put_back(v, a, perm, axis):
    """Transpose of taking `a` in the order `perm` (a permutation along `axis`, or of the
    flattened array): each entry of `v` written to the slot it came from (no `flat` or
    `put_along_axis`, which not every backend has)."""
    if axis is None:
        out = _rt.zeros(np.size(a), v)
        out[perm] = np.ravel(v)
        return out.reshape(np.shape(a))
    if type(v) is np.ndarray:  # NumPy: a plain write (add.at, the general path, is slower)
        out = np.zeros(np.shape(a), dtype=_float(v))
        np.put_along_axis(out, perm, v, axis=axis)
        return out
    return take_along_vjp(v, a, perm, axis)


def take_vjp(v, a, indices, axis):
    """Transpose of `take(a, indices, axis)`: add each cotangent into the slot it was read from."""
    out = _rt.zeros(np.shape(a), v)
    if axis is None:
        return _rt.scatter_add(out.reshape(-1), np.ravel(indices), np.ravel(v)).reshape(np.shape(a))
    ax = axis % np.ndim(a)
    moved = np.moveaxis(out, ax, 0)
    k = np.ndim(indices)
    vi = np.moveaxis(np.reshape(v, np.shape(a)[:ax] + np.shape(indices) + np.shape(a)[ax + 1:]),
                     tuple(range(ax, ax + k)), tuple(range(k)))
    return np.moveaxis(_rt.scatter_add(moved, indices, vi), 0, ax)


def take_along_vjp(v, a, indices, axis):
    out = _rt.zeros(np.shape(a), v)
    if axis is None:
        return _rt.scatter_add(out.reshape(-1), np.ravel(indices), np.ravel(v)).reshape(np.shape(a))
    axis = axis % np.ndim(a)
    idx = list(np.ix_(*[np.arange(n) for n in np.shape(indices)]))
    idx[axis] = indices
    return _rt.scatter_add(out, tuple(np.broadcast_arrays(*idx)), v)


def gather_vjp(v, like, index_map):
    """Transpose of `ravel(like)[index_map]` with -1 meaning 'a constant': add back."""
    out = _rt.zeros(np.size(like), v)
    m = np.ravel(index_map)
    keep = m >= 0
    return _rt.scatter_add(out, m[keep], np.ravel(v)[keep]).reshape(np.shape(like))


def pad_map(array, pad_width, mode):
    """Where each entry of `pad(array, pad_width, mode)` comes from (-1: the constant)."""
    if mode not in ("constant", "edge", "reflect", "symmetric", "wrap"):
        raise S2SValueError(f"s2s differentiates np.pad with mode constant, edge, reflect, symmetric or wrap, "
                            f"not {mode!r}")
    idx = np.arange(np.size(array)).reshape(np.shape(array))
    if mode == "constant":
        return np.pad(idx, pad_width, mode="constant", constant_values=-1)
    return np.pad(idx, pad_width, mode=mode)


def pad_vjp(v, array, pad_width, mode):
    return gather_vjp(v, array, pad_map(array, pad_width, mode))


def pad_jvp(v, array, pad_width, mode):
    return np.pad(v, pad_width, mode=mode)


def diagonal_vjp(v, a, offset, axis1, axis2):
    """Transpose of `diagonal(a, offset, axis1, axis2)`: `v` written onto that diagonal of zeros."""
    out = _rt.zeros(np.shape(a), v)
    n = np.shape(v)[-1]
    rows = np.arange(n) + max(-offset, 0)
    cols = np.arange(n) + max(offset, 0)
    try:
        np.moveaxis(out, (axis1, axis2), (-2, -1))[..., rows, cols] = v
    except NotImplementedError:  # Dask assigns through one index array at most: add into zeros instead
        moved = _rt.scatter_add(np.moveaxis(out, (axis1, axis2), (-2, -1)), (Ellipsis, rows, cols), v)
        return np.moveaxis(moved, (-2, -1), (axis1, axis2))
    return out


def split_axis(ary, which):
    """The axis of `hsplit`/`vsplit`/`dsplit` (`which` 'h', 'v' or 'd')."""
    if which == "h":
        return 0 if np.ndim(ary) == 1 else 1
    return 0 if which == "v" else 2


def split_vjp(v, ary, axis):
    """Transpose of `split`: the pieces' cotangents joined again (zeros for unused pieces)."""
    return np.concatenate([_rt.asarray(p) for p in v], axis=axis)


def split_jvp(v, ary, indices_or_sections, axis):
    return np.array_split(v, indices_or_sections, axis=axis)


def column_stack_vjp(v, tup):
    out, start = [], 0
    for t in tup:
        k = 1 if np.ndim(t) < 2 else np.shape(t)[1]
        out.append(np.reshape(v[:, start:start + k], np.shape(t)))
        start += k
    return out


def dstack_vjp(v, tup):
    out, start = [], 0
    for t in tup:
        k = 1 if np.ndim(t) < 3 else np.shape(t)[2]
        out.append(np.reshape(v[:, :, start:start + k], np.shape(t)))
        start += k
    return out


def rollaxis_vjp(v, a, axis, start):
    """Transpose of `rollaxis(a, axis, start)`: the inverse permutation."""
    n = np.ndim(a)
    order = list(range(n))
    ax = axis % n
    st = start + n + 1 if start < 0 else start
    item = order.pop(ax)
    order.insert(st - 1 if st > ax else st, item)
    return np.transpose(v, tuple(np.argsort(order).tolist()))


def append_vjp(v, arr, values, axis, k):
    """The cotangent of `arr` (k=0) or `values` (k=1) of `append(arr, values, axis)`."""
    if axis is None:
        flat = np.ravel(v)
        n = np.size(arr)
        return np.reshape(flat[:n] if k == 0 else flat[n:], np.shape(arr if k == 0 else values))
    n = np.shape(arr)[axis]
    part = np.split(v, [n], axis=axis)[k]
    return np.reshape(part, np.shape(arr if k == 0 else values))


def select_vjp(v, condlist, choicelist, k):
    """Cotangent of choice `k` of `select`: where condition `k` is the first that holds."""
    taken = _rt.zeros(np.shape(v), v, dtype=bool)
    for c in condlist[:k]:
        taken = taken | c
    mine = np.logical_and(condlist[k], np.logical_not(taken))
    return unbroadcast_to(np.where(mine, v, 0.0), choicelist[k])


def select_vjp_all(v, condlist, choicelist):
    return [select_vjp(v, condlist, choicelist, k) for k in range(len(choicelist))]


def select_jvp(v, condlist, choicelist):
    return np.select(condlist, list(v), 0.0)


def unbroadcast_to(v, like):
    return _rt.unbroadcast(v, like)


def meshgrid_vjp(v, k, xs, indexing):
    """Cotangent of input `k` of `meshgrid(*xs, indexing=...)` from the list of output cotangents."""
    n = len(xs)
    axis = k
    if indexing == "xy" and n >= 2 and k < 2:
        axis = 1 - k
    g = _rt.asarray(v[k])
    return np.reshape(np.sum(g, axis=tuple(i for i in range(n) if i != axis)), np.shape(xs[k]))


def meshgrid_tangent(v, k, xs, indexing):
    """The outputs' tangents of `meshgrid(*xs)` when only input `k` moves, by tangent `v`."""
    grids = np.meshgrid(*xs, indexing=indexing)
    n = len(xs)
    axis = 1 - k if indexing == "xy" and n >= 2 and k < 2 else k
    shape = [1] * n
    shape[axis] = -1
    out = [_rt.zeros(np.shape(q), v) for q in grids]
    out[k] = np.broadcast_to(np.reshape(v, shape), np.shape(grids[k])).astype(_float(v))
    return out


def present(*xs):
    """The arguments that are not None, as a list."""
    return [x for x in xs if x is not None]


def select_none(condlist, like):
    """Where no condition of `select` holds (the default is taken)."""
    hit = _rt.zeros(np.shape(like), like, dtype=bool)
    for c in condlist:
        hit = hit | c
    return np.logical_not(hit)


def append_vjp_t(v, arr, values, axis, k):
    """Transpose of `append_vjp`: `v` placed where `arr` (k=0) or `values` (k=1) sits in the result."""
    zero_a = _rt.zeros(np.shape(arr), v)
    zero_v = _rt.zeros(np.shape(values), v)
    return np.append(v if k == 0 else zero_a, v if k == 1 else zero_v, axis=axis)


def gradient_matrix(n, spacing, edge_order):
    """The matrix D with `gradient(f) == D @ f` for 1-D `f` of length n."""
    return np.stack([np.gradient(e, spacing, edge_order=edge_order) for e in np.eye(n)], axis=1)





def no_derivative(x, what):
    """The rule of an argument s2s refuses to differentiate through: an error when it runs, never
    a silent zero."""
    raise S2SValueError(f"s2s does not differentiate {what}; wrap that argument in stop_gradient.")


def trapezoid_vjp(v, y, x, dx, axis):
    """Transpose of `y -> trapezoid(y, x, dx, axis)`: each sample's weight (half the spacings on
    either side of it) times the cotangent."""
    n = np.shape(y)[axis]
    xp = _rt.namespace(v)
    d = np.diff(xp.asarray(x, dtype=_float(y))) if x is not None else xp.full(n - 1, float(dx))
    if np.ndim(d) != 1:
        raise S2SValueError("s2s differentiates np.trapezoid with a 1-D `x` (or none) only")
    zero = xp.zeros(1, dtype=d.dtype)
    w = 0.5 * (xp.concatenate((d, zero)) + xp.concatenate((zero, d)))
    shape = [1] * np.ndim(y)
    shape[axis] = n
    return np.expand_dims(v, axis) * np.reshape(w, shape).astype(_float(y))


def gradient_vjp(v, f, spacing, axis, edge_order):
    ax = -1 if axis is None and np.ndim(f) == 1 else axis
    if ax is None:
        raise S2SValueError("s2s differentiates np.gradient of a 1-D array or along one axis (pass axis=)")
    d = _rt.namespace(v).asarray(gradient_matrix(np.shape(f)[ax], spacing, edge_order).astype(_float(v)))
    return np.moveaxis(np.tensordot(d.T, np.moveaxis(v, ax, 0), axes=1), 0, ax)


def gradient_vjp_t(v, f, spacing, axis, edge_order):
    return np.gradient(v, spacing, axis=axis if axis is not None else -1 if np.ndim(f) == 1 else None,
                       edge_order=edge_order)


def conv_pad(a, v, mode, corr=False):
    """How to pad a `convolve(a, v, mode)` (`corr`: `correlate`) cotangent back to the full
    output's length. NumPy centres correlate's "same" window the other way when v is longer."""
    n, m = np.size(a), np.size(v)
    full = n + m - 1
    if mode == "full":
        return (0, 0)
    if mode == "same":
        out = max(n, m)
        start = (min(n, m) - 1) // 2
        if corr and m > n:
            start = min(n, m) - 1 - start
    else:
        out = max(n, m) - min(n, m) + 1
        start = min(n, m) - 1
    return (start, full - out - start)


def interp_slope(x, xc, fp):
    """d interp(x, xc, fp) / dx: the slope of the segment x falls in (0 outside [xc[0], xc[-1]])."""
    i = np.clip(np.searchsorted(xc, x, side="right") - 1, 0, np.size(xc) - 2)
    slope = (np.take(fp, i + 1) - np.take(fp, i)) / (np.take(xc, i + 1) - np.take(xc, i))
    inside = np.logical_and(x > xc[0], x < xc[-1])
    return slope * inside


def interp_fp_vjp(v, x, xc, fp):
    """Transpose of `fp -> interp(x, xc, fp)`: each cotangent split between its two knots."""
    xf = np.ravel(x)
    vf = np.ravel(v)
    i = np.clip(np.searchsorted(xc, xf, side="right") - 1, 0, np.size(xc) - 2)
    lo = np.take(xc, i)
    t = np.clip((xf - lo) / (np.take(xc, i + 1) - lo), 0.0, 1.0)
    return take_vjp(vf * (1 - t), fp, i, None) + take_vjp(vf * t, fp, i + 1, None)


def polyval_vjp_p(g, p, x):
    """d/dp of <g, polyval(p, x)>: sum(g * x ** (n - 1 - k)) for each coefficient k."""
    n = np.shape(p)[0]
    out = []
    for k in range(n):
        out.append(np.sum(g * x ** (n - 1 - k)))
    return np.stack(out)  # dispatches to the sums' module (np.array would bring them to the host)


def polyder(p):
    head = p[:-1]
    return head * np.cumsum(np.ones_like(head))[::-1]  # n-1, ..., 1 in p's module and dtype


# ---- reductions ----

def nancount(a, axis, keepdims):
    return np.sum(np.logical_not(np.isnan(a)), axis=axis, keepdims=keepdims)


def nanvar_vjp(g, a, axis, ddof, keepdims):
    ok = np.logical_not(np.isnan(a))
    a0 = np.where(ok, a, 0.0)
    n = np.sum(ok, axis=axis, keepdims=True, dtype=np.result_type(a, 1.0))
    mean = np.sum(a0, axis=axis, keepdims=True) / n
    c = np.where(ok, a0 - mean, 0.0)
    return _rt.sum_vjp(g, a, axis, keepdims) * 2 * c / (n - ddof)


def nanvar_jvp(da, a, axis, ddof, keepdims):
    ok = np.logical_not(np.isnan(a))
    a0 = np.where(ok, a, 0.0)
    n = np.sum(ok, axis=axis, keepdims=True, dtype=np.result_type(a, 1.0))
    mean = np.sum(a0, axis=axis, keepdims=True) / n
    c = np.where(ok, a0 - mean, 0.0)
    count = np.sum(ok, axis=axis, keepdims=keepdims, dtype=np.result_type(a, 1.0))
    return np.sum(2 * c * np.where(ok, da, 0.0), axis=axis, keepdims=keepdims) / (count - ddof)


def average_vjp_a(g, a, weights, axis, keepdims):
    """Cotangent of `a` in `average(a, axis, weights)`: each entry's normalized weight."""
    if weights is None:
        return _rt.mean_vjp(g, a, axis, keepdims)
    w = _weights_full(a, weights, axis)
    return _rt.sum_vjp(g, a, axis, keepdims) * w / np.sum(w, axis=axis, keepdims=True)


def diff_vjp(v, like, n, axis):
    """Transpose of `diff(., n, axis)`: `-diff` of the zero-padded cotangent, n times."""
    for _ in range(n):
        pad = [(0, 0)] * np.ndim(v)
        pad[axis] = (1, 1)
        v = -np.diff(np.pad(v, pad), axis=axis)
    return v


def ones_like_float(x):
    return np.ones_like(x, dtype=_float(x))  # in x's module


def svd_check(a, full_matrices, compute_uv):
    """The SVD rules cover the thin factorization (or the values alone)."""
    if compute_uv and full_matrices and np.shape(a)[-1] != np.shape(a)[-2]:
        raise S2SValueError("s2s differentiates np.linalg.svd of a non-square matrix with "
                            "full_matrices=False (or compute_uv=False) only")
    return full_matrices


def average_vjp_w(g, a, weights, axis, keepdims, ans):
    """Cotangent of the weights of `average(a, axis, weights)`: (a - average) / sum of weights."""
    total = np.sum(_weights_full(a, weights, axis), axis=axis, keepdims=True)
    full = _rt.sum_vjp(g, a, axis, keepdims) * (a - _rt.sum_vjp(ans, a, axis, keepdims)) / total
    if np.ndim(weights) == 1 and np.ndim(a) > 1 and axis is not None:
        full = np.sum(full, axis=tuple(i for i in range(np.ndim(a)) if i != axis % np.ndim(a)))
    return np.reshape(full, np.shape(weights))


def average_jvp_w(dw, a, weights, axis, keepdims, ans):
    dfull = _weights_full(a, dw, axis)
    total = np.sum(_weights_full(a, weights, axis), axis=axis, keepdims=keepdims)
    return np.sum(dfull * (a - _rt.sum_vjp(ans, a, axis, keepdims)), axis=axis, keepdims=keepdims) / total


def _weights_full(a, w, axis):
    if np.ndim(w) == 1 and np.ndim(a) > 1 and axis is not None:
        shape = [1] * np.ndim(a)
        shape[axis % np.ndim(a)] = -1
        w = np.reshape(w, shape)
    return w * np.ones_like(a)




def rot90_vjp(v, k, axes):
    """Transpose of `rot90(., k, axes)`: rotate back."""
    return np.rot90(v, -k, (0, 1) if axes is None else axes)


def diag_vjp_any(v, like, k):
    """Transpose of `diag(like, k)`: the k-th diagonal of `v` (1-D `like`), or `v` written onto
    that diagonal of a zero matrix shaped like `like` (2-D `like`, square or not)."""
    if np.ndim(like) == 1:
        return np.diagonal(v, k)
    return diagonal_vjp(v, like, k, 0, 1)


def vecdot_spec(a, b, axis):
    """The einsum subscripts of `vecdot(a, b, axis=axis)` (broadcasting over the other axes)."""
    n = max(np.ndim(a), np.ndim(b))
    letters = _LETTERS[:n]
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
    return norm_vjp_any(g, x, ans, ord, axis, keepdims)


def vector_norm_jvp(dx, x, ans, ord, axis, keepdims):
    if axis is None:
        t = norm_jvp_any(np.ravel(dx), np.ravel(x), np.reshape(ans, ()), ord, 0, False)
        return np.reshape(t, np.shape(ans))
    return norm_jvp_any(dx, x, ans, ord, axis, keepdims)


def kept(condition):
    """The positions `compress`/`extract` keep."""
    return np.flatnonzero(np.ravel(condition))


def not_deleted(arr, obj, axis):
    """The positions `delete(arr, obj, axis)` keeps."""
    n = np.size(arr) if axis is None else np.shape(arr)[axis]
    return np.delete(np.arange(n), obj)


def cumulative_vjp(v, x, axis, include_initial):
    """Transpose of `cumulative_sum(x, axis, include_initial)`."""
    ax = 0 if axis is None else axis
    if include_initial:
        v = np.delete(v, 0, axis=ax)
    return np.flip(np.cumsum(np.flip(v, ax), ax), ax) if np.ndim(v) else v


def _quantile_weights(a, q, axis, keepdims):
    """Weights w with quantile(a, q, axis) == sum(w * a, axis): linear interpolation between the
    two entries of nearest rank (NaN entries skipped; ties go to the first in sort order)."""
    x = np.ravel(a) if axis is None else np.moveaxis(a, axis, -1)
    ok = np.logical_not(np.isnan(x))
    n = np.sum(ok, axis=-1, keepdims=True)
    pos = q * (n - 1)
    lo = np.floor(pos)
    frac = pos - lo
    order = np.argsort(np.where(ok, x, np.inf), axis=-1, kind="stable")
    rank = np.argsort(order, axis=-1, kind="stable")
    w = (rank == lo) * (1 - frac) + (rank == np.minimum(lo + 1, n - 1)) * frac
    return w.astype(_float(a))


def quantile_vjp(g, a, q, axis, keepdims):
    w = _quantile_weights(a, q, axis, keepdims)
    if axis is None:
        return np.reshape(np.reshape(g, ()) * w, np.shape(a))
    gx = g if not keepdims else np.squeeze(g, axis)
    return np.moveaxis(np.expand_dims(gx, -1) * w, -1, axis)


def quantile_jvp(da, a, q, axis, keepdims):
    w = _quantile_weights(a, q, axis, keepdims)
    x = np.ravel(da) if axis is None else np.moveaxis(da, axis, -1)
    out = np.sum(w * x, axis=-1)
    if keepdims:
        out = np.expand_dims(out, tuple(range(np.ndim(a))) if axis is None else axis)
    return out


def interp_apply(x, xp, fp):
    """`interp(x, xp, fp)`, for derivative code (where `xp` names the knots, not the module)."""
    return np.interp(x, xp, fp)


def cond_vjp(g, x, ans, p):
    """Cotangent of `linalg.cond(x, p)`: through the singular values for p in (None, 2, -2),
    else through `norm(x, p) * norm(inv(x), p)`."""
    if p is None or p == 2 or p == -2:
        s = np.linalg.svdvals(x)
        n = np.shape(s)[-1]
        hi = s[..., :1]
        lo = s[..., -1:]
        pos = np.cumsum(np.ones_like(s), axis=-1)  # 1..n along the last axis, in s's module
        first = pos == 1
        last = pos == n
        ds = first / lo - last * hi / (lo * lo)
        if p == -2:
            ds = last / hi - first * lo / (hi * hi)
        return svdvals_vjp(np.expand_dims(_rt.on_backend_of(g, x), -1) * ds, x)
    xi = np.linalg.inv(x)
    n1 = np.linalg.norm(x, p, (-2, -1))
    n2 = np.linalg.norm(xi, p, (-2, -1))
    gx = norm_vjp_any(g * n2, x, n1, p, (-2, -1), False)
    gi = norm_vjp_any(g * n1, xi, n2, p, (-2, -1), False)
    xit = np.swapaxes(xi, -1, -2)
    return gx - _mm(xit, _mm(gi, xit))


def cond_jvp(dx, x, ans, p):
    if p is None or p == 2 or p == -2:
        s = np.linalg.svdvals(x)
        ds = svdvals_jvp(dx, x)
        hi = s[..., 0]
        lo = s[..., -1]
        if p == -2:
            return ds[..., -1] / hi - lo * ds[..., 0] / (hi * hi)
        return ds[..., 0] / lo - hi * ds[..., -1] / (lo * lo)
    xi = np.linalg.inv(x)
    dxi = -_mm(xi, _mm(dx, xi))
    n1 = np.linalg.norm(x, p, (-2, -1))
    n2 = np.linalg.norm(xi, p, (-2, -1))
    return norm_jvp_any(dx, x, n1, p, (-2, -1), False) * n2 + n1 * norm_jvp_any(dxi, xi, n2, p, (-2, -1), False)


def plain_reflect(mode, reflect_type):
    """`mode`, after checking that np.pad's `reflect_type` keeps the map a plain copy of entries."""
    if reflect_type != "even":
        raise S2SValueError("s2s differentiates np.pad with reflect_type='even' only")
    return mode


def diff_axis(axis, prepend, append):
    """`axis`, after checking that np.diff has no `prepend`/`append` (not differentiated)."""
    if prepend is not None or append is not None:
        raise S2SValueError("s2s differentiates np.diff without prepend= or append=; concatenate them first")
    return axis


def interp_ok(left, right, period):
    """1.0 when np.interp has none of `left`, `right`, `period` (their derivatives are not covered)."""
    if left is not None or right is not None or period is not None:
        raise S2SValueError("s2s differentiates np.interp without left=, right= or period=")
    return 1.0


def linear_method(q, method):
    """`q`, after checking that the quantile uses NumPy's default linear interpolation."""
    if method != "linear":
        raise S2SValueError(f"s2s differentiates quantiles with method='linear' only, not {method!r}")
    return q


# ---- reductions with where= and initial=: NumPy's definition written with primitives, so s2s
# differentiates and batches them from this source (the normalizer calls them in place of the
# plain reduction when a call passes `where=` or `initial=`; see primitives/rules_reduce.py) ----

def sum_where(a, axis=None, dtype=None, out=None, keepdims=False, initial=0, where=True):
    """`np.sum(a, axis, keepdims=..., initial=..., where=...)`."""
    kept = np.where(where, a, np.zeros_like(a))
    return np.sum(kept, axis=axis, keepdims=keepdims) + initial


def prod_where(a, axis=None, dtype=None, out=None, keepdims=False, initial=1, where=True):
    """`np.prod(a, axis, keepdims=..., initial=..., where=...)`."""
    kept = np.where(where, a, np.ones_like(a))
    return np.prod(kept, axis=axis, keepdims=keepdims) * initial


def _count_where(a, axis, keepdims, where):
    return np.sum(np.where(where, np.ones_like(a), np.zeros_like(a)), axis=axis, keepdims=keepdims)


def mean_where(a, axis=None, dtype=None, out=None, keepdims=False, where=True):
    """`np.mean(a, axis, keepdims=..., where=...)`: the sum over the selected entries by their count."""
    return sum_where(a, axis, None, None, keepdims, 0, where) / _count_where(a, axis, keepdims, where)


def var_where(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True):
    """`np.var(a, axis, ddof=..., keepdims=..., where=...)`, as NumPy computes it."""
    mean = mean_where(a, axis, None, None, True, where)
    d = a - mean
    return sum_where(d * d, axis, None, None, keepdims, 0, where) / (_count_where(a, axis, keepdims, where) - ddof)


def std_where(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True):
    """`np.std(a, axis, ddof=..., keepdims=..., where=...)`."""
    return np.sqrt(var_where(a, axis, None, None, ddof, keepdims, where))


def max_where(a, axis=None, out=None, keepdims=False, initial=-np.inf, where=True):
    """`np.max(a, axis, keepdims=..., initial=..., where=...)`: entries left out count as -inf."""
    kept = np.where(where, a, -np.inf)
    return np.maximum(np.max(kept, axis=axis, keepdims=keepdims), initial)


def min_where(a, axis=None, out=None, keepdims=False, initial=np.inf, where=True):
    """`np.min(a, axis, keepdims=..., initial=..., where=...)`: entries left out count as +inf."""
    kept = np.where(where, a, np.inf)
    return np.minimum(np.min(kept, axis=axis, keepdims=keepdims), initial)


def nansum_where(a, axis=None, dtype=None, out=None, keepdims=False, initial=0, where=True):
    """`np.nansum(..., initial=..., where=...)`: NaN entries left out as well."""
    return sum_where(a, axis, None, None, keepdims, initial, np.where(where, np.logical_not(np.isnan(a)), False))


def nanprod_where(a, axis=None, dtype=None, out=None, keepdims=False, initial=1, where=True):
    return prod_where(a, axis, None, None, keepdims, initial, np.where(where, np.logical_not(np.isnan(a)), False))


def nanmean_where(a, axis=None, dtype=None, out=None, keepdims=False, where=True):
    return mean_where(a, axis, None, None, keepdims, np.where(where, np.logical_not(np.isnan(a)), False))


def nanmax_where(a, axis=None, out=None, keepdims=False, initial=-np.inf, where=True):
    return max_where(a, axis, None, keepdims, initial, np.where(where, np.logical_not(np.isnan(a)), False))


def nanmin_where(a, axis=None, out=None, keepdims=False, initial=np.inf, where=True):
    return min_where(a, axis, None, keepdims, initial, np.where(where, np.logical_not(np.isnan(a)), False))


# ---- operations defined by their NumPy definition written with primitives (registry.composite):
# the normalizer calls these in place of the NumPy function, so s2s differentiates and batches
# their source; each computes what NumPy computes ----

def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """`np.cov` (without frequency or analytic weights)."""
    unsupported(fweights, "np.cov with fweights=")
    unsupported(aweights, "np.cov with aweights=")
    x = np.atleast_2d(m)
    if not rowvar:
        if x.shape[0] != 1:
            x = x.T
    if y is not None:
        y2 = np.atleast_2d(y)
        if not rowvar:
            if y2.shape[0] != 1:
                y2 = y2.T
        x = np.concatenate((x, y2), axis=0)
    if ddof is None:
        ddof = 1
        if bias:
            ddof = 0
    n = x.shape[1]
    xc = x - np.mean(x, axis=1, keepdims=True)
    c = (xc @ xc.T) * (1.0 / (n - ddof))
    return np.squeeze(c)


def corrcoef(x, y=None, rowvar=True, bias=None, ddof=None, dtype=None):
    """`np.corrcoef`: the covariance scaled by the standard deviations, clipped to [-1, 1]."""
    return _corr_of(cov(x, y, rowvar))


def _corr_of(c):
    c2 = np.atleast_2d(c)
    s = np.sqrt(np.diagonal(c2))
    r = c2 / np.expand_dims(s, 1) / np.expand_dims(s, 0)
    return _rt.reshape_like(np.clip(r, -1.0, 1.0), c)


def cov_1(m, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """`np.cov(m, ...)` without branches on its settings (so its backward sweep batches)."""
    unsupported(fweights, "np.cov with fweights=")
    unsupported(aweights, "np.cov with aweights=")
    x = np.transpose(np.atleast_2d(m), cov_axes(m, rowvar))
    return _cov_of(x, cov_ddof(ddof, bias))


def cov_2(m, y, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """`np.cov(m, y, ...)` without branches on its settings."""
    unsupported(fweights, "np.cov with fweights=")
    unsupported(aweights, "np.cov with aweights=")
    x = np.transpose(np.atleast_2d(m), cov_axes(m, rowvar))
    x2 = np.transpose(np.atleast_2d(y), cov_axes(y, rowvar))
    return _cov_of(np.concatenate((x, x2), axis=0), cov_ddof(ddof, bias))


def _cov_of(x, ddof):
    n = np.shape(x)[1]
    xc = x - np.mean(x, axis=1, keepdims=True)
    return np.squeeze((xc @ xc.T) * (1.0 / (n - ddof)))


def corrcoef_1(x, rowvar=True, bias=None, ddof=None, dtype=None):
    return _corr_of(cov_1(x, rowvar))


def corrcoef_2(x, y, rowvar=True, bias=None, ddof=None, dtype=None):
    return _corr_of(cov_2(x, y, rowvar))


def cov_axes(m, rowvar):
    """How np.cov orients its input: variables in rows (a transpose when rowvar is False and the
    input has more than one row)."""
    return (1, 0) if not rowvar and np.ndim(m) == 2 and np.shape(m)[0] != 1 else (0, 1)


def cov_ddof(ddof, bias):
    return (0 if bias else 1) if ddof is None else ddof


def vander(x, N=None, increasing=False):
    """`np.vander`: columns are powers of `x`, decreasing unless `increasing`."""
    return np.expand_dims(x, 1) ** vander_powers(x, N, increasing)  # no branch: batches after grad too


def vander_powers(x, N, increasing):
    """The exponents of `np.vander(x, N, increasing)`'s columns, in x's dtype (float32 stays)."""
    n = np.shape(x)[0] if N is None else N
    p = np.cumsum(np.ones_like(x, shape=(n,))) - 1  # 0, 1, ..., n - 1 in x's array module and dtype
    return p if increasing else np.flip(p, 0)


def insert_map(arr, obj, values, axis):
    """Where each entry of `np.insert(arr, obj, values, axis)` comes from: a flat index into
    `concatenate([ravel(arr), ravel(values)])` (NumPy's own insert applied to positions)."""
    size, shape = np.size(arr), np.shape(arr)   # shapes only: the map is a host index array
    pos = np.arange(size).reshape(shape)
    vpos = size + np.arange(np.size(values)).reshape(np.shape(values))
    return np.insert(pos, obj, vpos, axis)


def insert(arr, obj, values, axis=None):
    """`np.insert`: a gather from the entries of `arr` and `values` (repeated values broadcast)."""
    where = insert_map(arr, obj, values, axis)
    vals = np.zeros_like(arr, shape=np.shape(values)) + values   # on arr's backend (never np.asarray)
    vals = _rt.cast_to(vals, arr)  # in arr's dtype: floats inserted into ints are truncated, as NumPy does
    both = np.concatenate([np.ravel(arr), np.ravel(vals)])
    return np.take(both, where)


def broadcast_arrays(a, b=None, c=None, d=None, e=None, f=None):
    """`np.broadcast_arrays` of up to six arrays: each broadcast to their common shape (the
    normalizer calls the form for the count given, broadcast_arrays_<n>, which has no branch)."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c), np.shape(d), np.shape(e), np.shape(f))
    if f is None:
        return (np.broadcast_to(a, shape), np.broadcast_to(b, shape), np.broadcast_to(c, shape),
                np.broadcast_to(d, shape), np.broadcast_to(e, shape))
    return (np.broadcast_to(a, shape), np.broadcast_to(b, shape), np.broadcast_to(c, shape),
            np.broadcast_to(d, shape), np.broadcast_to(e, shape), np.broadcast_to(f, shape))


def broadcast_arrays_1(a):
    return (np.broadcast_to(a, np.shape(a)),)


def broadcast_arrays_2(a, b):
    s = np.broadcast_shapes(np.shape(a), np.shape(b))
    return (np.broadcast_to(a, s), np.broadcast_to(b, s))


def broadcast_arrays_3(a, b, c):
    s = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    return (np.broadcast_to(a, s), np.broadcast_to(b, s), np.broadcast_to(c, s))


def broadcast_arrays_4(a, b, c, d):
    s = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c), np.shape(d))
    return (np.broadcast_to(a, s), np.broadcast_to(b, s), np.broadcast_to(c, s), np.broadcast_to(d, s))


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
        total = total + np.linalg.multi_dot(parts)
    return total


def unsupported(value, what):
    """An S2SError when an argument s2s does not differentiate is given."""
    if value is not None:
        raise S2SValueError(f"s2s does not support {what}; compute it another way")
    return None
