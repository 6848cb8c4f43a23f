"""TODO docstring of runtime.shape."""
from __future__ import annotations

import numpy as np

from ..base.tree import tree_map
from ..errors import S2SValueError
from ._values import float_dtype
from .core import asarray, namespace, reshape_like, scatter_add, to_host, unbroadcast, widen_float, zeros

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("transpose_vjp", "add_transposed", "roll_vjp", "diag_vjp", "tile_vjp", "repeat_vjp", "unstack",
           "reversed_shape", "split_like", "join_like",
           "hstack_axis", "r_", "r_vjp", "c_", "c_vjp", "linspace_vjp", "linspace_jvp", "vstack_vjp", "array_vjp",
           "sort_perm", "sort_jvp", "sort_vjp", "partition_perm", "partition_jvp", "partition_vjp", "take_vjp",
           "take_along_vjp", "gather_vjp", "pad_map", "pad_vjp", "pad_jvp", "diagonal_vjp", "split_axis",
           "split_vjp", "split_jvp", "column_stack_vjp", "dstack_vjp", "rollaxis_vjp", "append_vjp", "select_vjp",
           "select_vjp_all", "select_jvp", "unbroadcast_to", "meshgrid_vjp", "meshgrid_tangent", "present",
           "select_none", "append_vjp_t", "rot90_vjp", "diag_vjp_any", "kept", "not_deleted", "plain_reflect",
           "tolist", "tolist_t", "batched_tolist", "batched_tolist_t", "int_cast")


def transpose_vjp(v, axes):
    """Transpose of `transpose(., axes)`: the inverse permutation of `axes` counted from 0 (the
    argsort of (-1, 0) itself is the identity)."""
    if axes is None:
        return np.transpose(v)
    n = np.ndim(v)
    return np.transpose(v, tuple(np.argsort([int(a) % n for a in axes]).tolist()))  # Dask wants a tuple


def add_transposed(a, v):
    """`a + transpose_vjp(v, None)` (`v` with all its axes reversed), computed as the transpose of
    `a`'s transpose plus `v` where both are NumPy arrays of one rank, two or more: the same
    additions of the same pairs in the same order, so the same values, and the result is the
    transpose of a new array. An accumulator `acc = acc + v.T` in a loop (a weight's cotangent
    through `x @ w.T`) then reads both operands in their memory order from its second iteration on,
    where the sum read `v` across its rows (128 x 128 floats: 55 us against 11 us)."""
    if type(a) is np.ndarray is type(v) and a.ndim == v.ndim >= 2:
        return np.add(a.T, v).T
    return a + transpose_vjp(v, None)


def roll_vjp(v, shift, axis):
    return np.roll(v, -np.asarray(shift), axis)


def diag_vjp(v, like, k):
    """Cotangent of `diag(like, k)`: the diagonal of `v` (like 1-D), or `v` placed on the k-th
    diagonal of a zero array shaped like `like` (like 2-D, which need not be square)."""
    if np.ndim(like) == 1:
        return np.diagonal(v, k).copy()
    out = zeros(np.shape(like), v)
    n = len(v)
    rows = np.arange(n) + max(-k, 0)
    out[rows, rows + k] = v
    return out


def tile_vjp(v, like, reps):
    s = np.shape(like)
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    n = max(len(s), len(reps))
    s = (1,) * (n - len(s)) + s
    reps = (1,) * (n - len(reps)) + reps
    split = np.reshape(v, [d for pair in zip(reps, s) for d in pair])
    return np.reshape(np.sum(split, axis=tuple(range(0, 2 * n, 2))), np.shape(like))


def repeat_vjp(v, like, repeats, axis):
    """Transpose of `repeat(x, repeats, axis)`: each entry's copies summed (`repeats` a count, or one
    count per entry, a list or an array)."""
    if np.ndim(repeats):  # (written with primitives: s2s differentiates this source, rules_helpers.py)
        ax = 0 if axis is None else axis
        n = np.shape(np.ravel(like) if axis is None else like)[ax]
        owner = np.repeat(np.arange(n), repeats)
        to = np.where(np.equal(np.expand_dims(np.arange(n), 1), np.expand_dims(owner, 0)), 1.0, 0.0)
        return np.reshape(np.moveaxis(np.tensordot(to, np.moveaxis(v, ax, 0), 1), 0, ax), np.shape(like))
    if axis is None:
        return np.reshape(np.sum(np.reshape(v, (np.size(like), repeats)), axis=1), np.shape(like))  # (repeats 0 too)
    s = list(np.shape(like))
    axis = axis % len(s)  # (a negative axis: counted from the end of `like`'s axes, not of the split ones)
    v = np.reshape(v, s[:axis] + [s[axis], repeats] + s[axis + 1:])
    return np.sum(v, axis=axis + 1)


