"""Helpers of batched (vmap) code, `rt.vb_*` and `rt.vbh_*`. A batched value carries the batch as
axis 0 of every leaf; each helper takes its array module from its arguments (array methods and
NumPy's dispatch). `vbh_<op>(flags, *args)` is the batching rule of op `<op>` (flags: which
arguments are batched)."""
from __future__ import annotations

import builtins
import types

import numpy as np

from ..errors import S2SError, S2STypeError, S2SValueError
from ..tree import tree_leaves, tree_map
from . import core as _core
from . import ops as _ops
from .core import _is_tree, basis, reshape_like, tree_size, zeros_like_tree


def _vb_err(msg):
    return S2SValueError(msg)


def _vb_pairs(spec, tree, where):
    """(leaf, axis, where) for each leaf of `tree` under the axes prefix `spec`."""
    if spec is None or isinstance(spec, int) and not isinstance(spec, bool):
        for leaf in tree_leaves(tree):
            yield leaf, spec, where
        return
    if isinstance(spec, (tuple, list)) and isinstance(tree, (tuple, list)) and len(spec) == len(tree):
        for i, (s, t) in enumerate(zip(spec, tree)):
            yield from _vb_pairs(s, t, f"{where}[{i}]")
        return
    if isinstance(spec, dict) and isinstance(tree, dict) and set(spec) == set(tree):
        for k in tree:
            yield from _vb_pairs(spec[k], tree[k], f"{where}[{k!r}]")
        return
    raise _vb_err(f"vmap in_axes specification must be a tree prefix of the corresponding value, got "
                  f"specification {spec!r} for value {where} of type {type(tree).__name__}"
                  + (f" with {len(tree)} entries" if isinstance(tree, (tuple, list, dict)) else "") + ".")


def vb_size(args, in_axes, axis_size, names):
    """The batch size of a vmap call: checks `in_axes` against the arguments, as JAX does."""
    if axis_size is None and isinstance(in_axes, tuple) and len(in_axes) == len(args):
        n = _vb_size_fast(args, in_axes)
        if n is not None:
            return n
    if isinstance(in_axes, (tuple, list)):
        if len(in_axes) != len(args):
            raise _vb_err(f"vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                          f"positional arguments passed to the function, but got len(in_axes)={len(in_axes)}, "
                          f"len(args)={len(args)}")
        specs = list(in_axes)
    else:
        specs = [in_axes] * len(args)
    sizes = []
    for spec, arg, name in zip(specs, args, names):
        for leaf, axis, where in _vb_pairs(spec, arg, f"argument {name}"):
            if axis is None:
                continue
            shape = np.shape(leaf)
            if not -len(shape) <= axis < len(shape):
                raise _vb_err(f"vmap was requested to map {where} along axis {axis}, which implies that its "
                              f"rank should be at least {(axis if axis >= 0 else -axis - 1) + 1}, but is only "
                              f"{len(shape)} (its shape is {shape})")
            sizes.append((shape[axis], where, axis))
    if not sizes:
        if axis_size is None:
            raise _vb_err("vmap must have at least one non-None value in in_axes (or pass axis_size=)")
        return axis_size
    n = sizes[0][0] if axis_size is None else axis_size
    if any(s != n for s, _, _ in sizes):
        lines = "\n".join(f"  * {w} has size {s} along axis {a}" for s, w, a in sizes)
        raise _vb_err(f"vmap got inconsistent sizes for array axes to be mapped:\n{lines}")
    return _sized(n, args)


def vb_size0(xs, names):
    """vb_size where every mapped argument (`xs`, named `names`) is a NumPy array of per-example
    rank 0 or more mapped at axis 0 and the others are NumPy arrays or numbers (a vmap specialized
    on ranks): their common length."""
    n = len(xs[0])
    for x in xs:
        if len(x) != n:
            lines = "\n".join(f"  * argument {w} has size {len(a)} along axis 0" for a, w in zip(xs, names))
            raise _vb_err(f"vmap got inconsistent sizes for array axes to be mapped:\n{lines}")
    return n


