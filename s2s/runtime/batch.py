"""vmap's machinery (`rt.vmap_size`, `rt.vmap_in`, ...): the batch size and in/out axes, lifting
operands, masks, batched indexing, and `map_examples` (an op run once per example). A batched value
carries the batch as axis 0 of every leaf; each helper takes its array module from its arguments
(array methods and NumPy's dispatch). The batching helpers of operations, `batched_<op>(flags,
*args)` (flags: which arguments are batched), live in batch_core, batch_shape, batch_reduce and
batch_linalg; the small facts about batched operands they share, in _batch_operands."""
from __future__ import annotations

import numpy as np

from ..base.tree import PyTreeDef, axes_children, node_children, tree_leaves, tree_map
from ..errors import S2SError, S2STypeError, S2SValueError
from ._batch_checks import one_position as _vb_one_position
from ._batch_checks import same_shapes
from ._examples import index_tuple, map_over_spec, op_named, own_copy, stack_examples
from ._index_layout import batched_key
from ._values import NUMBER_TYPES, host_index, list_meets_array
from .core import add_at, asarray, namespace, reshape_like, scatter_add, to_host, tree_add, zeros, zeros_like_tree

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("vmap_size", "vmap_size_axis0", "BatchSize", "vmap_in", "vmap_out", "num_examples", "replicate_batch",
           "lift_rank", "unlift_rank",
           "masked_merge", "mask_any", "mask_and", "mask_and_not", "full_mask",
           "example_getitem", "example_len", "example_shape", "example_ndim", "example_size", "example_axes",
               "shared_setting", "example_axis",
           "flatten_examples", "examples_1d", "example_array", "example_array_t", "no_batched_derivative",
               "map_examples", "example_key",
               "lift_rank_to_slot", "vmap_in_t",
           "vmap_out_t", "sequence_batch", "sequence_batch_t", "replicate_batch_t",
           "example_getitem_t", "example_add_at", "sum_examples")


def _vb_err(msg):
    return S2SValueError(msg)


def _vb_pairs(spec, tree, where):
    """(leaf, axis, where) for each leaf of `tree` under the axes prefix `spec`."""
    if spec is None or isinstance(spec, int) and not isinstance(spec, bool):
        for leaf in tree_leaves(tree):
            yield leaf, spec, where
        return
    specs = axes_children(spec, tree) if node_children(tree) is not None else None
    if specs is not None:  # an axes node of the value's type
        for i, (s, t) in enumerate(zip(specs, node_children(tree)[0])):
            yield from _vb_pairs(s, t, f"{where}.<child {i}>")
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


def vmap_size(args, in_axes, axis_size, names):
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
    return BatchSize.of(n, args)


def vmap_size_axis0(xs, names):
    """vmap_size where every mapped argument (`xs`, named `names`) is a NumPy array of per-example
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
    batched code makes new batched arrays from it alone (`replicate_batch(0.0, n)`, `full_mask(n)`), and
    those must live on the arguments' backend. Plain NumPy calls get a plain int."""

    xp = np

    @classmethod
    def of(cls, n, args):
        """`n` as a BatchSize on the array module of `args`' leaves, a plain int for NumPy's."""
        for leaf in tree_leaves(args):
            if type(leaf) is not np.ndarray and hasattr(leaf, "shape") and not isinstance(leaf, np.generic):
                xp = namespace(leaf)
                if xp is not np:
                    size = cls(n)
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


def vmap_in(x, spec, n):
    """An argument with its mapped axes moved to the front (unmapped leaves broadcast)."""
    if spec == 0 and type(spec) is int and type(x) is np.ndarray:
        return x
    return map_over_spec(lambda leaf, a: replicate_batch(leaf, n) if a is None else
                   (leaf if a in (0, -np.ndim(leaf)) else np.moveaxis(leaf, a, 0)), spec, x)


