"""Scalar-factor collection: the number literals of a chain of products become one factor, so
`g / n * 2 * t` costs one multiplication by a number instead of three (differentiation writes
such chains: the seed of a `mean` times the 2 of a square's derivative times the chain rule's
factors).

A value `b = k * y` (`y * k`, `y / k`, or `y + y` as `2 * y`: k a number literal) bound once and
read once, by a statement later in the same block, lends its factor to that statement:
`a = b * c2` with c2 a literal becomes `a = (k * c2) * y`; `a = b * z` (or `z * b`, `b / z`)
becomes `a = k * s` after a new `s = y * z`; `a = b ± c` with `c = k * w` of the same k becomes
`a = k * s` after `s = y ± w`. The `b` left unread is dead code. A run in which no two factors
meet (every rewrite only moved one) is undone: the code stays as written.

This reassociates: results may differ in the last bits (`x / 3 * 2` is `x * 0.6666666666666666`),
and a product whose intermediate would overflow to inf (or underflow to 0) may not in the
collected order (`6 * a - 6 * b` with a and b above 3e307 is NaN as written, finite
collected). To keep that to values near the floating types' limits, the literals combined, and
their product, are finite and between 2**-16 and 2**16 in magnitude (int literals positive), and
every value a rewrite removes or adds is certainly floating (`floating`: a float literal's
product, a division, `tanh`...), so no integer product moves (an int intermediate that wraps
around is not a float one that does not), and none may be narrower than float64 (`narrow`: a
float32 array, a cast, what reads one), where NumPy rounds each step to float32 and a moved
factor would be multiplied at another width.

Before::

    t = xp.tanh(x)
    u0 = t * 6.0
    u1 = u0 * d
    u2 = 3.0 * d
    u3 = t + t
    u4 = u2 * u3
    r = u1 - u4
    return r

After (the unread `u0`, `u2`, `u3` are dead code's to remove)::

    t = xp.tanh(x)
    u0 = t * 6.0
    sc0 = t * d
    u1 = 6.0 * sc0
    u2 = 3.0 * d
    u3 = t + t
    sc1 = d * t
    u4 = 6.0 * sc1
    sc2 = sc0 - sc1
    r = 6.0 * sc2
    return r
"""
from __future__ import annotations

import collections
import functools
import math

import gast

from .. import analysis
from ..ir import build
from ..ir.names import Namer
from ..primitives import registry
from .base import Pass, bound, pure

_LIMIT = 2.0 ** 16
_ARITH = (gast.Add, gast.Sub, gast.Mult, gast.Pow)


def _factor(k) -> bool:
    return type(k) in (int, float) and math.isfinite(k) and 1 / _LIMIT <= abs(k) <= _LIMIT and (type(k) is float or k > 0)


def _literal(n):
    return n.value if isinstance(n, gast.Constant) and type(n.value) in (int, float) else None


def floating(body, params, known) -> set[str]:
    """Names every binding of which is certainly a floating value (float or complex, for NumPy
    arrays and Python numbers): a float literal, a division, a float parameter of the jit
    signature, `tanh` of anything, arithmetic with a floating operand (which NumPy and Python
    promote ints to). A parameter the body rebinds is none (before, it holds the caller's value)."""
    arrays = known.get("arrays", {})
    out = set(known.get("floats", ())) | {n for n, (char, _) in arrays.items() if char in "efdgFDG"}
    defs: dict[str, list] = collections.defaultdict(list)
    for s in analysis.walk_stmts(body):
        value = s.value if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) else None
        for t in analysis.targets(s):
            defs[t].append(None if t in params else value)
    out -= set(defs)

    def fl(e) -> bool:
        if isinstance(e, gast.Constant):
            return type(e.value) in (float, complex)
        if isinstance(e, gast.Name):
            return e.id in out
        if isinstance(e, gast.BinOp):
            return isinstance(e.op, gast.Div) or isinstance(e.op, _ARITH) and (fl(e.left) or fl(e.right))
        if isinstance(e, gast.UnaryOp):
            return isinstance(e.op, (gast.USub, gast.UAdd)) and fl(e.operand)
        if isinstance(e, gast.Call) and not e.keywords:
            p = registry.lookup(analysis.dotted(e.func))  # `float_result`: floating always, or when an argument is
            kind = p.float_result if p is not None else ""
            return kind == "always" or kind == "keep" and any(fl(a) for a in e.args[-2:])
        return False

    grew = True
    while grew:
        grew = False
        for n, vs in defs.items():
            if n not in out and all(v is not None and fl(v) for v in vs):
                out.add(n)
                grew = True
    return out


_NARROW = ("float16", "half", "float32", "single", "complex64", "csingle")


