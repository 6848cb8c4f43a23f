"""Derivative helpers of products and linear algebra (primitives/rules_linalg.py and the dot/outer
rows of rules.py). Einsum cotangents are einsums; np.linalg cotangents are written with
primitives, so s2s differentiates them again for higher orders."""
from __future__ import annotations

import string

import numpy as np

from ..errors import S2SValueError
from ._linalg_common import LETTERS, check_subscripts, einsum_parse, mm, own_dtype
from ._values import float_dtype
from .core import namespace, reshape_like, unbroadcast

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("dot_vjp_a", "dot_vjp_b", "dot_vjp_a_t", "dot_vjp_b_t", "outer_vjp_a", "outer_vjp_b", "einsum_subscripts",
           "einsum_sublist_spec",
           "einsum_n", "einsum_spec1", "einsum_spec2", "einsum_const", "tensordot_spec", "inner_spec", "kron_spec",
           "kron_shape", "kron_pad", "mT", "expand2", "solve_vjp_a",
           "solve_vjp_b", "solve_jvp_a", "cholesky_jvp", "cholesky_vjp", "uplo_sym",
           "uplo_fold", "cross_vjp", "eigh_jvp", "eigh_vjp", "eigvalsh_vjp", "eigvalsh_jvp", "svdvals_vjp",
           "svdvals_jvp", "svd_vjp", "svd_jvp", "qr_jvp", "qr_vjp", "pinv_jvp", "pinv_vjp", "matrix_power_jvp",
           "matrix_power_vjp")


def _nd_dot(v, a, b):
    """Whether the product whose output (cotangent) `v` is, of `a` and `b`, is N-d `np.dot` rather
    than matmul; they differ when a has 2+ axes and b 3+: dot sums over a's last axis and b's
    second-to-last, giving a.shape[:-1] + b.shape[:-2] + b.shape[-1:]. The rules of both share these
    helpers, so the output's shape tells them apart; where both shapes agree it is refused."""
    sa, sb = np.shape(a), np.shape(b)
    if len(sa) < 2 or len(sb) < 3:
        return False
    dot = sa[:-1] + sb[:-2] + sb[-1:]
    try:
        mat = np.broadcast_shapes(sa[:-2], sb[:-2]) + (sa[-2], sb[-1])
    except ValueError:
        mat = None
    if np.shape(v) == dot and dot == mat:
        raise S2SValueError(f"s2s cannot tell np.dot from matmul of shapes {sa} and {sb} when differentiating "
                            "(their results have the same shape); use np.einsum or np.tensordot")
    return np.shape(v) == dot


def _lift(a, b, v):
    """N-d dot as matmul: a with ndim(b) - 1 unit axes before its last, v with one before its last,
    so that dot(a, b) is squeeze(lift(a) @ b, -2)."""
    sa, xp = np.shape(a), namespace(v)
    return xp.reshape(a, sa[:-1] + (1,) * (np.ndim(b) - 1) + sa[-1:]), xp.expand_dims(v, -2)


def dot_vjp_a(v, a, b):
    """Cotangent for `a` of `dot(a, b)` / `a @ b` given output cotangent `v`."""
    if type(a) is np.ndarray is type(b) and a.dtype is _F8:  # (float64 NumPy operands: what the long way
        na, nb = a.ndim, b.ndim                                # does for matrices and vectors, no cast)
        if na == 2 == nb and type(v) is np.ndarray and v.ndim == 2:
            return np.dot(v, b.T) if _blas(v) and _blas(b) else v @ b.T
        if na == 1 == nb:
            return v * b
    return own_dtype(_dot_vjp_a(v, a, b), a)


_F8 = np.dtype(np.float64)


def _blas(x) -> bool:
    """Whether `x` is a NumPy array BLAS reads as it is (C or Fortran order): there `np.dot` and `@`
    of matrices make the same call, and `np.dot` skips matmul's dispatch (and its loop for an
    inner size of 1, an outer product's, 2-3x slower on small arrays)."""
    return type(x) is np.ndarray and (x.flags.c_contiguous or x.flags.f_contiguous)


def _dot_vjp_a(v, a, b):
    if getattr(a, "ndim", 0) == 2 and getattr(b, "ndim", 0) == 2:
        return np.dot(v, b.T) if _blas(v) and _blas(b) and v.ndim == 2 else v @ b.T
    if _nd_dot(v, a, b):
        la, lv = _lift(a, b, v)
        return namespace(v).reshape(_dot_vjp_a(lv, la, b), np.shape(a))
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0:
        return np.sum(v * b)
    if nb == 0:
        return v * b
    if nb == 1:
        return v * b if na == 1 else np.multiply.outer(v, b)
    if na == 1:  # (n,) @ (..., n, m) -> (..., m)
        return np.sum(np.matmul(b, v[..., None])[..., 0], axis=tuple(range(nb - 2))) if nb > 2 else b @ v
    return unbroadcast(np.matmul(v, np.swapaxes(b, -1, -2)), a)


