"""Vectorized batching rules of the NumPy coverage operations, `rt.vbh_<op>(f, *args)` (`f`: which
arguments are batched, the batch at axis 0). Each runs its op once on the whole batch with NumPy
calls (leading-axis broadcasting, shifted axes, einsum with one more index), never once per
example. A few rare argument patterns that no vectorized form covers (a per-example shift, split
point, kth or quantile) go to `vb_loop`, the per-example fallback; tests/test_vmap_coverage.py
lists them."""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..errors import S2SValueError
from ..tree import tree_leaves
from . import batch as _b
from . import core as _core
from . import ops as _ops


# ---- small facts about batched operands ----
def _arr(x):
    """`x` as an array of its own backend (a list of a backend's arrays too): np.asarray would
    move a CuPy array to the host or turn a backend's array subclass into a NumPy one."""
    if type(x) is np.ndarray:
        return x
    if isinstance(x, (list, tuple)):
        leaf = next((v for v in tree_leaves(x) if hasattr(v, "shape")), None)
        return np.asarray(x) if leaf is None or type(leaf) is np.ndarray else _core.namespace(leaf).asarray(x)
    return _core.asarray(x)


def _is_arr(x):
    """Whether `x` is an array of any backend (not a list or tuple of them)."""
    return type(x) is np.ndarray or hasattr(x, "shape") and not isinstance(x, (list, tuple, dict, np.generic))


def _n(f, args):
    return _b.vb_n(next(a for a, fl in zip(args, f) if fl))


def _nd(x, fl):
    """Per-example rank."""
    return np.ndim(x) - (1 if fl else 0)


def _ex(x, fl):
    """One example (for shapes)."""
    return x[0] if fl else x


def _full(x, fl, n):
    """`x` with the batch axis (a broadcast view when unbatched)."""
    x = _arr(x)
    return x if fl else np.broadcast_to(x, (n,) + x.shape)


def _flat(x, fl, n):
    x = _arr(x)
    return x.reshape(n, -1) if fl else np.broadcast_to(x.ravel(), (n, x.size))


def _ax(axis, nd):
    """A per-example axis (int or tuple, negative ones too) as an axis of the batched array."""
    if isinstance(axis, (tuple, list)):
        return tuple(_ax(a, nd) for a in axis)
    return int(axis) % max(nd, 1) + 1


def _all_axes(nd):
    return tuple(range(1, nd + 1))


def _lift(x, fl, rank):
    """Batched `x` with unit axes after the batch axis up to per-example rank `rank` (unbatched `x`
    broadcasts from the right already)."""
    if not fl:
        return x if type(x) in (int, float, bool, complex) else _arr(x)
    x = _arr(x)
    k = rank - (x.ndim - 1)
    return x if k <= 0 else x.reshape(x.shape[:1] + (1,) * k + x.shape[1:])


def _lift_loops(x, fl, core, loops):
    """Batched `x` with unit axes after the batch axis so that its loop (non-core) axes number
    `loops`: a gufunc then broadcasts the batch against the other operand's loop axes."""
    return _lift(x, fl, loops + core)


def _loop(name, f, *args):
    return _b.vb_loop(name, f, _n(f, args), *args)


# ---- joining and splitting ----
def vbh_append(f, arr, values, axis=None):
    n = _n(f, (arr, values))
    if axis is None:
        return np.concatenate([_flat(arr, f[0], n), _flat(values, f[1], n)], axis=1)
    return np.concatenate([_full(arr, f[0], n), _full(values, f[1], n)], axis=_ax(axis, _nd(arr, f[0])))


def _rows(tup):
    """A batched sequence argument as a list of batched arrays (a batched array is its rows)."""
    if _is_arr(tup):
        return [tup[:, i] for i in range(tup.shape[1])]
    return [_arr(t) for t in tup]


def _atleast(a, k):
    a = _arr(a)
    nd, s = a.ndim - 1, a.shape[1:]
    if nd >= k:
        return a
    new = {1: {0: (1,)}, 2: {0: (1, 1), 1: (1,) + s}, 3: {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}}[k][nd]
    return a.reshape(a.shape[:1] + new)


def vbh_atleast_1d(f, a, axis=None, shape=None):
    return _atleast(a, 1)


def vbh_atleast_2d(f, a, axis=None, shape=None):
    return _atleast(a, 2)


def vbh_atleast_3d(f, a):
    return _atleast(a, 3)


def vbh_hstack(f, tup):
    arrs = [_atleast(t, 1) for t in _rows(tup)]
    return np.concatenate(arrs, axis=1 if arrs and arrs[0].ndim == 2 else 2)


def vbh_vstack(f, tup):
    return np.concatenate([_atleast(t, 2) for t in _rows(tup)], axis=1)


