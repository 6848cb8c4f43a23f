"""The helpers every transform's generated code calls (as `rt`): broadcasting and casts, pytrees,
accumulation in place, and the copies that keep generated functions pure. Each has a fast path
for the common case (same shapes).

They take their array module from their arguments, so one generated source runs on another
array library: computations use array methods and NumPy functions (which dispatch to the
arguments' library through `__array_function__`), and every new array is allocated by the
module `namespace(arg)` returns. NumPy's dtype objects and shape queries are library-neutral.
"""
from __future__ import annotations

import sys

import numpy as np

from ..backends import arrays
from ..base import tree, vspace
from ..base.tree import node_children, tree_flatten
from ..errors import S2STypeError, S2SValueError
from ._values import NUMBER_TYPES, float_dtype, host_index, is_fancy, shape_of, size_of

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("shape", "namespace", "asarray", "to_host", "on_backend_of", "zeros", "unbroadcast", "operand_cotangent",
           "operand_cotangent_t", "plain_operands",
           "broadcast_to_like", "widen_float", "cast_like", "cast_to", "cast_to_d", "reshape_like", "tree_all_zero",
           "zeros_like_tree", "tree_add", "tree_add_into", "add_at", "scatter_add", "take_at", "take_at_t",
           "copy_slot", "restore_slot", "element_copy",
           "new_list", "zeros_list", "shapes_match", "seed", "seed_aux", "like", "fresh", "zero_at", "constant",
           "copy_saved", "checkpoint_name", "next_residual", "residual_derivative",
           "reversed_range", "list_sum", "list_sum_vjp", "zero_of_real")

shape = np.shape


_AXES: dict = {}


def namespace(x):
    """The array module of `x`: its s2s backend's namespace (CuPy, Dask: s2s.backends.arrays), else its
    `__array_namespace__()` (NumPy >= 2, array-API libraries), the loaded library its type comes
    from, else NumPy (Python scalars)."""
    if type(x) is np.ndarray:  # (the common case, without the lookups: a NumPy array's is NumPy)
        return np
    backend = arrays.backend_of(x)
    if backend is not None and backend is not arrays.NUMPY:
        return backend.xp
    get = getattr(x, "__array_namespace__", None)
    if get is not None:
        try:
            return get()
        except (TypeError, AttributeError):
            pass
    top = type(x).__module__.partition(".")[0]
    if top in ("numpy", "builtins"):
        return np
    mod = sys.modules.get("dask.array" if top == "dask" else top)
    return mod if mod is not None and hasattr(mod, "zeros") else np


def asarray(x, dtype=None):
    """`x` as an array of its own backend (np.asarray would copy a CuPy array to the host, or
    refuse it). NumPy arrays and Python numbers take the fast path."""
    t = type(x)
    if t is np.ndarray and dtype is None:
        return x
    if t is np.ndarray or t in NUMBER_TYPES or isinstance(x, (list, np.generic)):
        return np.asarray(x, dtype=dtype)
    return namespace(x).asarray(x, dtype=dtype)


def to_host(x):
    """Device array `x` as a NumPy array, explicitly (CuPy's `.get()`; Dask computes through
    `np.asarray`): for shape settings and positions that NumPy code reads. Other values as they are."""
    if isinstance(x, (np.ndarray, np.generic)) or not hasattr(x, "ndim"):
        return x
    return x.get() if hasattr(x, "get") else np.asarray(x)


def on_backend_of(v, like):
    """`v` as an array of `like`'s backend when `v` is a host number (the cotangent 1.0 of a
    scalar loss) or NumPy array (a reduction's `where=` mask, a constant of the function) and `like`
    lives elsewhere (CuPy): NumPy functions of `v` alone would otherwise make a NumPy array that the
    backend refuses to combine with its own."""
    if type(like) is np.ndarray or not (type(v) in NUMBER_TYPES or isinstance(v, (np.generic, np.ndarray))):
        return v
    xp = namespace(like)
    if xp is np:
        return v
    weak = type(v) in (int, float)  # a Python number is weak in NumPy 2: it takes like's float dtype
    return xp.asarray(v, dtype=float_dtype(like) if weak else None)


