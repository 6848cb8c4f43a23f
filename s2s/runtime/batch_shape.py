"""Batching helpers of the shape, joining, splitting and selection operations (primitives/
rules_shape.py), and of their derivative helpers: each runs its op once on the whole batch
(shifted axes, leading-axis broadcasting); a rare per-example pattern (a per-example shift or
split point) goes to `vb_loop`, the per-example fallback."""
from __future__ import annotations

import numpy as np

from . import batch as _b
from .batch import (
    _arr,
    _ax,
    _ex,
    _flat,
    _full,
    _is_arr,
    _lift,
    _loop,
    _n,
    _nd,
    _shifted,
    _static,
    _vb_key,
    vb_bcast,
    vb_static,
)
from .core import _is_fancy, add_at, namespace, scatter_add
from .shapes import not_deleted, partition_jvp, partition_vjp, plain_reflect, sort_jvp, sort_vjp

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("vbh_append", "vbh_atleast_1d", "vbh_atleast_2d", "vbh_atleast_3d", "vbh_hstack", "vbh_vstack",
           "vbh_dstack", "vbh_column_stack", "vbh_split", "vbh_array_split", "vbh_hsplit", "vbh_vsplit",
           "vbh_dsplit", "vbh_compress", "vbh_extract", "vbh_delete", "vbh_take", "vbh_take_along_axis",
           "vbh_select", "vbh_broadcast_to", "vbh_fliplr", "vbh_flipud", "vbh_rot90", "vbh_rollaxis", "vbh_roll",
           "vbh_tile", "vbh_diag", "vbh_pad", "vbh_partition", "vbh_meshgrid", "vbh_zeros_like", "vbh_ones_like",
           "vbh_empty_like", "vbh_argpartition", "vbh_searchsorted", "vbh_d_sort_vjp", "vbh_d_sort_jvp",
           "vbh_d_partition_vjp", "vbh_d_partition_jvp", "vbh_d_reshape_like", "vbh_d_transpose_vjp",
           "vbh_d_rot90_vjp", "vbh_d_rollaxis_vjp", "vbh_d_add_at", "vbh_static_not_deleted",
           "vbh_static_plain_reflect")


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
    xp = namespace(v)
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


def _partitioned(fn, f, a, kth, axis, kind, order):
    """np.partition / np.argpartition per example (`fn`); a per-example kth or axis loops."""
    if f[1] or f[2]:
        return _loop(f"xp.{fn.__name__}", f, a, kth, axis, kind, order)
    if axis is None:
        return fn(_arr(a).reshape(np.shape(a)[0], -1), kth, axis=1, kind=kind, order=order)
    return fn(a, kth, axis=_ax(axis, _nd(a, True)), kind=kind, order=order)


def vbh_partition(f, a, kth, axis=-1, kind="introselect", order=None):
    return _partitioned(np.partition, f, a, kth, axis, kind, order)


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


vbh_d_sort_vjp = _shifted(sort_vjp, (0, 1), (2,), ref=1, none="loop")


vbh_d_sort_jvp = _shifted(sort_jvp, (0, 1), (2,), ref=1, none="loop")


vbh_d_partition_vjp = _shifted(partition_vjp, (0, 1), (3,), (2,), ref=1, none="loop")


vbh_d_partition_jvp = _shifted(partition_jvp, (0, 1), (3,), (2,), ref=1, none="loop")


def vbh_d_reshape_like(f, v, like):
    n = _n(f, (v, like))
    return np.reshape(_full(v, f[0], n), (n,) + np.shape(_ex(like, f[1])))


def vbh_d_transpose_vjp(f, v, axes):
    axes = vb_static(axes) if f[1] else axes
    nd = _nd(v, True)
    order = range(nd - 1, -1, -1) if axes is None else np.argsort(axes)
    return np.transpose(v, (0,) + tuple(int(k) + 1 for k in order))


def vbh_d_rot90_vjp(f, v, k, axes):
    k, axes = (vb_static(x) if fl else x for x, fl in zip((k, axes), f[1:]))
    return vbh_rot90((True,), v, -k, axes)


def vbh_d_rollaxis_vjp(f, v, a, axis, start):
    axis, start = (vb_static(x) if fl else x for x, fl in zip((axis, start), f[2:]))
    nd = _nd(a, f[1])
    order = list(range(nd))
    ax = axis % nd
    st = start + nd + 1 if start < 0 else start
    item = order.pop(ax)
    order.insert(st - 1 if st > ax else st, item)
    return np.transpose(_full(v, f[0], _n(f, (v, a))), (0,) + tuple(int(k) + 1 for k in np.argsort(order)))


def vbh_d_add_at(f, acc, index, v):
    """`add_at(acc, index, v)` per example (index shared): one scatter-add past the batch axis."""
    if f[1] or not _is_arr(acc) and not isinstance(acc, (list, tuple, dict)):
        return _b.vb_loop("rt.add_at", f, _n(f, (acc, index, v)), acc, index, v)
    if isinstance(acc, (list, tuple, dict)):
        return add_at(acc if f[0] else vb_bcast(acc, _n(f, (acc, index, v))), index, v)
    n = _n(f, (acc, index, v))
    if not f[0]:
        acc = np.broadcast_to(acc, (n,) + acc.shape).copy()
    key = (slice(None),) + _vb_key(index)
    slot_nd = np.ndim(acc[key]) - 1
    v = _lift(v, f[2], slot_nd)
    if _is_fancy(index):
        scatter_add(acc, key, v)
    else:
        acc[key] += v
    return acc


# derivative helpers that read only shapes and settings (the listed arguments only for their shapes):
# one example's answer serves the batch
vbh_static_not_deleted = _static(not_deleted, (0,))
vbh_static_plain_reflect = _static(plain_reflect, ())
