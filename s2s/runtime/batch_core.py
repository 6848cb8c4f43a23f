"""Batching helpers `rt.batched_<op>(flags, *args)` of the core table's operations (products,
reshapes, conversions, creation, shape queries), of the derivative helpers reverse mode emits (vmap
of grad), and of vmap's own helpers (vmap of vmap); `flags` says which arguments are batched, the batch
at axis 0. Named by each operation's declaration (`batch=by(...)`, s2s/compiler/primitives/)."""
from __future__ import annotations

import numpy as np

from ..base.tree import tree_leaves, tree_map
from ..errors import S2STypeError, S2SValueError
from ._batch_operands import dot_spec, first_example, is_array, shifted_axis
from ._examples import map_over_spec
from ._values import float_dtype, is_tree
from .batch import (
    BatchSize,
    example_array,
    example_axis,
    example_len,
    example_shape,
    example_size,
    flatten_examples,
    lift_rank,
    map_examples,
    masked_merge,
    num_examples,
    replicate_batch,
    shared_setting,
    vmap_size,
    vmap_size_axis0,
)
from .batch_linalg import example_outer, example_product
from .core import asarray, like, namespace, reshape_like, tree_all_zero, widen_float
from .jacobian import basis, tree_size
from .linalg import dot_vjp_a, dot_vjp_b

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("batched_r_", "batched_c_", "batched_r_t", "batched_c_t", "batched_roll_t", "batched_outer_vjp", "batched_dot",
           "batched_matrix_dot", "batched_matmul",
           "batched_inner", "batched_outer", "batched_reshape", "batched_ravel",
           "flatten_examples_each", "unflatten_examples_each", "batched_transpose", "batched_squeeze",
               "batched_array",
           "batched_full", "batched_full_like", "batched_full_t", "batched_linspace", "batched_linspace_t",
               "batched_linspace_jvp",
           "batched_unbroadcast", "batched_unbroadcast_t", "batched_broadcast_to_like", "batched_seed",
               "batched_float", "batched_int", "batched_shape",
           "batched_ndim", "batched_size", "batched_len", "batched_not", "batched_tree_size", "batched_basis",
               "batched_reversed_range",
               "batched_vmap_size",
           "batched_vmap_size_axis0", "batched_vmap_in", "batched_vmap_out", "batched_replicate_batch",
           "batched_sequence_batch",
               "batched_lift_rank_of_batched", "batched_unlift_rank",
           "batched_masked_merge", "batched_mask_any", "batched_example_axes", "batched_example_axis",
               "batched_num_examples", "batched_flatten_examples", "batched_dot_vjp_a",
           "batched_dot_vjp_b", "batched_sum_vjp", "batched_mean_vjp", "batched_jac_from_rows", "batched_jac_from_columns",
           "batched_tree_all_zero", "batched_sum_examples", "batched_is", "batched_isnot", "batched_tuple", "batched_list",
           "batched_like", "batched_tuple_t", "batched_isinstance")


def _vb_items(flags, items):
    """The items of a batched np.r_/np.c_ (a batched pack: every item batched)."""
    if not flags[0]:
        raise S2SValueError("vmap: np.r_/np.c_ of a list that is not batched as a whole")
    return [np.asarray(i) for i in items]


def batched_r_(flags, items):
    """Batched `np.r_[a, b, ...]`: per-example scalars become length-1 rows; joined after the batch axis."""
    items = _vb_items(flags, items)
    return np.concatenate([i.reshape(i.shape[:1] + (1,)) if i.ndim == 1 else i for i in items], axis=1)


def batched_c_(flags, items):
    """Batched `np.c_[a, b, ...]`: per-example vectors become columns; joined along the last axis."""
    items = _vb_items(flags, items)
    if any(i.ndim not in (2, 3) for i in items):
        raise S2SValueError("s2s differentiates np.c_[...] of 1-D and 2-D arrays only")
    return np.concatenate([i[..., None] if i.ndim == 2 else i for i in items], axis=-1)


def _vb_split_like(g_, items, axis):
    widths = [1 if np.ndim(i) == (1 if axis == 1 else 2) else np.shape(i)[axis] for i in items]
    parts = np.split(g_, np.cumsum(widths)[:-1], axis=axis)
    return tuple(np.reshape(p, np.shape(i)) for p, i in zip(parts, items))


