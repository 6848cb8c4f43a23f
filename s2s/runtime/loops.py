"""Helpers of vectorized loops (`rt.loop_*`, passes/loopvec.py) and of windows with per-example
bounds: a slice `x[lo:hi]` whose bounds differ per example (or per loop index) but whose length
does not is a gather of equal windows, taken as a strided view when the starts are evenly spaced.
The `batched_*` helpers here are the batching rules of those (a vectorized loop inside vmap:
the example axis first, then the loop's index axis)."""
from __future__ import annotations

import numpy as np

from ..base.tree import tree_leaves, tree_map
from ..errors import S2SValueError
from ._batch_operands import dot_spec
from ._examples import index_tuple
from ._index_layout import layout, parts_and_flags
from ._values import list_meets_array, read_only_view
from .batch import example_getitem, example_getitem_t, map_examples, masked_merge, replicate_batch
from .batch_core import batched_lift_rank_of_batched
from .batch_linalg import batched_product_vjp, example_product, is_stack_matmul, stack_matmul, stack_matmul_vjp
from .core import reshape_like

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("MIN_TRIPS", "loop_windows", "example_getitem_loop", "loop_windows_t", "batched_loop_windows",
           "batched_loop_windows_t",
           "batched_batched_product", "batched_batched_product_vjp", "batched_product_vjp_vjp", "batched_product_vjp_jvp",
               "batched_batched_product_vjp_jvp",
           "batched_batched_dot", "batched_batched_matmul", "batched_batched_inner", "batched_example_getitem",
               "batched_example_getitem_t", "loop_slot_rows",
           "batched_loop_slot_rows", "batched_lift_rank", "batched_lift_rank_t", "batched_lift_rank_like",
           "batched_masked_merge_t", "loop_trip_count", "loop_list_array",
           "batched_loop_list_array", "loop_list_array_t", "loop_index_positions", "batched_loop_index_positions",
               "loop_vectorizes", "batched_loop_vectorizes")

MIN_TRIPS = 4  # fewer iterations run as the loop: the vectorized branch's fixed cost would not pay


def _bound(b, n, default):
    """Python's slice-bound normalization, per element: negative counts from the end, clipped."""
    b = np.asarray(default if b is None else b)
    b = np.where(b < 0, b + n, b)
    return np.clip(b, 0, n)


def _window_plan(x, index, ib, strict=True, where=None):
    """(parts before, axis, lo, length, parts after) of the one per-example slice of `index`, or
    None when `index` is not of that form (other parts must be plain, before it ints or slices);
    windows of different lengths raise an S2SError (`strict`) or give "ragged"."""
    parts = index_tuple(index)
    flags = index_tuple(ib) if isinstance(ib, tuple) else (ib,) * len(parts)
    hits = [k for k, (p, f) in enumerate(zip(parts, flags)) if f]
    if len(hits) != 1 or type(parts[hits[0]]) is not slice:
        return None
    p = hits[0]
    sl = parts[p]
    before, after = parts[:p], parts[p + 1:]
    if sl.step not in (None, 1) or any(not isinstance(b, (int, np.integer, slice)) for b in before) \
            or any(isinstance(a, (np.ndarray, list)) for a in after):
        return None
    shape = np.shape(x)
    if p >= len(shape):
        return None
    n = shape[p]
    lo, hi = _bound(sl.start, n, 0), _bound(sl.stop, n, n)
    lo, hi = np.broadcast_arrays(lo, hi)
    if lo.ndim != 1:
        return None
    length = np.maximum(hi - lo, 0)
    if length.size and np.any(length != length[0]):
        if not strict:
            return "ragged"
        raise S2SValueError(f"{where + ': ' if where else ''}a slice whose bounds differ per example (or per "
                            f"loop index) gives windows of different lengths ({int(length.min())} to "
                            f"{int(length.max())}); s2s batches only windows of one length. Write the bounds so "
                            "that stop - start is the same for every example, e.g. x[i:i + 3].")
    return before, sum(type(b) is slice for b in before), lo, int(length[0]) if length.size else 0, after


