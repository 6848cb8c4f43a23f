"""Derivative helpers of reductions, scans, order statistics and signal operations (rules.py's
reduction rows and primitives/rules_reduce.py): each cotangent broadcast back over the reduced
axes, written with NumPy functions that dispatch to the array's own module."""
from __future__ import annotations

import math

import numpy as np

from ..errors import S2STypeError, S2SValueError
from ._index_layout import batched_key
from ._values import float_dtype, shape_of, size_of
from .batch import map_examples, num_examples, replicate_batch
from .core import asarray, namespace, on_backend_of
from .shapes import take_vjp

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("sum_vjp", "mean_vjp", "max_vjp", "max_jvp", "prod_others", "prod_others_jvp", "prod_others_2",
           "prod_others_3", "prod_others_4", "prod_others_5",
           "var_vjp", "var_jvp", "cumsum_vjp", "trace_vjp", "check_norm_ord", "norm_vjp", "norm_jvp",
           "gradient_matrix", "gradient_rank", "no_derivative", "trapezoid_vjp", "gradient_vjp", "gradient_vjp_t",
           "conv_pad",
           "interp_slope", "interp_fp_vjp", "polyval_vjp_p", "polyder", "nancount", "nanvar_vjp", "nanvar_jvp",
           "average_vjp_a", "diff_vjp", "ones_like_float", "average_vjp_w", "average_jvp_w", "cumulative_vjp",
           "quantile_vjp", "quantile_jvp", "interp_apply", "diff_axis", "interp_ok", "linear_method", "needs_initial",
           "unsupported", "cummax", "cummin", "cummax_index", "cummin_index", "multiply_at", "multiply_at_vjp_v",
           "multiply_at_jvp_v", "batched_multiply_at", "batched_multiply_at_vjp", "batched_multiply_at_jvp_v")


def sum_vjp(v, like, axis, keepdims):
    """Cotangent of `sum(like, axis, keepdims)`: broadcast back to `like`'s shape."""
    if axis is None and not keepdims:
        return _filled_like(like, v)
    if type(like) is np.ndarray and type(v) is np.ndarray and type(axis) is int and -like.ndim <= axis < like.ndim \
            and v.dtype == like.dtype and like.dtype.kind in "fc":  # (one axis of a NumPy float array: a copy
        shape = list(like.shape)  # of the cotangent, without expand_dims's and broadcast_to's wrappers)
        shape[axis] = 1
        if v.shape == (tuple(shape) if keepdims else like.shape[:axis % like.ndim] + like.shape[axis % like.ndim + 1:]):
            out = np.empty(like.shape, dtype=like.dtype)
            out[...] = v.reshape(shape)
            return out
    return np.broadcast_to(_expand_reduced(v, like, axis, keepdims), shape_of(like)).astype(float_dtype(like))


def mean_vjp(v, like, axis, keepdims):
    if axis is None and not keepdims:
        return _filled_like(like, v / max(size_of(like), 1))
    n = np.size(like) // max(np.size(v), 1)
    return sum_vjp(v, like, axis, keepdims) / n


def max_vjp(v, a, ans, axis, keepdims):
    """Cotangent of a max/min reduction: split evenly among the positions that attain it."""
    if axis is None and not keepdims and type(a) is np.ndarray:  # (a whole NumPy array: no reshapes)
        hit = a == ans
        dt = a.dtype if a.dtype.kind in "fc" else float_dtype(a)
        if type(v) in _REAL_SCALARS and math.isfinite(v):
            at = (hit if hit.ndim == 1 else hit.ravel()).nonzero()[0]  # (the positions; one pass)
            if len(at) == 1:
                return _one_hot(v, a.shape, at[0], dt)
            n = len(at)
        else:
            n = np.count_nonzero(hit)
        return (v * hit / np.asarray(n, dtype=dt)).astype(dt, copy=False)
    axis = None if np.ndim(a) == 0 else axis  # (a number reduced along axis 0 or -1 is itself)
    hit = a == _expand_reduced(ans, a, axis, keepdims)
    dt = float_dtype(a)
    count = np.sum(hit, axis=axis, keepdims=True).astype(dt)
    return (_expand_reduced(v, a, axis, keepdims) * hit / count).astype(dt, copy=False)


