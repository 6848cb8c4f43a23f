"""Buffer reuse (jit): an elementwise operation whose operand dies there writes its result into
that operand's array through `out=`, instead of allocating a new one (a large fresh array costs
page faults; a reused one is already in memory).

Before (`x` a float64 array, known from the jit signature)::

    t1 = xp.exp(x)
    t2 = t1 * t1
    t3 = t2 + t1
    return t3

After::

    t1 = xp.exp(x)
    t2 = t1 * t1
    t3 = xp.add(t2, t1, out=t2)
    return t3

Only where it is certain to be the same array type, dtype and shape: the operand is a floating
array the function itself computed (never a parameter, a view or a value stored anywhere: every
read of it is an operand of an elementwise operation), and the result's dtype and shape are the
operand's — worked out from the jit signature's array parameters (`known["arrays"]`: name ->
(dtype char, ndim)) through elementwise operations of arrays of one shape and dtype and Python
numbers. The values are those of the unoptimized code: the same ufunc, operands and order.
`in_place` (after `lifetime`) then writes `t3 = xp.add(t2, t1, out=t2)` as `t2 += t1; t3 = t2`.
"""
from __future__ import annotations

import collections

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry
from . import reuse_shapes
from .base import Pass

# the arithmetic operators (`arith`) -> their ufunc, which writes into a buffer (`ufunc`)
_BINARY = {op: registry.PRIMS[k].ufunc for op, k in analysis.BINOPS.items() if registry.PRIMS[k].arith}
_FLOATS = set("efdg")
_PICK = "rt.pick"


class _Facts:
    """(dtype char, shape root) of array-valued expressions, from the signature's arrays."""

    def __init__(self, arrays):
        self.of = {n: (d, n) for n, (d, nd) in arrays.items() if d in _FLOATS and nd >= 1}
        self.shaped = False  # (float64 names of known shapes among them: reuse_shapes.py)

    def expr(self, e):
        """The facts of `e`'s value, "number" for a Python number, or None (unknown)."""
        if isinstance(e, gast.Name):
            return self.of.get(e.id)
        if isinstance(e, gast.Constant):
            return "number" if type(e.value) in (int, float) else None
        parts = _operation(e)
        if parts is None:
            return reuse_shapes.other(e, self.expr) if self.shaped else None
        facts = [self.expr(p) for p in parts[1]]
        arrays = {f for f in facts if f != "number"}
        if len(arrays) > 1 and None not in arrays:  # (float64 arrays of known shapes: reuse_shapes.py)
            return reuse_shapes.broadcast(arrays)
        return arrays.pop() if len(arrays) == 1 and None not in arrays else None


def _operation(e):
    """(ufunc name, operands) of an elementwise floating operation, or None."""
    if isinstance(e, gast.BinOp) and type(e.op) in _BINARY:
        return _BINARY[type(e.op)], [e.left, e.right]
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
        return "negative", [e.operand]
    if isinstance(e, gast.Call) and not e.keywords and (analysis.dotted(e.func) or "").startswith("xp."):
        p = registry.lookup(analysis.dotted(e.func))
        if p is not None and p.out_buffer and len(e.args) == len(p.params):  # a ufunc with `out=`
            return e.func.attr, list(e.args)
    if isinstance(e, gast.Call) and not e.keywords and len(e.args) == 2 and analysis.dotted(e.func) == _PICK:
        return _PICK, list(e.args)  # (max's derivative, into its first operand's buffer: rt.pick's `out`)
    return None


def _operand_uses(body) -> collections.Counter:
    """For each name, how many of its reads are an operand of an elementwise operation."""
    out = collections.Counter()
    for node in (n for s in body for n in gast.walk(s)):
        op = _operation(node)
        for p in op[1] if op else ():
            if isinstance(p, gast.Name):
                out[p.id] += 1
        if (n := reuse_shapes.reduced_name(node)) is not None:  # (`e.sum(axis=1)`: no reference kept)
            out[n] += 1
        for n in reuse_shapes.product_operands(node):  # (`h2.T @ b_z`: neither)
            out[n] += 1
    return out


def _postorder(e, out):
    """The nodes of expression `e` in the order Python evaluates them (operands first)."""
    for child in gast.iter_child_nodes(e):
        if isinstance(child, gast.expr):
            _postorder(child, out)
    out.append(e)
    return out


def _rewrite(value, info, dead):
    """`value` with each elementwise operation that reads a dead array last writing into it."""
    order = _postorder(value, [])
    # an array is read when the operation it is an operand of runs, not where its name appears:
    # in `t + t * x` the multiplication runs before the addition reads `t`
    at = {id(n): k for k, n in enumerate(order)}
    last = {}
    for node in order:
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.Name):
                last[child.id] = max(last.get(child.id, -1), at[id(node)])
    used, replace, holder = set(), {}, {}  # (holder: replaced node -> the dead array it wrote into)
    for k, node in enumerate(order):
        op = _operation(node)
        if op is None or info.expr(node) is None:
            continue
        if not isinstance(node, gast.Call) and not all(isinstance(p, (gast.Name, gast.Constant)) or id(p) in holder
                                                       or reuse_shapes.reduction(p) for p in op[1]):
            continue  # NumPy writes `a * b + c` into the temporary of `a * b` already (`s - s.max(axis=1)`: no temporary)
        for p in op[1]:
            if isinstance(p, gast.Name) and p.id in dead and p.id not in used and last[p.id] <= k:
                buf = p.id
            elif id(p) in holder:  # (`1 - xp.multiply(h, h, out=h)`: on into the same array)
                buf = holder[id(p)]
            else:
                continue
            fn = op[0] if op[0] == _PICK else f"xp.{op[0]}"
            if info.of.get(buf) != info.expr(node) or fn == _PICK and p is not op[1][0]:
                continue  # (rt.pick writes into its first operand only)
            replace[id(node)] = build.call(fn, list(op[1]), {"out": build.name(buf)})
            holder[id(node)] = buf
            used.add(buf)
            break
    if not replace:
        return value, False
    value = replace.get(id(value), value)
    _substitute(value, replace)
    return value, True


