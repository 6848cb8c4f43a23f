"""Which expressions are certainly NumPy arrays of floats, and of which rank, given the names known
to be (`ranks`: name -> rank; 0 for a name that holds a number). Arithmetic and powers, transposes, the
unary functions fused kernels compute (`Prim.fusable`), `maximum`/`minimum` and products of
vectors and matrices keep such an array an array of its float dtype (a number operand takes the
array's dtype), and so do `xp.add`... writing into an operand's buffer (`out=`, passes/reuse.py)."""
from __future__ import annotations

import gast

from ..primitives import registry
from .stmts import dotted, walk_stmts

IDENTITY = "identity"  # in `ranks`: a name that is `stop_gradient` (an array's rank passes through)
ARITH = (gast.Add, gast.Sub, gast.Mult, gast.Div)  # elementwise arithmetic: an array's rank and float dtype stay
_EXACT = 1 << 53  # the largest Python int a float64 holds with every smaller one


def number_literal(e) -> bool:
    """A float literal, or an int literal a float64 holds exactly (negated or not)."""
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
        e = e.operand
    return isinstance(e, gast.Constant) and (type(e.value) is float or type(e.value) is int and abs(e.value) <= _EXACT)


def array_rank(e, ranks: dict) -> int | None:
    """The rank of `e` if it is certainly a float array of rank 1 or more, 0 if a number literal
    (or a name `ranks` gives 0), else None."""
    if isinstance(e, gast.Name):
        r = ranks.get(e.id)
        return r if type(r) is int else None
    if isinstance(e, gast.Constant):
        return 0 if type(e.value) in (int, float) else None
    if isinstance(e, gast.BinOp) and isinstance(e.op, (*ARITH, gast.Pow)):
        return _widest(array_rank(e.left, ranks), array_rank(e.right, ranks))
    if isinstance(e, gast.Attribute) and e.attr == "T":
        return array_rank(e.value, ranks) or None
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, (gast.USub, gast.UAdd)):
        return array_rank(e.operand, ranks) or None
    if isinstance(e, gast.BinOp) and isinstance(e.op, gast.MatMult):
        return _product(array_rank(e.left, ranks), array_rank(e.right, ranks))
    if not isinstance(e, gast.Call):
        return None
    if isinstance(e.func, gast.Name) and ranks.get(e.func.id) == IDENTITY and len(e.args) == 1 and not e.keywords:
        return array_rank(e.args[0], ranks)  # stop_gradient: the jit code that runs drops it
    p = registry.lookup(dotted(e.func) or "")
    if p is None or e.keywords and not ((p.arith or p.out_buffer) and all(k.arg == "out" for k in e.keywords)):
        return None  # (`xp.add(a, b, out=a)`: the buffer of an operand of its dtype, passes/reuse.py)
    args = [array_rank(a, ranks) for a in e.args]
    if p.arith and len(args) == 2:
        return _widest(*args)
    if (p.fusable == "unary" or p.reverses_axes) and len(args) == 1:  # (`xp.transpose(a)`: `a.T`)
        return args[0] or None
    if p.fusable == "binary" and len(args) == 2:  # maximum, minimum
        return _widest(*args)
    return _product(*args) if p.product and len(args) == 2 else None


def bound_ranks(body, ranks: dict, counts: dict) -> dict:
    """`ranks` with the names bound once (`counts`) to a value `array_rank` finds an array of rank
    1 or more, in program order (a name is read after its one binding)."""
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and counts.get(s.targets[0].id) == 1:
            r = array_rank(s.value, ranks)
            if r:
                ranks[s.targets[0].id] = r
    return ranks


def _widest(a, b):
    """The rank of an elementwise result of operands of ranks `a` and `b` (0: a number), if an array."""
    return None if a is None or b is None or a == b == 0 else max(a, b)


def _product(a, b):
    """The rank of a product of a vector or matrix by another (None for a number: two vectors)."""
    if a not in (1, 2) or b not in (1, 2):
        return None
    return (a + b - 2) or None
