"""Batching helpers of the reductions, scans, order statistics, signal and interpolation
operations (primitives/rules_reduce.py) and of their derivative helpers; the same rules as
batch_shape: one call on the whole batch, `map_examples` for patterns no vectorized form covers."""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ._batch_operands import (
    all_example_axes,
    array_of,
    count_examples,
    example_rank,
    example_rows,
    is_array,
    lift_to_rank,
    loop_examples,
    one_example,
    shifted_axis,
    shifted_rule,
    static_rule,
    with_batch,
)
from .batch import map_examples
from .batch_shape import batched_searchsorted
from .composite import cov_axes, cov_ddof, insert_map, pad_fill_map, vander_powers
from .core import plain_operands
from .reduce import (
    conv_pad,
    cumsum_vjp,
    cumulative_vjp,
    diff_axis,
    diff_vjp,
    gradient_rank,
    interp_ok,
    max_jvp,
    max_vjp,
    prod_others,
    prod_others_2,
    prod_others_3,
    prod_others_4,
    prod_others_5,
    prod_others_jvp,
)

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("batched_cumulative_sum", "batched_cumulative_prod", "batched_diff", "batched_ediff1d", "batched_list_sum",
           "batched_average",
           "batched_quantile", "batched_percentile", "batched_nanquantile", "batched_nanpercentile", "batched_gradient",
           "batched_trapezoid", "batched_gradient_rank",
           "batched_convolve", "batched_correlate", "batched_interp", "batched_interp_apply", "batched_allclose",
               "batched_array_equal",
           "batched_array_equiv", "batched_isin", "batched_digitize", "batched_max_vjp", "batched_max_jvp",
               "batched_prod_others",
           "batched_prod_others_jvp", "batched_prod_others_2", "batched_prod_others_3",
           "batched_prod_others_4", "batched_prod_others_5",
           "batched_cumsum_vjp", "batched_diff_vjp", "batched_cumulative_vjp",
           "batched_conv_pad", "batched_diff_axis", "batched_interp_ok", "batched_insert_map",
           "batched_pad_fill_map", "batched_plain_operands", "batched_vander_powers", "batched_cov_axes", "batched_cov_ddof")


# ---- scans, differences, sums ----
def _cumulative(fn):
    def rule(flags, x, axis=None, dtype=None, include_initial=False):
        nd = example_rank(x, True)
        if axis is None and nd != 1:
            return loop_examples("xp." + fn.__name__, flags, x, axis, dtype, include_initial)
        if nd == 0:  # NumPy scans a number along its axis 0 or -1 as a 1-element array
            shifted_axis(axis, nd)
            x, axis = array_of(x)[:, None], 0
        return fn(x, axis=1 if axis is None else shifted_axis(axis, nd), dtype=dtype, include_initial=include_initial)
    return rule


batched_cumulative_sum = _cumulative(np.cumulative_sum)


batched_cumulative_prod = _cumulative(np.cumulative_prod)


def _edge(v, fl, a, ax, n):
    """prepend/append of np.diff as a batched block along batched axis `ax` of `a`."""
    v = array_of(v)
    if example_rank(v, fl) == 0:
        shape = list(a.shape)
        shape[ax] = 1
        return np.broadcast_to(v.reshape(v.shape + (1,) * (a.ndim - v.ndim)) if fl else v, shape)
    return with_batch(v, fl, n)


def batched_diff(flags, a, n=1, axis=-1, prepend=None, append=None):
    if flags[1] or flags[2]:
        return loop_examples("xp.diff", flags, a, n, axis, prepend, append)
    b = count_examples(flags, (a, n, axis, prepend, append))
    ax = shifted_axis(axis, example_rank(a, flags[0]))
    a = with_batch(a, flags[0], b)
    parts = [a]
    if prepend is not None:
        parts.insert(0, _edge(prepend, flags[3], a, ax, b))
    if append is not None:
        parts.append(_edge(append, flags[4], a, ax, b))
    if len(parts) > 1:
        a = np.concatenate(parts, axis=ax)
    return np.diff(a, n, axis=ax)


def batched_ediff1d(flags, ary):
    return np.diff(array_of(ary).reshape(np.shape(ary)[0], -1), axis=1)


def batched_list_sum(flags, items):
    """Python's sum over a batched list (each item lifted to the others' per-example rank) or over
    the rows of each example, in the same order of additions as the loop it replaces."""
    if is_array(items):
        total = 0
        for i in range(items.shape[1]):
            total = total + items[:, i]
        return total
    r = max((np.ndim(t) - 1 for t in items), default=0)
    total = 0
    for t in items:
        total = total + lift_to_rank(t, True, r)
    return total