def _casts(v) -> bool:
    """Whether expression `v` calls something that may give another dtype than its operands': a
    `dtype=` keyword, `.astype`, a narrow type (`xp.float32(t)`, `np_float32` passed along), or a
    NumPy function given a string (`xp.asarray(t, 'f4')`: a dtype by position)."""
    for n in gast.walk(v):
        if isinstance(n, gast.Call) and (any(k.arg == "dtype" for k in n.keywords)
                                         or isinstance(n.func, gast.Attribute) and n.func.attr == "astype"
                                         or (analysis.dotted(n.func) or "").startswith("xp.")
                                         and any(isinstance(a, gast.Constant) and isinstance(a.value, str) for a in n.args)):
            return True
        if isinstance(n, (gast.Name, gast.Attribute)) and (n.id if isinstance(n, gast.Name) else n.attr).endswith(_NARROW):
            return True
    return False


def narrow(body, known) -> set[str]:
    """Names that may hold values narrower than float64 (float32, float16, complex64): a parameter
    of such a dtype, a cast's result, and what is computed from one."""
    out = {n for n, (char, _) in known.get("arrays", {}).items() if char in "efF"}
    grew = True
    while grew:
        grew = False
        for s in analysis.walk_stmts(body):
            if isinstance(s, gast.Assign) and (not out.isdisjoint(analysis.loads(s.value)) or _casts(s.value)):
                new = set(analysis.targets(s)) - out
                out |= new
                grew = grew or bool(new)
    return out


def _scaled(v):
    """(k, y) when core-form right-hand side `v` is the number literal k times the name y, else None."""
    if not isinstance(v, gast.BinOp):
        return None
    left, right = _literal(v.left), _literal(v.right)
    if isinstance(v.op, gast.Mult) and (left is None) != (right is None):
        k, y = (left, v.right) if left is not None else (right, v.left)
        return (k, y.id) if isinstance(y, gast.Name) and _factor(k) else None
    if isinstance(v.op, gast.Div) and right is not None and isinstance(v.left, gast.Name) and _factor(right):
        return 1.0 / right, v.left.id
    if isinstance(v.op, gast.Add) and isinstance(v.left, gast.Name) and isinstance(v.right, gast.Name) \
            and v.left.id == v.right.id:
        return 2, v.left.id
    return None


def _blocks(stmts):
    """Every statement list of a body: itself and the blocks nested in it."""
    yield stmts
    for s in stmts:
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if block and isinstance(block, list):
                yield from _blocks(block)


def _quiet(s) -> bool:
    """A statement that only binds a name to a value it computes (it changes no array)."""
    return isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and pure(s.value)


class _Function:
    """What the blocks of one body share: binding and read counts, and (computed only where a
    factor could move: most bodies have none) the floating names and a namer."""

    def __init__(self, body, params, facts, binds):
        self.body, self.params, self.known = body, params, facts["known"]
        self.binds = binds
        self.reads = facts["notes"].read_counts(body)
        self.merges = 0  # rewrites where two factors became one

    @functools.cached_property
    def floats(self) -> set[str]:
        return floating(self.body, self.params, self.known)

    @functools.cached_property
    def narrow(self) -> set[str]:
        return narrow(self.body, self.known)

    @functools.cached_property
    def namer(self) -> Namer:
        return Namer({n.id for n in gast.walk(gast.Module(body=self.body, type_ignores=[]))
                      if isinstance(n, gast.Name)} | set(self.params))


class _Block:
    """The scaled values of one block whose factor a later statement of the block may take."""

    def __init__(self, fn: _Function):
        self.fn = fn
        self.scaled: dict[str, tuple] = {}  # name -> (k, y, index of its definition)
        self.bound: dict[str, int] = {}  # name -> index of the statement of the block that binds it

    def lend(self, atom, loud):
        """(k, y) of `atom` if its factor may move to the statement being rewritten (`loud`: the
        index of the last statement before it that may change an array)."""
        if not isinstance(atom, gast.Name) or atom.id not in self.scaled or self.fn.reads[atom.id] != 1 \
                or atom.id not in self.fn.floats:  # (an int `y + y` that wraps around must stay)
            return None
        k, y, start = self.scaled[atom.id]
        if y in self.fn.narrow:  # (k * y rounded to float32: the product it moves to may not be)
            return None
        # (y is bound once; bound in between, it held another iteration's value, or none)
        return (k, y) if start > loud and self.bound.get(y, -1) < start else None

    def rewrite(self, s, loud):
        """The statements that replace `s`, or None."""
        v = s.value
        if not isinstance(v, gast.BinOp) or not isinstance(v.op, (gast.Mult, gast.Div, gast.Add, gast.Sub)) \
                or not all(isinstance(e, gast.Name) or _literal(e) is not None for e in (v.left, v.right)):
            return None
        lhs, rhs = self.lend(v.left, loud), self.lend(v.right, loud)
        if isinstance(v.op, gast.Mult) and rhs is not None and _literal(v.left) is not None:  # c * (k * y)
            lhs, rhs, c = rhs, None, _literal(v.left)
        else:
            c = _literal(v.right) if rhs is None else None
        if isinstance(v.op, (gast.Add, gast.Sub)):  # k * y ± k * w
            if lhs is None or rhs is None or lhs[0] != rhs[0] or type(lhs[0]) is not type(rhs[0]):
                return None
            return self._collected(s, lhs[0], lhs[1], v.op, rhs[1], merges=True)
        if lhs is not None and c is not None:  # (k * y) * c, (k * y) / c
            k = lhs[0] * c if isinstance(v.op, gast.Mult) else lhs[0] / c
            if not (_factor(c) and _factor(k)):
                return None
            s.value = build.binop(build.const(k), gast.Mult(), build.name(lhs[1]))
            self.fn.merges += 1
            return [s]
        if c is not None or _literal(v.left) is not None:
            return None
        if isinstance(v.op, gast.Div):  # (k * y) / z
            return None if lhs is None or rhs is not None else self._collected(s, lhs[0], lhs[1], v.op, v.right.id)
        if lhs is None and rhs is None:  # (k * y) * z, z * (k * y), (k * y) * (c * w)
            return None
        k = (lhs[0] if lhs else 1) * (rhs[0] if rhs else 1)
        return self._collected(s, k, lhs[1] if lhs else v.left.id, v.op, rhs[1] if rhs else v.right.id,
                               merges=bool(lhs and rhs))

    def _collected(self, s, k, y, op, z, merges=False):
        """`s` as k times a new value `y op z`, if that and k qualify (`merges`: two factors meet)."""
        if not (_factor(k) and (isinstance(op, gast.Div) or y in self.fn.floats or z in self.fn.floats)) \
                or y in self.fn.narrow or z in self.fn.narrow:
            return None
        self.fn.merges += merges
        part = self.fn.namer.fresh("sc")
        self.fn.floats.add(part)
        s.value = build.binop(build.const(k), gast.Mult(), build.name(part))
        return [build.assign(part, build.binop(build.name(y), type(op)(), build.name(z))), s]


