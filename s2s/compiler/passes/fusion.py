"""Fusion (jit): an expression of elementwise operations on arrays —
arithmetic, comparisons, `xp.where` and NumPy's elementwise functions, optionally ended by a full
`xp.sum` — becomes one call of a fused kernel that computes it block by block (cache-sized), on all
cores, with no array-sized temporaries.

Before::

    y = 1.05 * xp.where(x > 0, x, 1.67 * xp.exp(x) - 1.67)
    return y

After::

    y = fused_0(x)
    return y

An expression for which NumPy allocates only one array (`(x - 1.0) ** 2 * 0.5`: NumPy computes
the rest of the chain in that array) stays as it is, unless its kernel is a compiled loop
(`known["compiled"]`, numba's): a kernel of NumPy blocks would only add its per-block calls.

`fused_0` (built by `s2s.compiler.emit.kernels`) checks at each call that its array arguments are
float64, C-contiguous, of one shape (or broadcast along leading axes: a bias `(n,)` against
`(m, n)`, s2s.compiler.emit.broadcast) and large enough to pay; otherwise it evaluates the
original NumPy expression. A large product among the operands (`x @ w + b - y`) is bound to a
temporary first (`products_bound`), which the kernel reads and writes its result into. The fused
kernel applies the same operations to the same operands in the same order, block by block, so
results are bitwise equal (a fused sum adds per-block sums;
the numba kernel's `exp` is its own, within an ulp of NumPy's: s2s.compiler.emit.numba_kernels).
"""
from __future__ import annotations

import math

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry
from . import algebra, shapefold
from .base import Pass

_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)
_CMP = (gast.Gt, gast.GtE, gast.Lt, gast.LtE)


def elementwise_ops(e) -> int | None:
    """The number of operations in elementwise expression `e`, or None if it is not one."""
    if isinstance(e, gast.Name):
        return 0
    if isinstance(e, gast.Constant):
        return 0 if isinstance(e.value, (int, float)) and not isinstance(e.value, bool) else None
    parts = None
    if isinstance(e, gast.BinOp) and isinstance(e.op, _OPS):
        parts = [e.left, e.right]
    elif isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
        parts = [e.operand]
    elif isinstance(e, gast.Compare) and len(e.ops) == 1 and isinstance(e.ops[0], _CMP):
        parts = [e.left, e.comparators[0]]
    elif isinstance(e, gast.Call) and not e.keywords and (p := registry.lookup(analysis.dotted(e.func))) is not None \
            and p.fusable:  # a function the elementwise kernels compute
        parts = list(e.args)
    if parts is None:
        return None
    counts = [elementwise_ops(p) for p in parts]
    return None if None in counts else 1 + sum(counts)


_COMMUTATIVE = (gast.Add, gast.Mult)


def _allocations(e, floats, fresh=frozenset()) -> tuple[int, str]:
    """How many arrays NumPy allocates evaluating elementwise `e` on large arrays, and what `e`
    gives: "number" (a Python number), "name" (a named array) or "temp" (a fresh array). An
    operator whose operand is a temporary writes into it (NumPy's elision of temporaries: the
    left operand, or either of `+` and `*`, and `-t`, `t ** 2`); a function (`xp.exp`, `xp.where`)
    and a comparison (a boolean result) always allocate."""
    if isinstance(e, gast.Constant) or isinstance(e, gast.Name) and e.id in floats:
        return 0, "number"
    if isinstance(e, gast.Name):
        return 0, "temp" if e.id in fresh else "name"
    if isinstance(e, gast.BinOp):
        parts = [_allocations(p, floats, fresh) for p in (e.left, e.right)]
    elif isinstance(e, gast.UnaryOp):
        parts = [_allocations(e.operand, floats, fresh)]
    else:
        parts = [_allocations(p, floats, fresh) for p in (e.args if isinstance(e, gast.Call) else [e.left, *e.comparators])]
    count = sum(c for c, _ in parts)
    kinds = [k for _, k in parts]
    if all(k == "number" for k in kinds):
        return count, "number"
    elides = isinstance(e, gast.UnaryOp) or isinstance(e, gast.BinOp) and (
        kinds[0] == "temp" or kinds[1] == "temp" and isinstance(e.op, _COMMUTATIVE))
    return count + (0 if elides else 1), "temp"


def fusion_candidate(e, floats=frozenset(), every=False, compiled=None, fresh=frozenset()):
    """(expression, reduction or None) when `e` is worth fusing: a full sum of elementwise work
    (computed block by block, never stored), or an expression for which NumPy allocates at least
    two arrays (the kernel allocates one). One allocation is what NumPy needs anyway: then it runs
    the chain in that array's memory, and a kernel only adds its per-block calls (measured by
    tools/bench_fusion.py on one thread: `(x - 1.0) ** 2 * 0.5 + y` 1.6x and `xp.exp(x) * 2.0 +
    1.0` 1.1x NumPy's time, `x * 2.0 + y * 0.5 - 1.0`, two allocations, 0.4x). `every`: a backend
    that compiles one kernel per expression (CuPy), where each operation would be a kernel launch;
    `compiled(e)`: whether the kernel of `e` would be one compiled loop (numba's), which computes
    the chain in one pass over memory where NumPy makes one per operation, so it pays with one
    allocation too (the same two expressions: 0.74x and 0.60x NumPy's time). `fresh`: names of
    products' results bound for `e` (`products_bound`), which NumPy's chain would have written
    into: no allocation of their own."""
    reduce = None
    if isinstance(e, gast.Call) and analysis.dotted(e.func) == "xp.sum" and len(e.args) == 1 and not e.keywords:
        reduce, e = "sum", e.args[0]
    n = elementwise_ops(e)
    if n is None or n < (1 if reduce else 3):
        return None
    if not reduce and not every and not (compiled is not None and compiled(e)) \
            and _allocations(e, floats, fresh)[0] < 2:
        return None
    return e, reduce


