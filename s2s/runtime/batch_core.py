"""Batching helpers `rt.vbh_<op>(f, *args)` of the core table's operations (products, reshapes,
conversions, creation, shape queries), of the derivative helpers reverse mode emits (vmap of
grad), and of vmap's own helpers (vmap of vmap); `f` says which arguments are batched, the batch
at axis 0. Declared in primitives/rules_batch.py."""
from __future__ import annotations

import numpy as np

from ..errors import S2STypeError, S2SValueError
from ..tree import tree_leaves, tree_map
from .batch import (
    _is_arr,
    _sized,
    _vb_err,
    _vb_first,
    _vb_map,
    vb_array,
    vb_axis,
    vb_bcast,
    vb_flat,
    vb_len,
    vb_lift,
    vb_loop,
    vb_n,
    vb_select,
    vb_size,
    vb_size0,
    vb_size1,
    vb_static,
)
from .batch_linalg import _vb_dot_spec, vb_dot, vb_outer
from .core import _float_dtype, _is_tree, asarray, like, namespace, tree_all_zero
from .jacobian import basis, tree_size

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("vbh_r_", "vbh_c_", "vb_r_t", "vb_c_t", "vb_roll_t", "vb_outer_vjp", "vbh_dot", "vbh_matmul",
           "vbh_inner", "vbh_outer", "vbh_reshape", "vbh_ravel", "vbh_transpose", "vbh_squeeze", "vbh_array",
           "vbh_full", "vbh_full_like", "vb_full_t", "vbh_linspace", "vb_linspace_t", "vb_linspace_jvp",
           "vbh_unbroadcast", "vbh_broadcast_to_like", "vbh_seed", "vbh_float", "vbh_int", "vbh_shape",
           "vbh_ndim", "vbh_size", "vbh_len", "vbh_not", "vbh_tree_size", "vbh_basis", "vbh_vb_size",
           "vbh_vb_size0", "vbh_vb_in", "vbh_vb_out", "vbh_vb_bcast", "vbh_vb_lift", "vbh_vb_unlift",
           "vbh_vb_select", "vbh_vb_any", "vbh_vb_axes", "vbh_vb_axis", "vbh_vb_n", "vbh_vb_flat", "vbh_dot_vjp_a",
           "vbh_dot_vjp_b", "vbh_sum_vjp", "vbh_mean_vjp", "vbh_jac_from_rows", "vbh_jac_from_columns",
           "vbh_tree_all_zero", "vbh_vb_sum_scalars", "vbh_is", "vbh_isnot", "vbh_tuple", "vbh_list",
           "vb_tuple_t")


def _vb_items(f, items):
    """The items of a batched np.r_/np.c_ (a batched pack: every item batched)."""
    if not f[0]:
        raise _vb_err("vmap: np.r_/np.c_ of a list that is not batched as a whole")
    return [np.asarray(i) for i in items]


def vbh_r_(f, items):
    """Batched `np.r_[a, b, ...]`: per-example scalars become length-1 rows; joined after the batch axis."""
    items = _vb_items(f, items)
    return np.concatenate([i.reshape(i.shape[:1] + (1,)) if i.ndim == 1 else i for i in items], axis=1)


def vbh_c_(f, items):
    """Batched `np.c_[a, b, ...]`: per-example vectors become columns; joined along the last axis."""
    items = _vb_items(f, items)
    if any(i.ndim not in (2, 3) for i in items):
        raise S2SValueError("s2s differentiates np.c_[...] of 1-D and 2-D arrays only")
    return np.concatenate([i[..., None] if i.ndim == 2 else i for i in items], axis=-1)


def _vb_split_like(g_, items, axis):
    widths = [1 if np.ndim(i) == (1 if axis == 1 else 2) else np.shape(i)[axis] for i in items]
    parts = np.split(g_, np.cumsum(widths)[:-1], axis=axis)
    return tuple(np.reshape(p, np.shape(i)) for p, i in zip(parts, items))


def vb_r_t(f, g_, items):
    """Transpose of vbh_r_: the cotangent split back into the items' shapes."""
    return _vb_split_like(g_, items, 1)


def vb_c_t(f, g_, items):
    """Transpose of vbh_c_."""
    return _vb_split_like(g_, items, -1)


def _roll(a, shift, axis=None):
    """Batched `np.roll` with one shift and axis for every example (axis None: the flattened example)."""
    if axis is None:
        return np.reshape(np.roll(vb_flat(a), shift, axis=1), np.shape(a))
    return np.roll(a, shift, axis=vb_axis(axis))