def vbh_dstack(f, tup):
    return np.concatenate([_atleast(t, 3) for t in _rows(tup)], axis=3)


def vbh_column_stack(f, tup):
    arrs = [t.reshape(t.shape + (1,) * (3 - t.ndim)) if t.ndim < 3 else t for t in _rows(tup)]
    return np.concatenate(arrs, axis=2)


def _split(fn, which):
    def rule(f, ary, indices_or_sections, axis=0):
        nd = _nd(ary, f[0])
        ax = axis if which is None else {"h": 1 if nd > 1 else 0, "v": 0, "d": 2}[which]
        if f[1] or not f[0] or (which == "v" and nd < 2) or (which == "d" and nd < 3):
            return _loop("xp." + fn.__name__, f, ary, indices_or_sections, *(() if which else (axis,)))
        split = np.array_split if fn is np.array_split else np.split
        return split(ary, indices_or_sections, axis=_ax(ax, nd))
    if which is not None:
        def rule2(f, ary, indices_or_sections):
            return rule(f, ary, indices_or_sections)
        return rule2
    return rule


vbh_split = _split(np.split, None)
vbh_array_split = _split(np.array_split, None)
vbh_hsplit = _split(np.hsplit, "h")
vbh_vsplit = _split(np.vsplit, "v")
vbh_dsplit = _split(np.dsplit, "d")


# ---- selections ----
def vbh_compress(f, condition, a, axis=None):
    if f[0]:
        return _loop("xp.compress", f, condition, a, axis)
    if axis is None:
        return np.compress(condition, _arr(a).reshape(np.shape(a)[0], -1), axis=1)
    return np.compress(condition, a, axis=_ax(axis, _nd(a, True)))


def vbh_extract(f, condition, arr):
    if f[0]:
        return _loop("xp.extract", f, condition, arr)
    return _arr(arr).reshape(np.shape(arr)[0], -1)[:, np.flatnonzero(condition)]


def vbh_delete(f, arr, obj, axis=None):
    if f[1]:
        return _loop("xp.delete", f, arr, obj, axis)
    if axis is None:
        return np.delete(_arr(arr).reshape(np.shape(arr)[0], -1), obj, axis=1)
    return np.delete(arr, obj, axis=_ax(axis, _nd(arr, True)))


def vbh_take(f, a, indices, axis=None, out=None, mode="raise"):
    n = _n(f, (a, indices))
    if not f[1]:
        if axis is None:
            return np.take(_flat(a, True, n), indices, axis=1, mode=mode)
        return np.take(a, indices, axis=_ax(axis, _nd(a, True)), mode=mode)
    idx = _arr(indices)
    if axis is None:
        src, ax = _flat(a, f[0], n), 1
    else:
        src, ax = _full(a, f[0], n), _ax(axis, _nd(a, f[0]))
    size = src.shape[ax]
    idx = np.mod(idx, size) if mode == "wrap" else np.clip(idx, 0, size - 1) if mode == "clip" else idx
    pre = ax - 1   # per-example axes before `axis`
    moved = np.moveaxis(src, ax, 1)   # (n, size, pre..., post...)
    ar = getattr(n, "xp", np).arange(n).reshape((n,) + (1,) * (idx.ndim - 1))
    got = moved[ar, idx]               # (n, *idx, pre..., post...)
    k = idx.ndim - 1
    return np.moveaxis(got, list(range(1 + k, 1 + k + pre)), list(range(1, 1 + pre))) if pre else got


def vbh_take_along_axis(f, arr, indices, axis=-1):
    if axis is None:
        n = _n(f, (arr, indices))
        return np.take_along_axis(_flat(arr, f[0], n), _flat(indices, f[1], n), axis=1)
    a = arr if f[0] else _arr(arr)[None]
    i = indices if f[1] else _arr(indices)[None]
    return np.take_along_axis(a, i, axis=_ax(axis, np.ndim(a) - 1))


def vbh_select(f, condlist, choicelist, default=0):
    if _is_arr(condlist) and f[0] or _is_arr(choicelist) and f[1]:
        return _loop("xp.select", f, condlist, choicelist, default)
    conds, choices = list(condlist), list(choicelist)
    ranks = [_nd(c, f[0]) for c in conds] + [_nd(c, f[1]) for c in choices] + [_nd(default, f[2])]
    r = max(ranks)
    return np.select([_lift(c, f[0], r) for c in conds], [_lift(c, f[1], r) for c in choices],
                     _lift(default, f[2], r))


# ---- shape ----
def vbh_broadcast_to(f, a, axis=None, shape=None):
    s = shape if shape is not None else axis
    if f[1] or f[2]:
        return _loop("xp.broadcast_to", f, a, axis, shape)
    s = (s,) if isinstance(s, (int, np.integer)) else tuple(s)
    return np.broadcast_to(_lift(a, True, len(s)), np.shape(a)[:1] + s)


