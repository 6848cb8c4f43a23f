"""Buffer reuse's facts from shape folding (jit): float64 arrays of known shapes, their products
and broadcasts, and the reads that leave an array's buffer free.

`reuse` writes an elementwise result into an operand that dies there where both have one dtype
and shape. From the signature alone it knows only the arrays computed elementwise from one
parameter; with the shapes and float64 names shape folding found (`known["name_shapes"]`) it
also knows a product's result (`b_a = xp.dot(b_o, v.T)`: a new float64 array no other name
holds), an operation between arrays of different shapes (`b_a / t4`, `t4` a row sum: the
broadcast shape), that a reduction's read (`e.sum(axis=1)`) keeps no reference, and the fact of
each binding of a name bound more than once at the top level (`b_e = b_a / t4`, later `b_e = b_e +
b_t4`: the second writes into the first's array, `b_e += b_t4`).

Before (W10's softmax backward, `b_a` a product's result, `a` of its shape)::

    b_t4 = -xp.sum(b_a * a, axis=1, keepdims=True) / t4

After::

    b_t4 = -xp.sum(xp.multiply(b_a, a, out=b_a), axis=1, keepdims=True) / t4
"""
from __future__ import annotations

import collections

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry
from . import shape_facts as sfacts


def shaped(known) -> dict:
    """name -> ("d", shape) for each float64 name of a known shape of rank 1 or more."""
    shapes = known.get("name_shapes")
    if not shapes:
        return {}
    return {n: ("d", s) for n, s in shapes.items() if n in shapes.f64 and s and all(type(d) is int for d in s)}


def top_level_names(body, counts, params) -> set:
    """The names bound more than once, every binding a top-level `name = value` of `body` (no parameter):
    straight-line code, where a binding's fact holds from it to the next (`b_e = b_a / t4`, then
    `b_e = b_e + b_t4`, two cotangent terms)."""
    top = collections.Counter(s.targets[0].id for s in body
                              if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name))
    return {n for n, c in top.items() if c == counts.get(n) and c > 1 and n not in params}


def broadcast(facts: set):
    """The fact of an elementwise result of operands with `facts` (each ("d", shape)), or None."""
    if not all(isinstance(f, tuple) and f[0] == "d" and isinstance(f[1], tuple) for f in facts):
        return None
    shape = sfacts.broadcast(*(f[1] for f in facts))
    return ("d", shape) if shape else None


def product(e, expr):
    """The fact of `e` where it is a product of two float64 matrices of known shapes (`a @ b`,
    `xp.dot(a, b)`, `xp.matmul(a, b)`: a new C-ordered array), else None. `expr`: an operand's fact."""
    if isinstance(e, gast.BinOp) and isinstance(e.op, gast.MatMult):
        a, b = e.left, e.right
    elif isinstance(e, gast.Call) and not e.keywords and len(e.args) == 2 and _product_call(e):
        a, b = e.args
    else:
        return None
    fa, fb = _operand(a, expr), _operand(b, expr)
    if not (broadcast({fa}) and broadcast({fb}) and len(fa[1]) == 2 and len(fb[1]) == 2 and fa[1][1] == fb[1][0]):
        return None
    return ("d", (fa[1][0], fb[1][1]))


def _operand(e, expr):
    """The fact of a product's operand: `expr`'s, or a transpose's (`v.T`) of a matrix's."""
    if isinstance(e, gast.Attribute) and e.attr == "T":
        f = expr(e.value)
        return ("d", f[1][::-1]) if broadcast({f}) and len(f[1]) == 2 else None
    return expr(e)


def other(e, expr):
    """The fact of a value that is not elementwise: a product (`product`) or a reduction of a
    float64 array along one axis (`xp.max(s, axis=1, keepdims=True)`, `s.sum(axis=0)`), else None."""
    e = _held(e)
    if (found := product(e, expr)) is not None or (n := reduced_name(e)) is None:
        return found
    f, keep = expr(build.name(n)), {k.arg: k.value for k in e.keywords}
    axis, keepdims = keep.get("axis"), keep.get("keepdims")
    if not (broadcast({f}) and isinstance(axis, gast.Constant) and type(axis.value) is int
            and -len(f[1]) <= axis.value < len(f[1])
            and (keepdims is None or isinstance(keepdims, gast.Constant) and type(keepdims.value) is bool)):
        return None
    shape, k = list(f[1]), axis.value % len(f[1])
    if keepdims is not None and keepdims.value:
        shape[k] = 1
    else:
        del shape[k]
    return ("d", tuple(shape)) if shape else None


def product_operands(node) -> list:
    """The names a product reads whole (`h2` of `h2 @ w3` and of `h2.T @ b_z`): reads that leave
    no reference to the array behind (the product makes a new array; the transpose is its operand
    only)."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult):
        operands = [node.left, node.right]
    elif isinstance(node, gast.Call) and not node.keywords and len(node.args) == 2 and _product_call(node):
        operands = list(node.args)
    else:
        return []
    operands = [e.value if isinstance(e, gast.Attribute) and e.attr == "T" else e for e in operands]
    return [e.id for e in operands if isinstance(e, gast.Name)]


def _held(e):
    """`e` without `stop_gradient` (the value itself)."""
    while isinstance(e, gast.Call) and analysis.dotted(e.func) == "stop_gradient" and len(e.args) == 1 \
            and not e.keywords:
        e = e.args[0]
    return e


def reduction(e) -> bool:
    """Whether operand `e` is a reduction (`stop_gradient(xp.max(s, axis=1, keepdims=True))`): a
    new array of fewer elements, no temporary NumPy could have written the result into."""
    return reduced_name(_held(e)) is not None


def reduced_name(node):
    """The name a reduction reads (`e` of `xp.sum(e, axis=1, keepdims=True)` or `e.max(axis=1)`, a
    differentiable reduction: float64 in, float64 out): a read that leaves no reference to `e`'s
    buffer behind; else None."""
    if not isinstance(node, gast.Call) or not all(k.arg in ("axis", "keepdims") for k in node.keywords):
        return None
    if (analysis.dotted(node.func) or "").startswith("xp.") and len(node.args) == 1 \
            and isinstance(node.args[0], gast.Name):
        p, name = registry.lookup(analysis.classify(node)), node.args[0].id
    elif isinstance(node.func, gast.Attribute) and not node.args and isinstance(node.func.value, gast.Name):
        p, name = registry.lookup("xp." + node.func.attr), node.func.value.id
        p = p if p is not None and node.func.attr in p.methods else None
    else:
        return None
    return name if p is not None and p.reduction and not p.nondiff else None


def _product_call(call) -> bool:
    """Whether `call` is NumPy's product of two arrays (`xp.dot`, `xp.matmul`)."""
    p = registry.lookup(analysis.dotted(call.func) or "")
    return p is not None and p.product
