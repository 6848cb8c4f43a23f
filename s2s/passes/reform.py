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
"""
from __future__ import annotations

import collections

import gast

from .. import analysis as an
from ..ir import build as A
from .base import Pass, assigns, pure
from .copyprop import _replace


def _movable_over(s, reads: set[str], target: str) -> bool:
    return A.is_comment(s) or isinstance(s, gast.Assign) and isinstance(s.targets[0], (gast.Name, gast.Tuple)) \
        and pure(s.value) and not (assigns(s) & (reads | {target}))


def _fold_into(stmts, i, counts) -> bool:
    s = stmts[i]
    t = s.targets[0].id
    reads = set(an.operands(s.value))
    for j in range(i + 1, len(stmts)):
        u = stmts[j]
        if t in an.loads(u):
            if isinstance(u, (gast.Assign, gast.Return, gast.Expr)) and u.value is not None \
                    and not (isinstance(u, gast.Assign) and t in an.loads(u.targets[0])):
                if _replace(u, t, s.value):
                    del stmts[i]
                    return True
            return False
        if not _movable_over(u, reads, t):
            return False
    return False


def _block(stmts, counts, params) -> bool:
    changed = False
    for s in stmts:
        for f in ("body", "orelse"):
            if getattr(s, f, None):
                changed |= _block(getattr(s, f), counts, params)
    for i in range(len(stmts) - 1, -1, -1):
        s = stmts[i]
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and counts[s.targets[0].id] == 1 \
                and s.targets[0].id not in params and not A.is_atom(s.value) and pure(s.value) \
                and not isinstance(s.value, (gast.List, gast.Dict, gast.Tuple)):
            changed |= _fold_into(stmts, i, counts)
    return changed


def reform(body: list, params, facts) -> tuple[list, bool]:
    binds = collections.Counter(t for s in an.walk_stmts(body) for t in an.targets(s))
    counts = collections.Counter(an.loads(body))
    counts = collections.Counter({n: c if binds[n] == 1 else 99 for n, c in counts.items()})
    return body, _block(body, counts, set(params))


PASS = Pass("reform", reform)
