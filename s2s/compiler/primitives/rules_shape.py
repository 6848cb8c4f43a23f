"""Shape and indexing rules: each op is linear in its array, with a transpose in s2s/runtime/shapes.py
that is itself a linear primitive (so the transpose of the transpose is the op again)."""
from __future__ import annotations

from ... import runtime as _rt
from ...backends import array_fill
from .registry import KEYWORD_FORMS, REST, SAME, along, by, composite, defjvp, defvjp, linear, nondiff, prim

nondiff("rt.reversed_shape", sig="shape", batch=SAME)  # (an F-order reshape's: frontend/keyword_calls.py)
# sort and partition permute their input by an order that depends on it: not linear, one rule each way
prim("xp.sort", "a, axis=-1, kind=None, order=None, stable=None", zero_args=REST, batch=along("axis", none="flat"))
defvjp("xp.sort", a="rt.sort_vjp(g, a, axis)")
defjvp("xp.sort", a="rt.sort_jvp(da, a, axis)")
linear("rt.sort_vjp", "v, a, axis", "v", "rt.sort_jvp(g, a, axis)", batch=by("rt.batched_sort_vjp"))
linear("rt.sort_jvp", "v, a, axis", "v", "rt.sort_vjp(g, a, axis)", batch=by("rt.batched_sort_jvp"))
prim("xp.partition", "a, kth, axis=-1, kind='introselect', order=None", zero_args=REST, batch=by("rt.batched_partition"))
defvjp("xp.partition", a="rt.partition_vjp(g, a, kth, axis)")
defjvp("xp.partition", a="rt.partition_jvp(da, a, kth, axis)")
linear("rt.partition_vjp", "v, a, kth, axis", "v", "rt.partition_jvp(g, a, kth, axis)", batch=by("rt.batched_partition_vjp"))
linear("rt.partition_jvp", "v, a, kth, axis", "v", "rt.partition_vjp(g, a, kth, axis)", batch=by("rt.batched_partition_jvp"))
linear("xp.take", "a, indices, axis=None, out=None, mode='raise'", "a", "rt.take_vjp(g, a, indices, axis)",
       methods=("take",), batch=by("rt.batched_take"), unmodelled=("mode",), rewrites="index_mode")  # (clip, wrap)
linear("rt.take_vjp", "v, a, indices, axis", "v", "xp.take(g, indices, axis)")
linear("xp.take_along_axis", "arr, indices, axis=-1", "arr", "rt.take_along_vjp(g, arr, indices, axis)",
       batch=by("rt.batched_take_along_axis"))
linear("rt.take_along_vjp", "v, a, indices, axis", "v", "xp.take_along_axis(g, indices, axis)")
# a read-only view of every window (writeable=True, writes through overlapping windows, is refused); its
# transpose adds each window's cotangent back where the window starts (s2s/runtime/windows.py)
linear("xp.lib.stride_tricks.sliding_window_view", "x, window_shape, axis=None, subok=False, writeable=False", "x",
       "rt.sliding_window_vjp(g, x, window_shape, axis)", zero_args=("window_shape", "axis", "subok", "writeable"),
       unmodelled=("writeable",), positional=3, batch=along("axis", none="all"))
linear("rt.sliding_window_vjp", "g_, x, window_shape, axis=None", "g_",
       "xp.lib.stride_tricks.sliding_window_view(g, window_shape, axis)", batch=by("rt.batched_sliding_window_vjp"))
# as_strided reads memory by byte strides (overlaps, other arrays' bytes): any shape or strides is refused
linear("xp.lib.stride_tricks.as_strided", "x, shape=None, strides=None, subok=False, writeable=True", "x", "g",
       zero_args=("shape", "strides", "subok", "writeable"), unmodelled=("shape", "strides", "writeable"), batch=SAME)
