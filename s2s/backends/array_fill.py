"""NumPy functions an array library (CuPy) lacks, composed of functions it has.

Each `make_<name>(xp)` here returns NumPy's function `<name>` written with namespace `xp`'s own
functions (`make_linalg_<name>`: `numpy.linalg.<name>`, where the top-level function of that name
differs). A primitive's declaration names its maker (`composed=array_fill.make_vecdot`), and
`fill(ns, ...)` adds to an array namespace (s2s/backends/arrays.py's `Namespace`) each declared composition
its library lacks, so generated code calling `xp.vecdot` or `xp.linalg.svdvals` runs on CuPy with
the same values as NumPy's (`make_select(xp, narrow)`, a `widened` fact: NumPy's `select` over a
library's narrower one). Functions without a faithful composition (nanquantile, nanpercentile)
keep the namespace's S2SError.
"""
from __future__ import annotations

import functools
import operator

import numpy as np


def _axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(operator.index(a) % ndim for a in axes)


def make_vecdot(xp):
    def vecdot(x1, x2, /, *, axis=-1):
        return xp.sum(xp.conj(x1) * x2, axis=axis)
    return vecdot


def make_matvec(xp):
    def matvec(x1, x2, /):
        return xp.matmul(x1, xp.expand_dims(x2, -1))[..., 0]
    return matvec


def make_vecmat(xp):
    def vecmat(x1, x2, /):
        return xp.matmul(xp.expand_dims(xp.conj(x1), -2), x2)[..., 0, :]
    return vecmat


def make_unstack(xp):
    def unstack(x, /, *, axis=0):
        moved = xp.moveaxis(x, axis, 0)
        return tuple(moved[i] for i in range(moved.shape[0]))
    return unstack


def make_vector_norm(xp):
    def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
        axes = _axes(axis, x.ndim)
        rest = [d for d in range(x.ndim) if d not in axes]
        moved = xp.transpose(x, rest + list(axes))
        flat = xp.reshape(moved, tuple(x.shape[d] for d in rest) + (-1,))
        out = xp.linalg.norm(flat, ord=ord, axis=-1)
        if keepdims:
            out = xp.reshape(out, tuple(1 if d in axes else x.shape[d] for d in range(x.ndim)))
        return out
    return vector_norm


def make_matrix_norm(xp):
    def matrix_norm(x, /, *, keepdims=False, ord="fro"):
        return xp.linalg.norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)
    return matrix_norm


def make_linalg_trace(xp):
    def trace(x, /, *, offset=0, dtype=None):
        return xp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)
    return trace


def make_linalg_diagonal(xp):
    def diagonal(x, /, *, offset=0):
        return xp.diagonal(x, offset=offset, axis1=-2, axis2=-1)
    return diagonal


def make_linalg_tensordot(xp):
    def tensordot(x1, x2, /, *, axes=2):
        return xp.tensordot(x1, x2, axes=axes)
    return tensordot


def make_svdvals(xp):
    def svdvals(x, /):
        return xp.linalg.svd(x, compute_uv=False)
    return svdvals


def make_linalg_outer(xp):
    def outer(x1, x2, /):
        return xp.outer(x1, x2)
    return outer


def make_multi_dot(xp):
    def multi_dot(arrays, *, out=None):
        if out is not None:
            raise TypeError("multi_dot: `out` is not supported on this backend")
        return functools.reduce(xp.dot, arrays)
    return multi_dot


def make_matrix_transpose(xp):
    def matrix_transpose(x, /):
        return xp.swapaxes(x, -1, -2)
    return matrix_transpose


def make_select(xp, narrow):
    def select(condlist, choicelist, default=0):
        """NumPy's `select`; an array `default` (CuPy's takes a scalar only) through `where`, the first
        true condition winning."""
        if xp.isscalar(default) or isinstance(default, (int, float, complex, bool)):
            return narrow(condlist, choicelist, default)
        out = default
        for cond, choice in reversed(list(zip(condlist, choicelist))):
            out = xp.where(cond, choice, out)
        return out
    return select


def make_where(xp, narrow):
    def where(condition, *xy):
        """NumPy's `where`, whose condition may be a Python bool or list (CuPy's calls
        `condition.astype`): such a condition becomes the library's array first."""
        if not hasattr(condition, "astype"):
            condition = xp.asarray(condition)
        return narrow(condition, *xy)
    return where


def _converting(t: type) -> type:
    """NumPy's scalar type `t`, which also casts a device array called on it: `np.float64(x)` would
    convert `x` to NumPy (CuPy refuses; CuPy's `float64` is NumPy's). As a dtype it is `t`."""
    def __new__(cls, x=0, *args):
        if hasattr(x, "astype") and not isinstance(x, (np.ndarray, np.generic)):
            return x.astype(t)
        return t(x, *args)
    return type(t.__name__, (t,), {"__new__": __new__, "__doc__": _converting.__doc__})


CONVERTING = {t.__name__: _converting(t) for t in (np.float64, np.float32, np.complex128, np.complex64)}


def fill(ns, composed: dict, widened: dict) -> None:
    """Add to namespace `ns` (and `ns.linalg`) the compositions of the functions its library lacks
    (`composed`: NumPy name, "linalg.<name>" in numpy.linalg -> its maker, the declarations'
    `composed` facts), NumPy's signature where the library's function takes less (`widened`: name
    -> maker(ns, the library's function)), and scalar types that cast its arrays."""
    ns.__dict__.update(CONVERTING)
    for name, make in widened.items():
        if name in ns.__dict__:
            ns.__dict__[name] = make(ns, ns.__dict__[name])
    for full, make in composed.items():
        sub, _, name = full.rpartition(".")
        have = (getattr(ns, sub) if sub else ns).__dict__
        if name not in have:
            fn = make(ns)
            fn.__qualname__ = f"{ns._label}.{full} (s2s composition)"
            have[name] = fn
