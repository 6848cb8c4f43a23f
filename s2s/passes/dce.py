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

One backward sweep that computes liveness as it removes: a removed statement's reads do not
count, so what only dead code read is removed in the same run (`t0` above) and a second run
finds nothing (the pipeline skips a pass whose input has not changed since it ran). A value that
only feeds itself around a loop (`acc = acc + 1`, never read after) is dead too.
"""
from __future__ import annotations

import gast

from .. import analysis as an
from ..primitives import (
    helpers,  # noqa: F401  (declares the helper facts)
    registry,
)
from .base import Pass, mutated

_LOOPS = (gast.For, gast.While)


def _pure(value) -> bool:
    kind = an.classify(value)
    if kind in ("call", "list.pop", "print"):
        return False
    h = registry.HELPERS.get(kind)
    return h is None or not h.effect  # a draw; a check


def _facts(s):
    """(names it assigns, whether it may go when they are dead, the array a mutating helper
    changes) of a simple statement."""
    if isinstance(s, gast.Assign) and not isinstance(s.targets[0], gast.Subscript):
        first = mutated(s.value) if isinstance(s.value, gast.Call) else None
        changed = first.id if isinstance(first, gast.Name) else None  # else a fresh value is changed
        return tuple(an.targets(s)), _pure(s.value), changed
    return (), False, None


class _Sweep:
    """The backward sweep; `touched` collects the names the statements it dropped assigned and read."""

    def __init__(self, notes):
        self.touched: set[str] = set()
        self.notes = notes

    def block(self, stmts, live: set, loop, commit: bool):
        """(statements kept, live set before them); `live` (after them) is updated in place."""
        kept = []
        for s in reversed(stmts):
            if isinstance(s, gast.If):
                body, live_b = self.block(s.body, set(live), loop, commit)
                orelse, live_o = self.block(s.orelse, set(live), loop, commit)
                if commit:
                    s.body, s.orelse = body or [gast.Pass()], orelse
                live = live_b | live_o
                live.update(an.loads(s.test))
            elif isinstance(s, _LOOPS):
                live = self.loop(s, live, commit)
            elif isinstance(s, gast.Break):
                live = set(loop[0]) if loop else live
            elif isinstance(s, gast.Continue):
                live = set(loop[1]) if loop else live
            else:
                kills, pure, mutated = self.notes.get(s, "dce", _facts)
                if pure and not any(t in live for t in kills) and (mutated is None or mutated not in live):
                    if commit:  # dead: its reads do not count
                        self.touched.update(self.notes.names(s))
                    continue
                live.difference_update(kills)
                live.update(self.notes.loads(s))  # (an assignment's target is not among them)
            kept.append(s)
        kept.reverse()
        return kept, live

    def loop(self, s, live: set, commit: bool) -> set:
        """The live set before loop `s`: the body's live-in flows back to its head until stable
        (statements a later iteration reads are kept), then the body is swept for good."""
        after = frozenset(live)
        head = set(live)
        if isinstance(s, gast.While):  # the test runs before every iteration
            head.update(an.loads(s.test))
        while True:
            _, body_in = self.block(s.body, set(head), (after, head), False)
            if body_in <= head:
                break
            head |= body_in
        if commit:
            body, _ = self.block(s.body, set(head), (after, frozenset(head)), True)
            s.body = body or [gast.Pass()]
        out = set(head)
        out.update(an.loads(s.iter) if isinstance(s, gast.For) else an.loads(s.test))
        return out


def dead_code(body: list, params, facts) -> tuple[list, set[str]]:
    sweep = _Sweep(facts["notes"])
    kept, _ = sweep.block(body, set(), None, True)
    if len(kept) == len(body) and not sweep.touched:
        return body, set()
    return kept, sweep.touched


PASS = Pass("dead_code", dead_code, idempotent=True)