_REAL_SCALARS = frozenset({float, np.float64, np.float32})


def _one_hot(v, shape, at, dt):
    """`v * hit / 1` in dtype `dt` for a finite number `v` and one True in `hit`, at flat position
    `at`, bit for bit (zeros with `v`'s sign elsewhere), without the products: `v` at `at`."""
    out = np.empty(shape, dtype=dt)
    out.fill(math.copysign(0.0, v))  # (v * False is -0.0 for a negative v)
    if out.ndim == 1:
        out[at] = v
    else:
        out.flat[at] = v
    return out


def max_jvp(v, a, ans, axis, keepdims):
    axis = None if np.ndim(a) == 0 else axis
    hit = a == _expand_reduced(ans, a, axis, keepdims)
    count = np.sum(hit, axis=axis, keepdims=keepdims).astype(float_dtype(a))
    return np.sum(v * hit, axis=axis, keepdims=keepdims) / count


def _last_axis(a, axis):
    """`a` with the reduced axes (None: all) moved last and flattened into one, and the inverse."""
    a = asarray(a)
    nd = a.ndim
    axes = tuple(range(nd)) if axis is None or nd == 0 else tuple(x % nd for x in np.atleast_1d(axis))
    dest = tuple(range(nd - len(axes), nd))
    m = np.moveaxis(a, axes, dest)
    lead = m.shape[:nd - len(axes)]
    back = lambda r: np.moveaxis(np.reshape(r, m.shape), dest, axes)  # noqa: E731
    return np.reshape(m, lead + (-1,)), back


def _others(m):
    ones = namespace(m).ones(m.shape[:-1] + (1,), dtype=m.dtype)
    left = np.cumprod(np.concatenate([ones, m[..., :-1]], axis=-1), axis=-1)
    right = np.flip(np.cumprod(np.concatenate([ones, np.flip(m, -1)[..., :-1]], axis=-1), axis=-1), -1)
    return (left * right)[..., :m.shape[-1]]  # (an empty reduction: no entries, where the tables have one)


def prod_others(a, axis=None):
    """For each element of `a`, the product of the other elements of its reduction: the derivative
    of `prod(a, axis)`, exact where `a` has zeros (no division by `a`)."""
    m, back = _last_axis(a, axis)
    return back(_others(m))


def prod_others_jvp(d, a, axis=None):
    """Tangent of `prod_others(a, axis)` along `d`: sum over j != i of d_j * prod(k != i, j) a_k."""
    return _prod_others_dirs(a, axis, d)


def prod_others_2(d1, d2, a, axis=None):
    """`_prod_others_dirs` along two directions (prod's fourth derivative), and so on."""
    return _prod_others_dirs(a, axis, d1, d2)


def prod_others_3(d1, d2, d3, a, axis=None):
    return _prod_others_dirs(a, axis, d1, d2, d3)


def prod_others_4(d1, d2, d3, d4, a, axis=None):
    return _prod_others_dirs(a, axis, d1, d2, d3, d4)


def prod_others_5(d1, d2, d3, d4, d5, a, axis=None):
    return _prod_others_dirs(a, axis, d1, d2, d3, d4, d5)


def _prod_others_dirs(a, axis, *ds):
    """Element i: the derivative of `prod(a, axis)` along e_i and each of `ds` once: the sum over
    distinct j1..jk (none i) of ds[0][j1] ... ds[k-1][jk] times the product of the other entries.
    Exact at zeros (no division): prefix and suffix tables over the subsets of `ds` used so far."""
    m, back = _last_axis(a, axis)
    if m.shape[-1] == 0:  # an empty reduction: no entries
        return back(m * 0)
    dm = [_last_axis(np.broadcast_to(d, np.shape(a)), axis)[0] for d in ds]
    xp, k, n = namespace(m), len(dm), m.shape[-1]
    dt = np.result_type(m, *dm, np.float32)
    full = (1 << k) - 1

    def scan(order):  # tables[l][S]: the coefficient over the first l entries of `order`, with S's directions
        cur = [xp.ones(m.shape[:-1], dtype=dt)] + [xp.zeros(m.shape[:-1], dtype=dt)] * full
        tables = [cur]
        for j in order:
            new = [c * m[..., j] for c in cur]
            for subset in range(1, full + 1):
                for r in range(k):
                    if subset >> r & 1:
                        new[subset] = new[subset] + cur[subset ^ (1 << r)] * dm[r][..., j]
            cur = new
            tables.append(cur)
        return tables
    left, right = scan(range(n)), scan(range(n - 1, -1, -1))
    out = [sum(left[i][s] * right[n - 1 - i][full ^ s] for s in range(full + 1)) for i in range(n)]
    return back(xp.stack(out, axis=-1))


