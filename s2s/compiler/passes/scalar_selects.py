"""Select cotangents on numbers (jit, issue 46 section 2): `np.where`'s cotangent rule,
`rt.unbroadcast(xp.where(c, g, 0.0), x)`, where shape folding left it (the shapes are not known
when compiling), becomes `rt.where_cotangent(c, g, x, True, xp)`, which on NumPy numbers (a bool
condition, a float64 cotangent, a float operand) gives the cotangent or a zero as a number. On
numbers `np.where` makes a 0-d array, a microsecond, and each NumPy operation that reads one takes
ten times as long as on a number: skip-gram's sigmoid `np.where(x >= 0, 1 / (1 + np.exp(-x)),
np.exp(x) / (1 + np.exp(x)))`, 110 steps a call, reads two in each step's backward.

Before::

    b_t8 = rt.unbroadcast(xp.where(t0, 0.0, g), t8)
    b_t7 = -rt.unbroadcast(b_t8 * t8, t7) / t7

After::

    b_t8 = rt.where_cotangent(t0, g, t8, False, xp)
    b_t7 = -rt.unbroadcast(b_t8 * t8, t7) / t7

A number and a 0-d array of the same value give the same arithmetic (`+`, `-`, `*` and `/` are
correctly rounded, so the same bits, and a NumPy number of the same dtype), but not the same
value elsewhere (a gradient returned, an item stored), so the select is rewritten only where its
value goes into such arithmetic: an operand of `+`, `-`, `*`, `/` or of a negation, directly,
through `rt.unbroadcast`'s first argument (which gives a number of its own shape back as it is),
or through a name whose every read is such an operand.

Any other `xp.where(c, a, b)` in a loop (the forward sigmoid's own, whose value the tape and the
records carry) becomes `rt.where_numbers(c, a, b, xp)`: for a bool and two floats, the 0-d array
`np.where` gives, made from the number picked (0.25 us against 1.7 us); anything else `xp.where`.
"""
from __future__ import annotations

import collections

import gast

from .. import analysis
from ..ir import build
from .base import Pass

_UNARY = (gast.USub, gast.UAdd)
_EXACT = (gast.Add, gast.Sub, gast.Mult, gast.Div)  # (correctly rounded: a number's and a 0-d array's agree)


def _zero(e) -> bool:
    return isinstance(e, gast.Constant) and type(e.value) is float and e.value == 0.0 and str(e.value) == "0.0"


def _select(node):
    """(c, g, like, first) for `rt.unbroadcast(xp.where(c, g, 0.0), like)` (first True) or
    `rt.unbroadcast(xp.where(c, 0.0, g), like)` (first False), else None."""
    if not (isinstance(node, gast.Call) and analysis.dotted(node.func) == "rt.unbroadcast" and len(node.args) == 2
            and not node.keywords):
        return None
    w, like = node.args
    if not (isinstance(w, gast.Call) and analysis.dotted(w.func) == "xp.where" and len(w.args) == 3
            and not w.keywords):
        return None
    c, a, b = w.args
    if _zero(b) and not _zero(a):
        return c, a, like, True
    if _zero(a) and not _zero(b):
        return c, b, like, False
    return None


class _Uses:
    """Each node's parent, and each name's loads, over a body."""

    def __init__(self, body):
        self.parent: dict[int, object] = {}
        self.loads: dict[str, list] = collections.defaultdict(list)
        for top in body:
            for node in gast.walk(top):
                for child in gast.iter_child_nodes(node):
                    self.parent[id(child)] = node
                if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                    self.loads[node.id].append(node)

    def arithmetic(self, node, names: bool = True) -> bool:
        """Whether `node`'s value goes only into arithmetic (see the module's docstring)."""
        p = self.parent.get(id(node))
        if isinstance(p, gast.BinOp):
            return isinstance(p.op, _EXACT)
        if isinstance(p, gast.UnaryOp):
            return isinstance(p.op, _UNARY)
        if isinstance(p, gast.Call) and analysis.dotted(p.func) == "rt.unbroadcast" and p.args and p.args[0] is node \
                and len(p.args) == 2 and not p.keywords:
            return self.arithmetic(p, names)
        if names and isinstance(p, gast.Assign) and p.value is node and len(p.targets) == 1 \
                and isinstance(p.targets[0], gast.Name):
            uses = self.loads.get(p.targets[0].id, ())
            return bool(uses) and all(self.arithmetic(u, names=False) for u in uses)
        return False


def _where(node) -> bool:
    return isinstance(node, gast.Call) and analysis.dotted(node.func) == "xp.where" and len(node.args) == 3 \
        and not node.keywords


def _in_loops(body) -> list:
    """The `xp.where(c, a, b)` calls inside loops, each once."""
    seen, out = set(), []
    for s in analysis.walk_stmts(body):
        if isinstance(s, (gast.For, gast.While)):
            for node in gast.walk(s):
                if _where(node) and id(node) not in seen:
                    seen.add(id(node))
                    out.append(node)
    return out


def scalar_selects(body: list, params, facts) -> tuple[list, bool]:
    found = [n for top in body for n in gast.walk(top) if _select(n) is not None]
    uses = _Uses(body) if found else None
    changed = False
    for node in found:
        if not uses.arithmetic(node):
            continue
        c, g, like, first = _select(node)
        new = build.call("rt.where_cotangent", [c, g, like, build.const(first), build.name("xp")])
        node.func, node.args, node.keywords = new.func, new.args, new.keywords
        changed = True
    for node in _in_loops(body):
        new = build.call("rt.where_numbers", [*node.args, build.name("xp")])
        node.func, node.args = new.func, new.args
        changed = True
    return body, changed


PASS = Pass("scalar_selects", scalar_selects)
