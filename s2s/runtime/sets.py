"""NumPy's set operations (np.unique, union1d, intersect1d, setdiff1d, setxor1d) as selections of
their inputs' entries: a host map says which entry each result value is (NumPy's own function run
on the values), and the result is gathered from the inputs, so the derivative of each value flows to
the entry it was taken from. Of equal entries, the first occurrence is taken (in `ar1` before `ar2`),
as JAX's jnp.unique and jnp.intersect1d do. The integer results (indices, inverse, counts) are
NumPy's own and carry no derivative. Each map checks that the gathered values are NumPy's result,
so a case the map does not model (NaNs, a future keyword) is refused, never silently wrong."""
from __future__ import annotations

import numpy as np

from ..errors import S2SValueError
from .core import on_backend_of, to_host

__all__ = ("unique_map", "unique", "unique_values", "union1d_map", "union1d", "intersect1d_map", "intersect1d",
           "setdiff1d_map", "setdiff1d", "setxor1d_map", "setxor1d")


def _checked(name, picked, expected):
    """`picked` (the values the map selects) is NumPy's `expected` result, or the call is refused."""
    if np.shape(picked) != np.shape(expected) or not np.array_equal(picked, expected, equal_nan=True):
        raise S2SValueError(f"np.{name}: s2s cannot say which input entry each value of this result is (NaNs, or "
                            "a keyword it does not model), so it has no derivative; compute it outside the "
                            "transformed function")


def _both(ar1, ar2):
    """The entries of `ar1` then `ar2`, flat, on the host."""
    return np.concatenate([np.ravel(to_host(ar1)), np.ravel(to_host(ar2))])


def _first_occurrences(flat):
    """The position of the first occurrence of each distinct value of `flat`, in sorted order."""
    return np.unique(flat, return_index=True)[1]


def unique_map(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, equal_nan=True,
               sorted=True):
    """Where `np.unique(ar, ...)`'s values come from: (index, extras), `index` the first occurrence
    of each value along `axis` (of the flat array when None), `extras` NumPy's integer results."""
    a = to_host(ar)
    out = np.unique(a, return_index=True, return_inverse=return_inverse, return_counts=return_counts, axis=axis,
                    equal_nan=equal_nan, sorted=sorted)
    index = out[1]
    picked = np.take(np.ravel(a), index) if axis is None else np.take(a, index, axis=axis)
    _checked("unique", picked, out[0])
    extras = ((index,) if return_index else ()) + tuple(out[2:])
    return index, extras


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, equal_nan=True,
           sorted=True):
    """`np.unique`: the first occurrence of each value, gathered from `ar`; NumPy's integer results."""
    index, extras = unique_map(ar, return_index, return_inverse, return_counts, axis, equal_nan, sorted)
    where = on_backend_of(index, ar)
    values = np.take(np.ravel(ar), where) if axis is None else np.take(ar, where, axis=axis)
    if return_index or return_inverse or return_counts:
        return (values,) + extras
    return values


def unique_values(x):
    """`np.unique_values`: the values of `np.unique(x)` (the first occurrence of each)."""
    index = unique_map(x)[0]
    return np.take(np.ravel(x), on_backend_of(index, x))


def union1d_map(ar1, ar2):
    """Where `np.union1d(ar1, ar2)`'s values come from: positions in `ar1`'s then `ar2`'s entries."""
    both = _both(ar1, ar2)
    index = _first_occurrences(both)
    _checked("union1d", both[index], np.union1d(to_host(ar1), to_host(ar2)))
    return index


def union1d(ar1, ar2):
    """`np.union1d`: each value's first occurrence, in `ar1` before `ar2`."""
    both = np.concatenate([np.ravel(ar1), np.ravel(ar2)])
    return np.take(both, on_backend_of(union1d_map(ar1, ar2), both))


def intersect1d_map(ar1, ar2, assume_unique=False, return_indices=False):
    """Where `np.intersect1d`'s values come from: positions in `ar1` (NumPy's own indices), and the
    integer results `return_indices` asks for."""
    a1, a2 = to_host(ar1), to_host(ar2)
    values, i1, i2 = np.intersect1d(a1, a2, assume_unique=assume_unique, return_indices=True)
    _checked("intersect1d", np.take(np.ravel(a1), i1), values)
    return i1, ((i1, i2) if return_indices else ())


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """`np.intersect1d`: the common values, gathered from `ar1` (its first occurrence of each)."""
    index, extras = intersect1d_map(ar1, ar2, assume_unique, return_indices)
    values = np.take(np.ravel(ar1), on_backend_of(index, ar1))
    if return_indices:
        return (values,) + extras
    return values


def setdiff1d_map(ar1, ar2, assume_unique=False):
    """Where `np.setdiff1d`'s values come from: positions in `ar1` (the first occurrence of each
    value, or every kept entry in order with assume_unique)."""
    a1, a2 = np.ravel(to_host(ar1)), to_host(ar2)
    cand = np.arange(a1.size) if assume_unique else _first_occurrences(a1)
    index = cand[~np.isin(a1[cand], a2)]
    _checked("setdiff1d", a1[index], np.setdiff1d(to_host(ar1), a2, assume_unique=assume_unique))
    return index


def setdiff1d(ar1, ar2, assume_unique=False):
    """`np.setdiff1d`: the values of `ar1` not in `ar2`, gathered from `ar1`."""
    return np.take(np.ravel(ar1), on_backend_of(setdiff1d_map(ar1, ar2, assume_unique), ar1))


def setxor1d_map(ar1, ar2, assume_unique=False):
    """Where `np.setxor1d`'s values come from: positions in `ar1`'s then `ar2`'s entries of the
    values found once (among each array's distinct values, or among all with assume_unique)."""
    a1, a2 = np.ravel(to_host(ar1)), np.ravel(to_host(ar2))
    both = np.concatenate([a1, a2])
    if assume_unique:
        cand = np.arange(both.size)
    else:
        cand = np.concatenate([_first_occurrences(a1), a1.size + _first_occurrences(a2)])
    order = cand[np.argsort(both[cand], kind="stable")]
    s = both[order]
    edge = np.concatenate([[True], s[1:] != s[:-1], [True]])
    index = order[edge[1:] & edge[:-1]]
    _checked("setxor1d", both[index], np.setxor1d(to_host(ar1), to_host(ar2), assume_unique=assume_unique))
    return index


def setxor1d(ar1, ar2, assume_unique=False):
    """`np.setxor1d`: the values in exactly one of `ar1` and `ar2`, gathered from where they are."""
    both = np.concatenate([np.ravel(ar1), np.ravel(ar2)])
    return np.take(both, on_backend_of(setxor1d_map(ar1, ar2, assume_unique), both))