def var_vjp(v, a, axis, ddof, keepdims):
    n = np.size(a) // max(np.size(np.sum(a, axis=axis)), 1)
    centered = a - np.mean(a, axis=axis, keepdims=True)
    return _expand_reduced(v, a, axis, keepdims) * 2 * centered / (n - ddof)


def var_jvp(da, a, axis, ddof, keepdims):
    n = np.size(a) // max(np.size(np.sum(a, axis=axis)), 1)
    centered = a - np.mean(a, axis=axis, keepdims=True)
    return np.sum(2 * centered * da, axis=axis, keepdims=keepdims) / (n - ddof)


def cumsum_vjp(v, like, axis):
    if axis is None:
        return np.reshape(np.cumsum(v[::-1])[::-1], np.shape(like))
    if np.ndim(like) == 0:  # NumPy scans a 0-d array as the flattened one: (1,) back to ()
        return np.reshape(v, np.shape(like))
    return np.flip(np.cumsum(np.flip(v, axis), axis), axis)


def trace_vjp(v, a, offset, axis1, axis2):
    # the diagonal's mask from ones like `a` (its array module and dtype, no allocation by name);
    # s2s transforms this at order 2
    eye = np.triu(np.tril(np.ones_like(np.moveaxis(a, (axis1, axis2), (-2, -1))), offset), offset)
    return np.moveaxis(np.expand_dims(np.expand_dims(on_backend_of(v, a), -1), -1) * eye, (-2, -1), (axis1, axis2))


def check_norm_ord(ord, axis):
    """Only the 2-norm of vectors and the Frobenius norm have derivative rules."""
    if ord not in (None, 2, "fro") or (axis is not None and not isinstance(axis, int) and ord == 2):
        raise S2SValueError(f"s2s differentiates linalg.norm for ord=None, 2 (vectors) or 'fro' only, not ord={ord!r}")
    return ord


def norm_vjp(v, x, ans, ord, axis, keepdims):
    check_norm_ord(ord, axis)
    return _expand_reduced(v, x, axis, keepdims) * x / np.where(_expand_reduced(ans, x, axis, keepdims) == 0, 1,
                                                         _expand_reduced(ans, x, axis, keepdims))


def norm_jvp(dx, x, ans, ord, axis, keepdims):
    return np.sum(norm_vjp(np.ones_like(ans), x, ans, ord, axis, keepdims) * dx, axis=axis, keepdims=keepdims)


def gradient_matrix(n, spacing, edge_order):
    """The matrix D with `gradient(f) == D @ f` for 1-D `f` of length n."""
    return np.stack([np.gradient(e, spacing, edge_order=edge_order) for e in np.eye(n)], axis=1)


def gradient_rank(f, n):
    """`f`, once checked to have a spacing per axis: np.gradient(f, s0, ..., s<n-1>) without `axis=`
    raises TypeError unless `f` has rank n (the frontend writes it as one call per axis)."""
    if np.ndim(f) != n:
        raise S2STypeError(f"np.gradient: invalid number of arguments ({n} spacings for an array of rank {np.ndim(f)})")
    return f


def no_derivative(x, what):
    """The rule of an argument s2s refuses to differentiate through: an error when it runs, never
    a silent zero."""
    raise S2SValueError(f"s2s does not differentiate {what}; wrap that argument in stop_gradient.")