def vb_roll_t(f, g_, shift, axis=None):
    """Transpose of vbh_roll: the opposite shift."""
    back = tuple(-s for s in shift) if isinstance(shift, (tuple, list)) else -shift
    return _roll(g_, back, axis)


def vb_outer_vjp(f, g_, a, b, which):
    """Cotangent of `a` (which=0) or `b` (which=1) of vbh_outer(f, a, b), shaped like it."""
    other, ob = (b, f[1]) if which == 0 else (a, f[0])
    fo = vb_flat(other) if ob else np.ravel(other)[None]
    v = np.sum(g_ * fo[:, None, :], axis=2) if which == 0 else np.sum(g_ * fo[:, :, None], axis=1)
    mine, mb = (a, f[0]) if which == 0 else (b, f[1])
    return np.reshape(v, np.shape(mine)) if mb else np.reshape(np.sum(v, axis=0), np.shape(mine))


# helpers named by the batching table: (batched flag per argument, *arguments)
def vbh_dot(f, a, b):
    if type(a) is np.ndarray and type(b) is np.ndarray:
        if f[0] and f[1] and a.ndim == 2 and b.ndim == 2:
            return np.einsum("ij,ij->i", a, b)  # vector . vector per example (a convolution's inner loop)
        if f[1] and not f[0] and a.ndim == 1 and b.ndim == 2:  # an unbatched vector . a batched one
            return np.matmul(b, a)
    return vb_dot(a, b, f[0], f[1], "dot")


def vbh_matmul(f, a, b):
    return vb_dot(a, b, f[0], f[1], "matmul")


def vbh_inner(f, a, b):
    return vb_dot(a, b, f[0], f[1], "inner")


def vbh_outer(f, a, b):
    return vb_outer(a, b, f[0], f[1])


def vbh_reshape(f, a, newshape=None, order="C", shape=None):
    s = newshape if newshape is not None else shape
    s = (s,) if isinstance(s, (int, np.integer)) else tuple(s)
    return np.reshape(a, (np.shape(a)[0],) + s, order=order)


def vbh_ravel(f, a, axis=None, shape=None):
    return vb_flat(a)


def vbh_transpose(f, a, axes=None):
    nd = np.ndim(a) - 1
    axes = tuple(range(nd, 0, -1)) if axes is None else tuple(x % nd + 1 for x in axes)
    return np.transpose(a, (0,) + axes)


def vbh_squeeze(f, a, axis=None, shape=None):
    if axis is None:
        axis = tuple(i for i, s in enumerate(np.shape(a)) if i and s == 1)
    else:
        axis = vb_axis(axis)
    return np.squeeze(a, axis=axis)


def vbh_array(f, x, **kw):
    out = vb_array(x)
    return out if kw.get("dtype") is None else out.astype(kw["dtype"])


def _vb_shape_arg(shape):
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)


def _vb_fill(v, fb, n, shape, dtype):
    """A fill value (batched when `fb`) broadcast to `(n,) + shape` per example, in a new array."""
    v = _vb_to_rank(v, len(shape)) if fb else _vb_unbatched_array(v, n)
    return np.broadcast_to(v, (n,) + tuple(shape)).astype(v.dtype if dtype is None else dtype)


def vbh_full(f, shape, fill_value, dtype=None):
    """Batched `full` of one shape (the batcher refuses a per-example shape): each example's fill
    value broadcast to `shape`."""
    return _vb_fill(fill_value, f[1], vb_n(fill_value), _vb_shape_arg(shape), dtype)


def vbh_full_like(f, a, fill_value, dtype=None):
    """Batched `full_like`: shaped and typed like each example of `a`, filled per example."""
    n = vb_n(a) if f[0] else vb_n(fill_value)
    shape = np.shape(a)[1:] if f[0] else np.shape(a)
    return _vb_fill(fill_value, f[1], n, shape, getattr(a, "dtype", None) if dtype is None else dtype)


def vb_full_t(f, g_, fill_value):
    """Transpose of vbh_full / vbh_full_like in the fill value: the cotangent summed down to the
    fill value's shape per example."""
    return vbh_unbroadcast((True, f[1]), g_, fill_value)


def _vb_unbatched_array(v, n):
    """Unbatched `v` as an array on the backend of batch size `n` (a host number made a CuPy array
    when the call's arguments live there)."""
    return asarray(v) if hasattr(v, "shape") else getattr(n, "xp", np).asarray(v)