def _as_like(parts, like):
    """Per-element cotangents in the container `like` was: a tuple, a list, or (for an array whose
    rows were the elements) one array."""
    if isinstance(like, tuple):
        return tuple(_narrowed(p, e) for p, e in zip(parts, like))
    if hasattr(like, "shape"):
        return np.reshape(np.stack(parts), np.shape(like)) if len(parts) else zeros(np.shape(like), like)
    return [_narrowed(p, e) for p, e in zip(parts, like)]


def _narrowed(v, like):
    """`v` in `like`'s float dtype where that is narrower (a float32 element of a concatenate or
    stack with float64 ones: its cotangent is float32, as in JAX)."""
    dt = getattr(like, "dtype", None)
    if dt is not None and dt.kind == "f" and dt.itemsize < 8 and getattr(v, "dtype", dt) != dt:
        return v.astype(dt)
    return v


def unstack(v, like, axis):
    """Cotangent of `stack(like, axis)`: one slice per stacked element. A NumPy `v` is copied once
    with the stacked axis first and cut into rows of that copy (disjoint, owned by nobody else):
    `np.take` per element copied the whole of a strided `v` each time (an RNN's stacked states,
    T copies of T states)."""
    if type(v) is np.ndarray:
        rows = np.moveaxis(v, axis, 0).copy()
        return _as_like(list(rows), like)
    return _as_like([np.take(v, i, axis=axis) for i in range(np.shape(v)[axis])], like)


def reversed_shape(shape):
    """A reshape's target shape with its axes in reverse order (an F-order reshape is a C-order one of
    the transpose to this shape, transposed back)."""
    return shape if isinstance(shape, (int, np.integer)) else tuple(shape)[::-1]


def split_like(v, like, axis):
    """Cotangent of `concatenate(like, axis)` (axis=None: of the flattened pieces)."""
    if axis is None:
        sizes = np.cumsum([np.size(p) for p in like])[:-1]
        return _as_like([reshape_like(p, q) for p, q in zip(np.split(v, sizes), like)], like)
    sizes = np.cumsum([np.shape(p)[axis] if np.ndim(p) else 1 for p in like])[:-1]
    return _as_like([reshape_like(p, q) for p, q in zip(np.split(v, sizes, axis=axis), like)], like)


def join_like(parts, axis):
    """Transpose of `split_like`: the pieces (0-d ones, hstack's scalars, as one element each)
    joined along `axis`; `parts` may be one array whose rows are the pieces."""
    return np.concatenate([np.atleast_1d(p) for p in parts], axis)


def hstack_axis(tup):
    return 0 if np.ndim(tup[0]) <= 1 else 1


def r_(items):
    """`np.r_[a, b, ...]` of arrays and numbers (no slices or directive strings)."""
    return np.r_[tuple(items)]


def _trick_widths(items, axis):
    return [np.shape(np.atleast_1d(i))[0] if axis == 0 else (np.shape(i)[-1] if np.ndim(i) == 2 else 1)
            for i in items]


def r_vjp(v, items):
    parts = np.split(v, np.cumsum(_trick_widths(items, 0))[:-1], axis=0)
    return tuple(reshape_like(p, i) for p, i in zip(parts, items))


def c_(items):
    """`np.c_[a, b, ...]` of 1-D and 2-D arrays: 1-D arrays become columns."""
    if any(np.ndim(i) not in (1, 2) for i in items):
        raise S2SValueError("s2s differentiates np.c_[...] of 1-D and 2-D arrays only")
    return np.c_[tuple(items)]


def c_vjp(v, items):
    parts = np.split(v, np.cumsum(_trick_widths(items, 1))[:-1], axis=-1)
    return tuple(reshape_like(p, i) for p, i in zip(parts, items))


def _linspace_t(num, endpoint, which, nd, like):
    """d linspace / d start (which=0) or d stop (which=1) along the new axis, put first, in the
    array module and floating dtype of `like`."""
    t = namespace(like).linspace(0.0, 1.0, num, endpoint=endpoint)
    return np.reshape(t if which else 1.0 - t, (-1,) + (1,) * nd).astype(float_dtype(like))


def linspace_vjp(g, start, stop, num, endpoint, axis, which):
    """Cotangent of `start` (which=0) or `stop` (which=1) of `linspace(start, stop, num, ...)`."""
    g = np.moveaxis(g, axis, 0)
    v = np.sum(g * _linspace_t(num, endpoint, which, np.ndim(g) - 1, g), axis=0)
    return unbroadcast(v, stop if which else start)