def _even_bounds(sl, n):
    """(first start, step, length) of a slice with 1-D int bound arrays whose windows all lie
    inside [0, n], are one length long and start evenly spaced; None otherwise."""
    lo, hi = sl.start, sl.stop
    if type(lo) is not np.ndarray or type(hi) is not np.ndarray or lo.ndim != 1 or lo.shape != hi.shape \
            or lo.dtype.kind not in "iu" or hi.dtype.kind not in "iu" or lo.shape[0] < 2 or sl.step is not None:
        return None
    k = lo.shape[0]
    if k <= 32:  # Python ints are cheaper than NumPy reductions for a few values
        ls, hs = lo.tolist(), hi.tolist()
        l0, step, length = ls[0], ls[1] - ls[0], hs[0] - ls[0]
        if l0 < 0 or step <= 0 or length <= 0 or ls[-1] + length > n:
            return None
        if any(a != l0 + step * j or b - a != length for j, (a, b) in enumerate(zip(ls, hs))):
            return None
        return l0, step, length
    l0, step, length = int(lo[0]), int(lo[1]) - int(lo[0]), int(hi[0]) - int(lo[0])
    if l0 < 0 or step <= 0 or length <= 0 or l0 + step * (k - 1) + length > n:
        return None
    ramp = np.arange(l0, l0 + step * k, step)
    if not ((lo == ramp).all() and (hi - lo == length).all()):  # (np.array_equal's checks, known to hold here)
        return None
    return l0, step, length


def _even_window(x, index, ib, view=True):
    """The fast case of loop_windows: one slice of 1-D int bounds after plain `:` parts, starts evenly
    spaced and every window inside `x` (no clipping, no negative bounds): a strided view (or, with
    `view` False, True), else None."""
    parts = index if type(index) is tuple else (index,)
    sl = parts[-1]
    if type(x) is not np.ndarray or type(sl) is not slice or len(parts) > x.ndim \
            or any(p != slice(None) for p in parts[:-1]):
        return None
    q = len(parts) - 1
    even = _even_bounds(sl, x.shape[q])
    if even is None or not view:
        return even and True
    l0, step, length = even
    k, st = sl.start.shape[0], x.strides
    shape, strides = (k,) + x.shape[:q] + (length,) + x.shape[q + 1:], (st[q] * step,) + st[:q] + (st[q],) + st[q + 1:]
    return read_only_view(x, q, l0, shape, strides)



def _per_example_windows(x, index, ib, where):
    """loop_windows of a batched `x` (axis 0): example b's window starts at its own bound."""
    parts = index_tuple(index)
    flags = index_tuple(ib) if isinstance(ib, tuple) else (ib,) * len(parts)
    x = np.asarray(x)
    plan = _window_plan(x[0] if len(x) else x, index, ib, where=where)
    if plan is None or plan[0] and any(p != slice(None) for p in plan[0]) or len(x) == 0:
        return _vb_stack_rows([x[b][tuple(_pick(p, f, b) for p, f in zip(parts, flags))] for b in range(len(x))])
    before, q, _, length, after = plan
    sl = parts[len(before)]
    n = x.shape[q + 1]
    lo = np.broadcast_to(_bound(sl.start, n, 0), (len(x),))
    if length == 0:
        out = np.empty(x.shape[:q + 1] + (0,) + x.shape[q + 2:], dtype=x.dtype)
    else:
        win = np.lib.stride_tricks.sliding_window_view(x, length, axis=q + 1)
        win = win[(np.arange(len(x)),) + (slice(None),) * q + (lo,)]  # (B, before..., after..., L)
        out = np.moveaxis(win, -1, q + 1)
    return out[(slice(None),) * (q + 2) + tuple(after)] if after else out