def vmap_out(x, spec, n):
    """A batched result with its batch axis moved to `out_axes`."""
    if spec == 0 and type(spec) is int and type(x) is np.ndarray and x.ndim:
        return x

    def move(leaf, a):
        if a is None:
            raise _vb_err("vmap has mapped output but out_axes is None")
        leaf = asarray(leaf)
        if not -leaf.ndim <= a < leaf.ndim:
            raise _vb_err(f"vmap out_axes {a} is out of range for an output of rank {leaf.ndim - 1}")
        return leaf if a == 0 else np.moveaxis(leaf, 0, a)
    return map_over_spec(move, spec, x)


def num_examples(x):
    """The batch size of a batched value (its first array leaf's leading axis; a tuple of several
    batched values may start with an empty one, such as the tangent of an axis tuple)."""
    y = x
    while isinstance(y, (tuple, list)) and y:
        y = y[0]
    if type(y) is np.ndarray and y.ndim:
        return y.shape[0]
    for leaf in tree_leaves(x):
        if np.ndim(leaf):
            return BatchSize.of(np.shape(leaf)[0], leaf)
    raise S2SValueError("vmap: no batched argument holds an array, so the batch size is unknown")


def replicate_batch(x, n):
    """An unbatched value made batched: every leaf repeated `n` times along a new axis 0."""
    if type(x) is list and not x:  # (`output = []` before a loop appends to it: quickly)
        return []
    parts = node_children(x)
    if parts is not None:
        return parts[1]([replicate_batch(e, n) for e in parts[0]])
    if isinstance(x, (list, tuple)):
        out = [replicate_batch(e, n) for e in x]
        return tuple(out) if isinstance(x, tuple) else out
    if isinstance(x, dict):
        return {k: replicate_batch(v, n) for k, v in x.items()}
    if x is None or x is Ellipsis or isinstance(x, (range, str, slice, PyTreeDef)):
        return x  # (every example's: a tree's structure, an index's slice or Ellipsis)
    if type(n) is BatchSize:  # a call on another backend: host constants join it
        host = type(x) in NUMBER_TYPES or type(x) is np.ndarray or isinstance(x, np.generic)
        a = n.xp.asarray(x) if host else asarray(x)
        return np.broadcast_to(a, (n,) + a.shape).copy()
    a = asarray(x)
    if type(a) is not np.ndarray:
        return np.broadcast_to(a, (n,) + a.shape).copy()
    if n * a.size > 64:  # a fresh C-ordered array either way; repeat copies whole rows
        return np.repeat(a[None], n, axis=0)
    out = np.empty((n,) + a.shape, a.dtype)  # (small: 4x cheaper than broadcast_to + copy)
    out[...] = a
    return out


def lift_rank(x, other, other_batched, op=""):
    """Batched `x` with unit axes after the batch axis so that it broadcasts per example against
    `other` (batched or not) as the unbatched values would. `op` "*": `x` multiplies `other`, and
    a list or tuple times a NumPy float example (a 0-d example is a NumPy scalar, `x[0]`) is
    Python's repetition by a non-integer, NumPy's TypeError, not a product; times an integer 0-d
    example it is a repetition (refused: its length would differ per example); times examples of
    rank 1 or more, of any dtype, it is NumPy's elementwise product with the list as an array."""
    if type(x) is np.ndarray and type(other) is np.ndarray and x.ndim - 1 >= other.ndim - other_batched:
        return x
    if op == "*" and isinstance(other, (list, tuple)) and np.ndim(x) == 1 and getattr(x, "dtype", None) is not None \
            and x.dtype.kind in "fc":
        # (a 0-d *array* example, which np.roll, np.asarray or np.reshape of a number return, multiplies
        # elementwise instead; batched, the two look alike, so that case is refused, not guessed)
        raise S2STypeError(f"can't multiply sequence by non-int of type 'numpy.{x.dtype}': NumPy raises this for a "
                           "list times a NumPy scalar example (such as x[0]); where each example is a 0-d array "
                           "instead (np.roll, np.asarray or np.reshape of a number), NumPy multiplies elementwise, "
                           "which vmap cannot tell apart here: write np.asarray(the_list) * value")
    if list_meets_array(x, other):
        x = example_array(x)
    if isinstance(x, (list, tuple)) or node_children(x) is not None:  # `+` joins and `*` repeats a list
        return x
    if isinstance(other, (list, tuple)) and getattr(x, "dtype", np.dtype(float)).kind in "iub" and np.ndim(x) <= 1:
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
    x = asarray(x)
    return x.reshape(x.shape[:1] + (1,) * (no - nx) + x.shape[1:])


