"""Expression re-forming (jit): a temporary read exactly once, in the next statements of the same
block, is written into the expression that reads it, so NumPy can reuse the memory of its
unnamed temporaries (it writes `a * b + c` into the buffer of `a * b`) and no name keeps an
intermediate array alive.

Before::

    t1 = xp.exp(x)
    t2 = 1.67 * t1
    t3 = t2 - 1.67
    return t3

After::

    return 1.67 * xp.exp(x) - 1.67

A right-hand side moves only over pure assignments that do not rebind what it reads, so values
and the order of anything with an effect are unchanged. Like `lifetime` it runs after the fixed
point, on the code that runs; the record keeps core form for later transforms.

A move must not keep arrays alive longer than the core form did: an operand whose last read is
the moved statement (released there by `lifetime`) stays alive until the reading statement ends.
So when such an operand exists (one not known to be a Python number), an elementwise right-hand
side moves only into the very next statement, and only where no array is allocated while the
operand is held: into a chain of arithmetic operators, which NumPy computes in the memory of the
moved expression's fresh result, or (when `fusion` follows) into elementwise code that becomes one
kernel; never into a call such as `rt.unbroadcast(...)` or `x @ w`, or onto a view's product
(measured: vmap(grad) of W1 at B=65536 held 1.6 MB more at its peak, touched 13% more fresh pages
per call and ran 1.2x slower than without jit; tests/test_jit_memory.py).
"""
from __future__ import annotations

import collections

import gast

from .. import analysis as an
from ..ir import build as A
from . import algebra, fusion
from .base import Pass, assigns, pure
from .copyprop import _replace


def _movable_over(s, reads: set[str], target: str) -> bool:
    return A.is_comment(s) or isinstance(s, gast.Assign) and isinstance(s.targets[0], (gast.Name, gast.Tuple)) \
        and pure(s.value) and not (assigns(s) & (reads | {target}))


def _elementwise(value) -> bool:
    """Whether `value` only combines its operands element by element (a full `xp.sum` of that, or
    a tuple of such values, included): what `fusion` makes one kernel of."""
    if isinstance(value, (gast.Tuple, gast.List)):
        return all(_elementwise(e) for e in value.elts)
    if isinstance(value, gast.Call) and an.dotted(value.func) == "xp.sum" and len(value.args) == 1 \
            and not value.keywords:
        value = value.args[0]
    return fusion._elementwise(value) is not None


def _in_place(value, t: str) -> bool:
    """Whether `value` (reading `t` once) allocates nothing on its way from `t` to its result but
    what NumPy computes in its temporaries' memory: a chain of arithmetic operators (tuples too)
    whose other operands are names or constants."""
    if isinstance(value, (gast.Name, gast.Constant)):
        return True
    if isinstance(value, gast.BinOp) and isinstance(value.op, fusion._OPS):
        parts = [value.left, value.right]
    elif isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
        parts = [value.operand]
    elif isinstance(value, (gast.Tuple, gast.List)):
        parts = value.elts
    else:
        return False
    return all(_in_place(p, t) if any(isinstance(n, gast.Name) and n.id == t for n in gast.walk(p))
               else isinstance(p, (gast.Name, gast.Constant)) for p in parts)


def _holds_nothing(value, expr, t: str, fuse: bool) -> bool:
    """Whether writing elementwise `expr` for `t` into `value` allocates no array while the
    operands `expr` releases are still held: `value` computes in the memory of `expr`'s fresh
    result, or (with `fuse`) the whole is one fused kernel."""
    if all(isinstance(n, (gast.Name, gast.Constant, gast.Tuple, gast.List, gast.expr_context))
           for n in gast.walk(value)):
        return True  # it only passes the value on
    return _elementwise(expr) and (_in_place(value, t) or fuse and _elementwise(value))


def _fold_into(stmts, i, counts, ctx) -> bool:
    s = stmts[i]
    t = s.targets[0].id
    reads = set(an.operands(s.value))
    live, numbers, fuse = ctx
    dying = {n for n in reads if n not in live.after[s]} - numbers
    for j in range(i + 1, len(stmts)):
        u = stmts[j]
        if t in an.loads(u):
            if isinstance(u, (gast.Assign, gast.Return, gast.Expr)) and u.value is not None \
                    and not (isinstance(u, gast.Assign) and t in an.loads(u.targets[0])):
                if dying and not _holds_nothing(u.value, s.value, t, fuse):
                    return False  # it would hold `dying` while an array is allocated
                if _replace(u, t, s.value):
                    del stmts[i]
                    return True
            return False
        if dying and not A.is_comment(u) or not _movable_over(u, reads, t):
            return False
    return False


def _block(stmts, counts, params, ctx) -> bool:
    changed = False
    for s in stmts:
        for f in ("body", "orelse"):
            if getattr(s, f, None):
                changed |= _block(getattr(s, f), counts, params, ctx)
    for i in range(len(stmts) - 1, -1, -1):
        s = stmts[i]
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and counts[s.targets[0].id] == 1 \
                and s.targets[0].id not in params and not A.is_atom(s.value) and pure(s.value) \
                and not isinstance(s.value, (gast.List, gast.Dict, gast.Tuple)):
            changed |= _fold_into(stmts, i, counts, ctx)
    return changed


def reform(body: list, params, facts) -> tuple[list, bool]:
    binds = collections.Counter(t for s in an.walk_stmts(body) for t in an.targets(s))
    counts = collections.Counter(an.loads(body))
    counts = collections.Counter({n: c if binds[n] == 1 else 99 for n, c in counts.items()})
    numbers = algebra.python_floats(body, facts["known"].get("floats", ()))
    ctx = (facts["liveness"], numbers | set(params), bool(facts["known"].get("fuse")))
    return body, _block(body, counts, set(params), ctx)


PASS = Pass("reform", reform, needs=("liveness",))