def batched_r_t(flags, g_, items):
    """Transpose of batched_r_: the cotangent split back into the items' shapes."""
    return _vb_split_like(g_, items, 1)


def batched_c_t(flags, g_, items):
    """Transpose of batched_c_."""
    return _vb_split_like(g_, items, -1)


def _roll(a, shift, axis=None):
    """Batched `np.roll` with one shift and axis for every example (axis None: the flattened example)."""
    if axis is None:
        return np.reshape(np.roll(flatten_examples(a), shift, axis=1), np.shape(a))
    return np.roll(a, shift, axis=example_axis(axis))


def batched_roll_t(flags, g_, shift, axis=None):
    """Transpose of batched_roll: the opposite shift."""
    back = tuple(-s for s in shift) if isinstance(shift, (tuple, list)) else -shift
    return _roll(g_, back, axis)


def batched_outer_vjp(flags, g_, a, b, which):
    """Cotangent of `a` (which=0) or `b` (which=1) of batched_outer(f, a, b), shaped like it."""
    other, ob = (b, flags[1]) if which == 0 else (a, flags[0])
    fo = flatten_examples(other) if ob else np.ravel(other)[None]
    v = np.sum(g_ * fo[:, None, :], axis=2) if which == 0 else np.sum(g_ * fo[:, :, None], axis=1)
    mine, mb = (a, flags[0]) if which == 0 else (b, flags[1])
    return np.reshape(v, np.shape(mine)) if mb else np.reshape(np.sum(v, axis=0), np.shape(mine))


_VECDOT = getattr(np, "vecdot", None)  # (NumPy 2: conjugates its first operand, so real ones only)


# helpers named by the batching table: (batched flag per argument, *arguments)
def batched_dot(flags, a, b):
    if type(a) is np.ndarray and type(b) is np.ndarray:
        if flags[0] and flags[1] and a.ndim == 2 and b.ndim == 2:  # vector . vector per example (a convolution's
            if _VECDOT is not None and a.dtype.kind in "fiu" and b.dtype.kind in "fiu":  # inner loop): a ufunc
                return _VECDOT(a, b)  # call, where np.einsum parses its subscripts in Python first (1.5 us)
            return np.einsum("ij,ij->i", a, b)
        if flags[1] and not flags[0] and a.ndim == 1 and b.ndim == 2:  # an unbatched vector . a batched one
            return np.matmul(b, a)
        if flags[1] and not flags[0] and a.ndim == 2 and b.ndim == 2:  # a matrix . a batched vector: V M^T,
            return np.dot(b, a.T)  # as one writes it by hand (W3: 1.5 us less than example_product's on 10 rows)
    return example_product(a, b, flags[0], flags[1], "dot")


def batched_matrix_dot(product, a, b):
    """`batched_dot((False, True), a, b)` of a jit version whose batched vectors `b` are many: where
    `a` is a NumPy matrix, `product(b, a.T)` (its `matmul_<i>`, whose rows threads may share, else
    one BLAS call as `np.dot(b, a.T)` makes); anything else as `batched_dot` multiplies it."""
    if type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 2 and b.ndim == 2:
        return product(b, a.T)
    return batched_dot((False, True), a, b)


def batched_matmul(flags, a, b):
    return example_product(a, b, flags[0], flags[1], "matmul")


def batched_inner(flags, a, b):
    return example_product(a, b, flags[0], flags[1], "inner")


def batched_outer(flags, a, b):
    return example_outer(a, b, flags[0], flags[1])


def batched_reshape(flags, a, newshape=None, order="C", shape=None):
    s = newshape if newshape is not None else shape
    if any(flags[1:]):  # a shape broadcast over the batch (a backward sweep's record)
        s = shared_setting(s, "a reshape's target shape (the shape of an array cannot differ per example)")
    s = (s,) if isinstance(s, (int, np.integer)) else tuple(s)
    if order != "C":  # (Dask's reshape takes no `order`)
        return np.reshape(a, (np.shape(a)[0],) + s, order=order)
    return np.reshape(a, (np.shape(a)[0],) + s)


def batched_ravel(flags, a, axis=None, shape=None):
    return flatten_examples(a)