# the fewest elements of a product bound to a temporary for a fused kernel to read (kernels.THRESHOLD:
# a smaller one would run the NumPy expression, which then could not write into the product's
# temporary, NumPy's elision of temporaries, since a name holds it)
PRODUCT_MIN = 1 << 16


def _is_product(e) -> bool:
    return isinstance(e, gast.BinOp) and isinstance(e.op, gast.MatMult) or isinstance(e, gast.Call) \
        and (p := registry.lookup(analysis.dotted(e.func) or "")) is not None and p.product


def products_bound(value, prefix: str, shapes):
    """`value` with each product among its elementwise operands (`a @ b`, `xp.dot(a, b)`,
    `xp.matmul(a, b)`) of float64 arrays (a kernel's; another dtype would run NumPy's expression) of
    at least PRODUCT_MIN elements by known shapes replaced by a name
    `<prefix>_p<i>`, and the [(name, product)] to bind first (the rest may then fuse, reading the
    product's result; the kernel writes into it: `kernels.Fused.into`); None when there is none."""
    bound = []

    def visit(e):
        if _is_product(e):
            shape = shapefold.shape_of(e, shapes) if shapes else None
            f64 = {n.id for n in build.walk(e) if isinstance(n, gast.Name)} - {"xp"} <= getattr(shapes, "f64", set())
            if f64 and shape and all(type(d) is int for d in shape) and math.prod(shape) >= PRODUCT_MIN:
                bound.append((f"{prefix}_p{len(bound)}", e))
                return build.name(bound[-1][0])
            return e
        parts = [e.left, e.right] if isinstance(e, gast.BinOp) else [e.operand] if isinstance(e, gast.UnaryOp) \
            else [e.left, *e.comparators] if isinstance(e, gast.Compare) else e.args if isinstance(e, gast.Call) else []
        new = [visit(p) for p in parts]
        if all(a is b for a, b in zip(new, parts)):
            return e
        e = build.clone(e)
        if isinstance(e, gast.BinOp):
            e.left, e.right = new
        elif isinstance(e, gast.UnaryOp):
            e.operand = new[0]
        elif isinstance(e, gast.Compare):
            e.left, e.comparators = new[0], new[1:]
        else:
            e.args = new
        return e

    got = visit(value)
    return (got, bound) if bound and not isinstance(got, gast.Name) else None


def fuse(body: list, params, facts) -> tuple[list, bool]:
    kernels = facts["known"].setdefault("kernels", [])
    floats = algebra.python_floats(body, params, facts["known"].get("floats", ()))
    changed = False
    out = []
    for s in body:
        out.append(s)
        if not isinstance(s, (gast.Assign, gast.Return)) or s.value is None:
            continue
        if isinstance(s, gast.Assign) and not isinstance(s.targets[0], gast.Name):
            continue
        value, holder = s.value, None
        if isinstance(value, gast.Call) and value.args and (p := registry.lookup(analysis.dotted(value.func) or "")) \
                is not None and p.real_identity:  # (a gradient's rt.real_cotangent: its operand fuses)
            value, holder = value.args[0], value
        name = f"fused_{len(kernels)}"
        every, compiled = facts["known"].get("fuse") == "every", facts["known"].get("compiled")
        found, bound = fusion_candidate(value, floats, every, compiled), []
        if found is None and (split := products_bound(value, name, facts["known"].get("name_shapes"))) is not None:
            value, bound = split
            found = fusion_candidate(value, floats, every, compiled, {n for n, _ in bound})
        if found is None:
            continue
        expr, reduce = found
        names = sorted({n.id for n in build.walk(expr) if isinstance(n, gast.Name)} - {"xp"})
        if set(names) <= floats:
            continue  # Python floats: nothing to fuse
        shapes = facts["known"].get("name_shapes") or {}
        products = dict(bound)
        known = [() if n in floats else shapefold.shape_of(products[n], shapes) if n in products else shapes.get(n)
                 for n in names]  # (what its listing shows)
        kernels.append((name, names, expr, reduce, value, bound[0][0] if len(bound) == 1 else None,
                        None if None in known else tuple(known)))
        out[-1:-1] = [build.assign(n, e) for n, e in bound]
        call = build.call(name, [build.name(n) for n in names])
        if holder is not None:
            holder.args[0] = call
        else:
            s.value = call
        changed = True
    return out, changed


PASS = Pass("fusion", fuse)