def loop_windows(x, index, ib, where=None, xb=False):
    """`x[index]` for each value of a batched slice in `index`: the windows stacked on a new axis 0
    (a read-only strided view when their starts are evenly spaced); `xb`: `x` batched too, each
    example's window taken from its own row."""
    if xb:
        return _per_example_windows(x, index, ib, where)
    fast = _even_window(x, index, ib)
    if fast is not None:
        return fast
    plan = _window_plan(x, index, ib, where=where)
    if plan is None:
        return example_getitem_loop(x, index, ib)
    before, q, lo, length, after = plan
    x = np.asarray(x)[tuple(before)] if before else np.asarray(x)
    k = lo.shape[0]
    if k == 0 or length == 0:
        out = np.empty((k,) + x.shape[:q] + (length,) + x.shape[q + 1:], dtype=x.dtype)
    else:
        win = np.lib.stride_tricks.sliding_window_view(x, length, axis=q)  # (..., n-L+1, ..., L)
        step = int(lo[1] - lo[0]) if k > 1 else 1
        even = step > 0 and (k == 1 or np.array_equal(lo, lo[0] + step * np.arange(k)))
        win = np.take(win, lo, axis=q) if not even else \
            win[(slice(None),) * q + (slice(int(lo[0]), int(lo[0]) + step * k, step),)]
        out = np.moveaxis(np.moveaxis(win, q, 0), -1, q + 1)
    return out[(slice(None),) * (q + 2) + tuple(after)] if after else out


def example_getitem_loop(x, index, ib):
    """The per-value fallback of a batched index that is not one evenly bounded slice."""
    parts = index_tuple(index)
    flags = index_tuple(ib) if isinstance(ib, tuple) else (ib,) * len(parts)
    k = next(len(np.asarray(_first_bound(p))) for p, f in zip(parts, flags) if f)

    return _vb_stack_rows([x[tuple(_pick(p, f, j) for p, f in zip(parts, flags))] for j in range(k)])


def _pick(p, flags, j):
    """Index part `p` for lane `j` (batched parts per `flags`)."""
    if not flags:
        return p
    if type(p) is slice:
        return slice(*(b if b is None or np.ndim(b) == 0 else b[j] for b in (p.start, p.stop, p.step)))
    return p[j]


def _vb_stack_rows(outs):
    return np.stack([np.asarray(o) for o in outs]) if outs else np.empty((0,))


def _first_bound(p):
    if type(p) is slice:
        return next(b for b in (p.start, p.stop, p.step) if b is not None and np.ndim(b))
    return p


def loop_windows_t(g, x, index, ib, where=None, xb=False):
    """Transpose of loop_windows: each window's cotangent added back at its place in zeros like `x`."""
    if xb:  # per example: its own row of `x`
        parts = index_tuple(index)
        flags = index_tuple(ib) if isinstance(ib, tuple) else (ib,) * len(parts)
        z = np.zeros(np.shape(x), dtype=np.result_type(g, float))
        for b in range(np.shape(x)[0]):
            z[b][tuple(_pick(p, f, b) for p, f in zip(parts, flags))] += g[b]
        return z
    plan = _window_plan(x, index, ib)
    z = np.zeros(np.shape(x), dtype=np.result_type(g, float))
    parts = index_tuple(index)
    flags = index_tuple(ib) if isinstance(ib, tuple) else (ib,) * len(parts)
    if plan is None:
        for j in range(np.shape(g)[0]):
            key = tuple(p if not f else (p[j] if type(p) is not slice else slice(
                *(b if b is None or np.ndim(b) == 0 else b[j] for b in (p.start, p.stop, p.step))))
                for p, f in zip(parts, flags))
            z[key] += g[j]
        return z
    before, q, lo, length, after = plan
    zv = z[tuple(before)] if before else z
    g = np.asarray(g)
    if after:  # the windows' own parts after the slice: scatter through the same key
        full = np.zeros((len(lo),) + zv.shape[:q] + (length,) + zv.shape[q + 1:], dtype=z.dtype)
        full[(slice(None),) * (q + 2) + tuple(after)] = g
        g = full
    for j in range(length):  # one strided add per offset in the window (a loop of `length`, not of k)
        col = np.moveaxis(g[(slice(None),) * (q + 1) + (j,)], 0, q)  # (..., k, ...) at axis q
        np.add.at(zv, (slice(None),) * q + (lo + j,), col)
    return z


def batched_loop_windows(flags, x, index, ib, where=None, xb=False):
    """Batching rule of loop_windows: `x` batched over examples (axis 0), the window's bounds per
    loop index only; the result carries the example axis first, then the index axis."""
    if flags[1] or not flags[0] or xb:
        return map_examples("rt.loop_windows", flags, _n_of(flags, (x, index, ib)), x, index, ib, where, xb)
    parts = index_tuple(index)
    part_flags = index_tuple(ib) if isinstance(ib, tuple) else (ib,) * len(parts)
    return np.swapaxes(loop_windows(x, (slice(None),) + parts, (False,) + part_flags, where), 0, 1)