def dot_vjp_b(v, a, b):
    """Cotangent for `b` of `dot(a, b)` / `a @ b` given output cotangent `v`."""
    if type(a) is np.ndarray is type(b) and b.dtype is _F8:  # (as dot_vjp_a's)
        na, nb = a.ndim, b.ndim
        if na == 2 == nb and type(v) is np.ndarray and v.ndim == 2:
            return np.dot(a.T, v) if _blas(v) and _blas(a) else a.T @ v
        if na == 1 == nb:
            return v * a
    return own_dtype(_dot_vjp_b(v, a, b), b)


def _dot_vjp_b(v, a, b):
    if getattr(a, "ndim", 0) == 2 and getattr(b, "ndim", 0) == 2:
        return np.dot(a.T, v) if _blas(v) and _blas(a) and v.ndim == 2 else a.T @ v
    if _nd_dot(v, a, b):
        la, lv = _lift(a, b, v)
        return _dot_vjp_b(lv, la, b)
    na, nb = np.ndim(a), np.ndim(b)
    if nb == 0:
        return np.sum(v * a)
    if na == 0:
        return v * a
    if na == 1:  # (n,) @ (..., n, m) -> (..., m)
        return v * a if nb == 1 else a[:, None] * np.expand_dims(v, -2)
    if nb == 1:
        return np.tensordot(a, v, axes=(tuple(range(na - 1)), tuple(range(na - 1))))
    return unbroadcast(np.matmul(np.swapaxes(a, -1, -2), v), b)


def dot_vjp_a_t(v, like, a, b):
    """Transpose of `dot_vjp_a(., a, b)` applied to `v`: `dot(v, b)` in the usual shapes."""
    if _nd_dot(like, a, b):
        return np.dot(v, b)
    if np.ndim(a) >= 2 and np.ndim(b) >= 2:
        return unbroadcast(np.matmul(v, b), like)
    return np.dot(v, b) if np.ndim(a) else np.sum(v) * b


def dot_vjp_b_t(v, like, a, b):
    """Transpose of `dot_vjp_b(., a, b)` applied to `v`: `dot(a, v)` in the usual shapes."""
    if _nd_dot(like, a, b):
        return np.dot(a, v)
    if np.ndim(a) >= 2 and np.ndim(b) >= 2:
        return unbroadcast(np.matmul(a, v), like)
    return np.dot(a, v) if np.ndim(b) else a * np.sum(v)


def outer_vjp_a(v, a, b):
    return reshape_like(np.dot(v, np.ravel(b)), a)


def outer_vjp_b(v, a, b):
    return reshape_like(np.dot(np.ravel(a), v), b)


# ---- einsum: every cotangent is another einsum (plus constant ones/identity factors) ----


def einsum_subscripts(spec):
    """np.einsum's subscripts when they are not a literal: a string, or refused (see check_subscripts)."""
    check_subscripts(spec)
    return spec


def einsum_sublist_spec(subs, out, first):
    """The subscripts string of np.einsum's sublist form `einsum(first, subs[0], op1, subs[1], ...,
    [out])`, from the sublists' values when the call runs (the frontend knew it was the sublist
    form but not every sublist's value, or read one from a mutable global): axis numbers 0..51
    (and `...`) as letters. `first`, the first operand, is checked not to be a subscripts string
    (then the call was the subscripts form, which the frontend took it not to be)."""
    if isinstance(first, str):
        raise S2SValueError("np.einsum: s2s read this call as the sublist form (its second argument a sublist when "
                            "transforming), but its first argument is a subscripts string")
    return ",".join(_sublist_letters(s) for s in subs) + ("" if out is None else "->" + _sublist_letters(out))


def _sublist_letters(sub):
    if isinstance(sub, str) or not np.iterable(sub):
        raise S2SValueError(f"np.einsum's sublist form takes lists of axis numbers; got {sub!r}")
    out = ""
    for v in sub:
        if v is Ellipsis:
            out += "..."
        elif isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v < 52:
            out += string.ascii_letters[int(v)]
        else:
            raise S2SValueError(f"np.einsum's sublists hold axis numbers 0..51 and `...`; got {v!r}")
    return out


def _present(*ops):
    return [o for o in ops if o is not None]


