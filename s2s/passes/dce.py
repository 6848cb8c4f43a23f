"""Dead-code elimination: drop assignments whose values nothing reads.

Before::

    t0 = xp.sin(x)
    t1 = xp.sum(t0)
    y = x * 2.0
    return y

After::

    y = x * 2.0
    return y

Statements that act on something (list append/pop, item assignment, calls of user functions,
asserts) always stay; loops and branches stay and are cleaned inside.
"""
from __future__ import annotations

import gast

from .. import analysis as an
from ..primitives import (
    helpers,  # noqa: F401  (declares the helper facts)
    registry,
)
from .base import Pass


def _pure(value) -> bool:
    kind = an.classify(value)
    if kind in ("call", "list.pop", "print"):
        return False
    h = registry.HELPERS.get(kind)
    return h is None or not h.effect  # a draw; a check


def dead_code(body: list, params, facts) -> tuple[list, bool]:
    live = facts["liveness"]
    changed = False

    def block(stmts):
        nonlocal changed
        out = []
        for s in stmts:
            for f in ("body", "orelse"):
                if getattr(s, f, None):
                    setattr(s, f, block(getattr(s, f)) or ([gast.Pass()] if f == "body" else []))
            if isinstance(s, gast.Assign) and not isinstance(s.targets[0], gast.Subscript) \
                    and _pure(s.value) and not (set(an.targets(s)) & live.after[s]):
                kind = an.classify(s.value)
                h = registry.HELPERS.get(kind)
                if h is None or not h.mutates or s.value.args[0].id not in live.after[s]:
                    changed = True
                    continue
            out.append(s)
        return out
    return block(body), changed


PASS = Pass("dead_code", dead_code, needs=("liveness",))