def batched_loop_windows_t(flags, v, x, index, ib, where=None, xb=False):
    """Transpose of batched_loop_windows (x batched over examples, bounds per index only)."""
    if flags[1] or not flags[0] or xb:
        raise S2SValueError("s2s cannot differentiate a window whose bounds differ per example inside vmap yet; "
                            "differentiate inside the vmap instead: vmap(grad(f)).")
    parts = index_tuple(index)
    part_flags = index_tuple(ib) if isinstance(ib, tuple) else (ib,) * len(parts)
    return loop_windows_t(np.swapaxes(v, 0, 1), x, (slice(None),) + parts, (False,) + part_flags, where)


def _n_of(flags, args):
    return next(np.shape(a)[0] for a, b in zip(args, flags) if b and np.ndim(a))


def _outer_spec(flags, inner_flags, a, b, op):
    """einsum subscripts of a batched dot (index axis `y` per `inner_flags`) batched again over examples
    (axis `z` per `flags`, flags of the helper's own arguments: flags, a, b)."""
    ga, gb = flags[1], flags[2]
    pa, pb = np.ndim(a) - ga - inner_flags[0], np.ndim(b) - gb - inner_flags[1]
    sa, sb, so = dot_spec(np.empty((0,) * (pa + inner_flags[0])), np.empty((0,) * (pb + inner_flags[1])),
                              inner_flags[0], inner_flags[1], op)
    return ("z" if ga else "") + sa, ("z" if gb else "") + sb, "z" + so, pa, pb


def batched_batched_product(flags, inner_flags, a, b, op="dot"):
    """Batching rule of a batched dot/matmul/inner (`inner_flags`: which operand carries the index axis),
    operands batched over examples per `flags`: one einsum over both axes (a matmul for vectors)."""
    if flags[1] and flags[2] and inner_flags[0] and not inner_flags[1] and np.ndim(a) == 3 and np.ndim(b) == 2:
        return _windows_dot(a, b)
    if not (flags[1] or flags[2]):
        return example_product(a, b, inner_flags[0], inner_flags[1], op)
    sa, sb, so, pa, pb = _outer_spec(flags, inner_flags, a, b, op)
    if is_stack_matmul(op, pa, pb):
        return stack_matmul(a, b, (flags[1], inner_flags[0]), (flags[2], inner_flags[1]), pa, pb)
    return np.einsum(f"{sa},{sb}->{so}", a, b)


def _windows_dot(a, b):
    """(B, k, L) . (B, L) -> (B, k), the convolution's windows. Short NumPy windows: L
    multiply-adds of (B, k) slices, in the order of the dot (on a strided window view, matmul
    first copies the windows: 1.7x the time at L = 3); otherwise one matmul."""
    if type(a) is not np.ndarray or type(b) is not np.ndarray or a.shape[-1] > 8 or not a.shape[-1]:
        return np.matmul(a, b[..., None])[..., 0]
    out = a[..., 0] * b[:, None, 0]
    tmp = np.empty_like(out)
    for i in range(1, a.shape[-1]):
        out += np.multiply(a[..., i], b[:, None, i], out=tmp)
    return out


def batched_batched_product_vjp(flags, inner_flags, ct, a, b, which, op):
    """Cotangent of operand `which` (0: a, 1: b) of batched_batched_product: its einsum transposed."""
    if not (flags[1] or flags[2]):
        return batched_product_vjp(inner_flags, ct, a, b, which, op)
    sa, sb, so, pa, pb = _outer_spec(flags, inner_flags, a, b, op)
    if is_stack_matmul(op, pa, pb):
        return stack_matmul_vjp(ct, a, b, (flags[1], inner_flags[0]), (flags[2], inner_flags[1]), pa, pb, which)
    if which == 0:
        return np.einsum(f"{so},{sb}->{sa}", ct, b)
    return np.einsum(f"{so},{sa}->{sb}", ct, a)


