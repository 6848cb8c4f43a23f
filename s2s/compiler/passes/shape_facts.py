"""Facts shape folding reads beyond a name's shape (`shapefold`): the int value of a size read
from a known shape (`batch = xs.shape[1]`, then `np.zeros((batch, 128))`), the tuple of ints
a name holds (`xp.transpose(a, t0)` with `t0 = 1, 0, 2`), an inlined step's record in a loop
(`saved0 = (x, y)` each iteration, pushed on and popped off the control list) and a sum's or
product's operands of known shapes (`rt.operand_cotangent`, which is then `rt.unbroadcast`'s
fold). Each takes `shape_of` (shapefold's) where it needs shapes."""
from __future__ import annotations

import threading

import gast
import numpy as np

from .. import analysis
from ..ir import build
from .stack import push_of


def int_tuple(node, shapes, shape_of):
    """The ints of a tuple display of ints (literals, or names bound once to an int that follows
    from the known shapes, `int_value`), or of a name bound once to one, else None."""
    if isinstance(node, gast.Name):
        node = getattr(shapes, "bound", {}).get(node.id)
    if not isinstance(node, gast.Tuple):
        return None
    out = tuple(int_value(e, shapes, shape_of) for e in node.elts)
    return None if None in out else out


def resolved(v, shapes, shape_of):
    """`v` with the int values it has now: an int literal, a tuple display of them, or None."""
    if isinstance(v, gast.Tuple):
        ints = int_tuple(v, shapes, shape_of)
        return None if ints is None else build.tuple_([build.const(k) for k in ints])
    k = int_value(v, shapes, shape_of)
    return None if k is None else build.const(k)


def sliced(v, shapes, shape_of):
    """The shape of `a[lo:hi:step]` (a slice of the first axis, ints known) of an `a` of known shape, or None."""
    s = shape_of(v.value, shapes)
    sl = v.slice
    if not s or not isinstance(sl, gast.Slice):
        return None
    ends = [None if e is None or isinstance(e, gast.Constant) and e.value is None else int_value(e, shapes, shape_of)
            for e in (sl.lower, sl.upper, sl.step)]
    if any(k is None for k, e in zip(ends, (sl.lower, sl.upper, sl.step)) if e is not None
           and not (isinstance(e, gast.Constant) and e.value is None)) or ends[2] == 0 or type(s[0]) is not int:
        return None
    return (len(range(s[0])[slice(*ends)]),) + tuple(s[1:])


def int_value(node, shapes, shape_of, depth=0):
    """The int value of `node`: an int literal, `a.shape[k]` or `xp.shape(a)[k]` of a known shape,
    or a name bound once to one of these (per binding: a name bound once holds one value), else None."""
    if depth > 8:
        return None
    if isinstance(node, gast.Constant):
        return node.value if type(node.value) is int else None
    if isinstance(node, gast.Name):
        v = getattr(shapes, "bound", {}).get(node.id)
        return None if v is None else int_value(v, shapes, shape_of, depth + 1)
    if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant) and type(node.slice.value) is int:
        of = node.value
        b = getattr(shapes, "bound", {}).get(of.id) if isinstance(of, gast.Name) else None
        if isinstance(b, (gast.Attribute, gast.Call)):
            of = b
        a = of.value if isinstance(of, gast.Attribute) and of.attr == "shape" else \
            of.args[0] if isinstance(of, gast.Call) and analysis.dotted(of.func) == "xp.shape" and len(of.args) == 1 \
            and not of.keywords else None
        s = shape_of(a, shapes) if a is not None else None
        k = node.slice.value
        return s[k] if s is not None and -len(s) <= k < len(s) and type(s[k]) is int else None
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        k = int_value(node.operand, shapes, shape_of, depth + 1)
        return None if k is None else -k
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult)):
        a, b = int_value(node.left, shapes, shape_of, depth + 1), int_value(node.right, shapes, shape_of, depth + 1)
        if a is not None and b is not None:
            return a + b if isinstance(node.op, gast.Add) else a - b if isinstance(node.op, gast.Sub) else a * b
    return None