def flatten_examples_each(x):
    """Each batched array of a list flattened per example (np.concatenate(arrays, axis=None) batched)."""
    return [flatten_examples(e) for e in x]


def unflatten_examples_each(v, like):
    """Transpose of flatten_examples_each: each piece in its array's shape."""
    return [reshape_like(a, b) for a, b in zip(v, like)]


def batched_transpose(flags, a, axes=None):
    nd = np.ndim(a) - 1
    axes = tuple(range(nd, 0, -1)) if axes is None else tuple(x % nd + 1 for x in axes)
    return np.transpose(a, (0,) + axes)


def batched_squeeze(flags, a, axis=None, shape=None):
    if axis is None:
        axis = tuple(i for i, s in enumerate(np.shape(a)) if i and s == 1)
    elif np.ndim(a) == 1:  # 0-d examples: NumPy takes axis 0 or -1 of a number (else its AxisError)
        shifted_axis(axis, 0)
        return a[...]
    else:
        axis = example_axis(axis)
    return np.squeeze(a, axis=axis)


def batched_array(flags, x, dtype=None, *args, **kw):
    """`xp.array(x, dtype, ...)` of a batched `x` (the dtype by position or keyword): a new array,
    as NumPy's is unless `copy=False` (a store into it must not reach the caller's batch)."""
    out = example_array(x)
    if out is x and kw.get("copy", True) is not False:
        out = out.copy()
    dtype = kw.get("dtype", dtype)
    return out if dtype is None else out.astype(dtype)


def _vb_shape_arg(shape):
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)


def _vb_fill(v, fb, n, shape, dtype):
    """A fill value (batched when `fb`) broadcast to `(n,) + shape` per example, in a new array."""
    v = _vb_to_rank(v, len(shape)) if fb else _vb_unbatched_array(v, n)
    return np.broadcast_to(v, (n,) + tuple(shape)).astype(v.dtype if dtype is None else dtype)


def batched_full(flags, shape, fill_value, dtype=None):
    """Batched `full` of one shape (the batcher refuses a per-example shape): each example's fill
    value broadcast to `shape`."""
    return _vb_fill(fill_value, flags[1], num_examples(fill_value), _vb_shape_arg(shape), dtype)


def batched_full_like(flags, a, fill_value, dtype=None):
    """Batched `full_like`: shaped and typed like each example of `a`, filled per example."""
    n = num_examples(a) if flags[0] else num_examples(fill_value)
    shape = np.shape(a)[1:] if flags[0] else np.shape(a)
    return _vb_fill(fill_value, flags[1], n, shape, getattr(a, "dtype", None) if dtype is None else dtype)


def batched_full_t(flags, g_, fill_value):
    """Transpose of batched_full / batched_full_like in the fill value: the cotangent summed down to the
    fill value's shape per example."""
    return batched_unbroadcast((True, flags[1]), g_, fill_value)


def _vb_unbatched_array(v, n):
    """Unbatched `v` as an array on the backend of batch size `n` (a host number made a CuPy array
    when the call's arguments live there)."""
    return asarray(v) if hasattr(v, "shape") else getattr(n, "xp", np).asarray(v)


def _vb_to_rank(x, k):
    """Batched `x` with unit axes after the batch axis up to per-example rank `k`."""
    x = asarray(x)
    return x.reshape(x.shape[:1] + (1,) * (k - x.ndim + 1) + x.shape[1:])


def _vb_linspace_rank(flags, start, stop):
    return max(np.ndim(start) - flags[0], np.ndim(stop) - flags[1])