def _substitute(node, replace):
    """Put each replaced node of `node`'s subtree (`replace`: id -> its replacement) in its place,
    inside replacements too (an operation written into an array reads one that was)."""
    for field, child in gast.iter_fields(node):
        if isinstance(child, list):
            child = [replace.get(id(c), c) for c in child]
            setattr(node, field, child)
            for c in child:
                if isinstance(c, gast.AST):
                    _substitute(c, replace)
        elif isinstance(child, gast.AST):
            if id(child) in replace:
                child = replace[id(child)]
                setattr(node, field, child)
            _substitute(child, replace)


def reuse(body: list, params, facts) -> tuple[list, bool]:
    arrays = facts["known"].get("arrays")
    if not arrays:
        return body, False
    info = _Facts(arrays)
    info.of.update(shaped := reuse_shapes.shaped(facts["known"]))
    info.shaped = bool(shaped)
    live = None  # computed when a first candidate needs it (most bodies have none)
    counts = analysis.assigned_counts(body, params)
    reads = collections.Counter(analysis.loads(body))
    as_operand = _operand_uses(body)
    fresh: set[str] = set()  # arrays this function computed, held by nothing but their name
    top = reuse_shapes.top_level_names(body, counts, params) if info.shaped else set()
    changed = False
    for s in body:
        if not isinstance(s, (gast.Assign, gast.Return)) or s.value is None:
            continue
        fact = info.expr(s.value) if _operation(s.value) or info.shaped and reuse_shapes.product(s.value, info.expr) \
            else None
        if fresh and live is None:
            live = analysis.TopLiveness(body)
        dead = {n for n in fresh if n not in live.after[s]} if fresh else set()
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id in fresh \
                and s.targets[0].id in top:
            dead.add(s.targets[0].id)  # (`b_e = b_e + b_t4`: the old value's last read, `b_e += b_t4`)
        if dead:
            s.value, c = _rewrite(s.value, info, dead)
            fresh -= dead
            changed |= c
        if not isinstance(s, gast.Assign) or not isinstance(s.targets[0], gast.Name):
            continue
        t = s.targets[0].id
        if t in top:  # (bound more than once: this binding's fact holds until the next)
            fresh.discard(t)
            info.of.pop(t, None)
            if fact is not None and fact != "number":
                info.of[t] = fact
                if reads[t] == as_operand[t]:
                    fresh.add(t)
            continue
        if fact is None or fact == "number" or counts.get(t) != 1:
            continue
        info.of[t] = fact
        if reads[t] == as_operand[t] and t not in params:
            fresh.add(t)
    return body, changed


_AUGMENTED = {ufunc: op for op, ufunc in _BINARY.items()}  # "multiply" -> gast.Mult
_COMMUTING = {_BINARY[gast.Add], _BINARY[gast.Mult]}


def in_place(body: list, params, facts) -> tuple[list, bool]:
    """(After `lifetime`.) `t = xp.multiply(a, b, out=a)` written `a *= b` then `t = a` (and
    `return xp.multiply(a, b, out=a)` as `a *= b` then `return a`): the same
    ufunc into the same buffer (an array's `*=` is `multiply(a, b, out=a)`), without the keyword
    argument NumPy parses on each call (30 ns of a 230 ns product of small arrays). A sum or
    product into its second operand is written the same way (`b *= a`: IEEE addition and
    multiplication commute)."""
    out, changed = [], False
    for s in body:  # (reuse rewrites top-level statements only)
        v = getattr(s, "value", None)
        named = isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
        buf = _buffer(v) if named or isinstance(s, gast.Return) else None
        if buf is None:
            out.append(s)
            continue
        first = isinstance(v.args[0], gast.Name) and v.args[0].id == buf
        changed = True
        out.append(build.aug_assign(buf, _AUGMENTED[v.func.attr](), v.args[1] if first else v.args[0]))
        if not named or s.targets[0].id != buf:  # (`b_e += b_t4`: b_e is already the result)
            out.append(build.assign(s.targets[0].id, build.name(buf)) if named else build.ret(build.name(buf)))
    return out, changed


def _buffer(v) -> str | None:
    """The operand `xp.<ufunc>(a, b, out=a)` writes into where an augmented assignment can."""
    if not (isinstance(v, gast.Call) and len(v.args) == 2 and [k.arg for k in v.keywords] == ["out"]
            and isinstance(v.keywords[0].value, gast.Name) and analysis.dotted(v.func) == f"xp.{v.func.attr}"
            and v.func.attr in _AUGMENTED):
        return None
    buf = v.keywords[0].value.id
    if isinstance(v.args[0], gast.Name) and v.args[0].id == buf:
        return buf
    commutes = v.func.attr in _COMMUTING
    return buf if commutes and isinstance(v.args[1], gast.Name) and v.args[1].id == buf else None


PASS = Pass("reuse", reuse)
IN_PLACE = Pass("in_place", in_place)