def batched_average(flags, a, axis=None, weights=None, returned=False, keepdims=False):
    if returned or flags[1] or flags[3] or flags[4]:  # (keepdims is keyword-only in np.average)
        return map_examples("xp.average", flags, count_examples(flags, (a, axis, weights)), a, axis, weights, returned,
                            keepdims=keepdims)
    n = count_examples(flags, (a, axis, weights))
    nd = example_rank(a, flags[0])
    ax = all_example_axes(nd) if axis is None else shifted_axis(axis, nd)
    a = with_batch(a, flags[0], n)
    if weights is None:
        return np.average(a, axis=ax, keepdims=keepdims)
    w = array_of(weights)
    if example_rank(w, flags[2]) != nd:   # 1-D weights along `axis`
        shape = [1] * nd
        shape[int(axis) % nd] = -1
        w = w.reshape(w.shape[:1] + tuple(shape) if flags[2] else tuple(shape))
    w = np.broadcast_to(w, a.shape)
    scale = w.sum(axis=ax, keepdims=keepdims)
    return np.multiply(a, w).sum(axis=ax, keepdims=keepdims) / scale


def _quantile(fn):
    def rule(flags, a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
        if flags[1] or flags[2]:
            return loop_examples("xp." + fn.__name__, flags, a, q, axis, out, overwrite_input, method, keepdims)
        nd = example_rank(a, True)
        axes = all_example_axes(nd) if axis is None else shifted_axis(axis, nd)
        got = fn(a, q, axis=axes, method=method, keepdims=keepdims)
        k = np.ndim(q)
        return np.moveaxis(got, k, 0) if k else got
    return rule


batched_quantile = _quantile(np.quantile)


batched_percentile = _quantile(np.percentile)


batched_nanquantile = _quantile(np.nanquantile)


batched_nanpercentile = _quantile(np.nanpercentile)


def batched_gradient(flags, y, spacing=1.0, axis=None, edge_order=1):
    if flags[1] or flags[2]:  # (axis= and edge_order= by keyword: NumPy reads a third positional as a spacing)
        return map_examples("xp.gradient", flags, count_examples(flags, (y, spacing, axis, edge_order)), y, spacing,
                            axis=axis, edge_order=edge_order)
    nd = example_rank(y, True)
    ax = all_example_axes(nd) if axis is None else shifted_axis(axis, nd)
    return np.gradient(y, spacing, axis=ax, edge_order=edge_order)


def batched_trapezoid(flags, y, x=None, dx=1.0, axis=-1):
    """np.trapezoid per example: sample points, spacing or axis that differ per example are one
    call each (a 1-D `x` is laid along the example's axis, which a batched one is not)."""
    if any(flags[1:]):
        return loop_examples("xp.trapezoid", flags, y, x, dx, axis)
    return np.trapezoid(y, x, dx, axis=shifted_axis(axis, example_rank(y, True)))


def batched_gradient_rank(flags, f, n):
    """gradient_rank per example (the batch axis is not one of the example's)."""
    gradient_rank(one_example(f, flags[0]), n)
    return f


# ---- signals and interpolation ----
def _full_correlation(a, v):
    """Per example (last axis): c[k] = sum_j a[k + j - (m - 1)] v[j], every overlap."""
    m = np.shape(v)[-1]
    ap = np.pad(a, [(0, 0)] * (np.ndim(a) - 1) + [(m - 1, m - 1)])
    return np.einsum("...kj,...j->...k", sliding_window_view(ap, m, axis=-1), v)


def _mode_slice(full, la, lv, mode, conv):
    lo, hi = min(la, lv), max(la, lv)
    if mode == "valid":
        return full[..., lo - 1:hi]
    if mode == "same":
        s = (lo - 1) // 2 if conv or la >= lv else lo - 1 - (lo - 1) // 2
        return full[..., s:s + hi]
    return full


# Above this many products per example NumPy's own convolve, once per example, beats one
# matrix product over every window (it computes each output as a C dot product; the call costs
# ~1.5 us). Measured at 16 to 256 examples (signal and kernel lengths from 9 to 1000).
_ROW_WORK = 2048


_BLOCK_BYTES = 1 << 16


def _numpy_rows(op, a, v, fa, fv, n, mode):
    """`op(a_k, v_k, mode)` of each example, into one output (NumPy arrays only)."""
    A = a if fa else np.broadcast_to(a, (n,) + np.shape(a))
    V = v if fv else np.broadcast_to(v, (n,) + np.shape(v))
    return _each_row(op, (A, V), mode)


def _windows_product(a, u, n):
    """_full_correlation of NumPy arrays with less set-up: a strided view of the zero-padded
    signals and one batched matrix-vector product with the kernels `u` (n, m), a block of examples
    at a time so that the padded copy stays small (a fresh large one costs more in page faults
    than the products themselves)."""
    m, la = u.shape[-1], np.shape(a)[-1]
    a = a if np.ndim(a) == 2 else np.broadcast_to(a, (n, la))
    out = np.empty((n, la + m - 1), np.result_type(a, u))
    step = max(1, _BLOCK_BYTES // (out.itemsize * (la + 2 * (m - 1))))
    for s in range(0, n, step):
        ap = np.zeros((min(n, s + step) - s, la + 2 * (m - 1)), out.dtype)
        ap[:, m - 1:m - 1 + la] = a[s:s + step]
        s0, s1 = ap.strides
        windows = np.ndarray((ap.shape[0], la + m - 1, m), ap.dtype, ap, 0, (s0, s1, s1))  # overlapping rows
        np.matmul(windows, u[s:s + step, :, None], out=out[s:s + step, :, None])
    return out


def _conj(v):
    """NumPy's correlate conjugates its second argument (complex signals)."""
    return np.conj(v) if np.iscomplexobj(v) else v


def _signal(op):
    """The batching rule of np.convolve or np.correlate (`op`), primitive `xp.<its name>`."""
    name, conv = "xp." + op.__name__, op is np.convolve

    def rule(flags, a, v, mode="full" if conv else "valid"):
        if flags[2] or mode not in ("full", "same", "valid"):
            return loop_examples(name, flags, a, v, mode)
        la, lv = np.shape(a)[-1], np.shape(v)[-1]
        if type(a) is np.ndarray and type(v) is np.ndarray and la and lv:
            n = count_examples(flags, (a, v))
            if la * lv > _ROW_WORK:
                return _numpy_rows(op, a, v, flags[0], flags[1], n, mode)
            k = v if conv else _conj(v[..., ::-1])  # the full result is the convolution of a and k
            x, y = (a, k) if la >= lv else (k, a)    # windows of the longer one (convolution commutes)
            u = y[..., ::-1]
            u = u if np.ndim(u) == 2 else np.broadcast_to(u, (n, np.shape(u)[-1]))
            return _mode_slice(_windows_product(x, u, n), la, lv, mode, conv)
        full = _full_correlation(array_of(a), np.flip(v, -1) if conv else _conj(array_of(v)))
        return _mode_slice(full, la, lv, mode, conv)
    return rule


batched_convolve = _signal(np.convolve)


batched_correlate = _signal(np.correlate)


def batched_interp(flags, x, xp, fp, left=None, right=None, period=None):
    if not flags[1] and not flags[2]:
        return np.interp(x, xp, fp, left, right, period)   # shared knots: NumPy's interp is elementwise in x
    if period is not None or any(flags[3:]):
        return loop_examples("xp.interp", flags, x, xp, fp, left, right, period)
    n = count_examples(flags, (x, xp, fp))
    xs = np.shape(x)[1:] if flags[0] else np.shape(x)
    X, XP, FP = example_rows(x, flags[0], n), example_rows(xp, flags[1], n), example_rows(fp, flags[2], n)
    if n and type(X) is np.ndarray and type(XP) is np.ndarray and type(FP) is np.ndarray:
        return _interp_rows(X, XP, FP, left, right).reshape((n,) + xs)
    K = XP.shape[1]
    j = np.clip(np.sum(XP[:, None, :] <= X[:, :, None], axis=2) - 1, 0, max(K - 2, 0))
    xj, fj = np.take_along_axis(XP, j, 1), np.take_along_axis(FP, j, 1)
    if K > 1:
        x1, f1 = np.take_along_axis(XP, j + 1, 1), np.take_along_axis(FP, j + 1, 1)
        out = (f1 - fj) / (x1 - xj) * (X - xj) + fj
        out = np.where(X == XP[:, -1:], FP[:, -1:], out)
    else:
        out = np.broadcast_to(FP[:, :1], X.shape).astype(np.result_type(FP, float))
    lo = FP[:, :1] if left is None else left
    hi = FP[:, -1:] if right is None else right
    out = np.where(X < XP[:, :1], lo, np.where(X > XP[:, -1:], hi, out))
    return out.reshape((n,) + xs)


def _interp_rows(X, XP, FP, left, right):
    """np.interp of each row with its own knots, into one output. NumPy has no batched binary
    search, and every vectorized form measured (a comparison count as below, a sort of knots and
    values together, a search in complex row+value keys) was slower than NumPy's C routine per
    row at 16 to 256 examples (tools/bench_batch_rules.py), so on NumPy arrays the rows are
    NumPy's; other backends (a GPU) take the vectorized form."""
    return _each_row(np.interp, (X, XP, FP), left, right)


def _each_row(op, arrays, *extra):
    """`op(a[k], b[k], ..., *extra)` for each row k of the NumPy `arrays`, into one output."""
    rows = zip(*arrays)
    first = op(*next(rows), *extra)
    out = np.empty((len(arrays[0]),) + np.shape(first), first.dtype)
    out[0] = first
    for k, row in enumerate(rows, 1):
        out[k] = op(*row, *extra)
    return out


batched_interp_apply = batched_interp


def _all_close(fn):
    def rule(flags, a, b, *args, **kw):
        r = max(example_rank(a, flags[0]), example_rank(b, flags[1]))
        A, B = lift_to_rank(a, flags[0], r), lift_to_rank(b, flags[1], r)
        if fn == "array_equal" and np.shape(one_example(a, flags[0])) != np.shape(one_example(b, flags[1])):
            n = count_examples(flags, (a, b))
            return getattr(n, "xp", np).zeros(n, dtype=bool)
        same = np.isclose(A, B, *args, **kw) if fn == "allclose" else (A == B)
        same = np.broadcast_to(same, (count_examples(flags, (a, b)),) + np.shape(same)[1:])
        return np.all(same.reshape(same.shape[0], -1), axis=1)
    return rule


batched_allclose = _all_close("allclose")


batched_array_equal = _all_close("array_equal")


batched_array_equiv = _all_close("array_equiv")


def batched_isin(flags, element, test_elements, assume_unique=False, invert=False, kind=None):
    if flags[1]:
        n = count_examples(flags, (element, test_elements))
        E, T = example_rows(element, flags[0], n), example_rows(test_elements, True, n)
        hit = np.any(E[:, :, None] == T[:, None, :], axis=2)
        shape = (n,) + (np.shape(element)[1:] if flags[0] else np.shape(element))
        return (~hit if invert else hit).reshape(shape)
    return np.isin(element, test_elements, assume_unique=assume_unique, invert=invert, kind=kind)


def batched_digitize(flags, x, bins, right=False):
    if flags[2]:
        return loop_examples("xp.digitize", flags, x, bins, right)
    if not flags[1]:
        return np.digitize(x, bins, right=right)
    side = "left" if right else "right"   # NumPy's own choice (the arguments of searchsorted swap)
    up = batched_searchsorted((True, flags[0], False, False), bins, x, side)
    down = np.shape(bins)[1] - batched_searchsorted((True, flags[0], False, False), np.flip(bins, 1), x, side)
    inc = (bins[:, -1] >= bins[:, 0]).reshape((-1,) + (1,) * (np.ndim(up) - 1))
    return np.where(inc, up, down)


batched_max_vjp = shifted_rule(max_vjp, (0, 1, 2), (3,), (4,), ref=1)


batched_max_jvp = shifted_rule(max_jvp, (0, 1, 2), (3,), (4,), ref=1)


batched_prod_others = shifted_rule(prod_others, (0,), (1,))


batched_prod_others_jvp = shifted_rule(prod_others_jvp, (0, 1), (2,), ref=1)


batched_prod_others_2 = shifted_rule(prod_others_2, (0, 1, 2), (3,), ref=2)


batched_prod_others_3 = shifted_rule(prod_others_3, (0, 1, 2, 3), (4,), ref=3)


batched_prod_others_4 = shifted_rule(prod_others_4, (0, 1, 2, 3, 4), (5,), ref=4)


batched_prod_others_5 = shifted_rule(prod_others_5, (0, 1, 2, 3, 4, 5), (6,), ref=5)


batched_cumsum_vjp = shifted_rule(cumsum_vjp, (0, 1), (2,), ref=1, none="loop")


batched_diff_vjp = shifted_rule(diff_vjp, (0, 1), (3,), (2,), ref=1)


batched_cumulative_vjp = shifted_rule(cumulative_vjp, (0, 1), (2,), (3,), ref=1, none="loop")


# derivative helpers that read only shapes and settings (the listed arguments only for their shapes):
# one example's answer serves the batch
batched_conv_pad = static_rule(conv_pad, (0, 1))
batched_diff_axis = static_rule(diff_axis, ())
batched_interp_ok = static_rule(interp_ok, ())
batched_insert_map = static_rule(insert_map, (0, 2))
batched_pad_fill_map = static_rule(pad_fill_map, (0, 3))
batched_plain_operands = static_rule(plain_operands, (0, 1))  # (a structure, the same for every example)
batched_vander_powers = static_rule(vander_powers, (0,))
batched_cov_axes = static_rule(cov_axes, (0,))
batched_cov_ddof = static_rule(cov_ddof, ())
