"""Constant operands (jit, final stage): a number in arithmetic with a float64 NumPy array becomes
a 0-d float64 array bound once in the version's namespace.

NumPy turns a Python number operand into an array on every call: `x * 2.0` costs 0.15 µs more
than `x * y` on a small array, `1 - x` 0.23 µs more (measured on 3 elements, NumPy 2). A 0-d
float64 array is converted to nothing. The values are the same: NumPy casts the number to the
array's dtype, float64, either way (a Python int only where float64 holds it exactly).

Before::

    d = 1 - t * t
    return 6.0 * d

After::

    d = c64_1_0 - t * t
    return c64_6_0 * d

with `c64_1_0 = array(1.0)` and `c64_6_0 = array(6.0)`, read-only, listed in `known["constants"]`
(the dump shows them), and `1.0 * b` of such an array `b` is `b`. Only an operand that is
certainly a float64 array of rank 1 or more gets them: a parameter of the jit signature
(`known["arrays"]`), and what `+ - * /`, the unary functions fused kernels compute
(`Prim.fusable`), `maximum`/`minimum` and products of vectors and matrices make of such arrays
and numbers, through names bound once. A rank-0 result would turn a NumPy scalar into a 0-d
array, and `**` keeps its number (NumPy's fast paths for `x ** 2` and `x ** 0.5` read it).
"""
from __future__ import annotations

import gast
import numpy as np

from ...base import record
from .. import analysis
from ..ir import build
from ..primitives import registry
from .base import Pass, rewrite_values

_CMP = (gast.Gt, gast.GtE, gast.Lt, gast.LtE, gast.Eq, gast.NotEq)


def float64_ranks(body, params, known) -> dict:
    """Name -> rank of the names bound once to certainly float64 arrays (parameters included, and
    the results of small-array kernels), and `analysis.IDENTITY` for the names of `stop_gradient`."""
    counts = analysis.assigned_counts(body, params)
    ranks = {n: analysis.IDENTITY for n, v in (known.get("ns") or {}).items()
             if n not in counts and getattr(record.of(v), "prim", None) == "stop_gradient"}
    ranks |= {p: nd for p, (d, nd) in (known.get("arrays") or {}).items() if d == "d" and nd >= 1 and counts.get(p) == 1}
    ranks |= {r: 1 for k in known.get("small") or () if len(k[5]) == 1  # (smallfuse's vectors; its matrices'
              for r in k[3] if counts.get(r) == 1}                     # dtypes are tested when they run)
    return analysis.bound_ranks(body, ranks, counts)


def _constant(e, table: dict, taken, ranks: dict) -> gast.Name:
    """The name of the 0-d array of number literal `e`'s value (keyed by its text: -0.0 is not 0.0)."""
    text = repr(-float(e.operand.value) if isinstance(e, gast.UnaryOp) else float(e.value))
    name = table.get(text)
    if name is None:
        name = "c64_" + text.replace("-", "neg_").replace(".", "_").replace("+", "")
        while name in taken:
            name += "_"
        table[text], ranks[name] = name, 0  # (a number to the expressions around it)
    return build.name(name)


def array_constants(body: list, params, facts) -> tuple[list, bool]:
    """(Final stage, jit.) Number operands of float64 arrays as 0-d arrays (module docstring)."""
    known = facts["known"]
    offered = known.get("constants")
    if offered is None or not known.get("arrays"):
        return body, False
    ranks = float64_ranks(body, params, known)
    if not ranks:
        return body, False
    taken = set(known.get("ns") or ()) | set(analysis.assigned_counts(body, params))
    table: dict = {}  # repr of the value -> name

    def rewrite(e):
        if (one := _times_one(e, ranks)) is not None:
            return one
        if isinstance(e, gast.BinOp) and isinstance(e.op, analysis.ARITH):  # (not `**`: above)
            pair = [e.left, e.right]
        elif isinstance(e, gast.Compare) and len(e.ops) == 1 and isinstance(e.ops[0], _CMP):
            pair = [e.left, e.comparators[0]]
        elif isinstance(e, gast.Call) and len(e.args) == 2 and analysis.array_rank(e, ranks) \
                and (p := registry.lookup(analysis.dotted(e.func) or "")) is not None and (p.fusable or p.arith):
            pair = e.args  # maximum(x, 0.0); multiply(6.0, t, out=t) (passes/reuse.py)
        else:
            return None
        for k, (a, b) in enumerate((pair, pair[::-1])):
            if analysis.number_literal(a) and analysis.array_rank(b, ranks):
                new = _constant(a, table, taken, ranks)
                if isinstance(e, gast.BinOp):
                    return gast.BinOp(left=new, op=e.op, right=b) if k == 0 else gast.BinOp(left=b, op=e.op, right=new)
                if isinstance(e, gast.Compare):
                    return gast.Compare(left=new, ops=e.ops, comparators=[b]) if k == 0 else \
                        gast.Compare(left=b, ops=e.ops, comparators=[new])
                return gast.Call(func=e.func, args=[new, b] if k == 0 else [b, new], keywords=e.keywords)
        return None

    changed = rewrite_values(body, rewrite)
    offered.update({name: _frozen(float(text)) for text, name in table.items()})
    return body, changed


def _times_one(e, ranks: dict):
    """`b` for `1.0 * b`, `b * 1.0` or `b / 1.0` with `b` certainly a new float64 array computed
    there (a cotangent 1.0 times a rule's factor `1 / t`): the product is `b` itself, bit for bit,
    so the operation goes. Not for a name or a view (`acc = x * 1.0` is a copy the code may write
    into)."""
    if not (isinstance(e, gast.BinOp) and isinstance(e.op, (gast.Mult, gast.Div))):
        return None
    for one, b in ((e.right, e.left), (e.left, e.right)) if isinstance(e.op, gast.Mult) else ((e.right, e.left),):
        if isinstance(one, gast.Constant) and type(one.value) in (float, int) and one.value == 1 \
                and _new_array(b) and analysis.array_rank(b, ranks):
            return b
    return None


def _new_array(e) -> bool:
    """Whether `e` makes a new array (arithmetic, an elementwise function), never a view or a name."""
    if isinstance(e, (gast.BinOp, gast.UnaryOp)):
        return True
    p = registry.lookup(analysis.dotted(e.func) or "") if isinstance(e, gast.Call) else None
    return p is not None and bool(p.fusable) and not e.keywords and not p.aliasing


def _frozen(v: float):
    """A read-only 0-d float64 array (shared by every call of the version)."""
    a = np.array(v)
    a.flags.writeable = False
    return a


PASS = Pass("array_constants", array_constants)