def zeros(shape, like, dtype=None):
    """Zeros of `shape` in the array module of `like`, in its floating dtype unless `dtype` is given."""
    return namespace(like).zeros(shape, dtype=float_dtype(like) if dtype is None else dtype)


_SEQUENCE_AS_ARRAY = (
    "s2s differentiated `a + b` or `a * n` as arithmetic on arrays, but it joined or repeated a list or "
    "tuple: the function's code does not show that an operand is a sequence (a list passed in as an "
    "argument). Write `list(a)` or `tuple(a)` in the function before `+` or `*` so s2s sees a sequence.")


def _complex_cotangent(v, like):
    """A complex cotangent `v` of `like`: its real part when `like` is real (JAX's convention: the
    transpose of NumPy's cast of a real operand to complex, as in `np.real(x * 1j)`)."""
    return v if np.iscomplexobj(like) else v.real


def unbroadcast(v, like):
    """Sum `v` down to the shape of `like` (the transpose of broadcasting)."""
    if type(v) is _F64 is type(like):  # (two float64 numbers, a scalar loss's parts: `v` itself)
        return v
    if type(v) is np.ndarray is type(like) and v.dtype is like.dtype and v.shape == like.shape:
        return v  # (NumPy arrays of one shape and dtype: what the checks below return, at once)
    try:  # arrays of one shape first: what most calls are (the common case costs three attributes)
        s, vs, dt = like.shape, v.shape, like.dtype
    except AttributeError:
        if isinstance(v, float) and isinstance(like, float):
            return v  # Python (or NumPy) scalars: nothing to sum
        s, vs, dt = shape_of(like), shape_of(v), getattr(like, "dtype", None)
    if v.dtype.kind == "c" if type(v) is np.ndarray else isinstance(v, complex):  # (NumPy's complex scalars too)
        v = _complex_cotangent(v, like)
    if dt is not None and dt.itemsize < 8 and dt.kind == "f" and getattr(v, "dtype", dt) != dt:
        v = v.astype(dt)  # a cotangent takes its primal's dtype (JAX): float32 `like` promoted by NumPy
    if vs == s:
        return v
    if isinstance(v, (list, tuple)):
        raise S2STypeError(_SEQUENCE_AS_ARRAY)
    key = (vs, s)
    plan = _AXES.get(key)
    if plan is None:
        lead = len(vs) - len(s)
        axes = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(s) if n == 1 and vs[i + lead] != 1)
        kept = tuple(n for i, n in enumerate(vs) if i not in axes)
        plan = _AXES[key] = (axes[0] if len(axes) == 1 else axes, kept != s)
    axes, reshape = plan
    out = v.sum(axis=axes) if hasattr(v, "sum") else np.sum(v, axis=axes)
    return np.reshape(out, s) if reshape else out


def _sequence_op(me, other) -> bool:
    """Whether `me + other` or `me * other` concatenates or repeats: an operand is a list or tuple
    and the other is no array (an array's operator takes the list first and broadcasts it:
    `[1.0, 2.0] * x` is elementwise for a NumPy `x`, and so for a NumPy scalar)."""
    if isinstance(me, (list, tuple)):
        return not hasattr(other, "shape")
    return isinstance(other, (list, tuple)) and not hasattr(me, "shape")