def trapezoid_vjp(v, y, x, dx, axis):
    """Transpose of `y -> trapezoid(y, x, dx, axis)`: each sample's weight (half the spacings on
    either side of it) times the cotangent."""
    n = np.shape(y)[axis]
    xp = namespace(v)
    d = np.diff(xp.asarray(x, dtype=float_dtype(y))) if x is not None else xp.full(n - 1, float(dx))
    if np.ndim(d) != 1:
        raise S2SValueError("s2s differentiates np.trapezoid with a 1-D `x` (or none) only")
    zero = xp.zeros(1, dtype=d.dtype)
    w = 0.5 * (xp.concatenate((d, zero)) + xp.concatenate((zero, d)))
    shape = [1] * np.ndim(y)
    shape[axis] = n
    return np.expand_dims(v, axis) * np.reshape(w, shape).astype(float_dtype(y))


def _gradient_axes(f, axis):
    """The axes `np.gradient(f, axis=axis)` differentiates along, and whether its result is one
    array (a 1-D `f` or one axis) or a tuple of them (one per axis)."""
    nd = np.ndim(f)
    if axis is None:
        axes = tuple(range(nd))
    elif isinstance(axis, (tuple, list)):
        axes = tuple(int(a) % nd for a in axis)
    else:
        return (int(axis) % nd,), False
    return axes, len(axes) != 1


def _gradient_vjp_1(v, f, spacing, ax, edge_order):
    d = namespace(v).asarray(gradient_matrix(np.shape(f)[ax], spacing, edge_order).astype(float_dtype(v)))
    return np.moveaxis(np.tensordot(d.T, np.moveaxis(v, ax, 0), axes=1), 0, ax)


def gradient_vjp(v, f, spacing, axis, edge_order):
    """Transpose of `f -> np.gradient(f, spacing, axis=axis)`: along each axis its difference
    matrix transposed; an N-d `f` along several axes gets the sum over the tuple's cotangents."""
    axes, many = _gradient_axes(f, axis)
    if not many:
        return _gradient_vjp_1(v, f, spacing, axes[0], edge_order)
    out = None
    for ax, w in zip(axes, v):
        if w is None:  # (an output no one read)
            continue
        term = _gradient_vjp_1(asarray(w), f, spacing, ax, edge_order)
        out = term if out is None else out + term
    return np.zeros_like(f, dtype=float_dtype(f)) if out is None else out


def gradient_vjp_t(v, f, spacing, axis, edge_order):
    """Transpose of gradient_vjp: np.gradient itself (a tuple along several axes)."""
    axes, many = _gradient_axes(f, axis)
    out = np.gradient(v, spacing, axis=axes if many else axes[0], edge_order=edge_order)
    return tuple(out) if many else out


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
    return sum_vjp(g, a, axis, keepdims) * 2 * c / (n - ddof)


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
        return mean_vjp(g, a, axis, keepdims)
    w = _weights_full(a, weights, axis)
    return sum_vjp(g, a, axis, keepdims) * w / np.sum(w, axis=axis, keepdims=True)


def diff_vjp(v, like, n, axis):
    """Transpose of `diff(., n, axis)`: `-diff` of the zero-padded cotangent, n times (zeros when n
    reaches the axis's length: the result was empty)."""
    if n >= np.shape(like)[axis]:
        return np.zeros(np.shape(like), dtype=float_dtype(v))
    for _ in range(n):
        pad = [(0, 0)] * np.ndim(v)
        pad[axis] = (1, 1)
        v = -np.diff(np.pad(v, pad), axis=axis)
    return v


def ones_like_float(x):
    return np.ones_like(x, dtype=float_dtype(x))  # in x's module


def average_vjp_w(g, a, weights, axis, keepdims, ans):
    """Cotangent of the weights of `average(a, axis, weights)`: (a - average) / sum of weights."""
    total = np.sum(_weights_full(a, weights, axis), axis=axis, keepdims=True)
    full = sum_vjp(g, a, axis, keepdims) * (a - sum_vjp(ans, a, axis, keepdims)) / total
    if np.ndim(weights) == 1 and np.ndim(a) > 1 and axis is not None:
        full = np.sum(full, axis=tuple(i for i in range(np.ndim(a)) if i != axis % np.ndim(a)))
    return np.reshape(full, np.shape(weights))


