"""What NumPy's functions that take a function (np.apply_along_axis, np.piecewise, the call of an
np.vectorize) are inside a transformed function: plain Python over NumPy calls s2s has rules
for, which s2s transforms like user code (resolve.counterpart reads them in NumPy's place). The
function given is specialized on, as any function passed to a function is, so its derivative,
its batching and its compiled form are those of the loop or selection written here.

np.piecewise evaluates every function on all of `x` and selects with np.where (as JAX does);
NumPy evaluates each function on its region only. The values are the same; a function that is
not finite outside its region gives a NaN derivative there (write it so it stays finite, as
with np.where)."""
from __future__ import annotations

import inspect

import numpy as np

__all__ = ["apply_along_axis", "piecewise", "vectorize_function", "vectorized"]


def apply_along_axis(func1d, axis, arr, *args):
    """`func1d(row, *args)` on each 1-d slice of `arr` along `axis`; the rows' results (of one
    shape) take `axis`'s place in the result, as in NumPy."""
    axis = axis % np.ndim(arr)
    moved = np.moveaxis(arr, axis, -1)
    rows = np.reshape(moved, (-1, moved.shape[-1]))
    out = []
    for i in range(rows.shape[0]):
        out.append(func1d(rows[i], *args))
    res = np.stack(out)
    res = np.reshape(res, moved.shape[:-1] + res.shape[1:])
    k = res.ndim - moved.ndim + 1  # the axes of one row's result
    return np.moveaxis(res, list(range(res.ndim - k, res.ndim)), list(range(axis, axis + k)))


def piecewise(x, condlist, funclist, *args):
    """`funclist[k](x, *args)` where `condlist[k]` holds (the last true condition wins), zero
    where none holds; with one more function than conditions, the last is used where none holds."""
    n = len(condlist)
    none = np.ones(np.shape(x), dtype=bool)
    for c in condlist:
        none = np.logical_and(none, np.logical_not(c))
    out = np.zeros_like(x)  # (x's dtype: float32 stays float32)
    j = 0
    for f in funclist:  # (a loop over the functions: each is specialized on)
        if j < n:
            out = np.where(condlist[j], f(x, *args), out)
        else:
            out = np.where(none, f(x, *args), out)
        j = j + 1
    return out


def vectorized(pyfunc, *args):
    """`np.vectorize(pyfunc)(*args)`: `pyfunc` on each element of the broadcast arguments, the
    results as an array of their broadcast shape."""
    if len(args) == 1:
        shape = np.shape(args[0])
        flat = [np.ravel(args[0])]
    else:
        shape = np.shape(args[0])
        for a in args[1:]:
            shape = np.broadcast_shapes(shape, np.shape(a))
        flat = [np.ravel(a + np.zeros(shape)) for a in args]  # (broadcast by adding zeros: differentiable anywhere)
    out = []
    for i in range(flat[0].shape[0]):
        out.append(pyfunc(*[v[i] for v in flat]))
    return np.reshape(np.stack(out), shape)


def vectorize_function(vf):
    """The function an `np.vectorize` object made outside the transformed function (a module-level
    `np.vectorize(f)`, or a function decorated with `@np.vectorize`) is inside it: a call of
    `vectorized` on its Python function (a ufunc is elementwise already); None where it has a
    `signature` or `excluded` arguments, which s2s does not follow. One function per object, so
    that s2s's caches see the same function each time."""
    if vf.signature is not None or vf.excluded:
        return None
    fn = _VECTORIZED.get(id(vf))
    if fn is None or fn[0] is not vf:
        fn = (vf, vf.pyfunc if isinstance(vf.pyfunc, np.ufunc) else _vectorized_call(vf.pyfunc))
        _VECTORIZED[id(vf)] = fn
    return fn[1]


def _vectorized_call(pyfunc):
    def one(v):  # a function without Python source (np.sinc): called with its one parameter
        return pyfunc(v)

    def two(v, w):
        return pyfunc(v, w)

    def three(v, w, u):
        return pyfunc(v, w, u)

    elem = pyfunc if _fixed_arity(pyfunc) else one
    if inspect.isfunction(pyfunc) and elem is one:  # defaults, `*args`: called with its required parameters
        n = sum(1 for p in inspect.signature(pyfunc).parameters.values()
                if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
        elem = {2: two, 3: three}.get(n, one if n <= 1 else pyfunc)

    def vectorized_call(*args):
        return vectorized(elem, *args)
    return vectorized_call


def _fixed_arity(fn) -> bool:
    """A Python function called with `*` here: every call takes the same positional arguments (a
    `*` call of one with defaults has a number of values s2s cannot tell)."""
    if not inspect.isfunction(fn):
        return False
    code = fn.__code__
    return not (fn.__defaults__ or fn.__kwdefaults__ or code.co_kwonlyargcount
                or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS))


apply_along_axis.__s2s_function_args__ = (0,)  # (a parameter of the transformed function there: refused)
piecewise.__s2s_function_args__ = (2,)
_VECTORIZED: dict = {}
STAND_INS = {id(np.apply_along_axis): apply_along_axis, id(np.piecewise): piecewise}
KEEP_ALIVE = [np]


def add_reduceat(array, indices, axis=0):
    """`np.add.reduceat(array, indices, axis)`: the sum of each segment indices[i]:indices[i+1]
    (to the end for the last; the one entry indices[i] where indices[i] >= indices[i+1]), as a
    product with the 0/1 matrix of the segments, which s2s differentiates and batches."""
    x = np.moveaxis(array, axis, -1)
    n = x.shape[-1]
    lo = np.asarray(indices)
    hi = np.append(lo[1:], n)
    pos = np.arange(n)
    inside = (pos[None, :] >= lo[:, None]) & (pos[None, :] < hi[:, None])
    single = (lo >= hi)[:, None] & (pos[None, :] == lo[:, None])
    segments = (inside | single).astype(x.dtype)
    return np.moveaxis(x @ segments.T, -1, axis)
