"""A cotangent takes its primal's dtype (JAX's and autograd's rule): the gradient of a float32
argument is float32 even where NumPy promoted the computation to float64. The rules for casts,
broadcasting and products already give it (rt.unbroadcast, rt.array_vjp, rt.dot_vjp_*); the
results of grad, value_and_grad, vjp and jacrev/hessian are also cast here, on the way out, so
that no other rule's promotion reaches the user."""
from __future__ import annotations

from typing import Any

import numpy as np

from .tree import tree_flatten, tree_unflatten

__all__ = ["grad_result", "jacobian_result", "like_primals", "narrow"]


def _narrow_leaf(x) -> bool:
    dt = getattr(x, "dtype", None)
    return dt is not None and dt.kind == "f" and dt.itemsize < 8


def narrow(x: Any) -> bool:
    """Whether a leaf of `x` is a float array narrower than float64 (the only case to cast for)."""
    if type(x) is np.ndarray:
        return x.dtype.kind == "f" and x.dtype.itemsize < 8
    if isinstance(x, (float, int)) or x is None:
        return False
    return any(_narrow_leaf(leaf) for leaf in tree_flatten(x)[0])


def _cast(ct, primal):
    dt = getattr(primal, "dtype", None)
    if dt is not None and dt.kind == "f" and getattr(ct, "dtype", dt) != dt and hasattr(ct, "astype"):
        return ct.astype(dt)
    return ct


def like_primals(cts: Any, primals: Any) -> Any:
    """`cts` (a cotangent per leaf of `primals`, the same tree) with each leaf in its primal's
    float dtype; returned as it is when the trees differ."""
    if type(primals) is np.ndarray:
        return _cast(cts, primals)
    p_leaves, p_def = tree_flatten(primals)
    c_leaves, c_def = tree_flatten(cts)
    if p_def != c_def:
        return cts
    return tree_unflatten(c_def, [_cast(c, p) for c, p in zip(c_leaves, p_leaves)])


def grad_result(options: tuple, args: tuple, out: Any) -> Any:
    """grad's or value_and_grad's result `out` for `args`, its gradient in the arguments' dtypes
    (`options`: argnums, has_aux, with_value)."""
    argnums, has_aux, with_value = options
    wrt = args[argnums] if isinstance(argnums, int) else tuple(args[i] for i in argnums)
    if not narrow(wrt):
        return out
    if has_aux or with_value:
        first, second = out
        return (first, like_primals(second, wrt)) if with_value else (like_primals(first, wrt), second)
    return like_primals(out, wrt)


def jacobian_result(argnums: Any, has_aux: bool, args: tuple, out: Any) -> Any:
    """jacrev's (or hessian's) result for one float32 array argument: every float leaf in its
    dtype (a Jacobian's rows are cotangents of that argument)."""
    if not isinstance(argnums, int) or not (-len(args) <= argnums < len(args)):
        return out
    x = args[argnums]
    if type(x) is not np.ndarray or not _narrow_leaf(x):
        return out
    jac, aux = out if has_aux else (out, None)
    leaves, tdef = tree_flatten(jac)
    jac = tree_unflatten(tdef, [_cast(leaf, x) for leaf in leaves])
    return (jac, aux) if has_aux else jac