def vbh_fliplr(f, m):
    return np.flip(m, 2)


def vbh_flipud(f, m):
    return np.flip(m, 1)


def vbh_rot90(f, m, k=1, axes=None):
    nd = _nd(m, True)
    return np.rot90(m, k, axes=_ax((0, 1) if axes is None else tuple(axes), nd))


def vbh_rollaxis(f, a, axis, start=0):
    nd = _nd(a, True)
    axis = axis % nd
    start = start + nd if start < 0 else start
    if axis < start:
        start -= 1
    return a[...] if axis == start else np.moveaxis(a, axis + 1, start + 1)


def vbh_roll(f, a, shift, axis=None):
    if f[1] or f[2]:
        return _loop("xp.roll", f, a, shift, axis)
    if axis is None:
        return np.roll(_arr(a).reshape(np.shape(a)[0], -1), shift, axis=1).reshape(np.shape(a))
    return np.roll(a, shift, axis=_ax(axis, _nd(a, True)))


def vbh_tile(f, A, reps):
    if f[1]:
        return _loop("xp.tile", f, A, reps)
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(reps)
    nd = _nd(A, True)
    r = max(nd, len(reps))
    return np.tile(_lift(A, True, r), (1,) * (1 + r - len(reps)) + reps)


def vbh_diag(f, v, k=0):
    v = _arr(v)
    if v.ndim == 3:
        return np.diagonal(v, k, axis1=1, axis2=2).copy()
    if v.ndim != 2:
        return _loop("xp.diag", f, v, k)
    n, m = v.shape
    size = m + abs(k)
    xp = _core.namespace(v)
    out = xp.zeros((n, size, size), dtype=v.dtype)
    i = xp.arange(m)
    out[:, i + max(-k, 0), i + max(k, 0)] = v
    return out


def vbh_pad(f, array, pad_width, mode="constant", reflect_type="even", **kw):
    if f[1]:
        return _loop("xp.pad", f, array, pad_width, mode, reflect_type)
    nd = _nd(array, True)
    per = np.broadcast_to(_arr(pad_width), (nd, 2)) if nd else np.zeros((0, 2), int)
    width = [(0, 0)] + [tuple(int(x) for x in p) for p in per]
    for key in ("constant_values", "end_values", "stat_length"):
        if key in kw and kw[key] is not None and np.ndim(kw[key]) > 0:
            vals = np.broadcast_to(_arr(kw[key]), (nd, 2))
            kw[key] = [tuple(vals[0])] + [tuple(v) for v in vals]
    if mode in ("reflect", "symmetric"):
        kw["reflect_type"] = reflect_type
    return np.pad(array, width, mode=mode, **kw)


# ---- scans, differences, sums ----
def _cumulative(fn):
    def rule(f, x, axis=None, dtype=None, include_initial=False):
        nd = _nd(x, True)
        if axis is None and nd != 1:
            return _loop("xp." + fn.__name__, f, x, axis, dtype, include_initial)
        return fn(x, axis=1 if axis is None else _ax(axis, nd), dtype=dtype, include_initial=include_initial)
    return rule


vbh_cumulative_sum = _cumulative(np.cumulative_sum)
vbh_cumulative_prod = _cumulative(np.cumulative_prod)


def _edge(v, fl, a, ax, n):
    """prepend/append of np.diff as a batched block along batched axis `ax` of `a`."""
    v = _arr(v)
    if _nd(v, fl) == 0:
        shape = list(a.shape)
        shape[ax] = 1
        return np.broadcast_to(v.reshape(v.shape + (1,) * (a.ndim - v.ndim)) if fl else v, shape)
    return _full(v, fl, n)


def vbh_diff(f, a, n=1, axis=-1, prepend=None, append=None):
    if f[1] or f[2]:
        return _loop("xp.diff", f, a, n, axis, prepend, append)
    b = _n(f, (a, n, axis, prepend, append))
    ax = _ax(axis, _nd(a, f[0]))
    a = _full(a, f[0], b)
    parts = [a]
    if prepend is not None:
        parts.insert(0, _edge(prepend, f[3], a, ax, b))
    if append is not None:
        parts.append(_edge(append, f[4], a, ax, b))
    if len(parts) > 1:
        a = np.concatenate(parts, axis=ax)
    return np.diff(a, n, axis=ax)


def vbh_ediff1d(f, ary):
    return np.diff(_arr(ary).reshape(np.shape(ary)[0], -1), axis=1)


def vbh_list_sum(f, items):
    """Python's sum over a batched list (each item lifted to the others' per-example rank) or over
    the rows of each example, in the same order of additions as the loop it replaces."""
    if _is_arr(items):
        total = 0
        for i in range(items.shape[1]):
            total = total + items[:, i]
        return total
    r = max((np.ndim(t) - 1 for t in items), default=0)
    total = 0
    for t in items:
        total = total + _lift(t, True, r)
    return total