def einsum_n(spec, a, b=None, c=None, d=None, e=None, f=None, g_=None, h=None):
    """`einsum(spec, ...)` over the operands that are not None (at most seven: the output
    cotangent and six operands; `h` is set only when the user passed more than six)."""
    if h is not None:
        raise S2SValueError("s2s differentiates np.einsum with at most 6 operands")
    check_subscripts(spec)
    return np.einsum(spec, *_present(a, b, c, d, e, f, g_))


def einsum_spec1(subscripts, k, a, b=None, c=None, d=None, e=None, f=None):
    """Subscripts of the contraction of the output cotangent with every operand but `k`."""
    ops = _present(a, b, c, d, e, f)
    full, out = einsum_parse(subscripts, ops)
    others = [p for i, p in enumerate(full) if i != k]
    avail = set(out).union(*others) if others else set(out)
    target = "".join(dict.fromkeys(c for c in full[k] if c in avail))
    return ",".join([out] + others) + "->" + target


def einsum_spec2(subscripts, k, a, b=None, c=None, d=None, e=None, f=None):
    """Subscripts that spread the contraction back over operand `k`'s axes: axes only `k` has
    get ones, a repeated index becomes a diagonal (an identity factor)."""
    ops = _present(a, b, c, d, e, f)
    full, out = einsum_parse(subscripts, ops)
    others = [p for i, p in enumerate(full) if i != k]
    avail = set(out).union(*others) if others else set(out)
    target = "".join(dict.fromkeys(c for c in full[k] if c in avail))
    used = set("".join(full) + out)
    free = iter(c for c in LETTERS if c not in used)
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
    full, out = einsum_parse(subscripts, ops)
    others = [p for i, p in enumerate(full) if i != k]
    avail = set(out).union(*others) if others else set(out)
    sizes = dict(zip(full[k], np.shape(ops[k])))
    dt = float_dtype(ops[k])
    xp = namespace(ops[k])
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


def tensordot_spec(a, b, axes=2):
    """The einsum subscripts of `tensordot(a, b, axes)`."""
    na, nb = np.ndim(a), np.ndim(b)
    if isinstance(axes, (int, np.integer)):
        ax_a, ax_b = list(range(na - axes, na)), list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, (int, np.integer)) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, (int, np.integer)) else list(ax_b)
    ax_a = [int(i) % na for i in ax_a]  # (ints saved on a device come back as 0-d arrays)
    ax_b = [int(i) % nb for i in ax_b]
    sa = LETTERS[:na]
    sb = list(LETTERS[na:na + nb])
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
    sa, sb = LETTERS[:n], LETTERS[n:2 * n]
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


def mT(x):
    return np.swapaxes(x, -1, -2)


def expand2(x):
    """`x` with two trailing axes of length 1 (scales a stack of matrices)."""
    return np.expand_dims(np.expand_dims(x, -1), -1)


def solve_vjp_a(g, a, ans):
    """Cotangent of `a` in `solve(a, b)`; a 1-d b is one vector for every matrix of a stack (NumPy 2),
    so the answer has one axis fewer than `a`."""
    if np.ndim(ans) == np.ndim(a) - 1:
        gb = np.linalg.solve(np.swapaxes(a, -1, -2), g[..., None])
        return -mm(gb, ans[..., None, :])
    gb = np.linalg.solve(np.swapaxes(a, -1, -2), g)
    return unbroadcast(-mm(gb, np.swapaxes(ans, -1, -2)), a)


def solve_vjp_b(g, a, b):
    """Cotangent of `b` in `solve(a, b)`, summed over the stack axes `b` was broadcast along."""
    if np.ndim(b) == 1:
        if np.ndim(a) == 2:
            return np.linalg.solve(np.swapaxes(a, -1, -2), g)
        x = np.linalg.solve(np.swapaxes(a, -1, -2), g[..., None])
        return np.reshape(np.sum(np.reshape(x, (-1, np.shape(b)[0])), axis=0), np.shape(b))
    return unbroadcast(np.linalg.solve(np.swapaxes(a, -1, -2), g), b)


def solve_jvp_a(da, a, ans):
    """Tangent of `solve(a, b)` along `da` (a 1-d b: one vector for every matrix, as solve_vjp_a)."""
    if np.ndim(ans) == np.ndim(a) - 1:
        return -np.linalg.solve(a, mm(da, ans[..., None]))[..., 0]
    return -np.linalg.solve(a, mm(da, ans))


def _lower_half(x):
    """The lower triangle of `x` with its diagonal halved."""
    return np.tril(x) - 0.5 * x * _eye_like(x, np.shape(x)[-1])