class BatchSize(int):
    """A batch size that also names the array module of the call's arguments (CuPy, Dask...):
    batched code makes new batched arrays from it alone (`vb_bcast(0.0, n)`, `vb_ones(n)`), and
    those must live on the arguments' backend. Plain NumPy calls get a plain int."""

    xp = np


def _sized(n, args):
    for leaf in tree_leaves(args):
        if type(leaf) is not np.ndarray and hasattr(leaf, "shape") and not isinstance(leaf, np.generic):
            xp = _core.namespace(leaf)
            if xp is not np:
                size = BatchSize(n)
                size.xp = xp
                return size
    return n


def _vb_size_fast(args, in_axes):
    """The common case: array arguments, int-or-None axes in range, one size. None otherwise."""
    n = None
    for a, ax in zip(args, in_axes):
        if ax is None:
            continue
        if type(ax) is not int or type(a) is not np.ndarray or not -a.ndim <= ax < a.ndim:
            return None
        s = a.shape[ax]
        if n is None:
            n = s
        elif s != n:
            return None
    return n


def _vb_map(fn, spec, tree):
    if isinstance(spec, (tuple, list)) and isinstance(tree, (tuple, list)):
        out = [_vb_map(fn, s, t) for s, t in zip(spec, tree)]
        return tuple(out) if isinstance(tree, tuple) else out
    if isinstance(spec, dict) and isinstance(tree, dict):
        return {k: _vb_map(fn, spec[k], tree[k]) for k in tree}
    if isinstance(tree, (tuple, list)):
        out = [_vb_map(fn, spec, t) for t in tree]
        return tuple(out) if isinstance(tree, tuple) else out
    if isinstance(tree, dict):
        return {k: _vb_map(fn, spec, v) for k, v in tree.items()}
    return fn(tree, spec)


def vb_in(x, spec, n):
    """An argument with its mapped axes moved to the front (unmapped leaves broadcast)."""
    if spec == 0 and type(spec) is int and type(x) is np.ndarray:
        return x
    return _vb_map(lambda leaf, a: vb_bcast(leaf, n) if a is None else
                   (leaf if a in (0, -np.ndim(leaf)) else np.moveaxis(leaf, a, 0)), spec, x)


def vb_out(x, spec, n):
    """A batched result with its batch axis moved to `out_axes`."""
    if spec == 0 and type(spec) is int and type(x) is np.ndarray and x.ndim:
        return x

    def move(leaf, a):
        if a is None:
            raise _vb_err("vmap has mapped output but out_axes is None")
        leaf = _core.asarray(leaf)
        if not -leaf.ndim <= a < leaf.ndim:
            raise _vb_err(f"vmap out_axes {a} is out of range for an output of rank {leaf.ndim - 1}")
        return leaf if a == 0 else np.moveaxis(leaf, 0, a)
    return _vb_map(move, spec, x)


def vb_n(x):
    """The batch size of a batched value (its first array leaf's leading axis; a tuple of several
    batched values may start with an empty one, such as the tangent of an axis tuple)."""
    y = x
    while isinstance(y, (tuple, list)) and y:
        y = y[0]
    if type(y) is np.ndarray and y.ndim:
        return y.shape[0]
    for leaf in tree_leaves(x):
        if np.ndim(leaf):
            return _sized(np.shape(leaf)[0], leaf)
    raise S2SValueError("vmap: no batched argument holds an array, so the batch size is unknown")