def vbh_average(f, a, axis=None, weights=None, returned=False, keepdims=False):
    if returned or f[1] or f[3] or f[4]:
        return _loop("xp.average", f, a, axis, weights, returned, keepdims)
    n = _n(f, (a, axis, weights))
    nd = _nd(a, f[0])
    ax = _all_axes(nd) if axis is None else _ax(axis, nd)
    a = _full(a, f[0], n)
    if weights is None:
        return np.average(a, axis=ax, keepdims=keepdims)
    w = _arr(weights)
    if _nd(w, f[2]) != nd:   # 1-D weights along `axis`
        shape = [1] * nd
        shape[int(axis) % nd] = -1
        w = w.reshape(w.shape[:1] + tuple(shape) if f[2] else tuple(shape))
    w = np.broadcast_to(w, a.shape)
    scale = w.sum(axis=ax, keepdims=keepdims)
    return np.multiply(a, w).sum(axis=ax, keepdims=keepdims) / scale


def _quantile(fn):
    def rule(f, a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
        if f[1] or f[2]:
            return _loop("xp." + fn.__name__, f, a, q, axis, out, overwrite_input, method, keepdims)
        nd = _nd(a, True)
        got = fn(a, q, axis=_all_axes(nd) if axis is None else _ax(axis, nd), method=method, keepdims=keepdims)
        k = np.ndim(q)
        return np.moveaxis(got, k, 0) if k else got
    return rule


vbh_quantile = _quantile(np.quantile)
vbh_percentile = _quantile(np.percentile)
vbh_nanquantile = _quantile(np.nanquantile)
vbh_nanpercentile = _quantile(np.nanpercentile)


def vbh_gradient(f, y, spacing=1.0, axis=None, edge_order=1):
    if f[1] or f[2]:
        return _loop("xp.gradient", f, y, spacing, axis, edge_order)
    nd = _nd(y, True)
    ax = _all_axes(nd) if axis is None else _ax(axis, nd)
    return np.gradient(y, spacing, axis=ax, edge_order=edge_order)


def _partitioned(fn, f, a, kth, axis, kind, order):
    """np.partition / np.argpartition per example (`fn`); a per-example kth or axis loops."""
    if f[1] or f[2]:
        return _loop(f"xp.{fn.__name__}", f, a, kth, axis, kind, order)
    if axis is None:
        return fn(_arr(a).reshape(np.shape(a)[0], -1), kth, axis=1, kind=kind, order=order)
    return fn(a, kth, axis=_ax(axis, _nd(a, True)), kind=kind, order=order)


def vbh_partition(f, a, kth, axis=-1, kind="introselect", order=None):
    return _partitioned(np.partition, f, a, kth, axis, kind, order)


# ---- products ----
def _einsum_batched(spec, ops, flags, **kw):
    """`einsum(spec, *ops)` per example, as one einsum with a batch index on the batched operands."""
    exs = [_ex(o, fl) for o, fl in zip(ops, flags)]
    ins, out = _ops._einsum_parse(spec, exs)
    z = next(c for c in _ops._LETTERS if c not in "".join(ins) + out)
    terms = [z + s if fl else s for s, fl in zip(ins, flags)]
    return np.einsum(",".join(terms) + "->" + z + out, *ops, **kw)


def vbh_einsum(f, subscripts, a, b=None, c=None, d=None, e=None, f_=None, h=None, **kw):
    if f[0] or h is not None:
        return _b.vb_loop("xp.einsum", f, _n(f, (subscripts, a, b, c, d, e, f_, h)), subscripts, a, b, c, d, e, f_,
                          h, **kw)
    pairs = [(o, fl) for o, fl in zip((a, b, c, d, e, f_), f[1:7]) if o is not None]
    return _einsum_batched(subscripts, [o for o, _ in pairs], [fl for _, fl in pairs], **kw)


def _tensordot(name):
    def rule(f, a, b, axes=2):
        if f[2]:
            return _loop(name, f, a, b, axes)
        spec = _ops.tensordot_spec(_ex(a, f[0]), _ex(b, f[1]), axes)
        return _einsum_batched(spec, [a, b], list(f[:2]))
    return rule


vbh_tensordot = _tensordot("xp.tensordot")
vbh_linalg_tensordot = _tensordot("xp.linalg.tensordot")


def vbh_vdot(f, a, b):
    n = _n(f, (a, b))
    return np.einsum("ij,ij->i", _flat(a, f[0], n), _flat(b, f[1], n))


def vbh_kron(f, a, b):
    n = _n(f, (a, b))
    sa, sb = np.shape(_ex(a, f[0])), np.shape(_ex(b, f[1]))
    r = max(len(sa), len(sb))
    sa, sb = (1,) * (r - len(sa)) + sa, (1,) * (r - len(sb)) + sb
    A = np.reshape(a, (n if f[0] else 1,) + tuple(x for d in sa for x in (d, 1)))
    B = np.reshape(b, (n if f[1] else 1,) + tuple(x for d in sb for x in (1, d)))
    return np.reshape(A * B, (n,) + tuple(p * q for p, q in zip(sa, sb)))


def _gufunc2(fn, core_a, core_b):
    """A two-operand gufunc (matvec, vecmat) per example: loop axes lifted so the batch lines up."""
    def rule(f, a, b):
        loops = max(_nd(a, f[0]) - core_a, _nd(b, f[1]) - core_b, 0)
        return fn(_lift_loops(a, f[0], core_a, loops), _lift_loops(b, f[1], core_b, loops))
    return rule


vbh_matvec = _gufunc2(np.matvec, 2, 1)
vbh_vecmat = _gufunc2(np.vecmat, 1, 2)


def _vecdot(fn):
    def rule(f, a, b, axis=-1):
        ra, rb = _nd(a, f[0]), _nd(b, f[1])
        a = np.moveaxis(a, axis + f[0] if axis >= 0 else axis, -1)
        b = np.moveaxis(b, axis + f[1] if axis >= 0 else axis, -1)
        loops = max(ra, rb) - 1
        return fn(_lift_loops(a, f[0], 1, loops), _lift_loops(b, f[1], 1, loops), axis=-1)
    return rule


vbh_vecdot = _vecdot(np.vecdot)
vbh_linalg_vecdot = _vecdot(np.linalg.vecdot)


def _cross_axes(ax, nd):
    return ax - nd if ax >= 0 else ax


def vbh_cross(f, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    ra, rb = _nd(a, f[0]), _nd(b, f[1])
    r = max(ra, rb)
    return np.cross(_lift(a, f[0], r), _lift(b, f[1], r), axisa=_cross_axes(axisa, ra),
                    axisb=_cross_axes(axisb, rb), axisc=_cross_axes(axisc, r))


def vbh_linalg_cross(f, a, b):
    r = max(_nd(a, f[0]), _nd(b, f[1]))
    return np.linalg.cross(_lift(a, f[0], r), _lift(b, f[1], r))


def vbh_linalg_solve(f, a, b):
    ra, rb = _nd(a, f[0]), _nd(b, f[1])
    if rb == 1:   # one right-hand side vector (per example, as NumPy 2 reads a 1-D b)
        loops = ra - 2
        bb = _lift_loops(b, f[1], 1, loops)[..., None]
        return np.linalg.solve(_lift_loops(a, f[0], 2, loops), bb)[..., 0]
    loops = max(ra, rb) - 2
    return np.linalg.solve(_lift_loops(a, f[0], 2, loops), _lift_loops(b, f[1], 2, loops))


def vbh_polyval(f, p, x):
    if not f[0]:
        return np.polyval(p, x)
    n = _n(f, (p, x))
    p = _arr(p)
    x = _arr(x)
    rx = _nd(x, f[1])
    y = np.zeros_like(_full(x, f[1], n) * p[:, :1].reshape((n,) + (1,) * rx))
    for j in range(p.shape[1]):
        y = y * x + p[:, j].reshape((n,) + (1,) * rx)
    return y


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


def _signal(conv):
    name, op = ("xp.convolve", np.convolve) if conv else ("xp.correlate", np.correlate)

    def rule(f, a, v, mode="full" if conv else "valid"):
        if f[2] or mode not in ("full", "same", "valid"):
            return _loop(name, f, a, v, mode)
        la, lv = np.shape(a)[-1], np.shape(v)[-1]
        if type(a) is np.ndarray and type(v) is np.ndarray and la and lv:
            n = _n(f, (a, v))
            if la * lv > _ROW_WORK:
                return _numpy_rows(op, a, v, f[0], f[1], n, mode)
            k = v if conv else _conj(v[..., ::-1])  # the full result is the convolution of a and k
            x, y = (a, k) if la >= lv else (k, a)    # windows of the longer one (convolution commutes)
            u = y[..., ::-1]
            u = u if np.ndim(u) == 2 else np.broadcast_to(u, (n, np.shape(u)[-1]))
            return _mode_slice(_windows_product(x, u, n), la, lv, mode, conv)
        full = _full_correlation(_arr(a), np.flip(v, -1) if conv else _conj(_arr(v)))
        return _mode_slice(full, la, lv, mode, conv)
    return rule


vbh_convolve = _signal(True)
vbh_correlate = _signal(False)


def vbh_interp(f, x, xp, fp, left=None, right=None, period=None):
    if not f[1] and not f[2]:
        return np.interp(x, xp, fp, left, right, period)   # shared knots: NumPy's interp is elementwise in x
    if period is not None or any(f[3:]):
        return _loop("xp.interp", f, x, xp, fp, left, right, period)
    n = _n(f, (x, xp, fp))
    xs = np.shape(x)[1:] if f[0] else np.shape(x)
    X, XP, FP = _flat(x, f[0], n), _flat(xp, f[1], n), _flat(fp, f[2], n)
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


vbh_interp_apply = vbh_interp


def vbh_meshgrid(f, x, y=None, z=None, indexing="xy", sparse=False, copy=True):
    xs = [(v, fl) for v, fl in zip((x, y, z), f[:3]) if v is not None]
    n = _n(f, (x, y, z))
    flat = [_flat(v, fl, n) for v, fl in xs]
    lens = [v.shape[1] for v in flat]
    k = len(xs)
    swap = indexing == "xy" and k > 1
    shape = list(lens)
    if swap:
        shape[0], shape[1] = shape[1], shape[0]
    outs = []
    for i, v in enumerate(flat):
        pos = 1 - i if swap and i < 2 else i
        s = [1] * k
        s[pos] = lens[i]
        o = v.reshape((n,) + tuple(s))
        if not sparse:
            o = np.broadcast_to(o, (n,) + tuple(shape))
            o = o.copy() if copy else o
        outs.append(o)
    return tuple(outs)


_b._RT.__dict__.update({k: v for k, v in globals().items() if k.startswith("vbh_")})


# ---- creation from a batched value ----
def _like(fn):
    def rule(f, x, *args, **kw):
        """`<fn>(x, ..., shape=s)` per example: the batch stays in front of a given shape."""
        shape = kw.get("shape", args[3] if len(args) > 3 else None)
        if shape is None:
            return fn(x, *args, **kw)
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        kw["shape"] = np.shape(x)[:1] + shape
        return fn(x, *args[:3], **kw)
    return rule


vbh_zeros_like = _like(np.zeros_like)
vbh_ones_like = _like(np.ones_like)
vbh_empty_like = _like(np.empty_like)
_b._RT.__dict__.update({k: v for k, v in globals().items() if k.startswith("vbh_")})


# ---- derivative helpers that read only shapes and settings: computed once, from one example ----
def _static(fn, shape_only):
    def rule(f, *args):
        for k, (a, fl) in enumerate(zip(args, f)):
            if fl and k not in shape_only and not _constant(a):
                raise S2SValueError(f"vmap: `{fn.__name__}` (a derivative helper) got settings that differ per "
                                    "example (np.delete positions, tensordot axes); compute them outside the vmap")
        return fn(*[_b._vb_first(a, fl) for a, fl in zip(args, f)])
    return rule


def _constant(a):
    """Whether every example of batched `a` is the same (settings saved for the backward sweep are
    broadcast over the batch)."""
    return all(np.all(_arr(x) == _arr(x)[:1]) for x in tree_leaves(a))


_STATIC = {"conv_pad": (0, 1), "diff_axis": (), "einsum_spec1": (2, 3, 4, 5, 6, 7),
           "einsum_spec2": (2, 3, 4, 5, 6, 7), "einsum_const": (2, 3, 4, 5, 6, 7), "tensordot_spec": (0, 1),
           "inner_spec": (0, 1), "kron_spec": (0, 1), "kron_shape": (0, 1), "vecdot_spec": (0, 1),
           "svd_check": (0,), "not_deleted": (0,), "interp_ok": (), "plain_reflect": (), "insert_map": (0, 2),
           "vander_powers": (0,), "cov_axes": (0,), "cov_ddof": ()}
for _name, _shape_only in _STATIC.items():
    globals()["vbh_static_" + _name] = _static(getattr(_ops, _name), _shape_only)
_b._RT.__dict__.update({k: v for k, v in globals().items() if k.startswith("vbh_")})


# ---- `x is None` on a batched value: a batch of arrays is never None, like each example ----
def vbh_is(f, x, y=None):
    return _identity(x, y, "is")


def vbh_isnot(f, x, y=None):
    return not _identity(x, y, "is not")


def _identity(x, y, op):
    if x is not None and y is not None:
        raise S2SValueError(f"vmap: `{op}` between two values that differ per example is not supported; "
                            "compare with `is None` or with ==")
    return x is y


_b._RT.__dict__.update({k: v for k, v in globals().items() if k.startswith("vbh_")})


# ---- operations without derivative ----
def vbh_argpartition(f, a, kth, axis=-1, kind="introselect", order=None):
    return _partitioned(np.argpartition, f, a, kth, axis, kind, order)


def vbh_searchsorted(f, a, v, side="left", sorter=None):
    """Per example: how many entries of sorted `a` lie before each `v` (a count of comparisons)."""
    if f[2] or f[3] or sorter is not None:
        return _loop("xp.searchsorted", f, a, v, side, sorter)
    if not f[0]:
        return np.searchsorted(a, v, side=side)
    n = _n(f, (a, v))
    vs = np.shape(v)[1:] if f[1] else np.shape(v)
    V = _flat(v, f[1], n)
    below = (a[:, None, :] < V[:, :, None]) if side == "left" else (a[:, None, :] <= V[:, :, None])
    return np.sum(below, axis=2).reshape((n,) + vs)


def _all_close(fn):
    def rule(f, a, b, *args, **kw):
        r = max(_nd(a, f[0]), _nd(b, f[1]))
        A, B = _lift(a, f[0], r), _lift(b, f[1], r)
        if fn == "array_equal" and np.shape(_ex(a, f[0])) != np.shape(_ex(b, f[1])):
            n = _n(f, (a, b))
            return getattr(n, "xp", np).zeros(n, dtype=bool)
        same = np.isclose(A, B, *args, **kw) if fn == "allclose" else (A == B)
        same = np.broadcast_to(same, (_n(f, (a, b)),) + np.shape(same)[1:])
        return np.all(same.reshape(same.shape[0], -1), axis=1)
    return rule


vbh_allclose = _all_close("allclose")
vbh_array_equal = _all_close("array_equal")
vbh_array_equiv = _all_close("array_equiv")


def vbh_isin(f, element, test_elements, assume_unique=False, invert=False, kind=None):
    if f[1]:
        n = _n(f, (element, test_elements))
        E, T = _flat(element, f[0], n), _flat(test_elements, True, n)
        hit = np.any(E[:, :, None] == T[:, None, :], axis=2)
        shape = (n,) + (np.shape(element)[1:] if f[0] else np.shape(element))
        return (~hit if invert else hit).reshape(shape)
    return np.isin(element, test_elements, assume_unique=assume_unique, invert=invert, kind=kind)


def vbh_digitize(f, x, bins, right=False):
    if f[2]:
        return _loop("xp.digitize", f, x, bins, right)
    if not f[1]:
        return np.digitize(x, bins, right=right)
    side = "left" if right else "right"   # NumPy's own choice (the arguments of searchsorted swap)
    up = vbh_searchsorted((True, f[0], False, False), bins, x, side)
    down = np.shape(bins)[1] - vbh_searchsorted((True, f[0], False, False), np.flip(bins, 1), x, side)
    inc = (bins[:, -1] >= bins[:, 0]).reshape((-1,) + (1,) * (np.ndim(up) - 1))
    return np.where(inc, up, down)


_b._RT.__dict__.update({k: v for k, v in globals().items() if k.startswith("vbh_")})


def vbh_multi_dot(f, arrays, out=None):
    """multi_dot per example: the chain as batched matmuls (1-D ends as a row and a column)."""
    mats = [_arr(a) for a in arrays]
    first, last = mats[0].ndim == 2, mats[-1].ndim == 2
    if first:
        mats[0] = mats[0][:, None, :]
    if last:
        mats[-1] = mats[-1][:, :, None]
    out = mats[0]
    for m in mats[1:]:
        out = np.matmul(out, m)
    if last:
        out = out[:, :, 0]
    if first:
        out = out[:, 0]
    return out


_b._RT.__dict__.update({k: v for k, v in globals().items() if k.startswith("vbh_")})


def vbh_tuple(f, x):
    """`tuple(x)` per example: a batched array's rows are its second axis."""
    return tuple(x[:, i] for i in range(np.shape(x)[1])) if _is_arr(x) else tuple(x)


def vbh_list(f, x):
    return list(vbh_tuple(f, x))


def vb_tuple_t(f, v, x):
    """Transpose of `vbh_tuple`/`vbh_list`: the parts' cotangents in `x`'s form (a batched array's
    rows along its second axis)."""
    return np.stack(list(v), axis=1) if _is_arr(x) else _core.like(v, x)


_b._RT.__dict__.update({k: v for k, v in globals().items() if k.startswith(("vbh_", "vb_"))})


# ---- derivative helpers (vmap of grad): the same facts, shifted past the batch axis ----
def _shifted(fn, arrays, axes=(), statics=(), ref=0, none="all"):
    """The batching rule of helper `fn(*args)`: arguments at `arrays` are arrays (broadcast over the
    batch when unbatched), at `axes` axes of the array at `ref` (shifted past the batch; None:
    every per-example axis, or a per-example call when `none` is "loop"), at `statics` settings."""
    def rule(f, *args):
        args = list(args)
        for k in statics + axes:
            if f[k]:
                args[k] = _b.vb_static(args[k])
        known = set(arrays + axes + statics)
        if any(fl for k, fl in enumerate(f) if k not in known) or none == "loop" and any(args[k] is None for k in axes):
            return _b.vb_loop("rt." + fn.__name__, f, _n(f, args), *args)
        n = _n(f, args)
        nd = _nd(args[ref], f[ref])
        for k in arrays:
            args[k] = _full(args[k], f[k], n)
        for k in axes:
            args[k] = _all_axes(nd) if args[k] is None else _ax(args[k], nd)
        return fn(*args)
    return rule


vbh_d_max_vjp = _shifted(_core.max_vjp, (0, 1, 2), (3,), (4,), ref=1)
vbh_d_max_jvp = _shifted(_core.max_jvp, (0, 1, 2), (3,), (4,), ref=1)
vbh_d_prod_others = _shifted(_core.prod_others, (0,), (1,))
vbh_d_prod_others_jvp = _shifted(_core.prod_others_jvp, (0, 1), (2,), ref=1)
vbh_d_sort_vjp = _shifted(_ops.sort_vjp, (0, 1), (2,), ref=1, none="loop")
vbh_d_sort_jvp = _shifted(_ops.sort_jvp, (0, 1), (2,), ref=1, none="loop")
vbh_d_partition_vjp = _shifted(_ops.partition_vjp, (0, 1), (3,), (2,), ref=1, none="loop")
vbh_d_partition_jvp = _shifted(_ops.partition_jvp, (0, 1), (3,), (2,), ref=1, none="loop")
vbh_d_cumsum_vjp = _shifted(_core.cumsum_vjp, (0, 1), (2,), ref=1, none="loop")
vbh_d_diff_vjp = _shifted(_ops.diff_vjp, (0, 1), (3,), (2,), ref=1)
vbh_d_cumulative_vjp = _shifted(_ops.cumulative_vjp, (0, 1), (2,), (3,), ref=1, none="loop")


def vbh_d_reshape_like(f, v, like):
    n = _n(f, (v, like))
    return np.reshape(_full(v, f[0], n), (n,) + np.shape(_ex(like, f[1])))


def vbh_d_transpose_vjp(f, v, axes):
    axes = _b.vb_static(axes) if f[1] else axes
    nd = _nd(v, True)
    order = range(nd - 1, -1, -1) if axes is None else np.argsort(axes)
    return np.transpose(v, (0,) + tuple(int(k) + 1 for k in order))


def vbh_d_rot90_vjp(f, v, k, axes):
    k, axes = (_b.vb_static(x) if fl else x for x, fl in zip((k, axes), f[1:]))
    return vbh_rot90((True,), v, -k, axes)


def vbh_d_rollaxis_vjp(f, v, a, axis, start):
    axis, start = (_b.vb_static(x) if fl else x for x, fl in zip((axis, start), f[2:]))
    nd = _nd(a, f[1])
    order = list(range(nd))
    ax = axis % nd
    st = start + nd + 1 if start < 0 else start
    item = order.pop(ax)
    order.insert(st - 1 if st > ax else st, item)
    return np.transpose(_full(v, f[0], _n(f, (v, a))), (0,) + tuple(int(k) + 1 for k in np.argsort(order)))


def vbh_d_einsum_n(f, spec, a, b=None, c=None, d=None, e=None, f_=None, g_=None, h=None):
    if f[0] or h is not None:
        return _b.vb_loop("rt.einsum_n", f, _n(f, (spec, a, b, c, d, e, f_, g_, h)), spec, a, b, c, d, e, f_, g_, h)
    pairs = [(o, fl) for o, fl in zip((a, b, c, d, e, f_, g_), f[1:8]) if o is not None]
    return _einsum_batched(spec, [o for o, _ in pairs], [fl for _, fl in pairs])


_b._RT.__dict__.update({k: v for k, v in globals().items() if k.startswith("vbh_")})


def vbh_d_add_at(f, acc, index, v):
    """`add_at(acc, index, v)` per example (index shared): one scatter-add past the batch axis."""
    if f[1] or not _is_arr(acc) and not isinstance(acc, (list, tuple, dict)):
        return _b.vb_loop("rt.add_at", f, _n(f, (acc, index, v)), acc, index, v)
    if isinstance(acc, (list, tuple, dict)):
        return _core.add_at(acc if f[0] else _b.vb_bcast(acc, _n(f, (acc, index, v))), index, v)
    n = _n(f, (acc, index, v))
    if not f[0]:
        acc = np.broadcast_to(acc, (n,) + acc.shape).copy()
    key = (slice(None),) + _b._vb_key(index)
    slot_nd = np.ndim(acc[key]) - 1
    v = _lift(v, f[2], slot_nd)
    if _core._is_fancy(index):
        _core.scatter_add(acc, key, v)
    else:
        acc[key] += v
    return acc


_b._RT.__dict__.update({k: v for k, v in globals().items() if k.startswith("vbh_")})