def unlift_rank(v, x):
    """Transpose of `lift_rank`: `v` in the shape of `x`; a list passed through passes back, one
    made an array is split back into its elements."""
    if isinstance(x, (list, tuple)):
        return v if isinstance(v, (list, tuple)) else example_array_t(np.reshape(v, np.shape(example_array(x))), x)
    return np.reshape(v, np.shape(x))


def _vb_mask(m, like):
    m = asarray(m)
    return m.reshape(m.shape + (1,) * (np.ndim(like) - m.ndim))


def masked_merge(m, new, old):
    """Per example: `new` where mask `m` is set, else `old` (a first assignment has old None)."""
    if old is None or new is old:
        return new
    if isinstance(new, (tuple, list)):
        if not isinstance(old, (tuple, list)) or len(old) != len(new):
            raise _vb_err("a batched branch or loop gives a list or tuple a different length per example")
        out = [masked_merge(m, a, b) for a, b in zip(new, old)]
        return tuple(out) if isinstance(new, tuple) else out
    if isinstance(new, dict):
        if not isinstance(old, dict) or old.keys() != new.keys():
            raise _vb_err("a batched branch or loop gives a dict different keys per example (an `if` on a "
                          "batched value binds a dict with other keys than the other path): give it the same "
                          "keys on both paths, or use a Python loop over the examples")
        return {k: masked_merge(m, new[k], old[k]) for k in new}
    # `new` may be unbatched (a value stored into a slot of a batched array): shape the mask by
    # whichever carries the batch axis
    like = new if np.ndim(new) >= np.ndim(old) else old
    return np.where(_vb_mask(m, like), new, old)


def mask_any(m):
    return bool(np.any(m))


def mask_and(m, c):
    return c if m is None else np.logical_and(m, c)


def mask_and_not(m, c):
    c = np.logical_not(c)
    return c if m is None else np.logical_and(m, c)


def full_mask(n):
    return getattr(n, "xp", np).ones(n, dtype=bool)


def example_getitem(x, index, xb=True, ib=False, clip=True):
    """`x[index]` per example: `x` batched (unless `xb` is False), index parts batched per `ib`
    (`clip`: see batched_key in _index_layout)."""
    if ib and xb and _vb_static_index(index, ib):
        ib = False  # (a slice kept in a batched tuple is marked batched, but every example's)
    if type(index) is slice and type(x) is np.ndarray and not ib:
        return x[:, index]  # the common case first: a slice of a batched array (a view, as NumPy's)
    if isinstance(x, (list, tuple, dict)):
        return x[_vb_one_position(index) if ib else index]
    if not ib:
        shape = np.shape(x)
        key = batched_key(index, False, shape[0], shape)
        out = x[key] if type(x) is np.ndarray else _gather(x, key)
        return out.copy() if np.ndim(out) == 1 else out  # per example a scalar: a copy, as NumPy's
    n = np.shape(_vb_first_batched(index, ib))[0]
    if not xb:
        x = np.broadcast_to(x, (n,) + np.shape(x))
    return _gather(x, batched_key(index, ib, n, np.shape(x), clip))