def batched_product_vjp_vjp(flags, ct, g, a, b, which, op, wrt):
    """Cotangent of argument `wrt` (0: g, 1: a, 2: b) of batched_product_vjp(f, g, a, b, which, op), which
    is bilinear in g and the operand it does not replace."""
    if is_stack_matmul(op, np.ndim(a) - flags[0], np.ndim(b) - flags[1]):  # the same, as products and cotangents
        if wrt == 0:
            return example_product(ct, b, flags[0], flags[1], op) if which == 0 else \
                example_product(a, ct, flags[0], flags[1], op)
        if wrt == 1 + which:
            return np.zeros(np.shape(a if which == 0 else b))
        return batched_product_vjp(flags, g, ct, b, 1, op) if which == 0 else batched_product_vjp(flags, g, a, ct, 0, op)
    sa, sb, so = dot_spec(a, b, flags[0], flags[1], op)
    if wrt == 0:
        return np.einsum(f"{sa},{sb}->{so}", ct, b) if which == 0 else np.einsum(f"{sa},{sb}->{so}", a, ct)
    if wrt == 1 + which:  # the operand that only gives its shape
        return np.zeros(np.shape(a if which == 0 else b))
    return np.einsum(f"{so},{sa}->{sb}", g, ct) if which == 0 else np.einsum(f"{so},{sb}->{sa}", g, ct)


def batched_product_vjp_jvp(flags, g, a, b, which, op, wrt, d):
    """Tangent of batched_product_vjp(f, g, a, b, which, op) along operand `wrt` (1: a, 2: b), `d` its
    tangent: zero along the operand whose cotangent it is (only that one's shape counts)."""
    if wrt == 1 + which:
        return np.zeros(np.shape(a if which == 0 else b))
    return batched_product_vjp(flags, g, d if wrt == 1 else a, d if wrt == 2 else b, which, op)


def batched_batched_product_vjp_jvp(flags, inner_flags, g, a, b, which, op, wrt, d):
    """Tangent of batched_batched_product_vjp along operand `wrt` (1: a, 2: b), as batched_product_vjp_jvp."""
    if wrt == 1 + which:
        return np.zeros(np.shape(a if which == 0 else b))
    return batched_batched_product_vjp(flags, inner_flags, g, d if wrt == 1 else a, d if wrt == 2 else b, which, op)


def batched_batched_dot(flags, inner_flags, a, b):
    return batched_batched_product(flags, inner_flags, a, b, "dot")


def batched_batched_matmul(flags, inner_flags, a, b):
    return batched_batched_product(flags, inner_flags, a, b, "matmul")


def batched_batched_inner(flags, inner_flags, a, b):
    return batched_batched_product(flags, inner_flags, a, b, "inner")


def batched_example_getitem(flags, x, index, xb=True, ib=False, clip=True):
    """Batching rule of example_getitem for `x` batched over examples and an index batched over the
    loop's index only: one gather, the example axis first."""
    if not flags[0] or flags[1] or xb:
        return map_examples("rt.example_getitem", flags, _n_of(flags, (x, index)), x, index, xb, ib, clip)
    parts = index_tuple(index)
    part_flags = index_tuple(ib) if isinstance(ib, tuple) else (ib,) * len(parts)
    out = example_getitem(x, (slice(None),) + parts, False, (False,) + part_flags, clip)
    return np.moveaxis(out, _outer_axis(parts, part_flags), 0)


def _outer_axis(parts, part_flags) -> int:
    """Where the outer examples' axis lands in `x[:, *parts]` gathered for every inner example: after
    the inner one, or after the broadcast dimensions of advanced parts that a slice, None or
    Ellipsis separates, which NumPy puts first (see _index_layout)."""
    case, _, nb = layout(*parts_and_flags(parts, part_flags))
    return 1 + nb if case == "apart" else 1


def batched_example_getitem_t(flags, v, x, index, xb=True, ib=False):
    """Transpose of batched_example_getitem."""
    if not flags[0] or flags[1] or xb:
        raise S2SValueError("s2s cannot differentiate this gather inside vmap yet; differentiate inside the "
                            "vmap instead: vmap(grad(f)).")
    parts = index_tuple(index)
    part_flags = index_tuple(ib) if isinstance(ib, tuple) else (ib,) * len(parts)
    v = np.moveaxis(v, 0, _outer_axis(parts, part_flags))
    return example_getitem_t(v, x, (slice(None),) + parts, False, (False,) + part_flags)