def vb_bcast(x, n):
    """An unbatched value made batched: every leaf repeated `n` times along a new axis 0."""
    if isinstance(x, (list, tuple)):
        out = [vb_bcast(e, n) for e in x]
        return tuple(out) if isinstance(x, tuple) else out
    if isinstance(x, dict):
        return {k: vb_bcast(v, n) for k, v in x.items()}
    if x is None or isinstance(x, (range, str, slice)):
        return x
    if type(n) is BatchSize:  # a call on another backend: host constants join it
        host = type(x) in _core._NUMBERS or type(x) is np.ndarray or isinstance(x, np.generic)
        a = n.xp.asarray(x) if host else _core.asarray(x)
        return np.broadcast_to(a, (n,) + a.shape).copy()
    a = _core.asarray(x)
    if type(a) is not np.ndarray:
        return np.broadcast_to(a, (n,) + a.shape).copy()
    if n * a.size > 64:  # a fresh C-ordered array either way; repeat copies whole rows
        return np.repeat(a[None], n, axis=0)
    out = np.empty((n,) + a.shape, a.dtype)  # (small: 4x cheaper than broadcast_to + copy)
    out[...] = a
    return out


def vb_lift(x, other, other_batched):
    """Batched `x` with unit axes after the batch axis so that it broadcasts per example against
    `other` (batched or not) as the unbatched values would."""
    if type(x) is np.ndarray and type(other) is np.ndarray and x.ndim - 1 >= other.ndim - other_batched:
        return x
    if isinstance(x, (list, tuple)):  # `+` joins and `*` repeats a list: its arrays are not aligned
        return x
    if isinstance(other, (list, tuple)) and getattr(x, "dtype", np.dtype(float)).kind in "iub":
        raise S2SValueError("vmap cannot repeat a list or tuple a different number of times per example "
                            "(`L * n` with a batched count `n`): its length would differ per example; "
                            "pass the count unbatched (in_axes None) or use a Python loop over the examples")
    try:
        nx = np.ndim(x) - 1
        no = np.ndim(other) - (1 if other_batched else 0)
    except (ValueError, AttributeError):  # a ragged list: the cotangent of a list argument
        raise S2SValueError("vmap cannot batch arithmetic between a list of arrays of different shapes and an "
                            "array here (a cotangent of a list argument in batched derivative code); use "
                            "vmap(grad) of a scalar loss or a Python loop over the examples") from None
    if no <= nx:
        return x
    x = _core.asarray(x)
    return x.reshape(x.shape[:1] + (1,) * (no - nx) + x.shape[1:])


def vb_unlift(v, x):
    """Transpose of `vb_lift`: `v` in the shape of `x`; lists and tuples (concatenated or repeated
    in batched code), which vb_lift passes through, pass back unchanged."""
    return v if isinstance(x, (list, tuple)) else np.reshape(v, np.shape(x))


def vb_lift_tree(x, other, other_batched):
    """vb_lift leaf by leaf, for `rt.tree_add` of two cotangents of the same structure (a list's
    leaves are aligned with the other list's; `+` of lists would concatenate instead)."""
    if isinstance(x, (list, tuple)) and isinstance(other, (list, tuple)) and len(x) == len(other):
        return type(x)(vb_lift_tree(a, b, other_batched) for a, b in zip(x, other))
    if isinstance(x, dict) and isinstance(other, dict) and set(x) == set(other):
        return {k: vb_lift_tree(x[k], other[k], other_batched) for k in x}
    return vb_lift(x, other, other_batched)


def vb_lift_tree_t(g, x):
    """Transpose of vb_lift_tree: each leaf of `g` shaped like the leaf of `x` it was lifted from."""
    if isinstance(x, (list, tuple)):
        return type(x)(vb_lift_tree_t(a, b) for a, b in zip(g, x))
    if isinstance(x, dict):
        return {k: vb_lift_tree_t(g[k], x[k]) for k in x}
    return g if x is None else np.reshape(g, np.shape(x))


def _vb_mask(m, like):
    m = _core.asarray(m)
    return m.reshape(m.shape + (1,) * (np.ndim(like) - m.ndim))