def average_jvp_w(dw, a, weights, axis, keepdims, ans):
    dfull = _weights_full(a, dw, axis)
    total = np.sum(_weights_full(a, weights, axis), axis=axis, keepdims=keepdims)
    return np.sum(dfull * (a - sum_vjp(ans, a, axis, keepdims)), axis=axis, keepdims=keepdims) / total


def _weights_full(a, w, axis):
    if np.ndim(w) == 1 and np.ndim(a) > 1 and axis is not None:
        shape = [1] * np.ndim(a)
        shape[axis % np.ndim(a)] = -1
        w = np.reshape(w, shape)
    return w * np.ones_like(a)


def cumulative_vjp(v, x, axis, include_initial):
    """Transpose of `cumulative_sum(x, axis, include_initial)`."""
    ax = 0 if axis is None else axis
    if include_initial:
        v = np.delete(v, 0, axis=ax)
    return np.flip(np.cumsum(np.flip(v, ax), ax), ax) if np.ndim(v) else v


def _reduced_last(a, axis):
    """`a` with the reduced axes (an int, a tuple with negative entries too, or None: every axis)
    moved last and flattened into one; also those axes, sorted, and the kept ones."""
    nd = np.ndim(a)
    axes = range(nd) if axis is None else (axis if isinstance(axis, (tuple, list)) else (axis,))
    axes = tuple(sorted({int(ax) % nd for ax in axes})) if nd else ()
    keep = [i for i in range(nd) if i not in axes]
    shape = np.shape(a)
    x = np.transpose(a, keep + list(axes)) if nd else a
    return np.reshape(x, tuple(shape[i] for i in keep) + (int(np.prod([shape[i] for i in axes])),)), axes, keep


def _quantile_weights(x, q, method="linear"):
    """Weights w (shape: q's, then x's) with quantile(x, q, axis=-1, method=method) ==
    sum(w * x, axis=-1), by NumPy's rule for the method at the virtual index q * (n - 1): 'linear'
    interpolates between the two entries of nearest rank, 'lower'/'higher' take the one below/above,
    'nearest' the one at the rounded index (halves to even, as np.around), 'midpoint' the mean of
    the two (the one entry at a whole index). NaN entries skipped; ties go to the first in sort order."""
    ok = np.logical_not(np.isnan(x))
    n = np.sum(ok, axis=-1, keepdims=True)
    if np.ndim(q):  # (an array of them, on the backend of `x`)
        q = np.reshape(namespace(x).asarray(q), np.shape(q) + (1,) * np.ndim(x))
    pos = q * (n - 1)
    lo = np.floor(pos)
    frac = pos - lo
    if method in ("lower", "higher", "nearest"):
        lo = {"lower": lo, "higher": np.ceil(pos), "nearest": np.around(pos)}[method]
        frac = 0.0 * pos
    elif method == "midpoint":
        frac = np.where(frac > 0, 0.5, 0.0)
    order = np.argsort(np.where(ok, x, np.inf), axis=-1, kind="stable")
    rank = np.argsort(order, axis=-1, kind="stable")
    w = (rank == lo) * (1 - frac) + (rank == np.minimum(lo + 1, n - 1)) * frac
    return w.astype(float_dtype(x))


def quantile_vjp(g, a, q, axis, keepdims, method="linear"):
    """Transpose of `da -> quantile_jvp(da, a, q, axis, keepdims, method)` (q a number or an array
    of them, `axis` an int, a tuple or None)."""
    x, axes, keep = _reduced_last(a, axis)
    w = _quantile_weights(x, q, method)
    gq = np.reshape(g, np.shape(q) + np.shape(x)[:-1] + (1,))
    full = np.sum(gq * w, axis=tuple(range(np.ndim(q))))
    shape = np.shape(a)
    full = np.reshape(full, tuple(shape[i] for i in keep) + tuple(shape[i] for i in axes))
    back = [int(i) for i in np.argsort(keep + list(axes))]
    return np.transpose(full, back) if np.ndim(a) else np.reshape(full, shape)


