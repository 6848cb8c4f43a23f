"""Deferred sums of outer products (jit's `passes/accumulate.py`): a loop's
`acc = acc + rt.dot_vjp_b(v, a, b)` with `a` a vector and `b` a matrix, or `acc + xp.outer(a, v)`
-- the weight gradient of `x[i] @ W` in a reverse sweep over examples -- keeps `a` and `v` as rows
of two preallocated arrays and adds a block of them at once, `acc + A.T @ V`: one matrix product
instead of an outer product and an addition per iteration, each making a new D x C array.

The rows are copies taken where the loop would have computed the term, so what the loop writes
into `a` or `v` later does not change them. The arrays hold `min(trip count, OUTER_BLOCK)` rows
(the trip count of a `range`, else OUTER_BLOCK); a full block is added to `acc` by the next term.
A term of other operands (not float64 NumPy vectors and matrix, or of another length than the rows so far)
is added right away, as the loop adds it; the rows left are added by `add_deferred` after the
loop. So the sum is the loop's up to rounding: the same products, added in another order (by
BLAS, within a block).
"""
from __future__ import annotations

import numpy as np

from .core import namespace
from .linalg import dot_vjp_b

__all__ = ("OUTER_BLOCK", "deferred_rows", "defer_dot_vjp_b", "defer_outer", "add_deferred")

OUTER_BLOCK = 32  # rows a product adds: small blocks stay in cache and take no fresh pages
_F64 = np.dtype(np.float64)


class _Rows:
    """The rows kept so far (`a[:k]`, `v[:k]`) and how many a block holds (`n`)."""

    __slots__ = ("a", "v", "k", "n")

    def __init__(self, n: int):
        self.a = self.v = None
        self.k = 0
        self.n = n


def deferred_rows(iterable) -> _Rows:
    """Empty rows for the loop over `iterable` (a block of its length when it is a `range`)."""
    n = len(iterable) if type(iterable) is range else OUTER_BLOCK
    return _Rows(max(1, min(n, OUTER_BLOCK)))


def _vector(x) -> bool:
    return type(x) is np.ndarray and x.ndim == 1 and x.dtype == _F64


def _put(rows: _Rows, acc, a, v):
    """`acc` once `a` and `v` are kept as rows (a full block added to it first), or None where
    they cannot be (then the caller adds the term itself)."""
    if not (_vector(a) and _vector(v)):
        return None
    if rows.a is None:
        rows.a = np.empty((rows.n, a.shape[0]))
        rows.v = np.empty((rows.n, v.shape[0]))
    elif a.shape[0] != rows.a.shape[1] or v.shape[0] != rows.v.shape[1]:
        return None
    if rows.k == rows.n:
        acc = acc + rows.a.T @ rows.v
        rows.k = 0
    rows.a[rows.k] = a
    rows.v[rows.k] = v
    rows.k += 1
    return acc


def defer_dot_vjp_b(rows: _Rows, acc, v, a, b):
    """`acc + dot_vjp_b(v, a, b)`, the term kept in `rows` where it is an outer product of float64
    vectors (`a` a vector, `b` a matrix: `dot_vjp_b` is `outer(a, v)` there)."""
    if type(b) is np.ndarray and b.ndim == 2 and b.dtype == _F64 and np.shape(a) == b.shape[:1] \
            and np.shape(v) == b.shape[1:]:
        kept = _put(rows, acc, a, v)
        if kept is not None:
            return kept
    return acc + dot_vjp_b(v, a, b)


def defer_outer(rows: _Rows, acc, a, v):
    """`acc + outer(a, v)`, the term kept in `rows` where `a` and `v` are float64 vectors."""
    kept = _put(rows, acc, a, v)
    return acc + namespace(a).outer(a, v) if kept is None else kept


def add_deferred(rows: _Rows, acc):
    """`acc` plus the outer products of the rows kept (`acc` itself when there are none)."""
    k = rows.k
    if k == 0:
        return acc
    rows.k = 0
    return acc + rows.a[:k].T @ rows.v[:k]