def vb_select(m, new, old):
    """Per example: `new` where mask `m` is set, else `old` (a first assignment has old None)."""
    if old is None or new is old:
        return new
    if isinstance(new, (tuple, list)):
        if not isinstance(old, (tuple, list)) or len(old) != len(new):
            raise _vb_err("a batched branch or loop gives a list or tuple a different length per example")
        out = [vb_select(m, a, b) for a, b in zip(new, old)]
        return tuple(out) if isinstance(new, tuple) else out
    if isinstance(new, dict):
        return {k: vb_select(m, new[k], old[k]) for k in new}
    # `new` may be unbatched (a value stored into a slot of a batched array): shape the mask by
    # whichever carries the batch axis
    like = new if np.ndim(new) >= np.ndim(old) else old
    return np.where(_vb_mask(m, like), new, old)


def vb_any(m):
    return bool(np.any(m))


def vb_and(m, c):
    return c if m is None else np.logical_and(m, c)


def vb_andnot(m, c):
    c = np.logical_not(c)
    return c if m is None else np.logical_and(m, c)


def vb_ones(n):
    return getattr(n, "xp", np).ones(n, dtype=bool)


def _vb_key(index):
    return index if isinstance(index, tuple) else (index,)


def _vb_adv(index, flags, n, base_shape, clip=True):
    """An index tuple for a batched array from per-example index parts (`flags`: batched parts).
    `clip`: integer parts clipped into range, for code under a mask, where lanes that are done
    may hold any index; without a mask every lane is live, and an index out of range is NumPy's
    IndexError, as in a loop over examples."""
    parts = list(_vb_key(index))
    flags = list(_vb_key(flags)) if isinstance(flags, tuple) else [flags] * len(parts)
    dims = [np.ndim(p) - 1 for p, f in zip(parts, flags) if f]
    k = max(dims + [np.ndim(p) for p, f in zip(parts, flags) if not f and hasattr(p, "ndim") and np.ndim(p)] + [0])
    out, axis = [], 1
    for p, f in zip(parts, flags):
        if f:
            p = _core.asarray(p)
            size = base_shape[axis] if axis < len(base_shape) else 1
            p = np.clip(p, -size, size - 1) if clip and p.dtype.kind in "iu" else p
            out.append(p.reshape(p.shape[:1] + (1,) * (k - p.ndim + 1) + p.shape[1:]))
        else:
            out.append(p)
        axis += 1
    ar = np.arange(n).reshape((n,) + (1,) * k)
    return (ar,) + tuple(out)


def _vb_one_position(index):
    """The one position a per-example `index` into a list, tuple or dict names: the same for every
    example (a loop index broadcast to a batched name); one that differs per example cannot pick
    an item and is refused."""
    if isinstance(index, tuple) or np.ndim(index) != 1:
        raise _vb_err("vmap cannot index a list, tuple or dict with a per-example array")
    first = index[0]
    if not bool((index == first).all()):
        raise _vb_err("vmap cannot index a list, tuple or dict with a position that differs per example "
                      "(its items may have different shapes); stack the items into an array first "
                      "(`np.stack(items)[i]`)")
    return first.item() if hasattr(first, "item") else first


def vb_getitem(x, index, xb=True, ib=False, clip=True):
    """`x[index]` per example: `x` batched (unless `xb` is False), index parts batched per `ib`
    (`clip`: see _vb_adv)."""
    if type(index) is slice and type(x) is np.ndarray and not ib:
        return x[:, index]  # the common case first: a slice of a batched array (a view, as NumPy's)
    if isinstance(x, (list, tuple, dict)):
        return x[_vb_one_position(index) if ib else index]
    if not ib:
        out = x[(slice(None),) + _vb_key(index)]
        return out.copy() if np.ndim(out) == 1 else out  # per example a scalar: a copy, as NumPy's
    n = np.shape(_vb_first_batched(index, ib))[0]
    if not xb:
        x = np.broadcast_to(x, (n,) + np.shape(x))
    return x[_vb_adv(index, ib, n, np.shape(x), clip)]