_MEMO = threading.local()  # (one shape folding run's `record_unpacks`: its analyses ask for it ten times)


def remembered(body):
    """While the `with` block runs, `record_unpacks(body, ...)` is computed once (shape folding's
    analyses read the same body several times before its sweep rewrites it)."""
    return _Remembered(body)


class _Remembered:
    def __init__(self, body):
        self.body = body

    def __enter__(self):
        _MEMO.entry = (self.body, None)

    def __exit__(self, *exc):
        _MEMO.entry = None


def record_unpacks(body, counts, prim) -> dict:
    """A backward sweep's names bound from its own copy of the record, `(a, b) = rt.private(saved0,
    True)` (or `rt.copy_saved`) with `saved0 = (x, y)` bound once to a tuple display in the same
    function (an inlined call's forward and backward sweeps): name -> the name it copies (`a` ->
    `x`), whose shape it has and, for a record list, whose pushes it pops."""
    entry = getattr(_MEMO, "entry", None)
    if entry is not None and entry[0] is body:
        if entry[1] is None:
            _MEMO.entry = (body, _record_unpacks(body, counts, prim))
        return _MEMO.entry[1]
    return _record_unpacks(body, counts, prim)


def _record_unpacks(body, counts, prim) -> dict:
    displays = {s.targets[0].id: s.value for s in analysis.walk_stmts(body) if isinstance(s, gast.Assign)
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, (gast.Tuple, gast.Name))
                and counts.get(s.targets[0].id) == 1}
    for n, d in list(displays.items()):  # (`bwd_saved = saved0`: the record passed on by name)
        seen = {n}
        while isinstance(d, gast.Name) and d.id not in seen:
            seen.add(d.id)
            d = displays.get(d.id)
        displays[n] = d if isinstance(d, gast.Tuple) else None
    displays.update(loop_records(body, counts, displays))
    out: dict = {}
    index: list = []  # (`restored_as`'s one walk, made when first needed)
    for _ in range(2):  # (the second round: a record restored by name from a copied list, see below)
        for s in analysis.walk_stmts(body) if displays else ():
            v = s.value if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Tuple) else None
            if v is None or not (isinstance(v, gast.Call) and v.args and isinstance(v.args[0], gast.Name)
                                 and getattr(prim(v), "record_copy", False)):
                continue
            d = displays.get(v.args[0].id)
            if d is None and (src := out.get(v.args[0].id)) is not None:
                index = index or [_binders_and_pushes(body)]
                d = displays.get(src) if restored_as(v.args[0].id, src, index[0], out, prim) else None
            if d is not None and len(d.elts) == len(s.targets[0].elts):
                out.update({t.id: e.id for t, e in zip(s.targets[0].elts, d.elts)
                            if isinstance(t, gast.Name) and isinstance(e, gast.Name)})
    return out


def loop_records(body, counts, displays) -> dict:
    """An inlined step's record in a loop, `saved0 = (x, y)` each iteration after `ctl.append(saved0)`:
    names bound more than once, once to a tuple display and otherwise only to `None` at the top level
    (the name's value before the loop) or to a pop of a list the name is pushed on (the backward
    sweep's restore of its earlier value), -> that display. Every tuple it holds is one of the
    display's values, whose items are the display's names, so a copy unpacked from it has their
    shapes."""
    binds: dict = {}
    top = {id(s.value) for s in body if isinstance(s, gast.Assign)}
    pushed: dict = {}  # list -> the names pushed on it
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            binds.setdefault(s.targets[0].id, []).append(s.value)
        elif (p := push_of(s)) is not None and isinstance(p[1], gast.Name):
            pushed.setdefault(p[0], set()).add(p[1].id)

    def other(n, v) -> bool:  # `None` before the loop, or a restore
        return isinstance(v, gast.Constant) and v.value is None and id(v) in top or isinstance(v, gast.Call) \
            and isinstance(v.func, gast.Attribute) and v.func.attr == "pop" and not v.args and not v.keywords \
            and isinstance(v.func.value, gast.Name) and n in pushed.get(v.func.value.id, ())

    out = {}
    for n, vs in binds.items():
        if n in displays or counts.get(n, 0) != len(vs):
            continue
        tuples = [v for v in vs if isinstance(v, gast.Tuple)]
        if len(tuples) == 1 and all(v is tuples[0] or other(n, v) for v in vs):
            out[n] = tuples[0]
    return out