def _vb_to_rank(x, k):
    """Batched `x` with unit axes after the batch axis up to per-example rank `k`."""
    x = asarray(x)
    return x.reshape(x.shape[:1] + (1,) * (k - x.ndim + 1) + x.shape[1:])


def _vb_linspace_rank(f, start, stop):
    return max(np.ndim(start) - f[0], np.ndim(stop) - f[1])


def vbh_linspace(f, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """Batched `linspace` with per-example endpoints (one `num` for all): the endpoints aligned per
    example, the new axis placed after the batch axis."""
    k = _vb_linspace_rank(f, start, stop)
    start = _vb_to_rank(start, k) if f[0] else start
    stop = _vb_to_rank(stop, k) if f[1] else stop
    ax = axis % (k + 1) + 1
    return np.linspace(start, stop, num, endpoint=endpoint, retstep=retstep, dtype=dtype, axis=ax)


def vb_linspace_t(f, g_, start, stop, num, endpoint, axis, which):
    """Cotangent of `start` (which=0) or `stop` (which=1) of vbh_linspace."""
    k = _vb_linspace_rank(f, start, stop)
    g_ = np.moveaxis(g_, axis % (k + 1) + 1, 1)
    t = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    t = (t if which else 1.0 - t).reshape((1, -1) + (1,) * k)
    return vbh_unbroadcast((True, f[which]), np.sum(g_ * t, axis=1), stop if which else start)


def vb_linspace_jvp(f, d, start, stop, num, endpoint, axis, which):
    """Tangent of vbh_linspace in `start` (which=0) or `stop` (which=1): linspace is affine in
    each endpoint, so the tangent is linspace from `d` to 0 (or 0 to `d`)."""
    zero = np.zeros_like(asarray(stop if which == 0 else start, dtype=float))
    ends = (zero, d) if which else (d, zero)
    return vbh_linspace(f, *ends, num, endpoint, False, None, axis)


def _vb_sum_to(v, vs, target, off):
    extra = len(vs) - len(target)
    axes = tuple(range(off, off + extra)) + tuple(off + extra + i for i, (s, t) in
                                                    enumerate(zip(vs[extra:], target)) if t == 1 and s != 1)
    if axes:
        v = np.sum(v, axis=axes, keepdims=True)
    return np.reshape(v, np.shape(v)[:off] + tuple(target))


def vbh_unbroadcast(f, v, like):
    """Per example: `v` summed down to the shape of `like`."""
    target = np.shape(like)[1:] if f[1] else np.shape(like)
    if not f[0]:  # the same for every example, but the result is batched when `like` is
        out = v if np.shape(v) == target else _vb_sum_to(v, np.shape(v), target, 0)
        return vb_bcast(out, _sized(np.shape(like)[0], like)) if f[1] else out
    vs = np.shape(v)[1:]
    return v if vs == target else _vb_sum_to(v, vs, target, 1)


def vbh_broadcast_to_like(f, v, like):
    n = np.shape(v)[0] if f[0] else np.shape(like)[0]
    target = np.shape(like)[1:] if f[1] else np.shape(like)
    if f[0]:
        v = vb_lift(v, like, f[1])
    return np.broadcast_to(v, (n,) + tuple(target))


def vbh_seed(f, out):
    if type(out) is np.ndarray and out.ndim == 1:
        seed = np.empty(out.shape, out.dtype)  # np.ones, without its Python-level overhead
        seed.fill(1)
        return seed
    if isinstance(out, (tuple, list, dict)):
        raise S2STypeError(f"grad requires a scalar output, but the function returned a {type(out).__name__}. Use "
                           "jacrev or vjp for pytree outputs, or grad(f, has_aux=True) for an (output, auxiliary) pair.")
    if np.ndim(out) != 1:
        raise S2STypeError(f"grad requires a scalar output, but the function returned shape {np.shape(out)[1:]} "
                           "per example.")
    return namespace(out).ones(np.shape(out), dtype=getattr(out, "dtype", float))


def vbh_float(f, x):
    return asarray(x, dtype=float)


def vbh_int(f, x):
    return asarray(x).astype(int)


def vbh_shape(f, x):
    return np.shape(x)[1:]


def vbh_ndim(f, x):
    return np.ndim(x) - 1


def vbh_size(f, x):
    return vb_size1(x)


def vbh_len(f, x):
    return vb_len(x)


def vbh_not(f, x, y=None):
    return np.logical_not(x)


# ---- batching rules of the vmap helpers themselves (vmap of vmap'd code) ----
def vbh_tree_size(f, x):
    return tree_size(_vb_first(x, f[0]))


def vbh_basis(f, x, k):
    return basis(_vb_first(x, f[0]), k)


def vbh_vb_size(f, args, in_axes, axis_size, names):
    return vb_size(_vb_first(args, f[0]), in_axes, axis_size, names)


def vbh_vb_size0(f, xs, names):
    return vb_size0(_vb_first(xs, f[0]), names)


def vbh_vb_in(f, x, spec, n):
    def move(leaf, a):
        if a is None:
            leaf = asarray(leaf)
            return np.broadcast_to(leaf[:, None], leaf.shape[:1] + (n,) + leaf.shape[1:]).copy()
        return np.moveaxis(leaf, a + 1 if a >= 0 else a, 1)
    return _vb_map(move, spec, x)


def vbh_vb_out(f, x, spec, n):
    return _vb_map(lambda leaf, a: np.moveaxis(leaf, 1, a + 1 if a >= 0 else a), spec, x)


def vbh_vb_bcast(f, x, n):
    if not f[0]:
        return vb_bcast(x, n)
    return tree_map(lambda leaf: np.broadcast_to(asarray(leaf)[:, None], np.shape(leaf)[:1] + (n,)
                                                 + np.shape(leaf)[1:]).copy(), x)


def vbh_vb_lift(f, x, other, other_batched):
    if not f[0] or isinstance(x, (list, tuple)):
        return vb_lift(x, other, other_batched)
    nx = np.ndim(x) - 2
    no = np.ndim(other) - (1 if f[1] else 0) - (1 if other_batched else 0)
    if no <= nx:
        return x
    x = asarray(x)
    return x.reshape(x.shape[:2] + (1,) * (no - nx) + x.shape[2:])


def vbh_vb_unlift(f, v, x):
    """Batched `vb_unlift`: each example's `v` in its `x`'s shape."""
    if isinstance(x, (list, tuple)):
        return v
    shape = np.shape(x)[1:] if f[1] else np.shape(x)
    if not f[0]:
        return np.broadcast_to(np.reshape(v, shape), np.shape(x)[:1] + shape).copy()
    return np.reshape(v, np.shape(v)[:1] + shape)


def vbh_vb_select(f, m, new, old):
    if old is None:
        return new
    n = next(np.shape(v)[0] for v, b in zip((m, new, old), f) if b)
    m, new, old = (v if b else vb_bcast(v, n) for v, b in zip((m, new, old), f))
    return vb_select(m, new, old)


def vbh_vb_any(f, m):
    return np.any(m, axis=tuple(range(1, np.ndim(m))))


def vbh_vb_axes(f, x):
    return tuple(range(1, np.ndim(x) - 1))


def vbh_vb_axis(f, axis, x=None, none="keep"):
    """vb_axis in batched code batched again: the axis is one setting for every example, and `x`'s
    per-example axes are those of any one example (the result is not batched)."""
    if f and f[0]:
        axis = vb_static(axis)
    if len(f) > 1 and f[1] and x is not None:
        x = x[0]
    return vb_axis(axis, x, none)


def vbh_vb_n(f, x):
    return np.shape(tree_leaves(x)[0])[1]


def vbh_vb_flat(f, x):
    x = asarray(x)
    return x.reshape(x.shape[0], x.shape[1], -1)


# ---- vectorized batching rules of derivative helpers (used by vmap(grad(f))) ----
def _vb_dot_vjp_keep(g, a, b, fa, fb, which, op="dot"):
    """Per example, the cotangent of argument `which` of dot(a, b) for output cotangent `g`
    (batched); the result is batched."""
    pa, pb = np.ndim(a) - fa, np.ndim(b) - fb
    if pa == pb and pa <= 1:  # a scalar per example (two vectors, or numbers): no sum, the product itself
        other = b if which == 0 else a
        g = np.asarray(g)
        return g.reshape(g.shape + (1,) * pa) * other
    sa, sb, so = _vb_dot_spec(a, b, fa, fb, op)
    out = ("y" + sa.lstrip("y")) if which == 0 else ("y" + sb.lstrip("y"))
    return np.einsum(f"{so},{sb}->{out}" if which == 0 else f"{so},{sa}->{out}", g, b if which == 0 else a)


def vbh_dot_vjp_a(f, v, a, b):
    if not f[0]:
        v = vb_bcast(v, _sized(np.shape(a if f[1] else b)[0], (a, b)))
    return _vb_dot_vjp_keep(v, a, b, f[1], f[2], 0)


def vbh_dot_vjp_b(f, v, a, b):
    if not f[0]:
        v = vb_bcast(v, _sized(np.shape(a if f[1] else b)[0], (a, b)))
    return _vb_dot_vjp_keep(v, a, b, f[1], f[2], 1)


def _vb_like_shape(like, fl, n):
    return np.shape(like) if fl else (n,) + np.shape(like)


def vbh_sum_vjp(f, v, like, axis, keepdims):
    """Per example: `v` broadcast back to the shape of `like` (cotangent of a sum)."""
    axis, keepdims = vb_static(axis), vb_static(keepdims)
    n = np.shape(v)[0] if f[0] else np.shape(like)[0]
    if not f[0]:  # (on the backend of `like`: the unbatched cotangent may be a number)
        v = vb_bcast(v, _sized(n, like))
    shape = _vb_like_shape(like, f[1], n)
    v = asarray(v)
    if axis is None:
        v = v.reshape(v.shape[:1] + (1,) * (len(shape) - 1))
    elif not keepdims:
        v = np.expand_dims(v, vb_axis(axis))
    return np.broadcast_to(v, shape).astype(_float_dtype(like))  # as sum_vjp: the primal's float dtype


def vbh_mean_vjp(f, v, like, axis, keepdims):
    n = np.shape(v)[0] if f[0] else np.shape(like)[0]
    shape = _vb_like_shape(like, f[1], n)
    per = int(np.prod(shape[1:]))
    vs = np.size(v) // n if f[0] else np.size(v)
    return vbh_sum_vjp(f, v, like, axis, keepdims) / max(per // max(vs, 1), 1)


def _vb_jac(parts, out, x, f, axis):
    """Batched jac_from_rows (axis 1) / jac_from_columns (axis -1) for array `out` and `x`;
    None when a pytree or unbatched list needs the per-example fallback."""
    if _is_tree(out) or _is_tree(x) or not parts or not f[0]:
        return None
    n = np.shape(parts[0])[0]
    parts = [p if np.ndim(p) and np.shape(p)[0] == n else vb_bcast(p, n) for p in parts]
    out_shape = np.shape(out)[1:] if f[1] else np.shape(out)
    x_shape = np.shape(x)[1:] if f[2] else np.shape(x)
    return np.reshape(np.stack(parts, axis=axis), (n,) + tuple(out_shape) + tuple(x_shape))


def vbh_jac_from_rows(f, rows, out, x):
    got = _vb_jac(rows, out, x, f, 1)
    return got if got is not None else vb_loop("rt.jac_from_rows", f, _vb_n_of(f, (rows, out, x)), rows, out, x)


def vbh_jac_from_columns(f, cols, out, x):
    got = _vb_jac(cols, out, x, f, -1)
    return got if got is not None else vb_loop("rt.jac_from_columns", f, _vb_n_of(f, (cols, out, x)), cols, out, x)


def _vb_n_of(f, args):
    return vb_n(next(a for a, b in zip(args, f) if b))


def vbh_tree_all_zero(f, x):
    """Every example's cotangent zero (one answer for the batch: the transposed rule is linear, so
    running it for a batch with some zero examples is right too)."""
    return tree_all_zero(x)


def vbh_vb_sum_scalars(f, v):
    if np.ndim(v) != 2:
        raise S2STypeError(f"grad requires a scalar output, but the function returned shape {np.shape(v)[2:]} "
                           "per example.")
    return np.sum(v, axis=1)


# ---- derivative helpers that read only shapes and settings: computed once, from one example ----
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


def vbh_tuple(f, x):
    """`tuple(x)` per example: a batched array's rows are its second axis."""
    return tuple(x[:, i] for i in range(np.shape(x)[1])) if _is_arr(x) else tuple(x)


def vbh_list(f, x):
    return list(vbh_tuple(f, x))


def vb_tuple_t(f, v, x):
    """Transpose of `vbh_tuple`/`vbh_list`: the parts' cotangents in `x`'s form (a batched array's
    rows along its second axis)."""
    return np.stack(list(v), axis=1) if _is_arr(x) else like(v, x)