def _vb_first_batched(index, ib):
    parts = _vb_key(index)
    flags = _vb_key(ib) if isinstance(ib, tuple) else (ib,) * len(parts)
    return next(p for p, f in zip(parts, flags) if f)


def vb_len(x):
    return len(x) if isinstance(x, (list, tuple, dict)) else np.shape(x)[1]


def vb_shape(x):
    return np.shape(x)[1:]


def vb_ndim(x):
    return np.ndim(x) - 1


def vb_size1(x):
    s = np.shape(x)
    return int(np.prod(s[1:]))


def vb_axes(x):
    """Every per-example axis of batched `x` (a reduction with axis=None)."""
    return tuple(range(1, np.ndim(x)))


def vb_static(x):
    """A setting (axis, keepdims) that reached batched code broadcast over the batch (saved in a
    backward sweep's record) as the one value it is; one that differs per example is an error."""
    if isinstance(x, (tuple, list)):
        return type(x)(vb_static(e) for e in x)
    if not isinstance(x, np.ndarray) or x.ndim == 0:
        return x
    if not np.all(x == x[:1]):
        raise S2SValueError("vmap: an axis or keepdims setting differs per example")
    return x[0].item() if x.ndim == 1 else tuple(x[0].tolist())


def vb_axis(axis, x=None, none="keep"):
    """A per-example axis (int or tuple; negative ones count from the end) of batched `x`. An axis
    that is None at run time means, as the op's rule says: every per-example axis of `x` ("all",
    reductions), None itself ("keep"), or the flattened example ("flat", not supported here)."""
    axis = vb_static(axis)
    if axis is None:
        if none in ("all", "norm"):
            return vb_axes(x)
        if none == "flat":
            raise S2SValueError("vmap: this op's axis is None only at run time (a variable); it needs the "
                                "flattened example. Pass axis=None literally, or an integer axis.")
        return None
    if isinstance(axis, (tuple, list)):
        return tuple(a + 1 if a >= 0 else a for a in axis)
    return axis + 1 if axis >= 0 else axis


def vb_flat(x):
    x = _core.asarray(x)
    return x.reshape(x.shape[0], -1)


def vb_array(x):
    """np.array of a batched list: the batch axis first."""
    if isinstance(x, (list, tuple)):
        if not x:
            return np.array(x)
        if all(type(e) is np.ndarray for e in x):
            return np.stack(x, axis=1)
        parts = [vb_array(e) for e in x]  # np.stack, not np.array: it dispatches to the parts' backend
        return np.moveaxis(np.stack(parts) if any(type(p) is not np.ndarray for p in parts) else np.array(parts), 0, 1)
    return _core.asarray(x)


def vb_array_t(v, like):
    """Cotangent of `vb_array(like)` (the batched `np.array` of a list): the same nesting of lists
    as `like`, each element's slice taken along the list axis that follows the batch axis."""
    if isinstance(like, (list, tuple)):
        return [vb_array_t(v[:, i], e) for i, e in enumerate(like)]
    return v


def _vb_dot_spec(a, b, ab, bb, op):
    """einsum subscripts of dot/matmul/inner per example, with `y` the batch axis."""
    pa, pb = np.ndim(a) - ab, np.ndim(b) - bb
    la, lb = "abcdefgh"[:pa], "ijklmnop"[:pb]
    if pa and pb:
        k = -1 if op == "inner" or pb == 1 else -2
        lb = lb.replace(lb[k], la[-1])
        out = la[:-1] + lb.replace(la[-1], "")
    else:
        out = la + lb
    return ("y" if ab else "") + la, ("y" if bb else "") + lb, "y" + out