def _vb_static_index(index, ib) -> bool:
    """Whether every part of `index` flagged batched by `ib` is a slice, None, Ellipsis or range:
    rt.replicate_batch leaves those as they are, so such a part is the same for every example
    (a slice read back from a batched tape tuple under vmap of a nested grad)."""
    parts = index_tuple(index)
    flags = index_tuple(ib) if isinstance(ib, tuple) else (ib,) * len(parts)
    return all(not f or p is None or p is Ellipsis or isinstance(p, (slice, range)) for p, f in zip(parts, flags))


def _vb_first_batched(index, ib):
    parts = index_tuple(index)
    flags = index_tuple(ib) if isinstance(ib, tuple) else (ib,) * len(parts)
    p = next(p for p, f in zip(parts, flags) if f)
    return p[0] if isinstance(p, list) and p else p  # (a batched list: one batched array per entry)


def example_len(x):
    return len(x) if isinstance(x, (list, tuple, dict)) else np.shape(x)[1]


def example_shape(x):
    """Each example's shape (a batched list's: its np.array's, the list's length after the batch axis)."""
    return np.shape(example_array(x) if isinstance(x, (list, tuple)) else x)[1:]


def example_ndim(x):
    return np.ndim(x) - 1


def example_size(x):
    return int(np.prod(example_shape(x)))


def example_axes(x):
    """Every per-example axis of batched `x` (a reduction with axis=None)."""
    return tuple(range(1, np.ndim(x)))


def shared_setting(x, what="an axis or keepdims setting"):
    """A setting (axis, keepdims) that reached batched code broadcast over the batch (saved in a
    backward sweep's record) as the one value it is; one that differs per example is an error."""
    if isinstance(x, (tuple, list)):
        return type(x)(shared_setting(e, what) for e in x)
    if not isinstance(x, np.ndarray) and hasattr(x, "ndim") and not isinstance(x, np.generic):
        x = to_host(x)  # a setting broadcast on a device (CuPy): read it back explicitly
        if x.ndim == 0:
            return x.item()
    if not isinstance(x, np.ndarray) or x.ndim == 0:
        return x
    if not np.all(x == x[:1]):
        raise S2SValueError(f"vmap: {what} differs per example")
    return x[0].item() if x.ndim == 1 else tuple(x[0].tolist())


def example_axis(axis, x=None, none="keep", number=True):
    """A per-example axis (int or tuple; negative ones count from the end) of batched `x`. An axis
    that is None at run time means, as the op's rule says: every per-example axis of `x` ("all",
    reductions), None itself ("keep"), or the flattened example ("flat", not supported here).
    `number` False: the op, as np.mean and np.sort do, has no axis on a 0-d example, and any axis
    is NumPy's AxisError (axis -1 would otherwise run across the examples)."""
    axis = shared_setting(axis)
    if axis is not None and not number and x is not None and np.ndim(x) == 1 and np.size(axis):
        raise np.exceptions.AxisError(int(np.ravel(axis)[0]), 0)
    if axis is None:
        if none in ("all", "norm"):
            return example_axes(x)
        if none == "flat":
            raise S2SValueError("vmap: this op's axis is None only at run time (a variable); it needs the "
                                "flattened example. Pass axis=None literally, or an integer axis.")
        return None
    if none == "all" and np.ndim(x) == 1 and set(np.atleast_1d(axis).tolist()) <= {0, -1}:
        return ()  # a reduction of a number (a 0-d example) along axis 0 or -1 is the number, as in NumPy
    if isinstance(axis, (tuple, list)):
        return tuple(a + 1 if a >= 0 else a for a in axis)
    return axis + 1 if axis >= 0 else axis


def flatten_examples(x):
    x = asarray(x)
    return x.reshape(x.shape[0], -1)


def examples_1d(x):
    """Examples of rank 0 given a trailing axis of length 1: NumPy scans or searches a 0-d array
    along any axis as the flattened array (`np.cumsum(s, axis=-1)` has shape (1,)), while axis -1
    of the batch (n,) would run across the examples."""
    x = asarray(x)
    return x[:, None] if x.ndim == 1 else x