def _slot_rank(a_ndim, key) -> int:
    """The rank of `a[key]` for a key of ints, slices and one index vector (the loop's)."""
    parts = key if type(key) is tuple else (key,)
    return a_ndim - len(parts) + sum(type(p) is slice for p in parts) + 1


def loop_slot_rows(v, a, key):
    """The rows `v` of a vectorized `a[i] = v` with unit axes after the index axis, so that each
    row broadcasts into its slot `a[i]` as in the loop."""
    nd = _slot_rank(np.ndim(a), key)
    v = np.asarray(v)
    return v if v.ndim >= nd else v.reshape(v.shape[:1] + (1,) * (nd - v.ndim) + v.shape[1:])


def batched_loop_slot_rows(flags, v, a, key):
    """Batching rule of loop_slot_rows: the rows carry the example axis first (per `flags`)."""
    nd = _slot_rank(np.ndim(a) - flags[1], key)
    v = np.asarray(v)
    lead = 1 + flags[0]
    have = v.ndim - flags[0]
    return v if have >= nd else v.reshape(v.shape[:lead] + (1,) * (nd - have) + v.shape[lead:])


def batched_lift_rank(flags, x, other, other_batched, op=""):
    """Batching rule of lift_rank (a vectorized loop's operand alignment) when vmap batches `other`
    but not `x`: the alignment counts `other`'s per-example rank, and the result is batched."""
    if list_meets_array(x, other):
        raise S2SValueError("s2s cannot batch arithmetic between a list and an array inside a vmap that is itself "
                            "batched (a vmap in vmap, or jacfwd/hessian of a function calling vmap); write "
                            "np.asarray(...) of the list before the arithmetic")
    if flags[0]:
        return batched_lift_rank_of_batched(flags, x, other, other_batched)
    n = np.shape(other)[0]
    no = np.ndim(other) - 1 - (1 if other_batched else 0)
    x = np.asarray(x)
    nx = x.ndim - 1
    if no > nx:
        x = x.reshape(x.shape[:1] + (1,) * (no - nx) + x.shape[1:])
    return np.broadcast_to(x, (n,) + x.shape).copy()


def batched_lift_rank_t(flags, g, x):
    """Transpose of batched_lift_rank: summed over the examples when `x` was not batched."""
    g = np.asarray(g)
    return np.reshape(g if flags[0] else g.sum(axis=0), np.shape(x))


def batched_lift_rank_like(flags, h, like):
    """Transpose of batched_lift_rank_t: `h` (shaped like batched_lift_rank's `x`) aligned and broadcast
    to the shape of `like` (batched_lift_rank's result), as batched_lift_rank did."""
    shape = np.shape(like)
    h = np.asarray(h)
    if flags[0]:
        return np.reshape(h, shape)
    return np.broadcast_to(np.reshape(h, shape[1:]), shape).copy()


def batched_masked_merge_t(flags, g, m, which, like):
    """Cotangent of operand `which` (0: new, 1: old) of batched_masked_merge (a masked merge of a
    vectorized loop, batched again): `g` where the mask picks that operand, summed over the
    examples when the operand was not batched."""
    if like is None:
        return None
    leaves = tree_leaves(g)
    mm = m if flags[0] or not leaves else replicate_batch(m, np.shape(leaves[0])[0])
    zero = tree_map(np.zeros_like, g)
    sel = masked_merge(mm, g, zero) if which == 0 else masked_merge(mm, zero, g)
    if flags[1 + which]:
        return sel
    return tree_map(lambda s_, l_: reshape_like(np.sum(s_, axis=0), l_), sel, like)


def loop_trip_count(start, stop, step=1):
    """The trip count of `range(start, stop, step)`."""
    return len(range(start, stop, step))


def loop_list_array(v, n):
    """`np.array(L)` of a list that a vectorized loop of `n` iterations filled with the rows of `v`:
    `v` itself when it owns its memory (a fresh result), else a copy (a view of an argument, a
    strided window); for no iterations np.array([]), whatever the rows' shape."""
    if not n:
        return np.array([])
    if type(v) is not np.ndarray:  # another backend's array (CuPy): rows computed fresh
        return v
    return v if v.base is None and v.flags.writeable else v.copy()


