"""Operations computed by NumPy's definition written with primitives (registry.composite and the
`where=`/`initial=` forms of reductions, primitives/rules_reduce.py): the normalizer calls these
in place of the NumPy function, so s2s differentiates and batches their source; each computes
what NumPy computes."""
from __future__ import annotations

import numpy as np

from ..base.tree import tree_map
from .core import cast_to, on_backend_of, reshape_like, to_host
from .reduce import needs_initial, unsupported

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("average_returned", "sum_where", "prod_where", "mean_where", "var_where", "std_where", "max_where", "min_where",
           "nansum_where", "nanprod_where", "nanmean_where", "nanmax_where", "nanmin_where", "cov", "corrcoef",
           "cov_1", "cov_2", "corrcoef_1", "corrcoef_2", "cov_axes", "cov_ddof", "vander", "vander_powers",
           "insert_map", "insert", "pad_fill_map", "pad_constant", "broadcast_arrays", "broadcast_arrays_1",
           "broadcast_arrays_2", "broadcast_arrays_3", "broadcast_arrays_4", "broadcast_arrays_5",
           "broadcast_arrays_6", "array_ndmin", "diff_prepend",
           "diff_append")


def average_returned(a, axis=None, weights=None, returned=False, keepdims=False):
    """`np.average(a, axis, weights, returned=True)`: the average, and the sum of the weights (the
    count without them) in its shape."""
    avg = np.average(a, axis=axis, weights=weights, keepdims=keepdims)
    if not returned:
        return avg
    if weights is None:
        return avg, np.ones_like(avg) * (np.size(a) / np.size(avg))
    if np.ndim(weights) == np.ndim(a):
        return avg, np.sum(weights, axis=axis, keepdims=keepdims) * np.ones_like(avg)
    return avg, np.sum(weights) * np.ones_like(avg)  # (1-D weights along `axis`)


def sum_where(a, axis=None, dtype=None, out=None, keepdims=False, initial=0, where=True):
    """`np.sum(a, axis, keepdims=..., initial=..., where=...)`."""
    kept = np.where(on_backend_of(where, a), a, np.zeros_like(a))
    return np.sum(kept, axis=axis, keepdims=keepdims) + initial


def prod_where(a, axis=None, dtype=None, out=None, keepdims=False, initial=1, where=True):
    """`np.prod(a, axis, keepdims=..., initial=..., where=...)`."""
    kept = np.where(on_backend_of(where, a), a, np.ones_like(a))
    return np.prod(kept, axis=axis, keepdims=keepdims) * initial


def _count_where(a, axis, keepdims, where):
    return np.sum(np.where(on_backend_of(where, a), np.ones_like(a), np.zeros_like(a)), axis=axis, keepdims=keepdims)


def mean_where(a, axis=None, dtype=None, out=None, keepdims=False, where=True):
    """`np.mean(a, axis, keepdims=..., where=...)`: the sum over the selected entries by their count."""
    return sum_where(a, axis, None, None, keepdims, 0, where) / _count_where(a, axis, keepdims, where)


def var_where(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True):
    """`np.var(a, axis, ddof=..., keepdims=..., where=...)`, as NumPy computes it."""
    mean = mean_where(a, axis, None, None, True, where)
    d = a - mean
    return sum_where(d * d, axis, None, None, keepdims, 0, where) / (_count_where(a, axis, keepdims, where) - ddof)


def std_where(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True):
    """`np.std(a, axis, ddof=..., keepdims=..., where=...)`."""
    return np.sqrt(var_where(a, axis, None, None, ddof, keepdims, where))