def operand_cotangent(ct, operand, other, op, operand_first, wrt_other=0):
    """Cotangent of operand `operand` of `me + other` or `me * other` (op "add"/"mul"; `operand_first`: `operand` is
    the left operand) given the result's cotangent `ct`. Lists and tuples concatenate and repeat:
    `operand`'s part of `ct`, or the sum of `ct`'s chunks (an int count gets none); arrays broadcast:
    `ct` (times `other`) summed down to `operand`'s shape. `wrt_other` marks this map's derivative with respect
    to `other`, which only an array product has (the transforms decide nothing statically here
    that the operands' run-time types could contradict)."""
    if op == "add" and not wrt_other and type(ct) is np.ndarray and type(operand) is np.ndarray \
            and ct.shape == operand.shape and ct.dtype == operand.dtype:
        return ct  # (a NumPy array's cotangent of its own shape and dtype: what unbroadcast returns)
    if not _sequence_op(operand, other):
        if op == "add":
            return zeros_like_tree(operand) if wrt_other else unbroadcast(ct, operand)
        return unbroadcast(ct * _as_operand(other), operand)
    if wrt_other or not isinstance(operand, (list, tuple)):
        return zeros_like_tree(operand)
    m = len(operand)
    if op == "add":
        return ct[:m] if operand_first else ct[len(ct) - m:]
    out = zeros_like_tree(operand)
    for k in range(len(ct) // m if m else 0):
        out = tree_add(out, ct[k * m:(k + 1) * m])
    return out


def _as_operand(other):
    """A list or tuple of numbers in an array product is the array NumPy makes of it (a NumPy
    scalar times a list would be Python's repetition, an error)."""
    return np.asarray(other) if isinstance(other, (list, tuple)) else other


def operand_cotangent_t(g_, ct, operand, other, op, operand_first, wrt_other=0):
    """Transpose of `operand_cotangent` in `ct` (`ct` gives the result's structure): `g_` put in `operand`'s place
    among zeros, or repeated as the sequence was; for arrays `g_` (times `other`) broadcast back."""
    if not _sequence_op(operand, other):
        if op == "add" and wrt_other:
            return zeros_like_tree(ct)
        out = widen_float(g_ if op == "add" else g_ * _as_operand(other), ct)  # (broadcast_to_like's reason)
        s = shape_of(ct)
        return out if shape_of(out) == s else np.broadcast_to(out, s).copy()
    if wrt_other or not isinstance(operand, (list, tuple)):
        return zeros_like_tree(ct)
    if op == "mul":
        return type(ct)(list(g_) * (len(ct) // len(operand) if len(operand) else 0))
    rest = list(zeros_like_tree(ct[len(operand):] if operand_first else ct[:len(ct) - len(operand)]))
    return type(ct)(list(g_) + rest if operand_first else rest + list(g_))


def plain_operands(operand, other) -> bool:
    """Whether neither operand of `+`/`*` is a list, tuple or dict: then `operand_cotangent` is the
    broadcasting rule of arrays and numbers, which vmap writes with primitives that have
    derivatives (transforms/batching.py), so a gradient of the batched code can differentiate it."""
    return not isinstance(operand, (list, tuple, dict)) and not isinstance(other, (list, tuple, dict))


def broadcast_to_like(v, like):
    """Broadcast `v` to the shape of `like`, as a fresh writable array when shapes differ, and in
    `like`'s float dtype where that is wider: the tangent of `acc + sin(y.astype(np.float32))` with
    `acc` float64 and constant is float64, as its primal (float32 would round what is stored into it)."""
    v = widen_float(v, like)
    s = np.shape(like)
    if np.shape(v) == s:
        return v
    return np.broadcast_to(v, s).copy()


def widen_float(v, like):
    """`v` in `like`'s float dtype where both are floats and `like`'s is the wider, else `v`."""
    dv, dl = getattr(v, "dtype", None), getattr(like, "dtype", None)
    if dv is None or dl is None or dv == dl or dv.kind != "f" or dl.kind != "f" or dl.itemsize <= dv.itemsize:
        return v
    return v.astype(dl)


def cast_like(v, like):
    """`v` in the floating dtype of `like`: a cotangent takes its primal's dtype, as in JAX (float32
    inputs get float32 gradients even where NumPy promotes a result to float64)."""
    dt = float_dtype(like)
    return v.astype(dt) if getattr(v, "dtype", dt) != dt else v


def cast_to(v, like):
    """`v` in the dtype of array `like`, as NumPy stores values into an existing array
    (`np.insert`): floats put into an int array are truncated."""
    dt = getattr(like, "dtype", None)
    return v.astype(dt) if dt is not None and getattr(v, "dtype", dt) != dt else v


def cast_to_d(t, like):
    """Derivative of `cast_to(v, like)` applied to `t` (a tangent or cotangent): `t` in `like`'s
    dtype where that is inexact, zeros where it is an integer dtype (truncation is flat)."""
    dt = getattr(like, "dtype", None)
    if dt is None or dt.kind in "fc":
        return cast_to(t, like)
    return zeros_like_tree(t)


def reshape_like(v, like):
    """`v` in the shape of `like`. Sizes that differ are a cotangent of the wrong length (a list's,
    issue 27): refused, never a raw NumPy error."""
    try:
        return np.reshape(v, np.shape(like))
    except ValueError:
        if np.size(v) == np.size(like):
            raise
        raise S2SValueError(f"s2s: a cotangent of {np.size(v)} numbers met a value of shape {np.shape(like)} while "
                            "differentiating a list built in place: s2s cannot differentiate this program at this "
                            "order (issue 27); please report it") from None


# ---- pytrees and lists in derivative code ----


def tree_all_zero(x) -> bool:
    """Whether every leaf of a cotangent is zero (a custom_jvp function's transposed rule then
    has nothing to do, which ends the recursion of a rule that calls its own function)."""
    return all(v is None or not np.any(v) for v in tree_flatten(x)[0])


def zeros_like_tree(x):
    """Zero cotangent with the structure of `x`: tuples, lists and dicts of arrays (ints give 0.0);
    a vector-space value's is its space's zero."""
    if vspace.SPACES and type(x) in vspace.SPACES:
        return vspace.SPACES[type(x)].zeros(x)
    kids = node_children(x) if type(x) in tree.NODES else None
    if kids is not None:  # a registered pytree node: one of its type and static data
        return kids[1]([zeros_like_tree(e) for e in kids[0]])
    if type(x) is np.ndarray:  # (the common case first: what the last line does for it)
        return np.zeros(x.shape, dtype=x.dtype if x.dtype.kind in "fc" else np.float64)
    if isinstance(x, (list, tuple)):
        parts = [zeros_like_tree(e) for e in x]
        return (type(x)(*parts) if hasattr(x, "_fields") else tuple(parts)) if isinstance(x, tuple) else parts
    if isinstance(x, dict):
        return {k: zeros_like_tree(v) for k, v in x.items()}
    if x is None or isinstance(x, (range, str, slice)):
        return x  # carries no derivative; kept so code that indexes or slices it still runs
    if isinstance(x, (int, float, bool)) or np.ndim(x) == 0 and not hasattr(x, "dtype"):
        return 0.0
    dt = x.dtype if np.issubdtype(x.dtype, np.inexact) else np.float64
    return namespace(x).zeros(np.shape(x), dtype=dt)


def tree_add(a, b):
    """Sum two cotangents of the same structure. Two cotangents of one list may differ in length
    only where the shorter is a zero built from the list at a later point, after pops (a record
    keeps the list object, not its length at the time); any other mismatch is refused, never
    padded, since its items would meet the wrong items. Values of a vector space meet through
    its `add`."""
    if vspace.SPACES and (vspace.space_of(a) is not None or vspace.space_of(b) is not None):
        return _space_add(a, b)
    if type(a) in tree.NODES and type(b) is type(a):  # registered pytree nodes: child by child
        kids, rebuild = node_children(a)
        return rebuild([tree_add(x, y) for x, y in zip(kids, node_children(b)[0])])
    if type(a) is np.ndarray is type(b):  # (two NumPy arrays, the common case: what the last line does)
        return a + b
    if isinstance(a, (list, tuple)):
        out = [tree_add(x, y) for x, y in zip(a, b)]
        if len(a) != len(b):
            _check_padding(a, b)
            out.extend((a if len(a) > len(b) else b)[len(out):])
        if isinstance(a, tuple) and hasattr(a, "_fields"):  # a namedtuple's cotangent keeps its type
            return type(a)(*out)
        if isinstance(b, tuple) and hasattr(b, "_fields") and len(out) == len(b):
            return type(b)(*out)
        return tuple(out) if isinstance(a, tuple) else out
    if isinstance(a, dict):  # (a dict whose keys grew in a loop: a key one side lacks has a zero cotangent)
        out = {k: tree_add(a[k], b[k]) if k in b else a[k] for k in a}
        out.update((k, v) for k, v in b.items() if k not in a)
        return out
    if a is None or isinstance(a, (range, str, slice)):
        return b
    if b is None or isinstance(b, (range, str, slice)):
        return a
    return a + b


def tree_add_into(a, b, plain=False):
    """`tree_add(a, b)` (`a + b` where `plain`: shape folding's form of it), written into `b`'s array
    where `b` is a NumPy float array of `a`'s shape and dtype (jit's passes/sum_into.py calls it
    where `b` is a cotangent's own array that nothing reads after): the same ufunc on the same
    operands, without a new array; anything else the long way."""
    if type(a) is np.ndarray is type(b) and a.shape == b.shape and a.ndim and a.dtype == b.dtype \
            and a.dtype.kind in "fc" and b.flags.writeable \
            and not (vspace.SPACES and (vspace.space_of(a) is not None or vspace.space_of(b) is not None)):
        return np.add(a, b, out=b)
    return a + b if plain else tree_add(a, b)


def _space_add(a, b):
    """The sum of two cotangents of a vector-space value (s2s/base/vspace.py): its space's add; a
    zero (None, 0) adds nothing. Any other value (a number from arithmetic on the value that s2s
    cannot follow) is refused, never added."""
    for x, y in ((a, b), (b, a)):
        if y is None or isinstance(y, (int, float)) and y == 0 and not isinstance(y, bool):
            return x
    sa, sb = vspace.space_of(a), vspace.space_of(b)
    if sa is not None and sb is sa:
        return sa.add(a, b)
    cls = (sa or sb).cls.__name__
    other = b if sa is not None else a
    raise S2SValueError(
        f"s2s cannot add a cotangent of a {cls} (a vector-space value) to a {type(other).__name__}: the "
        f"transformed function uses the {cls} in a way s2s does not differentiate (arithmetic on it, or an "
        f"attribute read), so its derivative would be wrong; s2s differentiates a {cls} only through calls "
        "of it whose class's `__call__` has derivative rules.")


def _check_padding(a, b):
    """Refuse to sum two cotangents of one container of different lengths unless they are lists and
    the shorter is all zeros (a zero of the list after pops): else the sum would be a wrong number."""
    short = a if len(a) < len(b) else b
    if isinstance(a, list) and isinstance(b, list) and not any(
            np.any(leaf != 0) for leaf in tree_flatten(short)[0] if leaf is not None):
        return
    raise S2SValueError(
        f"s2s: the cotangent of a list or tuple met a cotangent of another length ({len(a)} and {len(b)} "
        "items) while differentiating a container updated in place: s2s cannot differentiate this "
        "program at this order (issue 27); please report it")


def add_at(acc, index, v):
    """Add cotangent `v` of `x[index]` into the cotangent `acc` of `x`, in place where it can."""
    if type(acc) is np.ndarray and (type(index) in _INT_INDEX or type(index) is tuple
                                    and _INT_INDEX.issuperset(map(type, index))):  # (the common cases: one item
        try:  # of a NumPy array, `b[i, 0]` included, which the last lines do after their checks)
            acc[index] += v
            return acc
        except TypeError:  # (NumPy's casting error: the last lines raise it again or add the real part)
            pass
    if isinstance(acc, tuple):
        out = list(acc)
        out[index] = tree_add(out[index], v)
        return type(acc)(*out) if hasattr(acc, "_fields") else tuple(out)
    if isinstance(acc, (list, dict)):  # a new container: an adjoint never aliases another name's
        out = type(acc)(acc) if type(acc) in (list, dict) else acc
        out[index] = tree_add(out[index], v)
        return out
    if type(index) is tuple and not index and not hasattr(acc, "__setitem__"):  # (`x[()]` of a 0-d value, whose
        return acc + v  # cotangent may be a number)
    try:
        if is_fancy(index) or _dask_cannot_set(acc, index):
            return scatter_add(acc, index, v)
        acc[index] += v
    except TypeError:  # (NumPy's casting error, raised before it writes)
        if not _complex_into_real(acc, v):
            raise
        return add_at(acc, index, v.real)
    return acc


def _complex_into_real(acc, v) -> bool:
    """Whether cotangent `v` is complex and `acc`, a real `x`'s, real: only `v`'s real part pairs
    with `x`'s tangent (a simplification may drop the real part: a same-shape `unbroadcast`)."""
    return hasattr(v, "dtype") and np.iscomplexobj(v) and hasattr(acc, "dtype") and not np.iscomplexobj(acc)


_F64 = np.float64
_INT_INDEX = frozenset({int, np.int64, np.int32, np.intp})


def _dask_cannot_set(acc, index) -> bool:
    """Whether `acc[index] += v` is beyond Dask's item assignment (an index holding None)."""
    return type(acc).__module__.startswith("dask") and any(
        p is None for p in (index if isinstance(index, tuple) else (index,)))


def scatter_add(out, index, v):
    """`np.add.at(out, index, v)` on the backend of `out`, returning the sum: `out` itself, added
    in place (NumPy, CuPy: its `add.at`), or a new array (Dask, whose arrays are immutable)."""
    xp = namespace(out)
    add_at_fn = getattr(getattr(xp, "add", None), "at", None)
    if add_at_fn is None and type(out).__module__.startswith("cupy"):  # older CuPy: cupyx.scatter_add
        add_at_fn = getattr(sys.modules.get("cupyx"), "scatter_add", None)
    if add_at_fn is None and type(out).__module__.startswith("dask"):
        return _dask_scatter_add(xp, out, index, v)
    if add_at_fn is None:  # pragma: no cover - every built-in backend has a form
        raise S2SValueError(f"s2s: the derivative of indexing with an index array (x[idx] with repeated entries "
                            f"summed) needs `add.at`, which {type(out).__module__.partition('.')[0]} arrays lack; "
                            "compute the input first (Dask: `x.compute()`) or index with slices")
    if xp is not np:  # NumPy index arrays (a constant of the function) join the backend, as CuPy needs
        parts = index if isinstance(index, tuple) else (index,)
        parts = tuple(xp.asarray(p) if type(p) is np.ndarray else p for p in parts)
        index = parts if isinstance(index, tuple) else parts[0]
    add_at_fn(out, index, v)
    return out


def _dask_scatter_add(da, out, index, v):
    """Dask's form of `add.at`: the flat position each element of `out[index]` names (computed
    from the shape, on the host), then a weighted `bincount` of `v` over those positions."""
    shape = out.shape
    n = size_of(out)
    pos = np.arange(n).reshape(shape)[host_index(index)]
    w = da.ravel(da.broadcast_to(da.asarray(v), pos.shape)).astype(out.dtype)
    hits = da.from_array(np.ravel(pos), chunks=w.chunks)
    return out + da.reshape(da.bincount(hits, weights=w, minlength=n), shape)


def take_at(acc, index, like):
    """For `x[index] = v`: the cotangent of `v` (a copy), and `acc` with that slot set to zero."""
    if isinstance(acc, (list, dict, tuple)):
        v = slot = acc[index]
        if type(like) is np.ndarray and (type(v) is not np.ndarray or v.shape != like.shape):
            v = _as_like(v, like)  # (shape folding reads the cotangent taken out as of `like`'s shape)
        if isinstance(acc, tuple):
            acc = list(acc)
            acc[index] = zeros_like_tree(slot)
            return v, tuple(acc)
        acc[index] = zeros_like_tree(slot)
        return v, acc
    v = namespace(acc).asarray(acc[index]).copy()  # (Dask's `array` takes no copy=)
    if is_fancy(index):
        v = v * _kept_writes(acc, index)
    v = unbroadcast(v, like)
    acc[index] = 0
    return v, acc


def _kept_writes(x, index):
    """For `x[index] = v` with a fancy index: 1 where the write to that position is the one NumPy
    kept (the last of repeated positions), 0 where a later write overwrote it."""
    n = int(np.prod(np.shape(x[index]), dtype=np.int64))
    xp = namespace(x)
    order = xp.arange(n).reshape(np.shape(x[index]))
    ids = xp.full(np.shape(x), -1, dtype=np.int64)
    ids[index] = order
    return ids[index] == order


def _as_like(v, like):
    """A slot's cotangent `v` taken out for the array `like` stored there, in `like`'s shape: the
    sum down to it (as for an array's slot), or zeros where `v` is the zero (or None) a later
    store of another shape or kind left in the slot."""
    zero = lambda: np.zeros(like.shape, like.dtype if like.dtype.kind in "fc" else np.float64)  # noqa: E731
    if type(v) is not np.ndarray:  # (a number's zero the slot held before an array was stored there)
        return zero() if v is None or isinstance(v, (int, float, complex, np.number)) and v == 0 else v
    try:
        return unbroadcast(v, like)
    except ValueError:
        if not np.any(v):
            return zero()
        raise


def take_at_t(g, index, acc):
    """Transpose of `take_at(., index, like)`: cotangent (g_v, g_acc) back onto the array."""
    gv, gacc = g
    out = zero_at(fresh(gacc), index)
    if isinstance(out, (list, dict, tuple)):
        return add_at(out, index, gv)
    out[index] += broadcast_to_like(gv, acc[index])
    return out


class _MissingSlot:
    """What copy_slot saves for a key a dict did not have (restore_slot removes it again)."""

    def __repr__(self):
        return "<no item>"


_MISSING_SLOT = _MissingSlot()


def copy_slot(x, index):
    """A copy of `x[index]`, saved before `x[index] = v` overwrites it (a dict's new key: _MISSING_SLOT)."""
    if isinstance(x, dict) and index not in x:
        return _MISSING_SLOT
    v = x[index]
    return v.copy() if hasattr(v, "copy") and not isinstance(x, (list, tuple, dict)) else v


def restore_slot(x, index, v):
    """`x[index] = v`, the item copy_slot saved; a key the dict did not have is removed again."""
    if v is _MISSING_SLOT:
        x.pop(index, None)
    else:
        x[index] = v


def element_copy(v):
    """An element read `a[i]` that a tuple assignment's right side takes from an array its targets
    write (`a[i], a[j] = a[j], a[i]`): a copy when it is 0-d. NumPy gives a scalar there (a copy);
    CuPy a 0-d view, which would read the value the first target writes. A row stays a view, as
    NumPy's."""
    return v.copy() if getattr(v, "ndim", None) == 0 and hasattr(v, "copy") else v


def new_list():
    return []


def zeros_list(x):
    """Cotangent of a list: one zero per element, aligned with the list's current contents."""
    return [zeros_like_tree(e) for e in x]


_ONE64 = np.float64(1.0)


def shapes_match(args, shapes) -> bool:
    """Whether `args` have the shapes a jit version was specialized on (driver.jit_function): per
    argument a NumPy array's shape, or (container type name, a shape or None per item, a dtype char
    or None per item) for a tuple or list of arrays and numbers, or None (not tested)."""
    for a, s in zip(args, shapes):
        if s is None:
            continue
        if s and type(s[0]) is str:
            if type(a).__name__ != s[0] or type(a) not in (tuple, list) or len(a) != len(s[1]):
                return False
            if any(p is not None and (type(e) is not np.ndarray or e.shape != p) for e, p in zip(a, s[1])):
                return False
            if len(s) > 2 and any(c is not None and e.dtype.char != c for e, c in zip(a, s[2])):
                return False
        elif a.shape != s:
            return False
    return True


def seed(out, holomorphic=False):
    """The cotangent 1 for a scalar output; grad of a non-scalar output is an error, as in JAX, and
    so is a complex one but for a `holomorphic=True` derivative (`holomorphic`; s2s/api/holomorphic.py)."""
    t = type(out)
    if t is np.float64 or t is float:  # the common cases, quickly
        return _ONE64 if t is np.float64 else 1.0
    if t is tuple or t is list or t is dict or isinstance(out, (tuple, list, dict)):
        raise S2STypeError(f"grad requires a scalar output, but the function returned a {t.__name__}. Use jacrev "
                           "or vjp for pytree outputs, or grad(f, has_aux=True) for an (output, auxiliary) pair.")
    if shape_of(out) != ():
        raise S2STypeError(f"grad requires a scalar output, but the function returned shape {np.shape(out)}. "
                           "Use jacrev or vjp for non-scalar outputs, or reduce the output (e.g. with sum).")
    dt = getattr(out, "dtype", None)
    if (isinstance(out, complex) or dt is not None and dt.kind == "c") and not holomorphic:
        raise S2STypeError("grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
                           f"but got {np.result_type(out)}. For holomorphic differentiation, pass holomorphic=True. "
                           "For differentiating non-holomorphic functions involving complex outputs, use s2s.vjp "
                           "directly.")  # (JAX's words, as rt.real_result's)
    if isinstance(out, bool) or dt is not None and dt.kind in "biu":
        raise S2STypeError(f"grad requires a real-valued output, but the function returned "
                           f"{type(out).__name__ if dt is None else dt} (as in JAX, booleans and integers "
                           "carry no derivative)")
    return dt.type(1) if dt is not None and dt.kind in "fc" else 1.0 + 0j if isinstance(out, complex) else 1.0


def seed_aux(out, holomorphic=False):
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise S2STypeError("has_aux=True: the function must return a pair (output, auxiliary data), "
                           f"but it returned {type(out).__name__}")
    return (seed(out[0], holomorphic), zeros_like_tree(out[1]))


def like(parts, src):
    """Cotangent parts of an unpacked sequence, in the container type of the sequence."""
    if isinstance(src, list):
        return list(parts)
    if isinstance(src, tuple) and type(src) is not tuple:
        return type(src)(*parts)
    return tuple(parts) if isinstance(src, tuple) else np.stack(parts) if hasattr(src, "shape") else parts


def fresh(x):
    """A copy the backward sweep may update in place (a vector-space value: itself, since its
    space's operations make new values)."""
    if vspace.SPACES and vspace.space_of(x) is not None:
        return x
    if isinstance(x, list):
        return list(x)
    if isinstance(x, dict):
        return dict(x)
    if isinstance(x, tuple):
        return x
    return namespace(x).asarray(x).copy()  # (Dask's `array` takes no copy=)


def zero_at(acc, index):
    """`acc` with the slot `index` zeroed: an overwritten slot's old value gets no cotangent."""
    if isinstance(acc, tuple):
        out = list(acc)
        out[index] = zeros_like_tree(out[index])
        return tuple(out)
    if isinstance(acc, (list, dict)):
        acc[index] = zeros_like_tree(acc[index])
        return acc
    acc[index] = 0
    return acc


def constant(x):
    """`x`, a value the forward sweep computed from none of its arguments, read back from its record
    (the transforms treat its result as a constant)."""
    return x


def copy_saved(saved):
    """A copy of a forward sweep's record whose lists a backward sweep may pop (a tuple without
    lists is its own copy: a step's record of numbers, returned at once)."""
    if type(saved) is tuple:
        for s in saved:
            if type(s) is list:
                break
        else:
            return saved
    return tuple([list(s) if type(s) is list else s for s in saved])


def checkpoint_name(x, name):
    """`x` itself, named `name` for s2s.checkpoint's policy `save_only_these_names` (JAX's
    `jax.ad_checkpoint.checkpoint_name`)."""
    return x


def next_residual(residuals):
    """The next value an s2s.checkpoint policy saved in the forward sweep (from an iterator)."""
    return next(residuals)


def residual_derivative(g):
    """Refuse to differentiate a checkpointed function's replay again: its saved values would be
    taken as constants. (Only the policy `nothing_saveable`, the default, composes with hessian.)"""
    raise S2STypeError("s2s cannot differentiate twice through an s2s.checkpoint whose policy saves values "
                       "(dots_saveable, save_only_these_names): the replay takes them as constants. Use "
                       "policy=None (recompute everything) under hessian and forward-over-reverse.")


def reversed_range(r):
    """The iterations of loop range `r` in the order the backward sweep replays them."""
    return r[::-1]


def list_sum(items):
    """Python's `sum(items)` (start 0) over a list or tuple of numbers or arrays, or an array's rows."""
    total = 0
    for item in items:
        total = total + item
    return total


def list_sum_vjp(g, items):
    """Cotangent of `list_sum(items)`: `g` summed down to each item's shape."""
    if hasattr(items, "shape"):
        return unbroadcast(g, items[0]) * np.ones_like(items) if np.ndim(items) else g
    return [unbroadcast(g, item) for item in items]


def zero_of_real(x):
    """The derivative of np.imag or np.angle at real `x`, 0; at a complex one, refused."""
    if np.iscomplexobj(x):
        raise S2STypeError("s2s has no derivative of np.angle at a complex value (np.imag's is -1j * g, in reverse "
                           "mode): compute the angle as np.arctan2(np.imag(z), np.real(z)).")
    return x * 0.0  # (zeros on x's backend and of its shape: a Python 0.0 lifted under vmap became NumPy's)