_SMALL_STACK = 65536  # example_array: lists of at most this many elements are copied twice, not stacked


def example_array(x):
    """np.array of a batched list: the batch axis first."""
    if isinstance(x, (list, tuple)):
        if not x:
            return np.array(x)
        if all(type(e) is np.ndarray for e in x):
            if len(x) * x[0].size <= _SMALL_STACK:  # np.stack's Python costs 2-3 us; this, under 1
                return np.array(x).swapaxes(0, 1).copy()  # (arrays of different shapes: NumPy's error)
            return np.stack(x, axis=1)
        parts = [example_array(e) for e in x]  # np.stack, not np.array: it dispatches to the parts' backend
        return np.moveaxis(np.stack(parts) if any(type(p) is not np.ndarray for p in parts) else np.array(parts), 0, 1)
    return asarray(x)


def example_array_t(v, like):
    """Cotangent of `example_array(like)` (the batched `np.array` of a list): the same nesting of lists
    as `like`, each element's slice taken along the list axis that follows the batch axis."""
    if isinstance(like, (list, tuple)):
        return [example_array_t(v[:, i], e) for i, e in enumerate(like)]
    return v


def no_batched_derivative(x, what):
    raise S2SError(f"s2s cannot differentiate the batched helper `{what}` yet: a derivative of a function "
                   "that calls vmap needs it, or vmap(grad(f)) that runs as the gradient of the examples' sum "
                   "(its gradient code cannot be batched). Where you wrote grad of a vmap, write vmap(grad(f)); "
                   "where you wrote vmap(grad(f)), compute each example's gradient in a loop.")


def map_examples(fn, flags, n, *args, **kwargs):
    """The fallback for the few ops without a vectorized batching rule: one call per example,
    stacked. Listed in primitives/batching.py as LOOPED."""
    fn_name, fn = fn, op_named(fn)
    # Each example gets its own copy of the unbatched arguments: some helpers (rt.add_at, rt.take_at)
    # update an argument in place, and one shared array would carry one example's update into the next.
    kflags = dict(zip(kwargs, flags[len(args):]))  # flags cover the keyword arguments after the positional ones

    def part(a, batched, k):  # (a range, an index's slice, ... are every example's: replicate_batch leaves them)
        return tree_map(lambda leaf: leaf if leaf is None or isinstance(leaf, (range, str, slice, type(Ellipsis), PyTreeDef))
                        else leaf[k], a) if batched else tree_map(own_copy, a)
    outs = [fn(*[part(a, f, k) for a, f in zip(args, flags)],
               **{key: part(a, kflags.get(key), k) for key, a in kwargs.items()}) for k in range(n)]
    return stack_examples(same_shapes(outs, fn_name))


def example_key(index, ib, a, clip=True):
    """The key of `a[index]` per example on batched `a` (batched index parts per `ib`; `clip`:
    see batched_key): a batched list's or dict's is the one position every example names."""
    if isinstance(a, (list, dict)):
        return _vb_one_position(index) if ib else index
    return batched_key(index, ib, np.shape(a)[0], np.shape(a), clip)


def lift_rank_to_slot(v, a, key):
    """Batched `v` with unit axes after the batch axis to fill the slot `a[key]` per example."""
    nd = np.ndim(a[key])
    v = asarray(v)
    return v if v.ndim >= nd else v.reshape(v.shape[:1] + (1,) * (nd - v.ndim) + v.shape[1:])


def vmap_in_t(v, like, spec):
    """Transpose of vmap_in: the batch axis moved back (summed where the leaf was broadcast)."""
    def back(leaf, a):
        return np.sum(leaf, axis=0) if a is None else (leaf if a == 0 else np.moveaxis(leaf, 0, a))
    out = map_over_spec(back, spec, v)
    return reshape_like(out, like) if not isinstance(like, (tuple, list, dict)) else out


