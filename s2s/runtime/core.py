"""The few helpers generated code calls (as `rt`). Each has a fast path for the common case
(same shapes).

They take their array module from their arguments, so one generated source runs on another
array library: computations use array methods and NumPy functions (which dispatch to the
arguments' library through `__array_function__`), and every new array is allocated by the
module `namespace(arg)` returns. NumPy's dtype objects and shape queries are library-neutral.
"""
from __future__ import annotations

import sys

import numpy as np

from .. import arrays
from ..errors import S2STypeError, S2SValueError
from ..tree import tree_flatten, tree_unflatten

shape = np.shape


_AXES: dict = {}


def namespace(x):
    """The array module of `x`: its s2s backend's namespace (CuPy, Dask: s2s.arrays), else its
    `__array_namespace__()` (NumPy >= 2, array-API libraries), the loaded library its type comes
    from, else NumPy (Python scalars)."""
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


def _shape(x):
    return x.shape if hasattr(x, "shape") else np.shape(x)


def asarray(x, dtype=None):
    """`x` as an array of its own backend (np.asarray would copy a CuPy array to the host, or
    refuse it). NumPy arrays and Python numbers take the fast path."""
    t = type(x)
    if t is np.ndarray and dtype is None:
        return x
    if t is np.ndarray or t in _NUMBERS or isinstance(x, (list, np.generic)):
        return np.asarray(x, dtype=dtype)
    return namespace(x).asarray(x, dtype=dtype)


_NUMBERS = frozenset({float, int, bool, complex})


def on_backend_of(v, like):
    """`v` as an array of `like`'s backend when `v` is a host number (the cotangent 1.0 of a
    scalar loss) and `like` lives elsewhere (CuPy): NumPy functions of `v` alone would otherwise
    make a NumPy array that the backend refuses to combine with its own."""
    if type(like) is np.ndarray or not (type(v) in _NUMBERS or isinstance(v, np.generic)):
        return v
    xp = namespace(like)
    if xp is np:
        return v
    weak = type(v) in (int, float)  # a Python number is weak in NumPy 2: it takes like's float dtype
    return xp.asarray(v, dtype=_float_dtype(like) if weak else None)


def zeros(shape, like, dtype=None):
    """Zeros of `shape` in the array module of `like`, in its floating dtype unless `dtype` is given."""
    return namespace(like).zeros(shape, dtype=_float_dtype(like) if dtype is None else dtype)


_SEQUENCE_AS_ARRAY = (
    "s2s differentiated `a + b` or `a * n` as arithmetic on arrays, but it joined or repeated a list or "
    "tuple: the function's code does not show that an operand is a sequence (a list passed in as an "
    "argument). Write `list(a)` or `tuple(a)` in the function before `+` or `*` so s2s sees a sequence.")


def unbroadcast(v, like):
    """Sum `v` down to the shape of `like` (the transpose of broadcasting)."""
    try:  # arrays of one shape first: what most calls are (the common case costs two attributes)
        s, vs = like.shape, v.shape
    except AttributeError:
        if isinstance(v, float) and isinstance(like, float):
            return v  # Python (or NumPy) scalars: nothing to sum
        s, vs = _shape(like), _shape(v)
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