def vb_dot(a, b, ab, bb, op="dot"):
    """dot/matmul/inner per example: matmul where the batch rides along, else einsum."""
    pa, pb = np.ndim(a) - ab, np.ndim(b) - bb
    if pa and pb and op != "inner":
        if ab and not bb and pb <= 2:
            return np.matmul(a, b)
        if bb and not ab and pb == 1 and pa <= 2:
            return np.matmul(b, np.swapaxes(a, -1, -2) if pa == 2 else a)
        if bb and not ab and pa == 1 and pb == 2:
            return np.matmul(a, b)
        if ab and bb and pa == 2 and pb == 2:
            return np.matmul(a, b)
    sa, sb, so = _vb_dot_spec(a, b, ab, bb, op)
    return np.einsum(f"{sa},{sb}->{so}", a, b)


def vb_dot_vjp(f, g, a, b, which, op):
    """Cotangent of argument `which` (0: a, 1: b) of the batched dot: the einsum transposed (an
    unbatched argument's cotangent sums over the batch)."""
    sa, sb, so = _vb_dot_spec(a, b, f[0], f[1], op)
    if which == 0:
        return np.einsum(f"{so},{sb}->{sa}", g, b)
    return np.einsum(f"{so},{sa}->{sb}", g, a)


def vb_no_derivative(x, what):
    raise S2SError(f"s2s cannot differentiate the batched helper `{what}` yet (a function that calls "
                   "vmap uses it). Differentiate inside the vmap instead: vmap(grad(f)).")


def vb_outer(a, b, ab, bb):
    fa = vb_flat(a) if ab else np.ravel(a)[None]
    fb = vb_flat(b) if bb else np.ravel(b)[None]
    return fa[:, :, None] * fb[:, None, :]


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


def vbh_roll(f, a, shift, axis=None):
    """Batched `np.roll` with one shift and axis for every example (axis None: the flattened example)."""
    if axis is None:
        return np.reshape(np.roll(vb_flat(a), shift, axis=1), np.shape(a))
    return np.roll(a, shift, axis=vb_axis(axis))


def vb_roll_t(f, g_, shift, axis=None):
    """Transpose of vbh_roll: the opposite shift."""
    back = tuple(-s for s in shift) if isinstance(shift, (tuple, list)) else -shift
    return vbh_roll(f, g_, back, axis)


def vb_outer_vjp(f, g_, a, b, which):
    """Cotangent of `a` (which=0) or `b` (which=1) of vbh_outer(f, a, b), shaped like it."""
    other, ob = (b, f[1]) if which == 0 else (a, f[0])
    fo = vb_flat(other) if ob else np.ravel(other)[None]
    v = np.sum(g_ * fo[:, None, :], axis=2) if which == 0 else np.sum(g_ * fo[:, :, None], axis=1)
    mine, mb = (a, f[0]) if which == 0 else (b, f[1])
    return np.reshape(v, np.shape(mine)) if mb else np.reshape(np.sum(v, axis=0), np.shape(mine))


def vb_loop(fn, flags, n, *args, **kwargs):
    """The fallback for the few ops without a vectorized batching rule: one call per example,
    stacked. Listed in primitives/batching.py as LOOPED."""
    fn = _vb_op(fn)
    # Each example gets its own copy of the unbatched arguments: some helpers (rt.add_at, rt.take_at)
    # update an argument in place, and one shared array would carry one example's update into the next.
    kflags = dict(zip(kwargs, flags[len(args):]))  # flags cover the keyword arguments after the positional ones

    def part(a, batched, k):
        return tree_map(lambda leaf: leaf[k], a) if batched else tree_map(_own, a)
    outs = [fn(*[part(a, f, k) for a, f in zip(args, flags)],
               **{key: part(a, kflags.get(key), k) for key, a in kwargs.items()}) for k in range(n)]
    return _vb_stack(outs)


def _own(leaf):
    return leaf.copy() if hasattr(leaf, "copy") and hasattr(leaf, "shape") else leaf