def max_where(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    """`np.max(a, axis, keepdims=..., initial=..., where=...)`: entries left out count as -inf; an
    empty array's maximum is `initial`; without it, where= is NumPy's error (no identity)."""
    if initial is None:
        needs_initial(where, "np.max")
        initial = -np.inf
    if np.size(a) == 0:
        return np.sum(a, axis=axis, keepdims=keepdims) + initial
    kept = np.where(on_backend_of(where, a), a, -np.inf)
    return np.maximum(np.max(kept, axis=axis, keepdims=keepdims), initial)


def min_where(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    """`np.min(a, axis, keepdims=..., initial=..., where=...)`: entries left out count as +inf (as
    max_where)."""
    if initial is None:
        needs_initial(where, "np.min")
        initial = np.inf
    if np.size(a) == 0:
        return np.sum(a, axis=axis, keepdims=keepdims) + initial
    kept = np.where(on_backend_of(where, a), a, np.inf)
    return np.minimum(np.min(kept, axis=axis, keepdims=keepdims), initial)


def _kept_numbers(a, where):
    """The entries of `a` a nan-reduction with `where=` keeps: selected and not NaN."""
    return np.where(on_backend_of(where, a), np.logical_not(np.isnan(a)), False)


def nansum_where(a, axis=None, dtype=None, out=None, keepdims=False, initial=0, where=True):
    """`np.nansum(..., initial=..., where=...)`: NaN entries left out as well."""
    return sum_where(a, axis, None, None, keepdims, initial, _kept_numbers(a, where))


def nanprod_where(a, axis=None, dtype=None, out=None, keepdims=False, initial=1, where=True):
    return prod_where(a, axis, None, None, keepdims, initial, _kept_numbers(a, where))


def nanmean_where(a, axis=None, dtype=None, out=None, keepdims=False, where=True):
    return mean_where(a, axis, None, None, keepdims, _kept_numbers(a, where))


def nanmax_where(a, axis=None, out=None, keepdims=False, initial=-np.inf, where=True):
    return max_where(a, axis, None, keepdims, initial, _kept_numbers(a, where))


def nanmin_where(a, axis=None, out=None, keepdims=False, initial=np.inf, where=True):
    return min_where(a, axis, None, keepdims, initial, _kept_numbers(a, where))


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """`np.cov` (without frequency or analytic weights)."""
    unsupported(fweights, "np.cov with fweights=")
    unsupported(aweights, "np.cov with aweights=")
    x = np.atleast_2d(m)
    if not rowvar:
        if x.shape[0] != 1:
            x = x.T
    if y is not None:
        y2 = np.atleast_2d(y)
        if not rowvar:
            if y2.shape[0] != 1:
                y2 = y2.T
        x = np.concatenate((x, y2), axis=0)
    if ddof is None:
        ddof = 1
        if bias:
            ddof = 0
    n = x.shape[1]
    xc = x - np.mean(x, axis=1, keepdims=True)
    c = (xc @ xc.T) * float(np.true_divide(1.0, max(n - ddof, 0)))  # NumPy's inf/nan where ddof >= n
    return np.squeeze(c)


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """`np.corrcoef`: the covariance scaled by the standard deviations, clipped to [-1, 1] (NumPy 2's
    signature: its deprecated `bias` and `ddof`, which had no effect, are gone)."""
    return _corr_of(cov(x, y, rowvar))


def _corr_of(c):
    c2 = np.atleast_2d(c)
    s = np.sqrt(np.diagonal(c2))
    r = c2 / np.expand_dims(s, 1) / np.expand_dims(s, 0)
    return reshape_like(np.clip(r, -1.0, 1.0), c)


def cov_1(m, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """`np.cov(m, ...)` without branches on its settings (so its backward sweep batches)."""
    unsupported(fweights, "np.cov with fweights=")
    unsupported(aweights, "np.cov with aweights=")
    x = np.transpose(np.atleast_2d(m), cov_axes(m, rowvar))
    return _cov_of(x, cov_ddof(ddof, bias))


def cov_2(m, y, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """`np.cov(m, y, ...)` without branches on its settings."""
    unsupported(fweights, "np.cov with fweights=")
    unsupported(aweights, "np.cov with aweights=")
    x = np.transpose(np.atleast_2d(m), cov_axes(m, rowvar))
    x2 = np.transpose(np.atleast_2d(y), cov_axes(y, rowvar))
    return _cov_of(np.concatenate((x, x2), axis=0), cov_ddof(ddof, bias))


def _cov_of(x, ddof):
    n = np.shape(x)[1]
    xc = x - np.mean(x, axis=1, keepdims=True)
    return np.squeeze((xc @ xc.T) * float(np.true_divide(1.0, max(n - ddof, 0))))  # NumPy's inf/nan where ddof >= n


def corrcoef_1(x, rowvar=True, dtype=None):
    return _corr_of(cov_1(x, rowvar))


def corrcoef_2(x, y, rowvar=True, dtype=None):
    return _corr_of(cov_2(x, y, rowvar))


def cov_axes(m, rowvar):
    """How np.cov orients its input: variables in rows (a transpose when rowvar is False and the
    input has more than one row)."""
    return (1, 0) if not rowvar and np.ndim(m) == 2 and np.shape(m)[0] != 1 else (0, 1)


def cov_ddof(ddof, bias):
    return (0 if bias else 1) if ddof is None else ddof


def vander(x, N=None, increasing=False):
    """`np.vander`: columns are powers of `x`, decreasing unless `increasing`."""
    return np.expand_dims(x, 1) ** vander_powers(x, N, increasing)  # no branch: batches after grad too


def vander_powers(x, N, increasing):
    """The exponents of `np.vander(x, N, increasing)`'s columns, in x's dtype (float32 stays)."""
    n = np.shape(x)[0] if N is None else N
    p = np.cumsum(np.ones_like(x, shape=(n,))) - 1  # 0, 1, ..., n - 1 in x's array module and dtype
    return p if increasing else np.flip(p, 0)


def insert_map(arr, obj, values, axis):
    """Where each entry of `np.insert(arr, obj, values, axis)` comes from: a flat index into
    `concatenate([ravel(arr), ravel(values)])` (NumPy's own insert applied to positions)."""
    size, shape = np.size(arr), np.shape(arr)   # shapes only: the map is a host index array
    pos = np.arange(size).reshape(shape)
    vpos = size + np.arange(np.size(values)).reshape(np.shape(values))
    return np.insert(pos, obj, vpos, axis)


def insert(arr, obj, values, axis=None):
    """`np.insert`: a gather from the entries of `arr` and `values` (repeated values broadcast)."""
    where = insert_map(arr, obj, values, axis)
    vals = np.zeros_like(arr, shape=np.shape(values)) + values   # on arr's backend (never np.asarray)
    vals = cast_to(vals, arr)  # in arr's dtype: floats inserted into ints are truncated, as NumPy does
    both = np.concatenate([np.ravel(arr), np.ravel(vals)])
    return np.take(both, where)


def pad_fill_map(array, pad_width, mode, constant_values):
    """Where each entry of `np.pad(array, pad_width, mode, constant_values=c)` comes from: -1 for
    `array`'s own entries, else the flat index of the entry of `c` NumPy puts there (NumPy's pad
    applied to positions: its pairing of `c` per axis and side, and who fills the corners, kept).
    A mode other than "constant" is NumPy's own ValueError."""
    inside = np.full(np.shape(array), -1, dtype=np.intp)  # shapes only: the map is a host index array
    pos = np.arange(np.size(constant_values)).reshape(np.shape(constant_values))
    return np.pad(inside, tree_map(to_host, pad_width), mode=mode, constant_values=pos)


def pad_constant(array, pad_width, mode="constant", constant_values=0):
    """`np.pad(array, pad_width, constant_values=c)`: each border entry gathered from `c` (in
    `array`'s dtype, as NumPy stores it), so the cotangent of an entry of `c` is the sum of the
    cotangent over the border it fills and its tangent reaches that border."""
    where = on_backend_of(pad_fill_map(array, pad_width, mode, constant_values), array)
    c = np.asarray(constant_values)
    vals = cast_to(np.zeros_like(array, shape=np.shape(c)) + c, array)  # on array's backend
    fill = np.take(np.ravel(vals), np.maximum(where, 0))
    return np.where(where >= 0, fill, np.pad(array, pad_width))


def broadcast_arrays(a, b=None, c=None, d=None, e=None, f=None):
    """`np.broadcast_arrays` of up to six arrays: each broadcast to their common shape (the
    normalizer calls the form for the count given, broadcast_arrays_<n>, which has no branch)."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c), np.shape(d), np.shape(e), np.shape(f))
    if f is None:
        return (np.broadcast_to(a, shape), np.broadcast_to(b, shape), np.broadcast_to(c, shape),
                np.broadcast_to(d, shape), np.broadcast_to(e, shape))
    return (np.broadcast_to(a, shape), np.broadcast_to(b, shape), np.broadcast_to(c, shape),
            np.broadcast_to(d, shape), np.broadcast_to(e, shape), np.broadcast_to(f, shape))


def broadcast_arrays_1(a):
    return (np.broadcast_to(a, np.shape(a)),)


def broadcast_arrays_2(a, b):
    s = np.broadcast_shapes(np.shape(a), np.shape(b))
    return (np.broadcast_to(a, s), np.broadcast_to(b, s))


def broadcast_arrays_3(a, b, c):
    s = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    return (np.broadcast_to(a, s), np.broadcast_to(b, s), np.broadcast_to(c, s))


def broadcast_arrays_4(a, b, c, d):
    s = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c), np.shape(d))
    return (np.broadcast_to(a, s), np.broadcast_to(b, s), np.broadcast_to(c, s), np.broadcast_to(d, s))


def broadcast_arrays_5(a, b, c, d, e):
    s = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c), np.shape(d), np.shape(e))
    return (np.broadcast_to(a, s), np.broadcast_to(b, s), np.broadcast_to(c, s), np.broadcast_to(d, s),
            np.broadcast_to(e, s))


def broadcast_arrays_6(a, b, c, d, e, f):
    s = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c), np.shape(d), np.shape(e), np.shape(f))
    return (np.broadcast_to(a, s), np.broadcast_to(b, s), np.broadcast_to(c, s), np.broadcast_to(d, s),
            np.broadcast_to(e, s), np.broadcast_to(f, s))


def array_ndmin(a, ndmin):
    """`np.array(x, ndmin=k)` of the array `a = np.array(x)`: ones prepended to its shape until it
    has `ndmin` axes (NumPy's rule), a reshape, so its derivative and batching are reshape's."""
    return np.reshape(a, (1,) * (ndmin - np.ndim(a)) + np.shape(a))


def diff_prepend(a, values, axis):
    """`a` with np.diff's `prepend=values` joined before it along `axis`: NumPy broadcasts a number
    to `a`'s shape with that axis of length 1 and joins an array as it is (its dtype counts)."""
    edge = np.asarray(values)
    if np.ndim(edge) == 0:
        edge = np.broadcast_to(edge, np.shape(np.take(a, [0], axis=axis)))
    return np.concatenate((edge, a), axis=axis)


def diff_append(a, values, axis):
    """`a` with np.diff's `append=values` joined after it along `axis` (as `diff_prepend`)."""
    edge = np.asarray(values)
    if np.ndim(edge) == 0:
        edge = np.broadcast_to(edge, np.shape(np.take(a, [0], axis=axis)))
    return np.concatenate((a, edge), axis=axis)