def quantile_jvp(da, a, q, axis, keepdims, method="linear"):
    """The tangent of `quantile(a, q, axis, keepdims=keepdims, method=method)`: the quantile's
    weights on `da`."""
    x, axes, keep = _reduced_last(a, axis)
    dx = _reduced_last(da, axis)[0]
    out = np.sum(_quantile_weights(x, q, method) * dx, axis=-1)
    if keepdims:
        out = np.reshape(out, np.shape(q) + tuple(1 if i in axes else n for i, n in enumerate(np.shape(a))))
    return out


def interp_apply(x, xp, fp):
    """`interp(x, xp, fp)`, for derivative code (where `xp` names the knots, not the module)."""
    return np.interp(x, xp, fp)


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


_QUANTILE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def linear_method(q, method):
    """`q`, after checking that the quantile's method is one whose weights s2s computes (NumPy's
    default linear interpolation and the four methods that pick or average the nearest ranks)."""
    if method not in _QUANTILE_METHODS:
        raise S2SValueError(f"s2s differentiates quantiles with method 'linear', 'lower', 'higher', 'nearest' or "
                            f"'midpoint', not {method!r}")
    return np.asarray(q) if isinstance(q, (list, tuple)) else q  # (0.01 * q of a list of percents)


def needs_initial(where, what):
    """NumPy's error for `np.max(a, where=m)` without initial= (the reduction has no identity)."""
    if where is not True:
        raise ValueError(f"{what} with where= needs initial=: the reduction has no identity (NumPy's error)")


def unsupported(value, what):
    """An S2SError when an argument s2s does not differentiate is given."""
    if value is not None:
        raise S2SValueError(f"s2s does not support {what}; compute it another way")
    return None


# ---------------------------------------------------------------- ufunc methods (np.maximum.accumulate, ...)

def cummax(x, axis=0):
    """`np.maximum.accumulate(x, axis)`: the running maximum."""
    return np.maximum.accumulate(x, axis=axis)


def cummin(x, axis=0):
    """`np.minimum.accumulate(x, axis)`: the running minimum."""
    return np.minimum.accumulate(x, axis=axis)


def _record_index(x, ans, axis):
    """Where each running extreme `ans` was attained along `axis`: the last position up to each
    entry at which `x` set a new record (its derivative flows there)."""
    x = asarray(x)
    axis = axis % x.ndim
    pos = np.arange(x.shape[axis]).reshape((-1,) + (1,) * (x.ndim - 1 - axis))
    return np.maximum.accumulate(np.where(x == ans, pos, 0), axis=axis)


def cummax_index(x, axis=0):
    """The position along `axis` whose entry each running maximum is (`cummax`'s derivative)."""
    return _record_index(x, cummax(x, axis), axis)


def cummin_index(x, axis=0):
    """The position along `axis` whose entry each running minimum is (`cummin`'s derivative)."""
    return _record_index(x, cummin(x, axis), axis)


def multiply_at(y, index, v):
    """`np.multiply.at` on a copy of `y`: `y[index] *= v`, repeated indices multiplied in turn."""
    out = np.array(y, dtype=np.result_type(y, v), copy=True)
    np.multiply.at(out, index, v)
    return out


def _at_entries(y, index, v):
    """(flat position in `y` of each update of multiply_at, the product of the other updates'
    factors at its position, the shape of the updates: `y[index]`'s)."""
    y = asarray(y)
    pos = np.arange(y.size).reshape(y.shape)[index]
    shape = pos.shape
    pos = pos.ravel()
    vals = np.broadcast_to(v, shape).ravel()
    others = np.ones(vals.shape, dtype=np.result_type(vals, float))
    order = np.argsort(pos, kind="stable")
    ps = pos[order]
    starts = np.flatnonzero(np.concatenate([[True], ps[1:] != ps[:-1]])) if len(ps) else np.zeros(0, int)
    for s, e in zip(starts, np.append(starts[1:], len(ps))):
        seg = vals[order[s:e]]
        before = np.concatenate([[1.0], np.cumprod(seg[:-1])])
        after = np.concatenate([np.cumprod(seg[::-1][:-1])[::-1], [1.0]])
        others[order[s:e]] = before * after
    return pos, others, shape