def linspace_jvp(d, start, stop, num, endpoint, axis, which):
    shape = np.broadcast_shapes(np.shape(start), np.shape(stop))
    out = _linspace_t(num, endpoint, which, len(shape), asarray(d)) * np.broadcast_to(d, shape)
    return np.moveaxis(out, 0, axis) if shape else out


def vstack_vjp(v, tup):
    """Cotangent of `vstack(tup)`: one block of rows per element, shaped like that element
    (a 1-D element was stacked as one row)."""
    sizes = np.cumsum([np.shape(t)[0] if np.ndim(t) > 1 else 1 for t in tup])[:-1]
    return _as_like([reshape_like(p, t) for p, t in zip(np.split(v, sizes, axis=0), tup)], tup)


def array_vjp(v, like):
    """Cotangent of `array(like)`: the same nesting of lists as `like` had."""
    if isinstance(like, (list, tuple)):
        return [array_vjp(v[i], e) for i, e in enumerate(like)]
    if np.ndim(like) == 0 and not hasattr(like, "shape"):
        return v if np.ndim(v) == 0 else v.reshape(())
    dt = getattr(like, "dtype", None)
    if dt is not None and dt.kind == "f" and getattr(v, "dtype", dt) != dt:
        v = v.real if v.dtype.kind == "c" else v  # (a real value's cotangent: the real part, JAX's convention)
        return v.astype(dt)  # a cast's cotangent takes the dtype of what was cast (x.astype(float64) of float32 x)
    return v


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
        out = zeros(np.size(a), v)
        out[perm] = np.ravel(v)
        return out.reshape(np.shape(a))
    if type(v) is np.ndarray:  # NumPy: a plain write (add.at, the general path, is slower)
        out = np.zeros(np.shape(a), dtype=float_dtype(v))
        np.put_along_axis(out, perm, v, axis=axis)
        return out
    return take_along_vjp(v, a, perm, axis)


def take_vjp(v, a, indices, axis):
    """Transpose of `take(a, indices, axis)`: add each cotangent into the slot it was read from."""
    out = zeros(np.shape(a), v)
    if axis is None:
        return scatter_add(out.reshape(-1), np.ravel(indices), np.ravel(v)).reshape(np.shape(a))
    ax = axis % np.ndim(a)
    moved = np.moveaxis(out, ax, 0)
    k = np.ndim(indices)
    vi = np.moveaxis(np.reshape(v, np.shape(a)[:ax] + np.shape(indices) + np.shape(a)[ax + 1:]),
                     tuple(range(ax, ax + k)), tuple(range(k)))
    return np.moveaxis(scatter_add(moved, indices, vi), 0, ax)


def take_along_vjp(v, a, indices, axis):
    out = zeros(np.shape(a), v)
    if axis is None:
        return scatter_add(out.reshape(-1), np.ravel(indices), np.ravel(v)).reshape(np.shape(a))
    axis = axis % np.ndim(a)
    idx = list(np.ix_(*[np.arange(n) for n in np.shape(indices)]))
    idx[axis] = indices
    return scatter_add(out, tuple(np.broadcast_arrays(*idx)), v)


def gather_vjp(v, like, index_map):
    """Transpose of `ravel(like)[index_map]` with -1 meaning 'a constant': add back."""
    out = zeros(np.size(like), v)
    m = np.ravel(index_map)
    keep = m >= 0
    return scatter_add(out, m[keep], np.ravel(v)[keep]).reshape(np.shape(like))


def pad_map(array, pad_width, mode):
    """Where each entry of `pad(array, pad_width, mode)` comes from (-1: the constant)."""
    if mode not in ("constant", "edge", "reflect", "symmetric", "wrap"):
        raise S2SValueError(f"s2s differentiates np.pad with mode constant, edge, reflect, symmetric or wrap, "
                            f"not {mode!r}")
    idx = np.arange(np.size(array)).reshape(np.shape(array))
    pad_width = tree_map(to_host, pad_width)  # (per example under vmap: slices of widths saved on a device)
    if mode == "constant":
        return np.pad(idx, pad_width, mode="constant", constant_values=-1)
    return np.pad(idx, pad_width, mode=mode)


def pad_vjp(v, array, pad_width, mode):
    return gather_vjp(v, array, pad_map(array, pad_width, mode))