def vmap_out_t(v, spec):
    return map_over_spec(lambda leaf, a: leaf if a in (0, None) else np.moveaxis(leaf, a, 0), spec, v)


def sequence_batch(x, other):
    """An unbatched operand `x` of `+` whose other operand is batched: where both are lists or
    tuples, `+` joins them, so `x`'s items are repeated along the other's batch to hold it as the
    other's do; anything else as it is (a list plus an array is NumPy's sum: `lift_rank` broadcasts)."""
    if isinstance(x, (list, tuple)) and isinstance(other, (list, tuple)) and other:
        return replicate_batch(x, num_examples(other))
    return x


def sequence_batch_t(v, like, other):
    """Transpose of sequence_batch."""
    joined = isinstance(like, (list, tuple)) and isinstance(other, (list, tuple)) and other
    return replicate_batch_t(v, like) if joined else v


def replicate_batch_t(v, like):
    """Transpose of replicate_batch: the batch summed out, shaped like the unbatched value."""
    if isinstance(like, (list, tuple)):
        out = [replicate_batch_t(a, b) for a, b in zip(v, like)]
        return tuple(out) if isinstance(like, tuple) else out
    if isinstance(like, dict):
        return {k: replicate_batch_t(v[k], like[k]) for k in like}
    s = np.sum(v, axis=0)
    return reshape_like(s, like)


def example_getitem_t(v, x, index, xb=True, ib=False):
    """Transpose of example_getitem: `v` added into zeros shaped like `x` at the indexed places."""
    if isinstance(x, (list, tuple, dict)):
        index = _vb_one_position(index) if ib else index
        z = zeros_like_tree(x)
        z = list(z) if isinstance(z, tuple) else z
        z[index] = v
        return tuple(z) if isinstance(x, tuple) else z
    n = np.shape(v)[0]
    shape = np.shape(x) if xb else (n,) + np.shape(x)
    z = zeros(shape, v, dtype=np.result_type(getattr(v, "dtype", type(v)), float))
    z = scatter_add(z, batched_key(index, ib, n, shape), v)
    return z if xb else z.sum(axis=0)


def example_add_at(acc, v, index, xb=True, ib=False, clip=True):
    """`acc + example_getitem_t(v, acc, index, xb, ib)`, added into `acc` in place where it can (the sweep
    owns `acc`): a batched `x[:, i]` in a loop then costs its slot per iteration, not a zeros array
    the size of `x`, as reverse mode's `rt.add_at` does for the plain `x[i]`."""
    if not xb or isinstance(acc, (list, tuple, dict)) or np.ndim(acc) == 0 or \
            np.result_type(acc, getattr(v, "dtype", type(v))) != acc.dtype:
        return tree_add(acc, example_getitem_t(v, acc, index, xb, ib))
    return add_at(acc, batched_key(index, ib, np.shape(acc)[0], np.shape(acc)), v)


def sum_examples(v):
    """The sum of a batch of per-example scalars (what vmap(grad(f)) differentiates: the examples
    are independent, so the gradient of the sum is each example's gradient)."""
    if np.ndim(v) != 1:
        raise S2STypeError(f"grad requires a scalar output, but the function returned shape {np.shape(v)[1:]} "
                           "per example.")
    return np.sum(v)


# ---- vmap's gather ----
def _gather(x, key):
    """`x[key]` (vmap's gather: the examples' positions first, then index arrays); for a Dask `x`
    with two or more index arrays, which Dask's indexing refuses, Dask's `vindex` of the arrays on
    the host (NumPy's rule here, since the examples' positions come first; a Dask index is
    computed, as `scatter_add` does)."""
    if not type(x).__module__.startswith("dask"):
        return x[key]
    key = host_index(key)
    return x.vindex[key] if sum(isinstance(p, np.ndarray) and p.ndim > 0 for p in key) > 1 else x[key]