def batched_linspace(flags, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """Batched `linspace` with per-example endpoints (one `num` for all): the endpoints aligned per
    example, the new axis placed after the batch axis."""
    k = _vb_linspace_rank(flags, start, stop)
    start = _vb_to_rank(start, k) if flags[0] else start
    stop = _vb_to_rank(stop, k) if flags[1] else stop
    if not -(k + 1) <= axis < k + 1:  # (NumPy's error for an example, not an axis wrapped around)
        raise np.exceptions.AxisError(axis, k + 1)
    ax = axis % (k + 1) + 1
    return np.linspace(start, stop, num, endpoint=endpoint, retstep=retstep, dtype=dtype, axis=ax)


def batched_linspace_t(flags, g_, start, stop, num, endpoint, axis, which):
    """Cotangent of `start` (which=0) or `stop` (which=1) of batched_linspace."""
    k = _vb_linspace_rank(flags, start, stop)
    g_ = np.moveaxis(g_, axis % (k + 1) + 1, 1)
    t = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    t = (t if which else 1.0 - t).reshape((1, -1) + (1,) * k)
    return batched_unbroadcast((True, flags[which]), np.sum(g_ * t, axis=1), stop if which else start)


def batched_linspace_jvp(flags, d, start, stop, num, endpoint, axis, which):
    """Tangent of batched_linspace in `start` (which=0) or `stop` (which=1): linspace is affine in
    each endpoint, so the tangent is linspace from `d` to 0 (or 0 to `d`)."""
    zero = np.zeros_like(asarray(stop if which == 0 else start, dtype=float))
    ends = (zero, d) if which else (d, zero)
    return batched_linspace(flags, *ends, num, endpoint, False, None, axis)


def _vb_sum_to(v, vs, target, off):
    extra = len(vs) - len(target)
    axes = tuple(range(off, off + extra)) + tuple(off + extra + i for i, (s, t) in
                                                    enumerate(zip(vs[extra:], target)) if t == 1 and s != 1)
    if axes:
        v = np.sum(v, axis=axes, keepdims=True)
    return np.reshape(v, np.shape(v)[:off] + tuple(target))


def batched_unbroadcast(flags, v, like):
    """Per example: `v` summed down to the shape of `like`; of a complex `v` for a real `like`, the
    real part, as rt.unbroadcast takes it (JAX's convention)."""
    if np.iscomplexobj(v) and not np.iscomplexobj(like):
        v = np.real(v)
    target = np.shape(like)[1:] if flags[1] else np.shape(like)
    if not flags[0]:  # the same for every example, but the result is batched when `like` is
        out = v if np.shape(v) == target else _vb_sum_to(v, np.shape(v), target, 0)
        out = _narrow(out, like)
        return replicate_batch(out, BatchSize.of(np.shape(like)[0], like)) if flags[1] else out
    vs = np.shape(v)[1:]
    out = v if vs == target else _vb_sum_to(v, vs, target, 1)
    return _narrow(out, like)  # (a cotangent takes its primal's dtype, as rt.unbroadcast)


def batched_unbroadcast_t(flags, g_, v, like):
    """Transpose of `batched_unbroadcast(flags, v, like)` in `v`: the cotangent `g_` (batched when
    `v` or `like` is) spread back over `v`'s shape, summed over the examples when `v` is shared."""
    if flags[0]:
        return np.broadcast_to(lift_rank(g_, v, True), np.shape(v))
    if flags[1]:
        g_ = np.sum(g_, axis=0)
    return np.broadcast_to(g_, np.shape(v))


def batched_broadcast_to_like(flags, v, like):
    n = np.shape(v)[0] if flags[0] else np.shape(like)[0]
    target = np.shape(like)[1:] if flags[1] else np.shape(like)
    if flags[0]:
        v = lift_rank(v, like, flags[1])
    return np.broadcast_to(widen_float(v, like), (n,) + tuple(target))


def batched_seed(flags, out, holomorphic=False):
    """rt.seed per example: ones, JAX's error for a non-scalar or (but for a holomorphic derivative)
    complex output."""
    if type(out) is np.ndarray and out.ndim == 1 and (out.dtype.kind != "c" or holomorphic):
        seed = np.empty(out.shape, out.dtype)  # np.ones, without its Python-level overhead
        seed.fill(1)
        return seed
    if isinstance(out, (tuple, list, dict)):
        raise S2STypeError(f"grad requires a scalar output, but the function returned a {type(out).__name__}. Use "
                           "jacrev or vjp for pytree outputs, or grad(f, has_aux=True) for an (output, auxiliary) pair.")
    if np.ndim(out) != 1:
        raise S2STypeError(f"grad requires a scalar output, but the function returned shape {np.shape(out)[1:]} "
                           "per example.")
    if np.iscomplexobj(out) and not holomorphic:
        raise S2STypeError("grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
                           f"but got {np.result_type(out)}. For holomorphic differentiation, pass holomorphic=True. "
                           "For differentiating non-holomorphic functions involving complex outputs, use s2s.vjp "
                           "directly.")
    return namespace(out).ones(np.shape(out), dtype=getattr(out, "dtype", float))


def batched_float(flags, x):
    return asarray(x, dtype=float)


def batched_int(flags, x):
    return asarray(x).astype(int)


def batched_shape(flags, x):
    return example_shape(x)


def batched_ndim(flags, x):
    return len(example_shape(x)) if isinstance(x, (list, tuple)) else np.ndim(x) - 1  # (a list on any backend)


def batched_size(flags, x, axis=None):
    if axis is None:
        return example_size(x)
    shape = np.shape(x)[1:]  # (np.size(x, axis): that axis's length; NumPy's AxisError past the ends)
    if not -len(shape) <= axis < len(shape):
        raise np.exceptions.AxisError(axis, len(shape))
    return shape[axis]


def batched_len(flags, x):
    return example_len(x)


def batched_not(flags, x, y=None):
    return np.logical_not(x)


# ---- batching rules of the vmap helpers themselves (vmap of vmap'd code) ----
def batched_tree_size(flags, x):
    return tree_size(first_example(x, flags[0]))


def batched_basis(flags, x, k):
    return basis(first_example(x, flags[0]), k)


def batched_reversed_range(flags, r):
    """A loop's range replayed backwards where vmap marks it per-example only because it travels in a
    batched record (a tuple with batched arrays): a `range` is one for every example. A value of
    another kind would be a per-example trip count, which vmap refuses."""
    if type(r) is range:
        return r[::-1]
    raise S2STypeError("vmap cannot batch `rt.reversed_range` with per-example arguments (a loop whose trip count "
                       "differs per example).")


def batched_vmap_size(flags, args, in_axes, axis_size, names):
    return vmap_size(first_example(args, flags[0]), in_axes, axis_size, names)


def batched_vmap_size_axis0(flags, xs, names):
    return vmap_size_axis0(first_example(xs, flags[0]), names)


def batched_vmap_in(flags, x, spec, n):
    def move(leaf, a):
        if a is None:
            leaf = asarray(leaf)
            return np.broadcast_to(leaf[:, None], leaf.shape[:1] + (n,) + leaf.shape[1:]).copy()
        return np.moveaxis(leaf, a + 1 if a >= 0 else a, 1)
    return map_over_spec(move, spec, x)


def batched_vmap_out(flags, x, spec, n):
    return map_over_spec(lambda leaf, a: np.moveaxis(leaf, 1, a + 1 if a >= 0 else a), spec, x)


def batched_replicate_batch(flags, x, n):
    if not flags[0]:
        return replicate_batch(x, n)
    return tree_map(lambda leaf: np.broadcast_to(asarray(leaf)[:, None], np.shape(leaf)[:1] + (n,)
                                                 + np.shape(leaf)[1:]).copy(), x)


def batched_sequence_batch(flags, x, other):
    """sequence_batch under another vmap: the inner batch is the other's axis after the outer one."""
    if not (isinstance(x, (list, tuple)) and isinstance(other, (list, tuple)) and other):
        return x
    lead = np.shape(next(leaf for leaf in tree_leaves(other) if np.ndim(leaf)))
    return batched_replicate_batch(flags[:1], x, lead[1] if flags[1] else lead[0])


def batched_lift_rank_of_batched(flags, x, other, other_batched):
    if not flags[0] or isinstance(x, (list, tuple)):
        return lift_rank(x, other, other_batched)
    nx = np.ndim(x) - 2
    no = np.ndim(other) - (1 if flags[1] else 0) - (1 if other_batched else 0)
    if no <= nx:
        return x
    x = asarray(x)
    return x.reshape(x.shape[:2] + (1,) * (no - nx) + x.shape[2:])


def batched_unlift_rank(flags, v, x):
    """Batched `unlift_rank`: each example's `v` in its `x`'s shape."""
    if isinstance(x, (list, tuple)):
        return v
    shape = np.shape(x)[1:] if flags[1] else np.shape(x)
    if not flags[0]:
        return np.broadcast_to(np.reshape(v, shape), np.shape(x)[:1] + shape).copy()
    return np.reshape(v, np.shape(v)[:1] + shape)


def batched_masked_merge(flags, m, new, old):
    if old is None:
        return new
    n = next(np.shape(v)[0] for v, b in zip((m, new, old), flags) if b)
    m, new, old = (v if b else replicate_batch(v, n) for v, b in zip((m, new, old), flags))
    return masked_merge(m, new, old)


def batched_mask_any(flags, m):
    return np.any(m, axis=tuple(range(1, np.ndim(m))))


def batched_example_axes(flags, x):
    return tuple(range(1, np.ndim(x) - 1))


def batched_example_axis(flags, axis, x=None, none="keep", number=True):
    """example_axis in batched code batched again: the axis is one setting for every example, and `x`'s
    per-example axes are those of any one example (the result is not batched)."""
    if flags and flags[0]:
        axis = shared_setting(axis)
    if len(flags) > 1 and flags[1] and x is not None:
        x = x[0]
    return example_axis(axis, x, none, number)


def batched_num_examples(flags, x):
    return np.shape(tree_leaves(x)[0])[1]


def batched_flatten_examples(flags, x):
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
    if pa >= 2 and pb >= 3:  # dot_vjp_a/b are matmul's cotangents there, which broadcast: per example
        fn = dot_vjp_a if which == 0 else dot_vjp_b
        return namespace(g).stack([fn(g[i], a[i] if fa else a, b[i] if fb else b) for i in range(np.shape(g)[0])])
    sa, sb, so = dot_spec(a, b, fa, fb, op)
    out = ("y" + sa.lstrip("y")) if which == 0 else ("y" + sb.lstrip("y"))
    return np.einsum(f"{so},{sb}->{out}" if which == 0 else f"{so},{sa}->{out}", g, b if which == 0 else a)


def batched_dot_vjp_a(flags, v, a, b):
    if not flags[0]:
        v = replicate_batch(v, BatchSize.of(np.shape(a if flags[1] else b)[0], (a, b)))
    return _narrow(_vb_dot_vjp_keep(v, a, b, flags[1], flags[2], 0), a)


def batched_dot_vjp_b(flags, v, a, b):
    if not flags[0]:
        v = replicate_batch(v, BatchSize.of(np.shape(a if flags[1] else b)[0], (a, b)))
    return _narrow(_vb_dot_vjp_keep(v, a, b, flags[1], flags[2], 1), b)


def _narrow(v, like):
    """`v` in `like`'s float dtype where that is narrower (a cotangent takes its primal's dtype)."""
    dt = getattr(like, "dtype", None)
    return v.astype(dt) if dt is not None and dt.kind == "f" and dt.itemsize < 8 and getattr(v, "dtype", dt) != dt \
        else v


def _vb_like_shape(like, fl, n):
    return np.shape(like) if fl else (n,) + np.shape(like)


def batched_sum_vjp(flags, v, like, axis, keepdims):
    """Per example: `v` broadcast back to the shape of `like` (cotangent of a sum)."""
    axis, keepdims = shared_setting(axis), shared_setting(keepdims)
    n = np.shape(v)[0] if flags[0] else np.shape(like)[0]
    if not flags[0]:  # (on the backend of `like`: the unbatched cotangent may be a number)
        v = replicate_batch(v, BatchSize.of(n, like))
    shape = _vb_like_shape(like, flags[1], n)
    v = asarray(v)
    if axis is None:
        v = v.reshape(v.shape[:1] + (1,) * (len(shape) - 1))
    elif not keepdims and len(shape) > 1:  # (a number summed along axis 0 or -1 is itself)
        v = np.expand_dims(v, example_axis(axis))
    return np.broadcast_to(v, shape).astype(float_dtype(like))  # as sum_vjp: the primal's float dtype


def batched_mean_vjp(flags, v, like, axis, keepdims):
    n = np.shape(v)[0] if flags[0] else np.shape(like)[0]
    shape = _vb_like_shape(like, flags[1], n)
    per = int(np.prod(shape[1:]))
    vs = np.size(v) // n if flags[0] else np.size(v)
    return batched_sum_vjp(flags, v, like, axis, keepdims) / max(per // max(vs, 1), 1)


def _vb_jac(parts, out, x, flags, axis):
    """Batched jac_from_rows (axis 1) / jac_from_columns (axis -1) for array `out` and `x`;
    None when a pytree or unbatched list needs the per-example fallback."""
    if is_tree(out) or is_tree(x) or not parts or not flags[0]:
        return None
    n = np.shape(parts[0])[0]
    parts = [p if np.ndim(p) and np.shape(p)[0] == n else replicate_batch(p, n) for p in parts]
    out_shape = np.shape(out)[1:] if flags[1] else np.shape(out)
    x_shape = np.shape(x)[1:] if flags[2] else np.shape(x)
    return np.reshape(np.stack(parts, axis=axis), (n,) + tuple(out_shape) + tuple(x_shape))


def batched_jac_from_rows(flags, rows, out, x):
    got = _vb_jac(rows, out, x, flags, 1)
    return got if got is not None else map_examples("rt.jac_from_rows", flags, _vb_n_of(flags, (rows, out, x)), rows, out, x)


def batched_jac_from_columns(flags, cols, out, x):
    got = _vb_jac(cols, out, x, flags, -1)
    return got if got is not None else map_examples("rt.jac_from_columns", flags, _vb_n_of(flags, (cols, out, x)), cols,
                                                    out, x)


def _vb_n_of(flags, args):
    return num_examples(next(a for a, b in zip(args, flags) if b))


def batched_tree_all_zero(flags, x):
    """Every example's cotangent zero (one answer for the batch: the transposed rule is linear, so
    running it for a batch with some zero examples is right too)."""
    return tree_all_zero(x)


def batched_sum_examples(flags, v):
    if np.ndim(v) != 2:
        raise S2STypeError(f"grad requires a scalar output, but the function returned shape {np.shape(v)[2:]} "
                           "per example.")
    return np.sum(v, axis=1)


# ---- derivative helpers that read only shapes and settings: computed once, from one example ----
# ---- `x is None` on a batched value: a batch of arrays is never None, like each example ----
def batched_is(flags, x, y=None):
    return _identity(x, y, "is")


def batched_isnot(flags, x, y=None):
    return not _identity(x, y, "is not")


def _identity(x, y, op):
    if x is not None and y is not None:
        raise S2SValueError(f"vmap: `{op}` between two values that differ per example is not supported; "
                            "compare with `is None` or with ==")
    return x is y


def batched_tuple(flags, x):
    """`tuple(x)` per example: a batched array's rows are its second axis."""
    return tuple(x[:, i] for i in range(np.shape(x)[1])) if is_array(x) else tuple(x)


def batched_list(flags, x):
    return list(batched_tuple(flags, x))


def batched_like(flags, parts, src):
    """Batching rule of `like` (the cotangent parts of an unpacked sequence, in its container type):
    a tuple or list `src` gives only its type, so the parts stay as they are, each batched or not;
    an array's rows stack along its second axis, a part that is one example's (a zero cotangent)
    broadcast to the batch first."""
    if not hasattr(src, "shape") or isinstance(src, tuple):
        return like(parts, src)
    rows = [np.asarray(p) for p in parts]
    if flags[1]:
        n, row = np.shape(src)[0], tuple(np.shape(src)[2:])
    else:
        row = tuple(np.shape(src)[1:])
        n = next(p.shape[0] for p in rows if p.ndim == len(row) + 1)
    return np.stack([np.broadcast_to(p, (n,) + row) for p in rows], axis=1)


def batched_tuple_t(flags, v, x):
    """Transpose of `batched_tuple`/`batched_list`: the parts' cotangents in `x`'s form (a batched array's
    rows along its second axis)."""
    return np.stack(list(v), axis=1) if is_array(x) else like(v, x)


def batched_isinstance(flags, x, classinfo):
    """Batching rule of `isinstance`: one answer for the batch, each example's. A batched list,
    tuple or dict is one per example; a batched array's examples are its rows, of one type (what
    a Python loop over the batch gets: rows, or NumPy scalars for a batch of numbers)."""
    if not flags[0] or isinstance(x, (list, tuple, dict)) or not hasattr(x, "shape") or not np.shape(x):
        return isinstance(x, classinfo)
    return isinstance(x[0], classinfo)
