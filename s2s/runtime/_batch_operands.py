"""Small facts about batched operands that the batching helpers (batch_core, batch_shape,
batch_reduce, batch_linalg) share: an operand as an array of its backend, its per-example rank and
axes, with or without the batch axis, the rules built from a helper's array, axis and setting
arguments, the one setting every example carries, and the per-example einsum of a product.
Generated code never calls these, so this module has no export list and `rt` does not see them."""
from __future__ import annotations

import numpy as np

from ..base.tree import tree_leaves, tree_map
from ..errors import S2STypeError, S2SValueError
from .batch import map_examples, num_examples, shared_setting
from .core import asarray, namespace


def array_of(x):
    """`x` as an array of its own backend (a list of a backend's arrays too): np.asarray would
    move a CuPy array to the host or turn a backend's array subclass into a NumPy one."""
    if type(x) is np.ndarray:
        return x
    if isinstance(x, (list, tuple)):
        leaf = next((v for v in tree_leaves(x) if hasattr(v, "shape")), None)
        return np.asarray(x) if leaf is None or type(leaf) is np.ndarray else namespace(leaf).asarray(x)
    return asarray(x)


def is_array(x):
    """Whether `x` is an array of any backend (not a list or tuple of them)."""
    return type(x) is np.ndarray or hasattr(x, "shape") and not isinstance(x, (list, tuple, dict, np.generic))


def count_examples(flags, args):
    return num_examples(next(a for a, fl in zip(args, flags) if fl))


def example_rank(x, fl):
    """Per-example rank."""
    return np.ndim(x) - (1 if fl else 0)


def one_example(x, fl):
    """One example (for shapes)."""
    return x[0] if fl else x


def with_batch(x, fl, n):
    """`x` with the batch axis (a broadcast view when unbatched)."""
    x = array_of(x)
    return x if fl else np.broadcast_to(x, (n,) + x.shape)


def example_rows(x, fl, n):
    x = array_of(x)
    return x.reshape(n, -1) if fl else np.broadcast_to(x.ravel(), (n, x.size))


def shifted_axis(axis, nd):
    """A per-example axis (int or tuple, negative ones too) as an axis of the batched array; an
    axis out of an example's range raises NumPy's AxisError, as the example's call would (wrapped
    around, np.gradient(a, axis=5) under vmap gave a number)."""
    if isinstance(axis, (tuple, list)):
        return tuple(shifted_axis(a, nd) for a in axis)
    n = max(nd, 1)
    if not -n <= int(axis) < n:
        raise np.exceptions.AxisError(int(axis), nd)
    return int(axis) % n + 1


def all_example_axes(nd):
    return tuple(range(1, nd + 1))


def lift_to_rank(x, fl, rank):
    """Batched `x` with unit axes after the batch axis up to per-example rank `rank` (unbatched `x`
    broadcasts from the right already)."""
    if not fl:
        return x if type(x) in (int, float, bool, complex) else array_of(x)
    x = array_of(x)
    k = rank - (x.ndim - 1)
    return x if k <= 0 else x.reshape(x.shape[:1] + (1,) * k + x.shape[1:])


def lift_loop_axes(x, fl, core, loops):
    """Batched `x` with unit axes after the batch axis so that its loop (non-core) axes number
    `loops`: a gufunc then broadcasts the batch against the other operand's loop axes."""
    return lift_to_rank(x, fl, loops + core)


def loop_examples(name, flags, *args):
    return map_examples(name, flags, count_examples(flags, args), *args)


# ---- derivative helpers (vmap of grad): the same facts, shifted past the batch axis ----
def shifted_rule(fn, arrays, axes=(), statics=(), ref=0, none="all"):
    """The batching rule of helper `fn(*args)`: arguments at `arrays` are arrays (broadcast over the
    batch when unbatched), at `axes` axes of the array at `ref` (shifted past the batch; None:
    every per-example axis, or a per-example call when `none` is "loop"), at `statics` settings."""
    def rule(flags, *args):
        args = list(args)
        for k in statics + axes:
            if flags[k]:
                args[k] = shared_setting(args[k])
        known = set(arrays + axes + statics)
        nd = example_rank(args[ref], flags[ref])
        if any(fl for k, fl in enumerate(flags) if k not in known) or none == "loop" and (
                nd == 0 and axes or any(args[k] is None for k in axes)):  # (a scan of a number: per example)
            return map_examples("rt." + fn.__name__, flags, count_examples(flags, args), *args)
        n = count_examples(flags, args)
        for k in arrays:
            args[k] = with_batch(args[k], flags[k], n)
        for k in axes:
            # (a number: no axis)
            args[k] = all_example_axes(nd) if args[k] is None or nd == 0 else shifted_axis(args[k], nd)
        return fn(*args)
    return rule


# ---- derivative helpers that read only shapes and settings: computed once, from one example ----
def first_example(tree, flag):
    return tree_map(lambda leaf: leaf[0], tree) if flag else tree


def static_rule(fn, shape_only):
    def rule(flags, *args):
        for k, (a, fl) in enumerate(zip(args, flags)):
            if fl and k not in shape_only and not same_every_example(a):
                raise S2SValueError(f"vmap: `{fn.__name__}` (a derivative helper) got settings that differ per "
                                    "example (np.delete positions, tensordot axes); compute them outside the vmap")
        return fn(*[first_example(a, fl) for a, fl in zip(args, flags)])
    return rule


def same_every_example(a):
    """Whether every example of batched `a` is the same (settings saved for the backward sweep are
    broadcast over the batch)."""
    return all(np.all(array_of(x) == array_of(x)[:1]) for x in tree_leaves(a))


def dot_spec(a, b, ab, bb, op):
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


def one_setting(v, batched, kind):
    """A setting (a transform's length, axes or norm; a window's shape) that vmap carried per example
    (a tuple saved for the backward sweep is stacked): the one value every example has, or refused
    when they differ."""
    if not batched:
        return v
    if isinstance(v, (tuple, list)):
        return type(v)(one_setting(e, True, kind) for e in v)
    first = np.asarray(v).reshape(-1)
    if first.size and (first == first[0]).all():
        return first[0].item()
    raise S2STypeError(f"vmap of {kind}: its settings (lengths, axes, norm, window shape) must be the same for "
                       "every example")