def _binds(body, params) -> collections.Counter:
    """How many statements bind each name (an item store its base; a parameter once more)."""
    binds = collections.Counter(t for s in analysis.walk_stmts(body) for t in bound(s))
    binds.update(params)
    return binds


def _may_merge(body, binds) -> bool:
    """Whether two factors could meet in `collect`'s run (False: it would only move factors, and
    undo that). A run merges only at a statement bound once whose operator has two operands
    that are factors, a lender's and a literal or two lenders'; a lender is a name bound once to
    `k * y`, or to a product or quotient that reads a lender (a move makes it `k * s`), earlier
    in program order. This asks that of every block at once, and of lenders read more than once."""
    lenders: set[str] = set()
    for s in analysis.walk_stmts(body):
        if type(s) is not gast.Assign or type(s.targets[0]) is not gast.Name or type(s.value) is not gast.BinOp \
                or binds[s.targets[0].id] != 1:
            continue
        v = s.value
        lent = [type(e) is gast.Name and e.id in lenders for e in (v.left, v.right)]
        if any(lent) and all(n or _literal(e) is not None for n, e in zip(lent, (v.left, v.right))):
            return True
        if _scaled(v) is not None or any(lent) and isinstance(v.op, (gast.Mult, gast.Div)):
            lenders.add(s.targets[0].id)
    return False


def collect(body, params, facts):
    if not any(isinstance(s, gast.Assign) and _scaled(s.value) is not None for s in analysis.walk_stmts(body)):
        return body, set()  # no factor to collect (most bodies)
    binds = _binds(body, params)
    if not _may_merge(body, binds):
        return body, set()
    fn = _Function(body, params, facts, binds)
    binds, reads, notes = fn.binds, fn.reads, facts["notes"]
    touched: set[str] = set()
    undo = []  # (block, index, statement, its value before, statements it became)
    for block in list(_blocks(body)):
        table, at, loud = _Block(fn), 0, -1
        while at < len(block):
            s = block[at]
            names = analysis.targets(s) if type(s) is gast.Assign and notes.get(s, "quiet", _quiet) else []
            if not names:
                loud = at
            old = getattr(s, "value", None)
            new = table.rewrite(s, loud) if names and binds[names[0]] == 1 else None
            if new is not None:
                undo.append((block, at, s, old, len(new)))
                facts["notes"].forget(s)
                touched.update(names, *(analysis.loads(n) for n in new), *(analysis.targets(n) for n in new))
                for n in new[:-1]:
                    binds[analysis.targets(n)[0]] = 1
                    reads.update(analysis.loads(n))
                block[at:at + 1] = new
                at += len(new) - 1
                s = block[at]
            if names and binds[names[0]] == 1 and (sc := _scaled(s.value)) is not None and binds[sc[1]] <= 1:
                table.scaled[names[0]] = (*sc, at)
            table.bound.update(dict.fromkeys(analysis.targets(s), at))
            at += 1
    if not fn.merges:  # factors only moved, none met another: the code as it was reads better
        for block, at, s, old, n in reversed(undo):
            s.value = old
            block[at:at + n] = [s]
        return body, set()
    return body, touched


PASS = Pass("scalar_factors", collect)
