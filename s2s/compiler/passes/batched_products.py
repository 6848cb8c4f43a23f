"""A matrix times each example's vector, as written by hand (jit): vmap of `np.dot(M, v)`, with
`M` a global 2-D NumPy array and the examples the rows of a 2-D array argument, is
`rt.vmap_out(rt.batched_dot((False, True), M, v), out_axes, n)`; the helpers decide per call
that `v` is a 2-D NumPy array and `out_axes` is 0, and run `np.dot(v, M.T)`. Where the version
knows it (`known["arrays"]`: `v`'s rank; `known["ns"]`: `M`, and `out_axes` bound to 0), the
call is that product itself::

    return rt.vmap_out(rt.batched_dot((False, True), MAT_1, v), out_axes, 10)

becomes::

    return xp.dot(v, MAT_1.T) if MAT_1.ndim == 2 else rt.vmap_out(rt.batched_dot((False, True), MAT_1, v), out_axes, 10)

the same product of the same operands (W3 B=10: two helper calls, about 0.5 us of a 13 us call).
A global rebound to another value is a new version (the key's watch); an array keeps its type
but not its rank in place (`MAT_1.shape = (2, 3, 4)`), which the version tests when it runs.

Where `v` is known to hold at least `ELEMENTS_MIN` numbers (W3 over 10,000 vectors), the product
is large: the final stage (`shapefold.array_methods`, through `rewrite`) writes it
`rt.batched_matrix_dot(matmul_<i>, M, v)`, `v @ M.T` by a `Product` whose rows threads may share,
which multiplies as `rt.batched_dot` does where `M` is no NumPy matrix when the call runs.
"""
from __future__ import annotations

import gast
import numpy as np

from .. import analysis
from ..ir import build
from .base import Pass

# the fewest elements of the batched vectors whose product goes to a `Product` (below it the
# product is small, and `Product` would multiply it whole after its checks)
ELEMENTS_MIN = 1 << 16


def _global(e, ns: dict, bound: set):
    """The value of global name `e` in the version's namespace, or None."""
    if isinstance(e, gast.Name) and e.id not in bound and e.id in ns:
        return ns[e.id]
    return None


def _matrix_by_examples(e) -> bool:
    """Whether `e` is `rt.batched_dot((False, True), M, v)`: one matrix, the examples' vectors."""
    return isinstance(e, gast.Call) and analysis.dotted(e.func) == "rt.batched_dot" and not e.keywords \
        and len(e.args) == 3 and isinstance(e.args[0], gast.Tuple) \
        and all(isinstance(x, gast.Constant) for x in e.args[0].elts) \
        and [x.value for x in e.args[0].elts] == [False, True]


def _product(e, known: dict, bound: set, counts: dict):
    """`xp.dot(v, M.T)` for `rt.batched_dot((False, True), M, v)` of a global 2-D array `M` and a
    2-D array parameter `v` bound once; else None."""
    if not _matrix_by_examples(e):
        return None
    _, m, v = e.args
    matrix = _global(m, known.get("ns") or {}, bound)
    if type(matrix) is not np.ndarray or matrix.ndim != 2:
        return None
    if not (isinstance(v, gast.Name) and counts.get(v.id) == 1 and (known.get("arrays") or {}).get(v.id, (0, 0))[1] == 2):
        return None
    shape = (known.get("shapes") or {}).get(v.id)
    if shape is None or _elements(shape) >= ELEMENTS_MIN:
        return None  # (a large product: `rewrite`'s, at the final stage)
    return build.call("xp.dot", [v, build.attr(m, "T")])


def _elements(shape) -> int:
    n = 1
    for d in shape:
        n *= d if type(d) is int else 1 << 30
    return n


def rewrite(e, shape_of, shapes, products):
    """(Final stage, `shapefold.array_methods`.) `rt.batched_dot((False, True), M, v)` of a `v`
    known to be a matrix of at least `ELEMENTS_MIN` numbers as `rt.batched_matrix_dot(matmul_<i>,
    M, v)`, the next product of `products`; else None."""
    if not _matrix_by_examples(e):
        return None
    v = shape_of(e.args[2], shapes)
    if v is None or len(v) != 2 or not all(type(d) is int for d in v) or v[0] * v[1] < ELEMENTS_MIN:
        return None
    products.append(f"matmul_{len(products)}")
    return build.call("rt.batched_matrix_dot", [build.name(products[-1]), e.args[1], e.args[2]])


def _rewrite(e, known: dict, bound: set, counts: dict):
    """`e` with its batched matrix products (and their `rt.vmap_out` to axis 0) written as products."""
    if isinstance(e, gast.Call) and analysis.dotted(e.func) == "rt.vmap_out" and not e.keywords and len(e.args) == 3:
        inner = _product(e.args[0], known, bound, counts)
        spec = e.args[1]
        zero = isinstance(spec, gast.Constant) and type(spec.value) is int and spec.value == 0
        value = _global(spec, known.get("ns") or {}, bound)
        if inner is not None and (zero or type(value) is int and value == 0):
            return _guarded(inner, e)  # (a 2-D NumPy array with its batch axis at 0: vmap_out gives it back)
    inner = _product(e, known, bound, counts)
    return None if inner is None else _guarded(inner, e)


def _guarded(product, general):
    """`product if M.ndim == 2 else general`: `M.shape = (a, b, c)` in place keeps the global's
    identity (the key's watch sees nothing), and `v @ M.T` of a 3-D `M` contracts another axis."""
    return build.template("PRODUCT if M.ndim == 2 else GENERAL", PRODUCT=product, M=product.args[1].value,
                          GENERAL=general)


def _visit(e, known: dict, bound: set, counts: dict, changed: list):
    """`e` rewritten top-down (an outer `rt.vmap_out` before the product inside it)."""
    new = _rewrite(e, known, bound, counts)
    if new is not None:
        changed.append(e)
        return new
    for field, old in gast.iter_fields(e):
        if isinstance(old, gast.AST):
            setattr(e, field, _visit(old, known, bound, counts, changed))
        elif isinstance(old, list):
            old[:] = [_visit(x, known, bound, counts, changed) if isinstance(x, gast.AST) else x for x in old]
    return e


def batched_products(body: list, params, facts) -> tuple[list, bool]:
    known = facts["known"]
    if not known.get("arrays") or not known.get("ns"):
        return body, False
    counts = analysis.assigned_counts(body, params)
    bound = set(counts)
    changed: list = []
    for s in analysis.walk_stmts(body):
        if isinstance(s, (gast.Assign, gast.Return)) and s.value is not None:
            s.value = _visit(s.value, known, bound, counts, changed)
    return body, bool(changed)


PASS = Pass("batched_products", batched_products)