# np.pad's modes whose padding is linear in the array: the tangent padded the same way is the
# padding's tangent ('maximum', 'minimum', 'median' pick entries by value; 'empty' leaves them unset;
# a function as the mode is the user's own)
_LINEAR_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "mean", "linear_ramp")


def pad_jvp(v, array, pad_width, mode):
    if not isinstance(mode, str) or mode not in _LINEAR_PAD_MODES:
        raise S2SValueError(f"s2s differentiates np.pad with mode constant, edge, reflect, symmetric, wrap, mean or "
                            f"linear_ramp (forward mode), not {mode!r}")
    return np.pad(v, pad_width, mode=mode)


def diagonal_vjp(v, a, offset, axis1, axis2):
    """Transpose of `diagonal(a, offset, axis1, axis2)`: `v` written onto that diagonal of zeros."""
    out = zeros(np.shape(a), v)
    n = np.shape(v)[-1]
    rows = np.arange(n) + max(-offset, 0)
    cols = np.arange(n) + max(offset, 0)
    try:
        np.moveaxis(out, (axis1, axis2), (-2, -1))[..., rows, cols] = v
    except NotImplementedError:  # Dask assigns through one index array at most: add into zeros instead
        moved = scatter_add(np.moveaxis(out, (axis1, axis2), (-2, -1)), (Ellipsis, rows, cols), v)
        return np.moveaxis(moved, (-2, -1), (axis1, axis2))
    return out


def split_axis(ary, which):
    """The axis of `hsplit`/`vsplit`/`dsplit` (`which` 'h', 'v' or 'd')."""
    if which == "h":
        return 0 if np.ndim(ary) == 1 else 1
    return 0 if which == "v" else 2


def split_vjp(v, ary, axis):
    """Transpose of `split`: the pieces' cotangents joined again (zeros for unused pieces)."""
    return np.concatenate([asarray(p) for p in v], axis=axis)


def split_jvp(v, ary, indices_or_sections, axis):
    return np.array_split(v, indices_or_sections, axis=axis)


def column_stack_vjp(v, tup):
    out, start = [], 0
    for t in tup:
        k = 1 if np.ndim(t) < 2 else np.shape(t)[1]
        out.append(np.reshape(v[:, start:start + k], np.shape(t)))
        start += k
    return _as_like(out, tup)


def dstack_vjp(v, tup):
    out, start = [], 0
    for t in tup:
        k = 1 if np.ndim(t) < 3 else np.shape(t)[2]
        out.append(np.reshape(v[:, :, start:start + k], np.shape(t)))
        start += k
    return _as_like(out, tup)


def rollaxis_vjp(v, a, axis, start):
    """Transpose of `rollaxis(a, axis, start)`: the inverse permutation."""
    n = np.ndim(a)
    order = list(range(n))
    ax = axis % n
    st = start + n if start < 0 else start  # (NumPy: a negative start counts from ndim)
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
    taken = zeros(np.shape(v), v, dtype=bool)
    for c in condlist[:k]:
        taken = taken | c
    mine = np.logical_and(condlist[k], np.logical_not(taken))
    return unbroadcast_to(np.where(mine, v, 0.0), choicelist[k])


def select_vjp_all(v, condlist, choicelist):
    return [select_vjp(v, condlist, choicelist, k) for k in range(len(choicelist))]


def select_jvp(v, condlist, choicelist, like=None):
    """The tangent of `select` from its choices' tangents, in the float dtype of its result `like`
    where that is wider (a float64 default around float32 choices)."""
    out = np.select(condlist, list(v), 0.0)
    return out if like is None else widen_float(out, like)


def unbroadcast_to(v, like):
    return unbroadcast(v, like)


def meshgrid_vjp(v, k, xs, indexing):
    """Cotangent of input `k` of `meshgrid(*xs, indexing=...)` from the list of output cotangents."""
    n = len(xs)
    axis = k
    if indexing == "xy" and n >= 2 and k < 2:
        axis = 1 - k
    g = asarray(v[k])
    return np.reshape(np.sum(g, axis=tuple(i for i in range(n) if i != axis)), np.shape(xs[k]))


def meshgrid_tangent(v, k, xs, indexing, sparse=False):
    """The outputs' tangents of `meshgrid(*xs)` when only input `k` moves, by tangent `v` (shaped as
    the outputs: sparse=True's have unit axes)."""
    grids = np.meshgrid(*xs, indexing=indexing, sparse=sparse)
    n = len(xs)
    axis = 1 - k if indexing == "xy" and n >= 2 and k < 2 else k
    shape = [1] * n
    shape[axis] = -1
    out = [zeros(np.shape(q), v) for q in grids]
    out[k] = np.broadcast_to(np.reshape(v, shape), np.shape(grids[k])).astype(float_dtype(v))
    return out