def _vb_stack(outs):
    """Per-example results stacked leaf by leaf (lists and tuples keep their structure)."""
    first = outs[0] if outs else None
    if isinstance(first, (tuple, list)):
        cols = [_vb_stack(list(col)) for col in zip(*outs)]
        return tuple(cols) if isinstance(first, tuple) else cols
    if isinstance(first, dict):
        return {k: _vb_stack([o[k] for o in outs]) for k in first}
    if first is None:
        return None
    return np.stack([_core.asarray(o) for o in outs])


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
    return _core.asarray(v) if hasattr(v, "shape") else getattr(n, "xp", np).asarray(v)


def _vb_to_rank(x, k):
    """Batched `x` with unit axes after the batch axis up to per-example rank `k`."""
    x = _core.asarray(x)
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
    zero = np.zeros_like(_core.asarray(stop if which == 0 else start, dtype=float))
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
    return _core.namespace(out).ones(np.shape(out), dtype=getattr(out, "dtype", float))


def vbh_float(f, x):
    return _core.asarray(x, dtype=float)


def vbh_int(f, x):
    return _core.asarray(x).astype(int)


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
def _vb_first(tree, flag):
    return tree_map(lambda leaf: leaf[0], tree) if flag else tree


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
            leaf = _core.asarray(leaf)
            return np.broadcast_to(leaf[:, None], leaf.shape[:1] + (n,) + leaf.shape[1:]).copy()
        return np.moveaxis(leaf, a + 1 if a >= 0 else a, 1)
    return _vb_map(move, spec, x)


def vbh_vb_out(f, x, spec, n):
    return _vb_map(lambda leaf, a: np.moveaxis(leaf, 1, a + 1 if a >= 0 else a), spec, x)


def vbh_vb_bcast(f, x, n):
    if not f[0]:
        return vb_bcast(x, n)
    return tree_map(lambda leaf: np.broadcast_to(_core.asarray(leaf)[:, None], np.shape(leaf)[:1] + (n,)
                                                 + np.shape(leaf)[1:]).copy(), x)


def vbh_vb_lift(f, x, other, other_batched):
    if not f[0] or isinstance(x, (list, tuple)):
        return vb_lift(x, other, other_batched)
    nx = np.ndim(x) - 2
    no = np.ndim(other) - (1 if f[1] else 0) - (1 if other_batched else 0)
    if no <= nx:
        return x
    x = _core.asarray(x)
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
    x = _core.asarray(x)
    return x.reshape(x.shape[0], x.shape[1], -1)


def vb_key(index, ib, a, clip=True):
    """The key of `a[index]` per example on batched `a` (batched index parts per `ib`; `clip`:
    see _vb_adv)."""
    if not ib:
        return (slice(None),) + _vb_key(index)
    return _vb_adv(index, ib, np.shape(a)[0], np.shape(a), clip)


def vb_lift_to(v, a, key):
    """Batched `v` with unit axes after the batch axis to fill the slot `a[key]` per example."""
    nd = np.ndim(a[key])
    v = _core.asarray(v)
    return v if v.ndim >= nd else v.reshape(v.shape[:1] + (1,) * (nd - v.ndim) + v.shape[1:])


def vb_in_t(v, like, spec):
    """Transpose of vb_in: the batch axis moved back (summed where the leaf was broadcast)."""
    def back(leaf, a):
        return np.sum(leaf, axis=0) if a is None else (leaf if a == 0 else np.moveaxis(leaf, 0, a))
    out = _vb_map(back, spec, v)
    return reshape_like(out, like) if not isinstance(like, (tuple, list, dict)) else out


def vb_out_t(v, spec):
    return _vb_map(lambda leaf, a: leaf if a in (0, None) else np.moveaxis(leaf, a, 0), spec, v)


def vb_bcast_t(v, like):
    """Transpose of vb_bcast: the batch summed out, shaped like the unbatched value."""
    if isinstance(like, (list, tuple)):
        out = [vb_bcast_t(a, b) for a, b in zip(v, like)]
        return tuple(out) if isinstance(like, tuple) else out
    if isinstance(like, dict):
        return {k: vb_bcast_t(v[k], like[k]) for k in like}
    s = np.sum(v, axis=0)
    return reshape_like(s, like)