def seq_ct(v, me, other, op, first, d=0):
    """Cotangent of operand `me` of `me + other` or `me * other` (op "add"/"mul"; `first`: `me` is
    the left operand) given the result's cotangent `v`. Lists and tuples concatenate and repeat:
    `me`'s part of `v`, or the sum of `v`'s chunks (an int count gets none); arrays broadcast:
    `v` (times `other`) summed down to `me`'s shape. `d` marks this map's derivative with respect
    to `other`, which only an array product has (the transforms decide nothing statically here
    that the operands' run-time types could contradict)."""
    if not _sequence_op(me, other):
        if op == "add":
            return zeros_like_tree(me) if d else unbroadcast(v, me)
        return unbroadcast(v * _as_operand(other), me)
    if d or not isinstance(me, (list, tuple)):
        return zeros_like_tree(me)
    m = len(me)
    if op == "add":
        return v[:m] if first else v[len(v) - m:]
    out = zeros_like_tree(me)
    for k in range(len(v) // m if m else 0):
        out = tree_add(out, v[k * m:(k + 1) * m])
    return out


def _as_operand(other):
    """A list or tuple of numbers in an array product is the array NumPy makes of it (a NumPy
    scalar times a list would be Python's repetition, an error)."""
    return np.asarray(other) if isinstance(other, (list, tuple)) else other


def seq_ct_t(g_, v, me, other, op, first, d=0):
    """Transpose of `seq_ct` in `v` (`v` gives the result's structure): `g_` put in `me`'s place
    among zeros, or repeated as the sequence was; for arrays `g_` (times `other`) broadcast back."""
    if not _sequence_op(me, other):
        if op == "add" and d:
            return zeros_like_tree(v)
        out = g_ if op == "add" else g_ * _as_operand(other)
        s = _shape(v)
        return out if _shape(out) == s else np.broadcast_to(out, s).copy()
    if d or not isinstance(me, (list, tuple)):
        return zeros_like_tree(v)
    if op == "mul":
        return type(v)(list(g_) * (len(v) // len(me) if len(me) else 0))
    rest = list(zeros_like_tree(v[len(me):] if first else v[:len(v) - len(me)]))
    return type(v)(list(g_) + rest if first else rest + list(g_))


def broadcast_to_like(v, like):
    """Broadcast `v` to the shape of `like`, as a fresh writable array when shapes differ."""
    s = np.shape(like)
    if np.shape(v) == s:
        return v
    return np.broadcast_to(v, s).copy()


def _expand(v, like, axis, keepdims):
    v = on_backend_of(v, like)
    if axis is None or keepdims:
        return v if axis is not None or np.ndim(v) == np.ndim(like) else np.reshape(v, (1,) * np.ndim(like))
    return np.expand_dims(v, axis)


def _float_dtype(like):
    dt = getattr(like, "dtype", None)
    return dt if dt is not None and dt.kind in "fc" else np.float64


def cast_like(v, like):
    """`v` in the floating dtype of `like`: a cotangent takes its primal's dtype, as in JAX (float32
    inputs get float32 gradients even where NumPy promotes a result to float64)."""
    dt = _float_dtype(like)
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


def _filled(like, value):
    """A new array shaped like `like` (in its floating dtype) holding `value` everywhere."""
    xp = namespace(like)
    if xp is not np:  # no `fill` on every library (Dask); `value` may be a 0-d array of it
        return xp.zeros(_shape(like), dtype=_float_dtype(like)) + value
    out = np.empty(_shape(like), dtype=_float_dtype(like))
    out.fill(value)
    return out


def _size(x) -> int:
    """The number of elements, from the shape (np.size would compute a lazy Dask array)."""
    n = 1
    for d in _shape(x):
        n *= int(d)
    return n


def _one_hot(like, k):
    """Zeros shaped like `like` (floating dtype) with a 1 at flat position `k`, on its backend."""
    xp, shp, dt = namespace(like), _shape(like), _float_dtype(like)
    e = xp.zeros(shp, dtype=dt)
    if hasattr(e, "flat"):  # NumPy, CuPy: set in place
        e.flat[k] = 1
        return e
    return xp.reshape((xp.arange(_size(like)) == k).astype(dt), shp)  # Dask arrays are immutable here


def sum_vjp(v, like, axis, keepdims):
    """Cotangent of `sum(like, axis, keepdims)`: broadcast back to `like`'s shape."""
    if axis is None and not keepdims:
        return _filled(like, v)
    return np.broadcast_to(_expand(v, like, axis, keepdims), _shape(like)).astype(_float_dtype(like))


def mean_vjp(v, like, axis, keepdims):
    if axis is None and not keepdims:
        return _filled(like, v / max(_size(like), 1))
    n = np.size(like) // max(np.size(v), 1)
    return sum_vjp(v, like, axis, keepdims) / n


def max_vjp(v, a, ans, axis, keepdims):
    """Cotangent of a max/min reduction: split evenly among the positions that attain it."""
    hit = a == _expand(ans, a, axis, keepdims)
    dt = _float_dtype(a)
    count = np.sum(hit, axis=axis, keepdims=True).astype(dt)
    return (_expand(v, a, axis, keepdims) * hit / count).astype(dt, copy=False)


def max_jvp(v, a, ans, axis, keepdims):
    hit = a == _expand(ans, a, axis, keepdims)
    count = np.sum(hit, axis=axis, keepdims=keepdims).astype(_float_dtype(a))
    return np.sum(v * hit, axis=axis, keepdims=keepdims) / count


def _last_axis(a, axis):
    """`a` with the reduced axes (None: all) moved last and flattened into one, and the inverse."""
    a = asarray(a)
    nd = a.ndim
    axes = tuple(range(nd)) if axis is None else tuple(x % nd for x in np.atleast_1d(axis))
    dest = tuple(range(nd - len(axes), nd))
    m = np.moveaxis(a, axes, dest)
    lead = m.shape[:nd - len(axes)]
    back = lambda r: np.moveaxis(np.reshape(r, m.shape), dest, axes)  # noqa: E731
    return np.reshape(m, lead + (-1,)), back


def _others(m):
    ones = namespace(m).ones(m.shape[:-1] + (1,), dtype=m.dtype)
    left = np.cumprod(np.concatenate([ones, m[..., :-1]], axis=-1), axis=-1)
    right = np.flip(np.cumprod(np.concatenate([ones, np.flip(m, -1)[..., :-1]], axis=-1), axis=-1), -1)
    return left * right


def prod_others(a, axis=None):
    """For each element of `a`, the product of the other elements of its reduction: the derivative
    of `prod(a, axis)`, exact where `a` has zeros (no division by `a`)."""
    m, back = _last_axis(a, axis)
    return back(_others(m))


def prod_high_order(g, a, axis=None):
    """Third and higher derivatives of `prod` are not implemented: an error, never a zero."""
    raise S2SValueError("s2s differentiates np.prod up to second order; a third derivative of prod "
                        "needs a product written with a loop or np.exp(np.sum(np.log(...)))")


def prod_others_jvp(d, a, axis=None):
    """Tangent of `prod_others(a, axis)` along `d`: sum over j != i of d_j * prod(k != i, j) a_k."""
    m, back = _last_axis(a, axis)
    dm, _ = _last_axis(np.broadcast_to(d, np.shape(a)), axis)
    out = zeros(m.shape, m, dtype=np.result_type(m, dm, np.float32))
    for i in range(m.shape[-1]):
        b = m.copy()
        b[..., i] = 1
        po = _others(b)
        po[..., i] = 0
        out[..., i] = np.sum(dm * po, axis=-1)
    return back(out)


def var_vjp(v, a, axis, ddof, keepdims):
    n = np.size(a) // max(np.size(np.sum(a, axis=axis)), 1)
    centered = a - np.mean(a, axis=axis, keepdims=True)
    return _expand(v, a, axis, keepdims) * 2 * centered / (n - ddof)


def var_jvp(da, a, axis, ddof, keepdims):
    n = np.size(a) // max(np.size(np.sum(a, axis=axis)), 1)
    centered = a - np.mean(a, axis=axis, keepdims=True)
    return np.sum(2 * centered * da, axis=axis, keepdims=keepdims) / (n - ddof)


def cumsum_vjp(v, like, axis):
    if axis is None:
        return np.reshape(np.cumsum(v[::-1])[::-1], np.shape(like))
    return np.flip(np.cumsum(np.flip(v, axis), axis), axis)


def reshape_like(v, like):
    return np.reshape(v, np.shape(like))


def trace_vjp(v, a, offset, axis1, axis2):
    # the diagonal's mask from ones like `a` (its array module and dtype, no allocation by name);
    # s2s transforms this at order 2
    eye = np.triu(np.tril(np.ones_like(np.moveaxis(a, (axis1, axis2), (-2, -1))), offset), offset)
    return np.moveaxis(np.expand_dims(np.expand_dims(on_backend_of(v, a), -1), -1) * eye, (-2, -1), (axis1, axis2))


def check_norm_ord(ord, axis):
    """Only the 2-norm of vectors and the Frobenius norm have derivative rules."""
    if ord not in (None, 2, "fro") or (axis is not None and not isinstance(axis, int) and ord == 2):
        raise S2SValueError(f"s2s differentiates linalg.norm for ord=None, 2 (vectors) or 'fro' only, not ord={ord!r}")
    return ord


def norm_vjp(v, x, ans, ord, axis, keepdims):
    check_norm_ord(ord, axis)
    return _expand(v, x, axis, keepdims) * x / np.where(_expand(ans, x, axis, keepdims) == 0, 1,
                                                         _expand(ans, x, axis, keepdims))


def norm_jvp(dx, x, ans, ord, axis, keepdims):
    return np.sum(norm_vjp(np.ones_like(ans), x, ans, ord, axis, keepdims) * dx, axis=axis, keepdims=keepdims)


def transpose_vjp(v, axes):
    return np.transpose(v, None if axes is None else tuple(np.argsort(axes).tolist()))  # Dask wants a tuple


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
    if axis is None:
        return np.reshape(np.sum(np.reshape(v, (-1, repeats)), axis=1), np.shape(like))
    s = list(np.shape(like))
    v = np.reshape(v, s[:axis] + [s[axis], repeats] + s[axis + 1:])
    return np.sum(v, axis=axis + 1)


def _as_like(parts, like):
    """Per-element cotangents in the container `like` was: a tuple, a list, or (for an array whose
    rows were the elements) one array."""
    if isinstance(like, tuple):
        return tuple(parts)
    if hasattr(like, "shape"):
        return np.reshape(np.stack(parts), np.shape(like)) if len(parts) else zeros(np.shape(like), like)
    return list(parts)


def unstack(v, like, axis):
    """Cotangent of `stack(like, axis)`: one slice per stacked element."""
    return _as_like([np.take(v, i, axis=axis) for i in range(np.shape(v)[axis])], like)


def split_like(v, like, axis):
    """Cotangent of `concatenate(like, axis)`."""
    sizes = np.cumsum([np.shape(p)[axis] if np.ndim(p) else 1 for p in like])[:-1]
    return _as_like([reshape_like(p, q) for p, q in zip(np.split(v, sizes, axis=axis), like)], like)


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


def mod_dy(x, y, g):
    """d(x mod y)/dy times g: -floor(x / y) g (np.mod, np.remainder, %)."""
    return -np.floor(np.divide(x, y)) * g


def fmod_dy(x, y, g):
    """d(fmod(x, y))/dy times g: -trunc(x / y) g (the quotient rounds toward zero)."""
    return -np.trunc(np.divide(x, y)) * g


def _linspace_t(num, endpoint, which, nd, like):
    """d linspace / d start (which=0) or d stop (which=1) along the new axis, put first, in the
    array module and floating dtype of `like`."""
    t = namespace(like).linspace(0.0, 1.0, num, endpoint=endpoint)
    return np.reshape(t if which else 1.0 - t, (-1,) + (1,) * nd).astype(_float_dtype(like))


def linspace_vjp(g, start, stop, num, endpoint, axis, which):
    """Cotangent of `start` (which=0) or `stop` (which=1) of `linspace(start, stop, num, ...)`."""
    g = np.moveaxis(g, axis, 0)
    v = np.sum(g * _linspace_t(num, endpoint, which, np.ndim(g) - 1, g), axis=0)
    return unbroadcast(v, stop if which else start)


def linspace_jvp(d, start, stop, num, endpoint, axis, which):
    shape = np.broadcast_shapes(np.shape(start), np.shape(stop))
    out = _linspace_t(num, endpoint, which, len(shape), asarray(d)) * np.broadcast_to(d, shape)
    return np.moveaxis(out, 0, axis) if shape else out


def _falling(y, k):
    """y (y - 1) ... (y - k + 1): the coefficient of the k-th x-derivative of x ** y."""
    c = 1.0
    for i in range(k):
        c = c * (y - i)
    return c


def pow_d(x, y, k=1):
    """The k-th x-derivative of x ** y, y (y-1)...(y-k+1) x ** (y - k), taken as 0 where the
    coefficient is 0 (as JAX does for k = 1), so that x ** 0 has derivative 0 even at x = 0."""
    c = _falling(y, k)
    if isinstance(y, (int, float)) and isinstance(c, float):
        if c == 0:
            return 0.0 * x
        with np.errstate(divide="ignore"):
            return c * np.power(asarray(x, dtype=_float_dtype(asarray(x))), y - k)[()]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(c == 0, 0.0 * x, c * np.power(x, np.where(c == 0, k, y) - k))


def pow_d_dy(x, y, k=1):
    """d/dy of pow_d(x, y, k): (c'(y) + c(y) log x) x ** (y - k), log taken as 0 at x = 0.
    Plain NumPy that s2s can differentiate again."""
    c = 1.0
    dc = 0.0
    for i in range(k):
        dc = dc * (y - i) + c
        c = c * (y - i)
    return (dc + c * log0(x)) * x ** (y - k)


def inv0(x):
    """1 / x where x != 0, else 0: a derivative formula in terms of `ans` that would divide by a
    zero `ans` (sqrt, std at 0) takes the value 0 there."""
    if isinstance(x, float):
        return 1.0 / x if x != 0.0 else 0.0
    x = asarray(x)
    nz = x != 0
    return np.where(nz, 1.0 / np.where(nz, x, 1.0), 0.0).astype(_float_dtype(x), copy=False)


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
    return v


def dot_vjp_a(v, a, b):
    """Cotangent for `a` of `dot(a, b)` / `a @ b` given output cotangent `v`."""
    if getattr(a, "ndim", 0) == 2 and getattr(b, "ndim", 0) == 2:
        return v @ b.T
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0:
        return np.sum(v * b)
    if nb == 0:
        return v * b
    if nb == 1:
        return v * b if na == 1 else np.multiply.outer(v, b)
    if na == 1:  # (n,) @ (..., n, m) -> (..., m)
        return np.sum(np.matmul(b, v[..., None])[..., 0], axis=tuple(range(nb - 2))) if nb > 2 else b @ v
    return unbroadcast(np.matmul(v, np.swapaxes(b, -1, -2)), a)


def dot_vjp_b(v, a, b):
    """Cotangent for `b` of `dot(a, b)` / `a @ b` given output cotangent `v`."""
    if getattr(a, "ndim", 0) == 2 and getattr(b, "ndim", 0) == 2:
        return a.T @ v
    na, nb = np.ndim(a), np.ndim(b)
    if nb == 0:
        return np.sum(v * a)
    if na == 0:
        return v * a
    if na == 1:  # (n,) @ (..., n, m) -> (..., m)
        return v * a if nb == 1 else a[:, None] * np.expand_dims(v, -2)
    if nb == 1:
        return np.tensordot(a, v, axes=(tuple(range(na - 1)), tuple(range(na - 1))))
    return unbroadcast(np.matmul(np.swapaxes(a, -1, -2), v), b)


def dot_vjp_a_t(v, like, a, b):
    """Transpose of `dot_vjp_a(., a, b)` applied to `v`: `dot(v, b)` in the usual shapes."""
    if np.ndim(a) >= 2 and np.ndim(b) >= 2:
        return unbroadcast(np.matmul(v, b), like)
    return np.dot(v, b) if np.ndim(a) else np.sum(v) * b


def dot_vjp_b_t(v, like, a, b):
    """Transpose of `dot_vjp_b(., a, b)` applied to `v`: `dot(a, v)` in the usual shapes."""
    if np.ndim(a) >= 2 and np.ndim(b) >= 2:
        return unbroadcast(np.matmul(a, v), like)
    return np.dot(a, v) if np.ndim(b) else a * np.sum(v)


def outer_vjp_a(v, a, b):
    return reshape_like(np.dot(v, np.ravel(b)), a)


def outer_vjp_b(v, a, b):
    return reshape_like(np.dot(np.ravel(a), v), b)


def pick(x, y):
    """1 where x > y, 1/2 where x == y, else 0: how max(x, y) splits its derivative."""
    out = (x > y) + 0.5 * (x == y)
    dt = np.result_type(x, y)
    return out.astype(dt) if dt.kind == "f" and hasattr(out, "astype") else out


def clip_mask(a, lo, hi):
    m = namespace(a).ones(np.shape(a), dtype=bool)
    if lo is not None:
        m = m & (a >= lo)
    if hi is not None:
        m = m & (a <= hi)
    return m


def log0(x):
    """log(x) where x > 0 and 0 elsewhere: the y-derivative of x ** y at x = 0 is 0 for y > 0."""
    return np.log(np.where(x > 0, x, 1.0))


def sinc_deriv(x):
    px = np.pi * x  # float32 stays float32 (Python floats are weak in NumPy 2); any backend's array
    safe = np.where(px == 0, 1.0, px)
    return np.where(px == 0, 0.0, (np.cos(safe) * safe - np.sin(safe)) / (safe * safe) * np.pi)


# ---- pytrees and lists in derivative code ----

def tree_all_zero(x) -> bool:
    """Whether every leaf of a cotangent is zero (a custom_jvp function's transposed rule then
    has nothing to do, which ends the recursion of a rule that calls its own function)."""
    return all(v is None or not np.any(v) for v in tree_flatten(x)[0])


def zeros_like_tree(x):
    """Zero cotangent with the structure of `x`: tuples, lists and dicts of arrays (ints give 0.0)."""
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
    """Sum two cotangents of the same structure."""
    if isinstance(a, (list, tuple)):
        out = [tree_add(x, y) for x, y in zip(a, b)]
        return tuple(out) if isinstance(a, tuple) else out
    if isinstance(a, dict):
        return {k: tree_add(a[k], b[k]) for k in a}
    if a is None or isinstance(a, (range, str, slice)):
        return b
    if b is None or isinstance(b, (range, str, slice)):
        return a
    return a + b


def add_at(acc, index, v):
    """Add cotangent `v` of `x[index]` into the cotangent `acc` of `x`, in place where it can."""
    if isinstance(acc, tuple):
        out = list(acc)
        out[index] = tree_add(out[index], v)
        return tuple(out)
    if isinstance(acc, (list, dict)):
        acc[index] = tree_add(acc[index], v)
        return acc
    if _is_fancy(index):
        acc = scatter_add(acc, index, v)
    else:
        acc[index] += v
    return acc


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


def _host_index(index):
    """`index` with its array parts on the host (a lazy Dask index array is computed here)."""
    parts = index if isinstance(index, tuple) else (index,)
    host = tuple(p.compute() if hasattr(p, "compute") else p for p in parts)
    return host if isinstance(index, tuple) else host[0]


def _dask_scatter_add(da, out, index, v):
    """Dask's form of `add.at`: the flat position each element of `out[index]` names (computed
    from the shape, on the host), then a weighted `bincount` of `v` over those positions."""
    shape = out.shape
    n = _size(out)
    pos = np.arange(n).reshape(shape)[_host_index(index)]
    w = da.ravel(da.broadcast_to(da.asarray(v), pos.shape)).astype(out.dtype)
    hits = da.from_array(np.ravel(pos), chunks=w.chunks)
    return out + da.reshape(da.bincount(hits, weights=w, minlength=n), shape)


def _is_fancy(index) -> bool:
    parts = index if isinstance(index, tuple) else (index,)
    return any(hasattr(p, "shape") and np.ndim(p) > 0 or isinstance(p, list) for p in parts)


def take_at(acc, index, like):
    """For `x[index] = v`: the cotangent of `v` (a copy), and `acc` with that slot set to zero."""
    if isinstance(acc, (list, dict, tuple)):
        v = acc[index]
        if isinstance(acc, tuple):
            acc = list(acc)
            acc[index] = zeros_like_tree(v)
            return v, tuple(acc)
        acc[index] = zeros_like_tree(v)
        return v, acc
    v = namespace(acc).asarray(acc[index]).copy()  # (Dask's `array` takes no copy=)
    if _is_fancy(index):
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


def take_at_t(g, index, acc):
    """Transpose of `take_at(., index, like)`: cotangent (g_v, g_acc) back onto the array."""
    gv, gacc = g
    out = zero_at(fresh(gacc), index)
    if isinstance(out, (list, dict, tuple)):
        return add_at(out, index, gv)
    out[index] += broadcast_to_like(gv, acc[index])
    return out


def copy_slot(x, index):
    """A copy of `x[index]`, saved before `x[index] = v` overwrites it."""
    v = x[index]
    return v.copy() if hasattr(v, "copy") and not isinstance(x, (list, tuple, dict)) else v


def new_list():
    return []


def zeros_list(x):
    """Cotangent of a list: one zero per element, aligned with the list's current contents."""
    return [zeros_like_tree(e) for e in x]


_ONE64 = np.float64(1.0)


def shapes_match(args, shapes) -> bool:
    """Whether `args` have the shapes a jit version was specialized on (driver.jit_function): per
    argument a NumPy array's shape, or (container type name, a shape or None per item) for a tuple
    or list of arrays and numbers, or None (not tested)."""
    for a, s in zip(args, shapes):
        if s is None:
            continue
        if s and type(s[0]) is str:
            if type(a).__name__ != s[0] or type(a) not in (tuple, list) or len(a) != len(s[1]):
                return False
            if any(p is not None and (type(e) is not np.ndarray or e.shape != p) for e, p in zip(a, s[1])):
                return False
        elif a.shape != s:
            return False
    return True


def seed(out):
    """The cotangent 1 for a scalar output; grad of a non-scalar output is an error, as in JAX."""
    t = type(out)
    if t is np.float64 or t is float:  # the common cases, quickly
        return _ONE64 if t is np.float64 else 1.0
    if t is tuple or t is list or t is dict or isinstance(out, (tuple, list, dict)):
        raise S2STypeError(f"grad requires a scalar output, but the function returned a {t.__name__}. Use jacrev "
                           "or vjp for pytree outputs, or grad(f, has_aux=True) for an (output, auxiliary) pair.")
    if _shape(out) != ():
        raise S2STypeError(f"grad requires a scalar output, but the function returned shape {np.shape(out)}. "
                           "Use jacrev or vjp for non-scalar outputs, or reduce the output (e.g. with sum).")
    dt = getattr(out, "dtype", None)
    if isinstance(out, bool) or dt is not None and dt.kind in "biu":
        raise S2STypeError(f"grad requires a real-valued output, but the function returned "
                           f"{type(out).__name__ if dt is None else dt} (as in JAX, booleans and integers "
                           "carry no derivative)")
    return dt.type(1) if dt is not None and dt.kind in "fc" else 1.0


def seed_aux(out):
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise S2STypeError("has_aux=True: the function must return a pair (output, auxiliary data), "
                           f"but it returned {type(out).__name__}")
    return (seed(out[0]), zeros_like_tree(out[1]))


def like(parts, src):
    """Cotangent parts of an unpacked sequence, in the container type of the sequence."""
    if isinstance(src, list):
        return list(parts)
    if isinstance(src, tuple) and type(src) is not tuple:
        return type(src)(*parts)
    return tuple(parts) if isinstance(src, tuple) else np.stack(parts) if hasattr(src, "shape") else parts


def fresh(x):
    """A copy the backward sweep may update in place."""
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


def _leaf_sizes(tree):
    leaves, treedef = tree_flatten(tree)
    return leaves, treedef, [int(_size(leaf)) for leaf in leaves]


def _is_tree(x) -> bool:
    return isinstance(x, (tuple, list, dict)) or x is None


def tree_size(x) -> int:
    """How many numbers the pytree `x` holds: the length of its flattened vector."""
    return int(_size(x)) if not _is_tree(x) else sum(_leaf_sizes(x)[2])


def basis(x, k):
    """The k-th standard basis vector of pytree `x`: zeros like each leaf, a single 1 (float64
    unless the leaf is floating)."""
    if not _is_tree(x):
        return _one_hot(x, k)
    leaves, treedef, sizes = _leaf_sizes(x)
    out = []
    for leaf, n in zip(leaves, sizes):
        e = _one_hot(leaf, k) if 0 <= k < n else namespace(leaf).zeros(np.shape(leaf), dtype=_float_dtype(leaf))
        k -= n
        out.append(e)
    return tree_unflatten(treedef, out)


def _split_last(m, like_leaves, sizes, lead_shape):
    """Split the last axis of `m` per leaf of the input tree, each reshaped to lead + leaf shape."""
    parts = np.split(m, np.cumsum(sizes)[:-1], axis=-1) if len(sizes) > 1 else [m]
    return [np.reshape(p, lead_shape + np.shape(leaf)) for p, leaf in zip(parts, like_leaves)]


def jac_from_columns(cols, out, x):
    """Jacobian from jvp columns (one per number of `x`): for each output leaf, a tree like `x`
    of arrays shaped out_leaf.shape + x_leaf.shape."""
    if not (_is_tree(out) or _is_tree(x)) and cols:
        return np.reshape(np.stack(cols, axis=-1), np.shape(out) + np.shape(x))
    out_leaves, out_def = tree_flatten(out)
    x_leaves, x_def, sizes = _leaf_sizes(x)
    col_leaves = [tree_flatten(c)[0] for c in cols]
    blocks = []
    for j, o in enumerate(out_leaves):
        m = np.stack([namespace(c[j]).asarray(c[j]) for c in col_leaves], axis=-1) if cols else \
            namespace(o).zeros(np.shape(o) + (0,))
        blocks.append(tree_unflatten(x_def, _split_last(m, x_leaves, sizes, np.shape(o))))
    return tree_unflatten(out_def, blocks)


def jac_from_rows(rows, out, x):
    """Jacobian from vjp rows (one per number of `out`), in the layout of `jac_from_columns`."""
    if not (_is_tree(out) or _is_tree(x)) and rows:
        return np.reshape(np.stack(rows), np.shape(out) + np.shape(x))
    out_leaves, out_def, out_sizes = _leaf_sizes(out)
    x_leaves, x_def, sizes = _leaf_sizes(x)
    row_leaves = [tree_flatten(r)[0] for r in rows]
    # one matrix per input leaf: (number of outputs) x (the leaf's numbers)
    mats = [np.reshape(np.stack([namespace(r[i]).asarray(r[i]) for r in row_leaves]), (len(rows), -1))
            for i in range(len(x_leaves))]
    full = np.concatenate(mats, axis=1) if len(mats) > 1 else mats[0]
    blocks, start = [], 0
    for o, n in zip(out_leaves, out_sizes):
        part = np.moveaxis(np.reshape(full[start:start + n], np.shape(o) + (-1,)), -1, -1)
        blocks.append(tree_unflatten(x_def, _split_last(part, x_leaves, sizes, np.shape(o))))
        start += n
    return tree_unflatten(out_def, blocks)


def _jac_matrix(g, out, x):
    """The Jacobian pytree `g` as one matrix: (numbers of out) x (numbers of x)."""
    out_leaves, out_def = tree_flatten(out)
    x_n = tree_size(x)
    blocks = tree_flatten(g, )[0]
    per_out = len(tree_flatten(x)[0])
    rows = []
    for j, o in enumerate(out_leaves):
        leaves = blocks[j * per_out:(j + 1) * per_out]
        rows.append(np.concatenate([np.reshape(b, (int(_size(o)), -1)) for b in leaves], axis=1)
                    if leaves else namespace(o).zeros((int(_size(o)), x_n)))
    return np.concatenate(rows, axis=0)


def jac_columns_t(g, cols, out, x):
    """Transpose of `jac_from_columns`: the cotangent of each column."""
    mat = _jac_matrix(g, out, x)
    out_leaves, out_def, sizes = _leaf_sizes(out)
    result = []
    for k in range(mat.shape[1]):
        parts = np.split(mat[:, k], np.cumsum(sizes)[:-1]) if len(sizes) > 1 else [mat[:, k]]
        result.append(tree_unflatten(out_def, [np.reshape(p, np.shape(o)) for p, o in zip(parts, out_leaves)]))
    return result


def jac_rows_t(g, rows, out, x):
    """Transpose of `jac_from_rows`: the cotangent of each row."""
    mat = _jac_matrix(g, out, x)
    x_leaves, x_def, sizes = _leaf_sizes(x)
    return [tree_unflatten(x_def, _split_last(mat[k], x_leaves, sizes, ())) for k in range(mat.shape[0])]


def copy_saved(saved):
    """A copy of a forward sweep's record whose lists a backward sweep may pop."""
    return tuple(list(s) if type(s) is list else s for s in saved)


def private(record, arrays=False):
    """The backward sweep's own copy of a record: every list, tuple and dict in it is new (so it
    may pop and restore them), and with `arrays` every array too (so it may restore in-place
    updates into them); objects shared in `record` stay shared in the copy, and a view stays a
    view of its base's copy. Nothing the caller holds changes."""
    return _private(record, arrays, {})


_CONTAINERS = (list, tuple, dict)


def _private(x, arrays, memo):
    kind = type(x)
    if kind not in _CONTAINERS and not (arrays and hasattr(x, "shape") and not isinstance(x, np.generic)):
        return x  # numbers, None, scalars: immutable
    key = id(x)
    if key in memo:
        return memo[key]
    if kind is list:
        new = []
        memo[key] = new
        new.extend([_private(v, arrays, memo) for v in x])
    elif kind is tuple:
        new = tuple([_private(v, arrays, memo) for v in x])
    elif kind is dict:
        new = {}
        memo[key] = new
        new.update({k: _private(v, arrays, memo) for k, v in x.items()})
    else:
        new = _private_array(x, memo)
    memo[key] = new
    return new


def _private_array(x, memo):
    """A copy of array `x`; a view of another array becomes the same view of that array's copy,
    so restoring the base restores the view, as it does in the forward sweep's arrays."""
    base = getattr(x, "base", None)
    if not isinstance(x, np.ndarray) or not isinstance(base, np.ndarray) \
            or not (base.flags.c_contiguous or base.flags.f_contiguous):
        return x.copy()
    new_base = memo.get(id(base))
    if new_base is None:
        new_base = base.copy(order="K")
        memo[id(base)] = new_base
    offset = x.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    try:
        view = np.ndarray(x.shape, x.dtype, buffer=new_base, offset=offset, strides=x.strides)
        return view if type(x) is np.ndarray else view.view(type(x))  # an ndarray subclass stays one
    except (TypeError, ValueError):
        return x.copy()


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