def multiply_at_vjp_v(g_, y, index, v):
    """Cotangent of `v` in multiply_at(y, index, v): each update's is the output cotangent times
    `y` times the other factors at its position (no division, so zero factors are fine)."""
    pos, others, shape = _at_entries(y, index, v)
    per = (np.ravel(asarray(g_) * asarray(y))[pos] * others).reshape(shape)
    nd = per.ndim - np.ndim(v)  # summed back to v's shape (v broadcast to the updates' shape)
    per = np.sum(per, axis=tuple(range(nd))) if nd > 0 else per
    keep = tuple(i for i, n in enumerate(np.shape(v)) if n == 1 and per.shape[i] != 1)
    return np.sum(per, axis=keep, keepdims=True) if keep else per


def multiply_at_jvp_v(dv, y, index, v):
    """Tangent of multiply_at(y, index, v) in `v`: at each position, `y` times the sum over its
    updates of the update's tangent times the other factors there."""
    pos, others, shape = _at_entries(y, index, v)
    y = asarray(y)
    out = np.zeros(y.size, dtype=np.result_type(y, dv, float))
    np.add.at(out, pos, np.ravel(y)[pos] * others * np.broadcast_to(dv, shape).ravel())
    return out.reshape(y.shape)


def _batched_at(flags, y, index, v):
    """multiply_at's arguments for a batch of examples sharing `index`: `y` with the batch axis
    first, the index past it, and `v` (when batched) with unit axes aligning it to the updates."""
    n = num_examples(y if flags[0] else v)
    yb = asarray(y if flags[0] else replicate_batch(y, n))
    rank = np.ndim(yb[0][index])  # an example's updates
    if flags[2]:
        v = asarray(v)
        v = v.reshape(v.shape[:1] + (1,) * (rank - (v.ndim - 1)) + v.shape[1:])
    return yb, batched_key(index, False, n, np.shape(yb)), v


def batched_multiply_at(flags, y, index, v):
    """`multiply_at` per example, at once (an index that differs per example: one call each)."""
    if flags[1]:
        return map_examples("rt.multiply_at", flags, num_examples(y if flags[0] else index), y, index, v)
    return multiply_at(*_batched_at(flags, y, index, v))


def batched_multiply_at_vjp(flags, g_, y, index, v, which):
    """The cotangent of `y` (which 0) or `v` (1) of batched_multiply_at, shaped like it (summed
    over the examples where it is unbatched)."""
    yb, idx, vb = _batched_at(flags, y, index, v)
    if which == 0:
        out = g_ * multiply_at(np.ones_like(yb), idx, vb)
        return out if flags[0] else np.sum(out, axis=0)
    out = multiply_at_vjp_v(g_, yb, idx, vb)
    return np.reshape(out, np.shape(v))


def batched_multiply_at_jvp_v(flags, dv, y, index, v):
    """The tangent of batched_multiply_at in `v` (`dv` batched as `v` is)."""
    yb, idx, vb = _batched_at(flags, y, index, v)
    dvb = _batched_at(flags, y, index, dv)[2]
    return multiply_at_jvp_v(dvb, yb, idx, vb)


# ---- the shapes of reductions' cotangents ----
def _expand_reduced(v, like, axis, keepdims):
    v = on_backend_of(v, like)
    if np.ndim(like) == 0:
        return v  # a reduction of a number (along axis 0 or -1, which NumPy allows) is the number
    if axis is None or keepdims:
        return v if axis is not None or np.ndim(v) == np.ndim(like) else np.reshape(v, (1,) * np.ndim(like))
    return np.expand_dims(v, axis)


def _filled_like(like, value):
    """A new array shaped like `like` (in its floating dtype) holding `value` everywhere."""
    if type(like) is np.ndarray and type(value) in (float, np.float64):  # (the common case, directly)
        out = np.empty(like.shape, dtype=like.dtype if like.dtype.kind in "fc" else np.float64)
        out.fill(value)
        return out
    xp = namespace(like)
    if xp is not np:  # no `fill` on every library (Dask); `value` may be a 0-d array of it
        return xp.zeros(shape_of(like), dtype=float_dtype(like)) + value
    out = np.empty(shape_of(like), dtype=float_dtype(like))
    out.fill(value)
    return out