def _binders_and_pushes(body) -> tuple[dict, dict]:
    """(name -> the statements that bind it, name -> the lists it is pushed on), in one walk."""
    binders: dict = {}
    pushed_on: dict = {}
    for s in analysis.walk_stmts(body):
        targets = s.targets if isinstance(s, gast.Assign) else [s.target] if isinstance(
            s, (gast.AugAssign, gast.AnnAssign, gast.For)) else []
        for e in (e for t in targets for e in gast.walk(t)):
            if isinstance(e, gast.Name):
                binders.setdefault(e.id, []).append(s)
        if (p := push_of(s)) is not None and isinstance(p[1], gast.Name):
            pushed_on.setdefault(p[1].id, set()).add(p[0])
    return binders, pushed_on


def restored_as(n, src, index, copies, prim) -> bool:
    """Whether every binding of `n`, a backward sweep's copy of record `src` (`copies[n] == src`), is
    that copy or a pop of a list copied from one `src` is pushed on: the transform pushes a variable
    before each overwrite and pops it back into the variable's copy, so `n` holds `src`'s values.
    `index`: `_binders_and_pushes` of the function."""
    binders, pushes = index
    pushed_on = pushes.get(src, set())
    for s in binders.get(n, ()):
        v = s.value if isinstance(s, gast.Assign) else None
        if isinstance(s.targets[0] if v is not None else None, gast.Tuple):
            if not getattr(prim(v), "record_copy", False):  # (the copy `copies` names)
                return False
        elif not (isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr == "pop"
                  and not v.args and isinstance(v.func.value, gast.Name)
                  and copies.get(v.func.value.id, v.func.value.id) in pushed_on):
            return False
    return True


def plain_operands(v, shapes, shape_of):
    """For `rt.operand_cotangent(ct, operand, other, op, first)` (no `wrt_other`) of `+` or `*` whose
    three values have known shapes (arrays or numbers, so neither operand is a list or tuple that
    `+` would concatenate): (the shapes of ct, operand and other), else None."""
    a = v.args
    if len(a) != 5 or v.keywords or not (isinstance(a[3], gast.Constant) and type(a[3].value) is str):
        return None  # (`op`, the literal "add" or "mul": the helper's two cases)
    out = tuple(shape_of(e, shapes) for e in a[:3])
    return None if None in out else out


def unbroadcast(g, gs, like, ls):
    """`rt.unbroadcast(g, like)` for these shapes: `g`, one `xp.sum`, or None (sum and reshape)."""
    if gs == ls:
        return g
    lead = len(gs) - len(ls)
    if lead < 0 or broadcast(gs, ls) != gs:
        return None
    ones = tuple(i + lead for i, n in enumerate(ls) if n == 1 and gs[i + lead] != 1)
    if lead and ones:
        return None
    axes = tuple(range(lead)) or ones
    if len(gs) == 1 and not ls:  # a vector's total: the method (NumPy's function costs µs more);
        neg = isinstance(g, gast.UnaryOp) and isinstance(g.op, gast.USub)  # -(x.sum()) is x's negation's
        total = build.call(build.attr(g.operand if neg else g, "sum"), [])
        return gast.UnaryOp(op=gast.USub(), operand=total) if neg else total
    axis = build.const(axes[0]) if len(axes) == 1 else build.tuple_([build.const(a) for a in axes])
    return build.call("xp.sum", [g], {"axis": axis, **({"keepdims": build.const(True)} if ones else {})})


def broadcast(*shapes):
    """NumPy's broadcast of `shapes`, or None (one unknown, or they do not broadcast)."""
    if any(s is None for s in shapes):
        return None
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None