def batched_loop_list_array(flags, v, n):
    """Batching rule of loop_list_array: the example axis first (no iterations: no columns per example)."""
    if not n:
        return np.zeros((np.shape(v)[0], 0))
    return loop_list_array(v, n)


def loop_list_array_t(g, v, n):
    """Transpose of loop_list_array: the cotangent shaped like the rows (zeros for no iterations)."""
    return np.reshape(g, np.shape(v)) if n else np.zeros(np.shape(v))


def loop_index_positions(i, a, axis=0):
    """The loop's index values as positions along `axis` of `a`, where a vectorized loop writes
    `a[i] = ...`: an IndexError as the loop would raise; negative values counted from the end."""
    n = np.shape(a)[axis]
    i = np.asarray(i)
    if i.size and (i.min() < -n or i.max() >= n):
        bad = int(i.min()) if i.min() < -n else int(i.max())
        raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
    j = np.where(i < 0, i + n, i)
    if i.size and i.min() < 0 <= i.max() and np.unique(j).size != j.size:
        raise S2SValueError("a vectorized loop writes a[i] for negative and non-negative i that name the same "
                            "element; s2s keeps each write's order only in a plain loop. Write the range without "
                            "negative indices.")
    return j


def batched_loop_index_positions(flags, i, a, axis=0):
    return loop_index_positions(i, a[0] if flags[1] else a, axis)


def _fits(x, index, ib) -> bool:
    if _even_window(x, index, ib, view=False):
        return True
    try:
        plan = _window_plan(x, index, ib, strict=False)
    except (IndexError, TypeError, ValueError):
        return False
    return plan is not None and plan != "ragged"


def loop_vectorizes(n, x0=None, i0=None, b0=None, x1=None, i1=None, b1=None, x2=None, i2=None, b2=None, ints=(),
            writes=(), reads=()):
    """Whether a vectorized loop of `n` iterations runs as such: none, or at least MIN_TRIPS; each
    window `x[i]` it takes (up to three) of one length for every index (and at least one
    iteration, so that the length is known); the parts of its write keys before the index
    (`ints`) integers; no array it writes sharing memory with one it reads (`writes`, `reads`:
    an alias would carry values from one iteration to the next). Else the loop runs as written."""
    if 0 < n < MIN_TRIPS or _aliased(writes, reads) or _foreign(reads):
        return False
    wins = [(x, i, b) for x, i, b in ((x0, i0, b0), (x1, i1, b1), (x2, i2, b2)) if b is not None]
    return (bool(n) or not wins) and _all_ints(ints) and all(_fits(x, i, b) for x, i, b in wins)


def _aliased(writes, reads) -> bool:
    return any(isinstance(w, np.ndarray) and isinstance(r, np.ndarray) and np.may_share_memory(w, r)
               for w in writes for r in reads)


def _foreign(reads) -> bool:
    return any(hasattr(r, "shape") and type(r) is not np.ndarray for r in reads)


def _all_ints(ints) -> bool:
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in ints)


def batched_loop_vectorizes(flags, n, *args):
    """Batching rule of loop_vectorizes: every example's windows fit (an unbatched answer); windows whose
    bounds differ per example are not taken apart here: the loop runs as written."""
    if flags[0] or len(flags) > 10 and flags[10] or len(args) > 9 and not _all_ints(args[9]) or 0 < n < MIN_TRIPS \
            or len(args) > 11 and (_aliased(args[10], args[11]) or _foreign(args[11])):
        return False
    args = args[:9]
    wins = []
    for k in range(0, len(args), 3):
        x, i, b = args[k:k + 3]
        if b is None:
            continue
        if flags[k + 2] or flags[k + 3]:
            return False
        if flags[k + 1]:
            parts = index_tuple(i)
            part_flags = index_tuple(b) if isinstance(b, tuple) else (b,) * len(parts)
            x, i, b = x, (slice(None),) + parts, (False,) + part_flags
        wins.append((x, i, b))
    return (bool(n) or not wins) and all(_fits(x, i, b) for x, i, b in wins)
