"""Whether a generated version may call BLAS: decided once, when it is compiled, from the code
that runs. A version that makes no BLAS call gives its fused kernels' helper threads every usable
core (`cores.most_threads`); one that may call BLAS gives them only the cores a threaded BLAS
leaves idle (`cores.idle_cores`), since OpenBLAS's workers spin on their cores for a while after
each product (issue 46).

The answer errs toward "may". BLAS-free: a NumPy primitive declared elementwise, a reduction, a
shape or layout operation or non-differentiable (`Prim` facts), but for products (`product`,
`dot_like`) and `linalg`; a NumPy ufunc no primitive declares; an array method such a primitive
declares, or a list or dict method that changes its object; a builtin that is a primitive; s2s's
own non-differentiable `ext.` checks; an `rt` helper of `FREE_MODULES` but for `BLAS_HELPERS`
and vmap's `batched_*` helpers; a fused kernel; a loop kernel whose loop is BLAS-free; a
generated function whose record says it calls no BLAS. Anything else (`@`, a `Product`, a user
function, an unknown name) counts as a BLAS call. Only the thread count depends on it: every
value is the same either way.
"""
from __future__ import annotations

import builtins
import functools
import types

import gast
import numpy as np

from ... import runtime
from ...base import record
from ..ir import build
from ..primitives import registry
from . import kernels, products

# Runtime modules whose helpers call no BLAS (elementwise derivatives, reductions, shapes, the
# tape, loops' bookkeeping), but for `BLAS_HELPERS` and vmap's `batched_*` helpers (which may run
# an operation per example); tests/jit/test_blas_free_versions.py reads the runtime's source to
# check that none of the others reaches a product.
FREE_MODULES = (runtime.core, runtime.elementwise, runtime.reduce, runtime.dtypes, runtime.tape_copies,
                runtime.views, runtime.shapes, runtime.sets, runtime.index_updates, runtime.windows,
                runtime.checkpoints, runtime.special, runtime.jacobian, runtime.loops, runtime.fft,
                runtime.batch_masks, runtime.item_sums)
BLAS_HELPERS = frozenset({
    "gradient_vjp", "repeat_vjp",  # (tensordot)
    "diag_jacobian", "diag_matrix", "diag_of_vector", "jac_nest", "jac_unnest",  # (a function they are given)
    "int_cast",  # (a dtype called)
    "sqrtm", "solve_sylvester",  # (SciPy's linear algebra)
})
_FUSED, _PRODUCT = object(), object()  # (stand-ins for kernels named but not made yet)
RT_FREE = frozenset(n for m in FREE_MODULES for n in m.__all__ if not n.startswith("batched_")) - BLAS_HELPERS


def may_call_blas(fn, ns: dict, fused=(), products=(), loops=None) -> bool:
    """Whether running `fn` (a generated function's final code, its namespace `ns`) may call BLAS.
    Names not yet in `ns`: `fused` and `products`, its fused kernels and products; `loops`, its
    loop kernels, each with the loop it runs (its numba form makes the same calls)."""
    ns = dict(ns, **{k: _FUSED for k in fused}, **{k: _PRODUCT for k in products},
              **{k: _Loop(v) for k, v in (loops or {}).items()})
    return _walk(fn, ns)


def _walk(fn, ns: dict) -> bool:
    binops, call = (gast.BinOp, gast.AugAssign), gast.Call
    for node in build.walk(fn):
        if isinstance(node, binops) and isinstance(node.op, gast.MatMult):
            return True
        if isinstance(node, call) and _may(node.func, ns):
            return True
    return False


class _Loop:
    """A loop kernel not made yet: the loop it runs."""

    def __init__(self, loop):
        self.loop = loop


def _may(func, ns: dict) -> bool:
    """Whether calling `func` may call BLAS."""
    if isinstance(func, gast.Name):
        return _callable_may(func.id, ns)
    if not isinstance(func, gast.Attribute):
        return True
    path = [func.attr]
    root = func.value
    while isinstance(root, gast.Attribute):
        path.insert(0, root.attr)
        root = root.value
    module = _module(root, ns)
    if module is np:
        return len(path) != 1 or not _numpy_free(path[0])
    if module is runtime:
        return len(path) != 1 or path[0] not in RT_FREE
    if isinstance(root, gast.Name) and root.id == "ext" and "ext" not in ns:
        return len(path) != 1 or not _ext_free(path[0])
    if module is not None:  # (math: scalars; another module: unknown)
        return module.__name__ != "math"
    return not _method_free(func.attr)  # a method of a value


def _module(root, ns: dict):
    """The module `root` names in `ns` (generated code's `xp` and `rt` where `ns` has none)."""
    if not isinstance(root, gast.Name):
        return None
    value = ns.get(root.id, {"xp": np, "rt": runtime}.get(root.id))
    return value if isinstance(value, types.ModuleType) else None


def _numpy_free(name: str) -> bool:
    """Whether NumPy's function `name` calls no BLAS."""
    p = registry.lookup(f"xp.{name}")
    if p is None:
        return isinstance(getattr(np, name, None), np.ufunc)
    return _free_prim(p)


def _free_prim(p) -> bool:
    if p.product or p.dot_like or p.name.startswith("xp.linalg."):
        return False
    return bool(p.fusable or p.broadcasting or p.reduction or p.same_shape or p.linear_in or p.nondiff or p.ufunc)


def _method_free(name: str) -> bool:
    """An array method that a BLAS-free primitive declares (`x.sum()`; not `x.dot(y)`), or a
    list's or dict's that changes its object (a tape's `append`, `pop`)."""
    return name in registry.MUTATING_METHODS or _free_methods().get(name, False)


@functools.cache
def _free_methods() -> dict:
    """Array method -> whether every NumPy primitive declaring it is BLAS-free."""
    out: dict = {}
    for p in registry.PRIMS.values():
        if p.name.startswith("xp."):
            for m in p.methods:
                out[m] = out.get(m, True) and _free_prim(p)
    return out


def _ext_free(name: str) -> bool:
    """s2s's own non-differentiable `ext.` functions (raising, formatting, reading a value)."""
    p = registry.lookup(f"ext.{name}")
    fn = getattr(registry.EXT, name, None)
    return p is not None and p.nondiff and getattr(fn, "__module__", "").startswith(registry.__name__.rsplit(".", 1)[0])


def _callable_may(name: str, ns: dict) -> bool:
    """Whether calling what `name` is in `ns` may call BLAS: a fused kernel does not, a product
    does, a builtin listed does not, a generated function whose record says so does not."""
    if name not in ns:  # (a builtin that is a primitive: len, range, float, abs, ...)
        return not (hasattr(builtins, name) and registry.lookup(name) is not None)
    value = ns[name]
    if value is _FUSED or isinstance(value, kernels.Fused):
        return False
    if value is _PRODUCT or isinstance(value, products.Product):
        return True
    if isinstance(value, _Loop):
        return _walk(value.loop, ns)
    rec = record.of(value)
    return rec is None or rec.core is None or rec.blas
