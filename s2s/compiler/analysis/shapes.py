"""Shape roots: for names assigned once by a shape-preserving op, the earliest name with the same
shape (what the passes that fold shapes and fill arrays read)."""
from __future__ import annotations

import gast

from ..primitives import registry
from .stmts import assigned_counts, classify, dotted


def _same_shape_source(value):
    """The Name whose shape `value` has, if the op preserves its operand's shape."""
    kind = classify(value)
    if kind == "copy":
        return value
    p = registry.lookup(kind)
    if p is None:
        return None
    if p.same_shape:
        operand = value.operand if isinstance(value, gast.UnaryOp) else value.args[0] if isinstance(value, gast.Call) \
            else None
        return operand if isinstance(operand, gast.Name) else None
    if p.broadcasting and isinstance(value, gast.BinOp):
        left, right = value.left, value.right
        if isinstance(left, gast.Name) and isinstance(right, gast.Constant) and isinstance(right.value, (int, float)):
            return left
        if isinstance(right, gast.Name) and isinstance(left, gast.Constant) and isinstance(left.value, (int, float)):
            return right
    return None


def _shape_operands(value):
    """The operands of an elementwise op whose result has the shape they share (`xp.where`,
    comparisons, arithmetic), or of a helper whose result has its shape argument's shape."""
    if isinstance(value, gast.BinOp) and (p := registry.lookup(classify(value))) is not None and p.broadcasting:
        return [value.left, value.right]
    if isinstance(value, gast.Compare) and len(value.ops) == 1:
        return [value.left, value.comparators[0]]
    if isinstance(value, gast.Call) and not value.keywords and dotted(value.func) == "xp.where" and len(value.args) == 3:
        return list(value.args)
    like = shape_like(value)
    return [like] if like is not None else None


def shape_like(value):
    """The argument whose shape a helper call's result has (`rt.unbroadcast(g, like)`,
    `rt.sum_vjp(v, like, ...)`: the declaration's `result_like`), or None."""
    p = registry.lookup(dotted(value.func)) if isinstance(value, gast.Call) else None
    return value.args[p.result_like] if p is not None and p.result_like is not None \
        and p.result_like < len(value.args) else None


class ShapeRoots(dict):
    """`shape_roots`'s answer, with the `assigned_counts` it read as `counts` (still right for its
    callers while they rewrite only right-hand sides: one walk of the body less), and `typed`: the
    roots that also share the name's dtype kind (a chain stops at a real result of a complex array,
    `np.abs(z)`), for helpers that read a dtype with the shape (`rt.sum_vjp`'s ones)."""

    counts: dict[str, int]
    typed: dict[str, str]


def shape_roots(body: list, params) -> ShapeRoots:
    """For names assigned once by a shape-preserving op: the earliest name with the same shape."""
    counts = assigned_counts(body, params)
    source, typed = {}, {}  # (typed: the same chains, cut at a real result of a complex operand)
    arrays = set()  # names certainly holding arrays (not lists or tuples)
    for s in body:  # straight-line statements only: each name here holds one value
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and counts[s.targets[0].id] == 1:
            target = s.targets[0].id
            src = _same_shape_source(s.value)
            if src is not None and counts.get(src.id, 0) == 1:
                if not _may_be_sequence_op(s.value, arrays):
                    source[target] = src.id
                    if not _real_of_complex(s.value):
                        typed[target] = src.id
                    if classify(s.value) != "copy":
                        arrays.add(target)
            elif src is None and (ops := _shape_operands(s.value)) is not None:
                names = [o for o in ops if isinstance(o, gast.Name)]
                rest = [o for o in ops if not isinstance(o, gast.Name)]
                found = {_root(o.id, source) for o in names}
                if len(found) == 1 and all(counts.get(o.id, 0) == 1 for o in names) and all(
                        isinstance(o, gast.Constant) and type(o.value) in (int, float, bool) for o in rest) \
                        and not _may_be_sequence_op(s.value, arrays):
                    source[target] = found.pop()
                    arrays.add(target)
                    kinds = {_root(o.id, typed) for o in names}
                    if len(kinds) == 1:
                        typed[target] = kinds.pop()
            if isinstance(s.value, gast.Call) and (dotted(s.value.func) or "").startswith("xp."):
                arrays.add(target)
    roots = ShapeRoots((name, _root(name, source)) for name in source)
    roots.counts = counts
    roots.typed = {name: _root(name, typed) for name in typed}
    return roots


def _real_of_complex(value) -> bool:
    """Whether `value` is an op whose result may be real where its operand is complex (np.abs)."""
    p = registry.lookup(classify(value))
    return p is not None and p.real_of_complex


def _may_be_sequence_op(value, arrays) -> bool:
    """`a + b` and `a * n` concatenate and repeat when an operand is a list or tuple: their result
    shares an operand's shape only when an operand is certainly an array or a float."""
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult))):
        return False
    operands = (value.left, value.right)
    return not any(isinstance(o, gast.Name) and o.id in arrays or isinstance(o, gast.Constant)
                   and type(o.value) is float for o in operands)


def expr_shape_root(e, roots, counts):
    """The shape root (see `shape_roots`) of expression `e`'s value, "" for a number (any
    shape), None if unknown; names count only when assigned once."""
    if isinstance(e, gast.Name):
        return roots.get(e.id, e.id) if counts.get(e.id, 0) == 1 else None
    if isinstance(e, gast.Constant):
        return "" if type(e.value) in (int, float, bool) else None
    ops = _shape_operands(e)
    if ops is None and isinstance(e, (gast.Call, gast.UnaryOp)):
        try:
            p = registry.lookup(classify(e))
        except TypeError:
            p = None
        if p is not None and p.same_shape:
            ops = [e.operand] if isinstance(e, gast.UnaryOp) else e.args[:1]
    found = {expr_shape_root(o, roots, counts) for o in ops or ()}
    if ops is None or None in found:
        return None
    found.discard("")
    return found.pop() if len(found) == 1 else "" if not found else None


def _root(name, source):
    while name in source:
        name = source[name]
    return name