# with constant_values=: rt.pad_constant (NumPy's definition written with primitives, transformed
# from source), so a constant computed from the input keeps its derivative
prim("xp.pad", "array, pad_width, mode='constant', reflect_type='even'", zero_args=REST, batch=by("rt.batched_pad"))
KEYWORD_FORMS["xp.pad"] = _rt.pad_constant
defvjp("xp.pad", array="rt.pad_vjp(g, array, pad_width, rt.plain_reflect(mode, reflect_type))")
defjvp("xp.pad", array="rt.pad_jvp(darray, array, pad_width, rt.plain_reflect(mode, reflect_type))")
linear("rt.pad_vjp", "v, array, pad_width, mode", "v", "rt.pad_jvp(g, array, pad_width, mode)")
linear("rt.pad_jvp", "v, array, pad_width, mode", "v", "rt.pad_vjp(g, array, pad_width, mode)")
linear("xp.diagonal", "a, offset=0, axis1=0, axis2=1", "a", "rt.diagonal_vjp(g, a, offset, axis1, axis2)",
       methods=("diagonal",), batch=along("axis1", "axis2"))
linear("rt.diagonal_vjp", "v, a, offset, axis1, axis2", "v", "xp.diagonal(g, offset, axis1, axis2)")
for _op in ("xp.split", "xp.array_split"):
    linear(_op, "ary, indices_or_sections, axis=0", "ary", "rt.split_vjp(g, ary, axis)", batch=by("rt.batched_" + _op[3:]))
for _op, _w in (("xp.hsplit", "h"), ("xp.vsplit", "v"), ("xp.dsplit", "d")):
    linear(_op, "ary, indices_or_sections", "ary", f"rt.split_vjp(g, ary, rt.split_axis(ary, '{_w}'))",
           batch=by("rt.batched_" + _op[3:]))
linear("rt.split_vjp", "v, ary, axis", "v", "rt.split_like(g, v, axis)")
linear("xp.column_stack", "tup", "tup", "rt.column_stack_vjp(g, tup)", list_args=("tup",),
       batch=by("rt.batched_column_stack"))
linear("rt.column_stack_vjp", "v, tup", "v", "xp.column_stack(g)")
linear("xp.dstack", "tup", "tup", "rt.dstack_vjp(g, tup)", list_args=("tup",), batch=by("rt.batched_dstack"))
linear("rt.dstack_vjp", "v, tup", "v", "xp.dstack(g)")
linear("xp.fliplr", "m", "m", "xp.fliplr(g)", batch=by("rt.batched_fliplr"))
linear("xp.flipud", "m", "m", "xp.flipud(g)", batch=by("rt.batched_flipud"))
linear("xp.atleast_3d", "a", "a", "rt.reshape_like(g, a)", batch=by("rt.batched_atleast_3d"), rewrites="each_array")
linear("xp.rot90", "m, k=1, axes=None", "m", "rt.rot90_vjp(g, k, axes)", batch=by("rt.batched_rot90"))
linear("rt.rot90_vjp", "v, k, axes", "v", "rt.rot90_vjp(g, -k, axes)", batch=by("rt.batched_rot90_vjp"))
linear("xp.rollaxis", "a, axis, start=0", "a", "rt.rollaxis_vjp(g, a, axis, start)", batch=by("rt.batched_rollaxis"))
linear("rt.rollaxis_vjp", "v, a, axis, start", "v", "xp.rollaxis(g, axis, start)", batch=by("rt.batched_rollaxis_vjp"))
linear("xp.permute_dims", "a, axes=None", "a", "rt.transpose_vjp(g, axes)", batch=by("rt.batched_transpose"),
       dask="transpose")
linear("xp.matrix_transpose", "x", "x", "xp.matrix_transpose(g)", batch=SAME)
prim("xp.append", "arr, values, axis=None", zero_args=("axis",), batch=by("rt.batched_append"))
defvjp("xp.append", arr="rt.append_vjp(g, arr, values, axis, 0)", values="rt.append_vjp(g, arr, values, axis, 1)")
defjvp("xp.append", arr="xp.append(darr, rt.zeros_like_tree(values), axis)",
       values="xp.append(rt.zeros_like_tree(arr), dvalues, axis)")  # (lists too)
linear("rt.append_vjp", "v, arr, values, axis, k", "v", "rt.append_vjp_t(g, arr, values, axis, k)")
linear("rt.append_vjp_t", "v, arr, values, axis, k", "v", "rt.append_vjp(g, arr, values, axis, k)")
prim("xp.select", "condlist, choicelist, default=0", zero_args=("condlist",), list_args=("choicelist",),
     batch=by("rt.batched_select"), widened=array_fill.make_select)  # (CuPy's takes a scalar default only)
