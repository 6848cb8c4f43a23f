"""Batching helpers of the shape, joining, splitting and selection operations (primitives/
rules_shape.py), and of their derivative helpers: each runs its op once on the whole batch
(shifted axes, leading-axis broadcasting); a rare per-example pattern (a per-example shift or
split point) goes to `map_examples`, the per-example fallback."""
from __future__ import annotations

import numpy as np

from . import batch as _b
from ._batch_operands import (
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
from ._index_layout import batched_key
from ._values import is_fancy
from .batch import replicate_batch, shared_setting
from .core import add_at, namespace, scatter_add
from .shapes import not_deleted, partition_jvp, partition_vjp, plain_reflect, sort_jvp, sort_vjp

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("batched_append", "batched_atleast_1d", "batched_atleast_2d", "batched_atleast_3d", "batched_hstack",
           "batched_vstack",
           "batched_dstack", "batched_column_stack", "batched_split", "batched_array_split", "batched_hsplit",
               "batched_vsplit",
           "batched_dsplit", "batched_compress", "batched_extract", "batched_delete", "batched_take",
               "batched_take_along_axis",
           "batched_select", "batched_broadcast_to", "batched_tril", "batched_triu",
           "batched_fliplr", "batched_flipud", "batched_rot90",
               "batched_rollaxis", "batched_roll",
           "batched_tile", "batched_diag", "batched_pad", "batched_partition", "batched_meshgrid", "batched_zeros_like",
               "batched_ones_like",
           "batched_empty_like", "batched_argpartition", "batched_searchsorted", "batched_sort_vjp", "batched_sort_jvp",
           "batched_partition_vjp", "batched_partition_jvp", "batched_reshape_like", "batched_transpose_vjp",
           "batched_rot90_vjp", "batched_rollaxis_vjp", "batched_add_at", "batched_not_deleted",
           "batched_plain_reflect")


# ---- joining and splitting ----
def batched_append(flags, arr, values, axis=None):
    n = count_examples(flags, (arr, values))
    if axis is None:
        return np.concatenate([example_rows(arr, flags[0], n), example_rows(values, flags[1], n)], axis=1)
    return np.concatenate([with_batch(arr, flags[0], n), with_batch(values, flags[1], n)],
                          axis=shifted_axis(axis, example_rank(arr, flags[0])))


def _rows(tup):
    """A batched sequence argument as a list of batched arrays (a batched array is its rows)."""
    if is_array(tup):
        return [tup[:, i] for i in range(tup.shape[1])]
    return [array_of(t) for t in tup]


def _atleast(a, k):
    a = array_of(a)
    nd, s = a.ndim - 1, a.shape[1:]
    if nd >= k:
        return a
    new = {1: {0: (1,)}, 2: {0: (1, 1), 1: (1,) + s}, 3: {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}}[k][nd]
    return a.reshape(a.shape[:1] + new)


def batched_atleast_1d(flags, a, axis=None, shape=None):
    return _atleast(a, 1)


def batched_atleast_2d(flags, a, axis=None, shape=None):
    return _atleast(a, 2)


def batched_atleast_3d(flags, a):
    return _atleast(a, 3)


def batched_hstack(flags, tup):
    arrs = [_atleast(t, 1) for t in _rows(tup)]
    return np.concatenate(arrs, axis=1 if arrs and arrs[0].ndim == 2 else 2)


def batched_vstack(flags, tup):
    return np.concatenate([_atleast(t, 2) for t in _rows(tup)], axis=1)


def batched_dstack(flags, tup):
    return np.concatenate([_atleast(t, 3) for t in _rows(tup)], axis=3)


def batched_column_stack(flags, tup):
    arrs = [t.reshape(t.shape + (1,) * (3 - t.ndim)) if t.ndim < 3 else t for t in _rows(tup)]
    return np.concatenate(arrs, axis=2)


def _split(fn, which):
    def rule(flags, ary, indices_or_sections, axis=0):
        nd = example_rank(ary, flags[0])
        ax = axis if which is None else {"h": 1 if nd > 1 else 0, "v": 0, "d": 2}[which]
        if flags[1] or not flags[0] or (which == "v" and nd < 2) or (which == "d" and nd < 3):
            return loop_examples("xp." + fn.__name__, flags, ary, indices_or_sections, *(() if which else (axis,)))
        split = np.array_split if fn is np.array_split else np.split
        return split(ary, indices_or_sections, axis=shifted_axis(ax, nd))
    if which is not None:
        def rule2(flags, ary, indices_or_sections):
            return rule(flags, ary, indices_or_sections)
        return rule2
    return rule


batched_split = _split(np.split, None)


batched_array_split = _split(np.array_split, None)


batched_hsplit = _split(np.hsplit, "h")


batched_vsplit = _split(np.vsplit, "v")


batched_dsplit = _split(np.dsplit, "d")


# ---- selections ----
def batched_compress(flags, condition, a, axis=None):
    if flags[0] or axis is not None and example_rank(a, True) == 0:  # (a number along its axis 0: per example)
        return loop_examples("xp.compress", flags, condition, a, axis)
    if axis is None:
        return np.compress(condition, array_of(a).reshape(np.shape(a)[0], -1), axis=1)
    return np.compress(condition, a, axis=shifted_axis(axis, example_rank(a, True)))


def batched_extract(flags, condition, arr):
    if flags[0]:
        return loop_examples("xp.extract", flags, condition, arr)
    return array_of(arr).reshape(np.shape(arr)[0], -1)[:, np.flatnonzero(condition)]


def batched_delete(flags, arr, obj, axis=None):
    if flags[1]:
        return loop_examples("xp.delete", flags, arr, obj, axis)
    if axis is None:
        return np.delete(array_of(arr).reshape(np.shape(arr)[0], -1), obj, axis=1)
    return np.delete(arr, obj, axis=shifted_axis(axis, example_rank(arr, True)))


def batched_take(flags, a, indices, axis=None, out=None, mode="raise"):
    n = count_examples(flags, (a, indices))
    if axis is not None and example_rank(a, flags[0]) == 0:  # (a number along its axis 0: per example)
        return loop_examples("xp.take", flags, a, indices, axis, out, mode)
    if not flags[1]:
        how = {} if mode == "raise" else {"mode": mode}  # CuPy's take has no `mode`
        if axis is None:
            return np.take(example_rows(a, True, n), indices, axis=1, **how)
        return np.take(a, indices, axis=shifted_axis(axis, example_rank(a, True)), **how)
    idx = array_of(indices)
    if axis is None:
        src, ax = example_rows(a, flags[0], n), 1
    else:
        src, ax = with_batch(a, flags[0], n), shifted_axis(axis, example_rank(a, flags[0]))
    size = src.shape[ax]
    idx = np.mod(idx, size) if mode == "wrap" else np.clip(idx, 0, size - 1) if mode == "clip" else idx
    pre = ax - 1   # per-example axes before `axis`
    moved = np.moveaxis(src, ax, 1)   # (n, size, pre..., post...)
    ar = getattr(n, "xp", np).arange(n).reshape((n,) + (1,) * (idx.ndim - 1))
    got = moved[ar, idx]               # (n, *idx, pre..., post...)
    k = idx.ndim - 1
    return np.moveaxis(got, list(range(1 + k, 1 + k + pre)), list(range(1, 1 + pre))) if pre else got


def batched_take_along_axis(flags, arr, indices, axis=-1):
    if axis is None:
        n = count_examples(flags, (arr, indices))
        return np.take_along_axis(example_rows(arr, flags[0], n), example_rows(indices, flags[1], n), axis=1)
    a = arr if flags[0] else array_of(arr)[None]
    i = indices if flags[1] else array_of(indices)[None]
    return np.take_along_axis(a, i, axis=shifted_axis(axis, np.ndim(a) - 1))


def batched_select(flags, condlist, choicelist, default=0):
    if is_array(condlist) and flags[0] or is_array(choicelist) and flags[1]:
        return loop_examples("xp.select", flags, condlist, choicelist, default)
    conds, choices = list(condlist), list(choicelist)
    ranks = [example_rank(c, flags[0]) for c in conds] + [example_rank(c, flags[1]) for c in choices] \
        + [example_rank(default, flags[2])]
    r = max(ranks)
    conds, choices = [lift_to_rank(c, flags[0], r) for c in conds], [lift_to_rank(c, flags[1], r) for c in choices]
    return namespace(choices[0]).select(conds, choices, lift_to_rank(default, flags[2], r))  # CuPy: s2s's array default


# ---- shape ----
def batched_broadcast_to(flags, a, axis=None, shape=None):
    s = shape if shape is not None else axis
    if flags[1] or flags[2]:
        return loop_examples("xp.broadcast_to", flags, a, axis, shape)
    s = (s,) if isinstance(s, (int, np.integer)) else tuple(s)
    return np.broadcast_to(lift_to_rank(a, True, len(s)), np.shape(a)[:1] + s)


def _batched_tri(fn, flags, m, k):
    """np.tril/np.triu per example: a 1-D example is a row broadcast to a square (NumPy's own
    reading of a vector), not a matrix of the examples."""
    if flags[1]:
        return loop_examples("xp." + fn.__name__, flags, m, k)
    if example_rank(m, True) == 1:
        n = np.shape(m)[-1]
        m = np.broadcast_to(m[:, None, :], (np.shape(m)[0], n, n))
    return fn(m, k)


def batched_tril(flags, m, k=0):
    return _batched_tri(np.tril, flags, m, k)


def batched_triu(flags, m, k=0):
    return _batched_tri(np.triu, flags, m, k)


def batched_fliplr(flags, m):
    return np.flip(m, 2)


def batched_flipud(flags, m):
    return np.flip(m, 1)


def batched_rot90(flags, m, k=1, axes=None):
    nd = example_rank(m, True)
    return np.rot90(m, k, axes=shifted_axis((0, 1) if axes is None else tuple(axes), nd))


def batched_rollaxis(flags, a, axis, start=0):
    nd = example_rank(a, True)
    axis = shifted_axis(axis, nd) - 1 if nd else _no_axis(axis)  # (NumPy's AxisError, not a wrapped axis)
    if not -nd <= start <= nd:
        raise np.exceptions.AxisError(f"'start' arg requires {-nd} <= start < {nd + 1}, but {start} was passed in")
    start = start + nd if start < 0 else start
    if axis < start:
        start -= 1
    return a[...] if axis == start else np.moveaxis(a, axis + 1, start + 1)


def _no_axis(axis):
    """A 0-d example has no axis: NumPy's AxisError."""
    raise np.exceptions.AxisError(int(axis), 0)


def batched_roll(flags, a, shift, axis=None):
    if flags[1] or flags[2]:
        return loop_examples("xp.roll", flags, a, shift, axis)
    if axis is None:
        return np.roll(array_of(a).reshape(np.shape(a)[0], -1), shift, axis=1).reshape(np.shape(a))
    return np.roll(a, shift, axis=shifted_axis(axis, example_rank(a, True)))


def batched_tile(flags, A, reps):
    if flags[1]:
        return loop_examples("xp.tile", flags, A, reps)
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(reps)
    nd = example_rank(A, True)
    r = max(nd, len(reps))
    return np.tile(lift_to_rank(A, True, r), (1,) * (1 + r - len(reps)) + reps)


def batched_diag(flags, v, k=0):
    v = array_of(v)
    if v.ndim == 3:
        return np.diagonal(v, k, axis1=1, axis2=2).copy()
    if v.ndim != 2:
        return loop_examples("xp.diag", flags, v, k)
    n, m = v.shape
    size = m + abs(k)
    xp = namespace(v)
    out = xp.zeros((n, size, size), dtype=v.dtype)
    i = xp.arange(m)
    out[:, i + max(-k, 0), i + max(k, 0)] = v
    return out


def batched_pad(flags, array, pad_width, mode="constant", reflect_type="even", **kw):
    if flags[1]:
        return loop_examples("xp.pad", flags, array, pad_width, mode, reflect_type)
    nd = example_rank(array, True)
    per = np.broadcast_to(array_of(pad_width), (nd, 2)) if nd else np.zeros((0, 2), int)
    width = [(0, 0)] + [tuple(int(x) for x in p) for p in per]
    for key in ("constant_values", "end_values", "stat_length"):
        if key in kw and kw[key] is not None and np.ndim(kw[key]) > 0:
            vals = np.broadcast_to(array_of(kw[key]), (nd, 2))
            kw[key] = [tuple(vals[0])] + [tuple(v) for v in vals]
    if mode in ("reflect", "symmetric"):
        kw["reflect_type"] = reflect_type
    return np.pad(array, width, mode=mode, **kw)


def _partitioned(fn, flags, a, kth, axis, kind, order):
    """np.partition / np.argpartition per example (`fn`); a per-example kth or axis loops."""
    if flags[1] or flags[2] or axis is not None and example_rank(a, True) == 0:  # (a 0-d example: per example)
        return loop_examples(f"xp.{fn.__name__}", flags, a, kth, axis, kind, order)
    how = {} if kind == "introselect" else {"kind": kind}  # CuPy's partition has neither `kind` nor `order`
    how.update({} if order is None else {"order": order})
    if axis is None:
        return fn(array_of(a).reshape(np.shape(a)[0], -1), kth, axis=1, **how)
    return fn(a, kth, axis=shifted_axis(axis, example_rank(a, True)), **how)


def batched_partition(flags, a, kth, axis=-1, kind="introselect", order=None):
    return _partitioned(np.partition, flags, a, kth, axis, kind, order)


def batched_meshgrid(flags, x, y=None, z=None, indexing="xy", sparse=False, copy=True):
    xs = [(v, fl) for v, fl in zip((x, y, z), flags[:3]) if v is not None]
    n = count_examples(flags, (x, y, z))
    flat = [example_rows(v, fl, n) for v, fl in xs]
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
    def rule(flags, x, *args, **kw):
        """`<fn>(x, ..., shape=s)` per example: the batch stays in front of a given shape."""
        shape = kw.get("shape", args[3] if len(args) > 3 else None)
        if shape is None:
            return fn(x, *args, **kw)
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        kw["shape"] = np.shape(x)[:1] + shape
        return fn(x, *args[:3], **kw)
    return rule


batched_zeros_like = _like(np.zeros_like)


batched_ones_like = _like(np.ones_like)


batched_empty_like = _like(np.empty_like)


# ---- operations without derivative ----
def batched_argpartition(flags, a, kth, axis=-1, kind="introselect", order=None):
    return _partitioned(np.argpartition, flags, a, kth, axis, kind, order)


def batched_searchsorted(flags, a, v, side="left", sorter=None):
    """Per example: how many entries of sorted `a` lie before each `v` (a count of comparisons)."""
    if flags[2] or flags[3] or sorter is not None:
        return loop_examples("xp.searchsorted", flags, a, v, side, sorter)
    if not flags[0]:
        return np.searchsorted(a, v, side=side)
    n = count_examples(flags, (a, v))
    vs = np.shape(v)[1:] if flags[1] else np.shape(v)
    V = example_rows(v, flags[1], n)
    below = (a[:, None, :] < V[:, :, None]) if side == "left" else (a[:, None, :] <= V[:, :, None])
    return np.sum(below, axis=2).reshape((n,) + vs)


batched_sort_vjp = shifted_rule(sort_vjp, (0, 1), (2,), ref=1, none="loop")


batched_sort_jvp = shifted_rule(sort_jvp, (0, 1), (2,), ref=1, none="loop")


batched_partition_vjp = shifted_rule(partition_vjp, (0, 1), (3,), (2,), ref=1, none="loop")


batched_partition_jvp = shifted_rule(partition_jvp, (0, 1), (3,), (2,), ref=1, none="loop")


def batched_reshape_like(flags, v, like):
    n = count_examples(flags, (v, like))
    return np.reshape(with_batch(v, flags[0], n), (n,) + np.shape(one_example(like, flags[1])))


def batched_transpose_vjp(flags, v, axes):
    axes = shared_setting(axes) if flags[1] else axes
    nd = example_rank(v, True)
    order = range(nd - 1, -1, -1) if axes is None else np.argsort([int(a) % nd for a in axes])
    return np.transpose(v, (0,) + tuple(int(k) + 1 for k in order))


def batched_rot90_vjp(flags, v, k, axes):
    k, axes = (shared_setting(x) if fl else x for x, fl in zip((k, axes), flags[1:]))
    return batched_rot90((True,), v, -k, axes)


def batched_rollaxis_vjp(flags, v, a, axis, start):
    axis, start = (shared_setting(x) if fl else x for x, fl in zip((axis, start), flags[2:]))
    nd = example_rank(a, flags[1])
    order = list(range(nd))
    ax = axis % nd
    st = start + nd if start < 0 else start  # (NumPy: a negative start counts from ndim)
    item = order.pop(ax)
    order.insert(st - 1 if st > ax else st, item)
    full = with_batch(v, flags[0], count_examples(flags, (v, a)))
    return np.transpose(full, (0,) + tuple(int(k) + 1 for k in np.argsort(order)))


def batched_add_at(flags, acc, index, v):
    """`add_at(acc, index, v)` per example (index shared): one scatter-add past the batch axis."""
    if flags[1] or not is_array(acc) and not isinstance(acc, (list, tuple, dict)):
        return _b.map_examples("rt.add_at", flags, count_examples(flags, (acc, index, v)), acc, index, v)
    if isinstance(acc, (list, tuple, dict)):
        return add_at(acc if flags[0] else replicate_batch(acc, count_examples(flags, (acc, index, v))), index, v)
    n = count_examples(flags, (acc, index, v))
    if not flags[0]:
        acc = np.broadcast_to(acc, (n,) + acc.shape).copy()
    key = batched_key(index, False, n, np.shape(acc))  # (NumPy's layout per example: _index_layout)
    slot_nd = np.ndim(acc[key]) - 1
    v = lift_to_rank(v, flags[2], slot_nd)
    if is_fancy(index):
        acc = scatter_add(acc, key, v)  # (Dask: a new array)
    else:
        acc[key] += v
    return acc


# derivative helpers that read only shapes and settings (the listed arguments only for their shapes):
# one example's answer serves the batch
batched_not_deleted = static_rule(not_deleted, (0,))
batched_plain_reflect = static_rule(plain_reflect, ())