def vb_getitem_t(v, x, index, xb=True, ib=False):
    """Transpose of vb_getitem: `v` added into zeros shaped like `x` at the indexed places."""
    if isinstance(x, (list, tuple, dict)):
        index = _vb_one_position(index) if ib else index
        z = zeros_like_tree(x)
        z = list(z) if isinstance(z, tuple) else z
        z[index] = v
        return tuple(z) if isinstance(x, tuple) else z
    n = np.shape(v)[0]
    shape = np.shape(x) if xb else (n,) + np.shape(x)
    z = _core.zeros(shape, v, dtype=np.result_type(getattr(v, "dtype", type(v)), float))
    key = (slice(None),) + _vb_key(index) if not ib else _vb_adv(index, ib, n, shape)
    z = _core.scatter_add(z, key, v)
    return z if xb else z.sum(axis=0)


def vb_add_at(acc, v, index, xb=True, ib=False, clip=True):
    """`acc + vb_getitem_t(v, acc, index, xb, ib)`, added into `acc` in place where it can (the sweep
    owns `acc`): a batched `x[:, i]` in a loop then costs its slot per iteration, not a zeros array
    the size of `x`, as reverse mode's `rt.add_at` does for the plain `x[i]`."""
    if not xb or isinstance(acc, (list, tuple, dict)) or np.ndim(acc) == 0 or \
            np.result_type(acc, getattr(v, "dtype", type(v))) != acc.dtype:
        return _core.tree_add(acc, vb_getitem_t(v, acc, index, xb, ib))
    key = (slice(None),) + _vb_key(index) if not ib else _vb_adv(index, ib, np.shape(v)[0], np.shape(acc))
    return _core.add_at(acc, key, v)


def _vb_op(name):
    """The function a primitive name stands for (`xp.diag`, `rt.add_at`, `tuple`)."""
    mod, _, rest = name.partition(".")
    if not rest:
        return getattr(builtins, name)
    obj = np if mod == "xp" else _RT
    if mod == "rt" and not hasattr(_RT, rest):
        from . import loops  # the vectorized loops' helpers (vmap of vmap batches them again)
        obj = loops
    for part in rest.split("."):
        obj = getattr(obj, part)
    return obj


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
    v = _core.asarray(v)
    if axis is None:
        v = v.reshape(v.shape[:1] + (1,) * (len(shape) - 1))
    elif not keepdims:
        v = np.expand_dims(v, vb_axis(axis))
    return np.broadcast_to(v, shape).astype(_core._float_dtype(like))  # as sum_vjp: the primal's float dtype


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


def vb_sum_scalars(v):
    """The sum of a batch of per-example scalars (what vmap(grad(f)) differentiates: the examples
    are independent, so the gradient of the sum is each example's gradient)."""
    if np.ndim(v) != 1:
        raise S2STypeError(f"grad requires a scalar output, but the function returned shape {np.shape(v)[1:]} "
                           "per example.")
    return np.sum(v)


def vbh_tree_all_zero(f, x):
    """Every example's cotangent zero (one answer for the batch: the transposed rule is linear, so
    running it for a batch with some zero examples is right too)."""
    return _core.tree_all_zero(x)


def vbh_vb_sum_scalars(f, v):
    if np.ndim(v) != 2:
        raise S2STypeError(f"grad requires a scalar output, but the function returned shape {np.shape(v)[2:]} "
                           "per example.")
    return np.sum(v, axis=1)


# `rt.<name>` as generated code sees it: this module's helpers over the core and coverage ones
_RT = types.SimpleNamespace(**{k: v for m in (_core, _ops) for k, v in vars(m).items() if not k.startswith("__")})
_RT.__dict__.update({k: v for k, v in globals().items() if k.startswith(("vb_", "vbh_"))})