defvjp("xp.select", choicelist="rt.select_vjp_all(g, condlist, choicelist)",
       default="rt.unbroadcast(xp.where(rt.select_none(condlist, g), g, 0.0), default)")
defjvp("xp.select", choicelist="rt.select_jvp(dchoicelist, condlist, choicelist, ans)",
       default="xp.where(rt.select_none(condlist, ans), ddefault, 0.0)")
linear("rt.select_vjp_all", "v, condlist, choicelist", "v", "rt.select_jvp(g, condlist, choicelist)")
linear("rt.select_jvp", "v, condlist, choicelist, like=None", "v", "rt.select_vjp_all(g, condlist, choicelist)")
prim("xp.meshgrid", "x, y=None, z=None, indexing='xy', sparse=False, copy=True", tree_sum=True,
     zero_args=("indexing", "sparse", "copy"), batch=by("rt.batched_meshgrid"))
for _i, _s in enumerate("xyz"):
    defvjp("xp.meshgrid", **{_s: f"rt.meshgrid_vjp(g, {_i}, rt.present(x, y, z), indexing)"})
    defjvp("xp.meshgrid", **{_s: f"rt.meshgrid_tangent(d{_s}, {_i}, rt.present(x, y, z), indexing, sparse)"})
linear("rt.meshgrid_vjp", "v, k, xs, indexing", "v", "rt.meshgrid_tangent(g, k, xs, indexing)")
linear("rt.meshgrid_tangent", "v, k, xs, indexing, sparse=False", "v", "rt.meshgrid_vjp(g, k, xs, indexing)")
nondiff("rt.present", "rt.select_none", sig="x, *args")  # (rt.plain_reflect: rules_batch.py)
linear("xp.diag", "v, k=0", "v", "rt.diag_vjp_any(g, v, k)",
       batch=by("rt.batched_diag"))  # also extracts from non-square matrices
linear("rt.diag_vjp_any", "v, like, k", "v", "xp.diag(g, k)")
# ---- selections: a `take` of the kept positions ----
linear("xp.compress", "condition, a, axis=None", "a", "rt.take_vjp(g, a, rt.kept(condition), axis)",
       batch=by("rt.batched_compress"))
linear("xp.extract", "condition, arr", "arr", "rt.take_vjp(g, arr, rt.kept(condition), None)",
       batch=by("rt.batched_extract"))
linear("xp.delete", "arr, obj, axis=None", "arr", "rt.take_vjp(g, arr, rt.not_deleted(arr, obj, axis), axis)",
       batch=by("rt.batched_delete"))
linear("xp.unstack", "x, axis=0", "x", "xp.stack(g, axis)", batch=along("axis"), composed=array_fill.make_unstack)
nondiff("rt.kept", sig="x, *args")  # (rt.not_deleted: rules_batch.py)
# `x.tolist()`: nested lists of the elements, linear in x; its transpose packs them back
linear("rt.tolist", "x, depth=None", "x", "rt.tolist_t(g, x)", batch=by("rt.batched_tolist"), tree_preserving=False)
linear("rt.tolist_t", "g_, x", "g_", "rt.tolist(g)", tree_args=(0,), batch=by("rt.batched_tolist_t"))
# np.row_stack (NumPy's deprecated name of vstack; its keyword-only dtype/casting not taken) and
# np.real_if_close (a real array is itself; complex values are refused before any rule runs)
linear("xp.row_stack", "tup", "tup", "rt.vstack_vjp(g, tup)", list_args=("tup",), batch=by("rt.batched_vstack"),
       dtype_by_cast=True)
linear("xp.real_if_close", "a, tol=100", "a", "rt.array_vjp(g, a)", zero_args=("tol",), batch=SAME)
# an integer or boolean dtype applied to a value (np.int64(W[:, -1]) as indices; the frontend's
# lowering of such a call): no derivative flows through it (JAX's zero gradient)
nondiff("rt.int_cast", sig="x, dtype", dtype_cast=True, batch=SAME)
# np.array(x, ndmin=k) (frontend/keyword_calls.py): a reshape with leading ones, from its source
composite("rt.array_ndmin", _rt.array_ndmin)