def cholesky_jvp(da, ans):
    x = np.linalg.solve(ans, np.swapaxes(np.linalg.solve(ans, da), -1, -2))
    return mm(ans, _lower_half(x))


def cholesky_vjp(g, ans):
    p = _lower_half(mm(np.swapaxes(ans, -1, -2), g))
    x = np.linalg.solve(np.swapaxes(ans, -1, -2), p)
    out = np.swapaxes(np.linalg.solve(np.swapaxes(ans, -1, -2), np.swapaxes(x, -1, -2)), -1, -2)
    return 0.5 * (out + np.swapaxes(out, -1, -2))


def _gap_inverse(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    n = np.shape(w)[-1]
    eye = _eye_like(w, n)
    d = np.expand_dims(w, -2) - np.expand_dims(w, -1)
    return (1 - eye) / (d + eye)


def uplo_sym(x, uplo):
    """The symmetric matrix np.linalg.eigh reads from `x`: its lower ('L') or upper ('U') triangle."""
    if uplo == "U":
        return np.triu(x) + np.swapaxes(np.triu(x, 1), -1, -2)
    return np.tril(x) + np.swapaxes(np.tril(x, -1), -1, -2)


def uplo_fold(g, uplo):
    """Transpose of `uplo_sym`: the read triangle gets g plus the mirrored entries, the other zero."""
    if uplo == "U":
        return np.triu(g) + np.triu(np.swapaxes(g, -1, -2), 1)
    return np.tril(g) + np.tril(np.swapaxes(g, -1, -2), -1)


def cross_vjp(g, other, x, axis_other, axis_x, axisc, axis, sign):
    """Cotangent of `x` in `cross(x, other)` (sign 1) or `cross(other, x)` (sign -1) with NumPy's
    axis keywords: the 3-vector rule `cross(other, g)` along the last axes, moved back. A 2-vector
    is a 3-vector with z = 0; two 2-vectors give the z component alone (and ignore axisc)."""
    if axis is not None:
        axis_other = axis_x = axisc = axis
    o = np.moveaxis(other, axis_other, -1)
    xm = np.moveaxis(x, axis_x, -1)
    if np.shape(o)[-1] == 2 and np.shape(xm)[-1] == 2:
        z = np.zeros_like(g)
        gm = np.stack([z, z, g], axis=-1)
    else:
        gm = np.moveaxis(g, axisc, -1)
    if np.shape(o)[-1] == 2:
        o = np.concatenate([o, np.zeros_like(o[..., :1])], axis=-1)
    ct = sign * np.cross(o, gm)
    return np.moveaxis(unbroadcast(ct[..., :np.shape(xm)[-1]], xm), -1, axis_x)


def eigh_jvp(da, a, ans):
    w = ans[0]
    v = ans[1]
    m = mm(np.swapaxes(v, -1, -2), mm(da, v))
    dw = np.diagonal(m, 0, -2, -1)
    dv = mm(v, _gap_inverse(w) * m)
    return (dw, dv)


def eigh_vjp(g, a, ans):
    w = ans[0]
    v = ans[1]
    gw = g[0]
    gv = g[1]
    eye = _eye_like(w, np.shape(w)[-1])
    inner = _gap_inverse(w) * mm(np.swapaxes(v, -1, -2), gv) + np.expand_dims(gw, -1) * eye
    out = mm(v, mm(inner, np.swapaxes(v, -1, -2)))
    return 0.5 * (out + np.swapaxes(out, -1, -2))


def eigvalsh_vjp(g, a):
    ans = np.linalg.eigh(a)
    v = ans[1]
    out = mm(v * np.expand_dims(g, -2), np.swapaxes(v, -1, -2))
    return 0.5 * (out + np.swapaxes(out, -1, -2))


def eigvalsh_jvp(da, a):
    ans = np.linalg.eigh(a)
    v = ans[1]
    return np.diagonal(mm(np.swapaxes(v, -1, -2), mm(da, v)), 0, -2, -1)


def svdvals_vjp(g, a):
    ans = np.linalg.svd(a, full_matrices=False)
    return mm(ans[0] * np.expand_dims(g, -2), ans[2])


def svdvals_jvp(da, a):
    ans = np.linalg.svd(a, full_matrices=False)
    return np.diagonal(mm(np.swapaxes(ans[0], -1, -2), mm(da, np.swapaxes(ans[2], -1, -2))), 0, -2, -1)


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
    j = f * (mm(ut, gu) - mm(np.swapaxes(gu, -1, -2), u))
    k = f * (mm(vh, gv) - mm(np.swapaxes(gv, -1, -2), v))
    sm = np.expand_dims(s, -2)
    core = j * sm + np.expand_dims(gs, -1) * _eye_like(s, np.shape(s)[-1]) + np.expand_dims(s, -1) * k
    out = mm(u, mm(core, vh))
    m = np.shape(a)[-2]
    n = np.shape(a)[-1]
    if m > n:
        out = out + mm(gu - mm(u, mm(ut, gu)), vh / np.expand_dims(s, -1))
    if n > m:
        out = out + mm(u / sm, np.swapaxes(gv - mm(v, mm(vh, gv)), -1, -2))
    return out


def svd_jvp(da, a, ans, full_matrices, compute_uv):
    if not compute_uv:
        return svdvals_jvp(da, a)
    u = ans[0]
    s = ans[1]
    vh = ans[2]
    v = np.swapaxes(vh, -1, -2)
    ut = np.swapaxes(u, -1, -2)
    p = mm(ut, mm(da, v))
    ds = np.diagonal(p, 0, -2, -1)
    f = _gap_inverse(s * s)
    sm = np.expand_dims(s, -2)
    sc = np.expand_dims(s, -1)
    pt = np.swapaxes(p, -1, -2)
    du = mm(u, f * (p * sm + sc * pt))
    dv = mm(v, f * (sc * p + pt * sm))
    m = np.shape(a)[-2]
    n = np.shape(a)[-1]
    if m > n:
        du = du + mm(da - mm(u, mm(ut, da)), v / sm)
    if n > m:
        dv = dv + mm(np.swapaxes(da, -1, -2) - mm(v, mm(vh, np.swapaxes(da, -1, -2))), u / sm)
    return (du, ds, np.swapaxes(dv, -1, -2))


def qr_jvp(da, a, ans):
    q = ans[0]
    r = ans[1]
    rinv_t = np.linalg.inv(r)
    c = mm(np.swapaxes(q, -1, -2), mm(da, rinv_t))
    low = np.tril(c, -1)
    omega = low - np.swapaxes(low, -1, -2)
    dq = mm(q, omega) + mm(da - mm(q, mm(np.swapaxes(q, -1, -2), da)), rinv_t)
    dr = mm(c - omega, r)
    return (dq, dr)


def qr_vjp(g, a, ans):
    q = ans[0]
    r = ans[1]
    gq = g[0]
    gr = g[1]
    m = mm(r, np.swapaxes(gr, -1, -2)) - mm(np.swapaxes(gq, -1, -2), q)
    low = np.tril(m, -1)
    sym = low + np.swapaxes(low, -1, -2) + m * _eye_like(m, np.shape(m)[-1])
    b = gq + mm(q, sym)
    return np.swapaxes(np.linalg.solve(r, np.swapaxes(b, -1, -2)), -1, -2)


def pinv_jvp(da, a, ans):
    p = ans
    dat = np.swapaxes(da, -1, -2)
    pt = np.swapaxes(p, -1, -2)
    ap = mm(a, p)
    pa = mm(p, a)
    eye_m = _eye_like(a, np.shape(a)[-2])
    eye_n = _eye_like(a, np.shape(a)[-1])
    return (-mm(p, mm(da, p)) + mm(mm(p, pt), mm(dat, eye_m - ap))
            + mm(eye_n - pa, mm(dat, mm(pt, p))))


def pinv_vjp(g, a, ans):
    p = ans
    pt = np.swapaxes(p, -1, -2)
    gt = np.swapaxes(g, -1, -2)
    eye_m = _eye_like(a, np.shape(a)[-2])
    eye_n = _eye_like(a, np.shape(a)[-1])
    ap = mm(a, p)
    pa = mm(p, a)
    return (-mm(pt, mm(g, pt)) + mm(eye_m - ap, mm(gt, mm(p, pt)))
            + mm(mm(pt, p), mm(gt, eye_n - pa)))


def matrix_power_jvp(da, a, n):
    if n < 0:
        b = np.linalg.inv(a)
        db = -mm(b, mm(da, b))
        return matrix_power_jvp(db, b, -n)
    out = np.zeros_like(da)
    for k in range(n):
        out = out + mm(np.linalg.matrix_power(a, k), mm(da, np.linalg.matrix_power(a, n - 1 - k)))
    return out


def matrix_power_vjp(g, a, n):
    if n < 0:
        b = np.linalg.inv(a)
        gb = matrix_power_vjp(g, b, -n)
        bt = np.swapaxes(b, -1, -2)
        return -mm(bt, mm(gb, bt))
    at = np.swapaxes(a, -1, -2)
    out = np.zeros_like(g)
    for k in range(n):
        out = out + mm(np.linalg.matrix_power(at, k), mm(g, np.linalg.matrix_power(at, n - 1 - k)))
    return out