def present(*xs):
    """The arguments that are not None, as a list."""
    return [x for x in xs if x is not None]


def select_none(condlist, like):
    """Where no condition of `select` holds (the default is taken)."""
    hit = zeros(np.shape(like), like, dtype=bool)
    for c in condlist:
        hit = hit | c
    return np.logical_not(hit)


def append_vjp_t(v, arr, values, axis, k):
    """Transpose of `append_vjp`: `v` placed where `arr` (k=0) or `values` (k=1) sits in the result."""
    zero_a = zeros(np.shape(arr), v)
    zero_v = zeros(np.shape(values), v)
    return np.append(v if k == 0 else zero_a, v if k == 1 else zero_v, axis=axis)


def rot90_vjp(v, k, axes):
    """Transpose of `rot90(., k, axes)`: rotate back."""
    return np.rot90(v, -k, (0, 1) if axes is None else axes)


def diag_vjp_any(v, like, k):
    """Transpose of `diag(like, k)`: the k-th diagonal of `v` (1-D `like`), or `v` written onto
    that diagonal of a zero matrix shaped like `like` (2-D `like`, square or not)."""
    if np.ndim(like) == 1:
        return np.diagonal(v, k)
    return diagonal_vjp(v, like, k, 0, 1)


def kept(condition):
    """The positions `compress`/`extract` keep (a condition on a device is read back: positions index)."""
    if isinstance(condition, (list, tuple)):
        condition = [to_host(c) for c in condition]
    return np.flatnonzero(np.ravel(to_host(condition)))


def not_deleted(arr, obj, axis):
    """The positions `delete(arr, obj, axis)` keeps."""
    n = np.size(arr) if axis is None else np.shape(arr)[axis]
    return np.delete(np.arange(n), obj)


def plain_reflect(mode, reflect_type):
    """`mode`, after checking that np.pad's `reflect_type` keeps the map a plain copy of entries."""
    if reflect_type != "even":
        raise S2SValueError("s2s differentiates np.pad with reflect_type='even' only")
    return mode


def tolist(x, depth=None):
    """`x.tolist()`: nested lists of `x`'s elements, the first `depth` axes unpacked (all by
    default). The elements stay NumPy scalars (a float64 is a Python float) or arrays, so that the
    derivative follows each one."""
    depth = np.ndim(x) if depth is None else depth
    if depth == 0:
        return x[()] if np.ndim(x) == 0 and hasattr(x, "shape") else x
    return [tolist(x[i], depth - 1) for i in range(np.shape(x)[0])]


def _dense(g):
    """Nested lists of cotangents with None (no cotangent) as 0.0."""
    if isinstance(g, (list, tuple)):
        return [_dense(e) for e in g]
    return 0.0 if g is None else g


def tolist_t(g, x):
    """Transpose of `tolist`: the nested cotangents as an array of `x`'s shape."""
    dt = x.dtype if np.issubdtype(np.asarray(x).dtype, np.inexact) else np.float64
    return np.reshape(np.asarray(_dense(g), dtype=dt), np.shape(x))


def batched_tolist(flags, x, depth=None):
    """`tolist` per example of a batched `x`: the nested lists of one example, each element the
    batch of that element (the batch axis moved last, then the example's axes unpacked)."""
    return tolist(np.moveaxis(x, 0, -1), np.ndim(x) - 1 if depth is None else depth)


def batched_tolist_t(flags, g, x):
    """Transpose of `batched_tolist`: each element's batch (or one example's cotangent, broadcast)
    back at its place in an array shaped like the batched `x`."""
    shape = np.shape(x)[1:] if flags[1] else np.shape(x)
    leaves = _leaves(_dense(g))
    n = np.shape(x)[0] if flags[1] else max(np.shape(v)[0] for v in leaves if np.ndim(v) == 1)
    cols = np.stack([np.broadcast_to(v, (n,)) for v in leaves], axis=-1) if leaves else np.zeros((n, 0))
    return np.reshape(cols, (n,) + tuple(shape))


def _leaves(g) -> list:
    return [v for e in g for v in _leaves(e)] if isinstance(g, list) else [g]


def int_cast(x, dtype):
    """`dtype(x)` for an integer or boolean NumPy dtype (`np.int64(W[:, -1])`), on x's own array
    library: an array's `astype`, a number's constructor."""
    return x.astype(dtype) if hasattr(x, "astype") else dtype(x)
