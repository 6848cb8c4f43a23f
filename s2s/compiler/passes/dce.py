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

from ...base.stats import STATS
from .. import analysis
from ..analysis.owned import owned_arrays
from ..ir import build
from ..primitives import registry
from .base import Pass, mutated

_LOOPS = (gast.For, gast.While)


def _pure(value) -> bool:
    kind = analysis.classify(value)
    if kind in ("call", "list.pop"):
        return False
    p = registry.lookup(kind)
    if p is not None and p.effect:  # a draw; a check; a print
        return False
    return not _pops(value)


_ATOMS = (gast.Name, gast.Constant)


def _pops(value) -> bool:
    """Whether `value` calls a `pop` (one nested in an argument too: `rt.tree_add(b, L.pop())`);
    core form's usual `f(atoms)` and `a op b` of atoms are answered without a walk."""
    cls = value.__class__
    if cls is gast.Call:
        func = value.func
        if all(a.__class__ in _ATOMS for a in value.args) and all(k.value.__class__ in _ATOMS for k in value.keywords) \
                and (func.__class__ is gast.Name or func.__class__ is gast.Attribute and func.value.__class__ is gast.Name):
            return func.__class__ is gast.Attribute and func.attr == "pop"
    elif cls is gast.BinOp:
        if value.left.__class__ in _ATOMS and value.right.__class__ in _ATOMS:
            return False
    elif cls in _ATOMS:
        return False
    return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr == "pop"
               for n in build.walk(value))


def _facts(s):
    """(names it assigns, whether it may go when they are dead, the array a mutating helper
    changes) of a simple statement."""
    if isinstance(s, gast.Assign) and not isinstance(s.targets[0], gast.Subscript):
        first = mutated(s.value) if isinstance(s.value, gast.Call) else None
        changed = first.id if isinstance(first, gast.Name) else None  # else a fresh value is changed
        return tuple(analysis.targets(s)), _pure(s.value), changed
    return (), False, None


def _jumps(stmts) -> bool:
    """Whether a block holds a `break` or `continue` of the loop it is in (not of a nested one)."""
    return any(isinstance(s, (gast.Break, gast.Continue)) for s in analysis.loop_level(stmts))


class _Sweep:
    """The backward sweep; `touched` collects the names the statements it dropped assigned and read.

    A branch or loop body is swept with a live set of its own that holds only the names it may
    remove or overwrite (`relevant`) and what it reads, merged into the enclosing one in place:
    so the work per block is its size, not the size of everything live around it (in a gradient,
    every saved value is live across every branch). A block with a `break` or `continue` out of
    it is swept with a copy of the whole set instead (rare in generated code)."""

    def __init__(self, notes, owned=None):
        self.touched: set[str] = set()
        self.notes = notes
        self.owned = owned or {}  # name -> names sharing its memory, for arrays the function owns alone

    def owned_base(self, s):
        """The group of the array an item store `A[i] = v` updates, when the function owns it alone."""
        if self.owned and isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript) \
                and isinstance(s.targets[0].value, gast.Name):
            return self.owned.get(s.targets[0].value.id)
        return None

    def relevant(self, stmts) -> set[str]:
        """The names whose liveness decides what the block keeps: those it assigns or mutates."""
        out = set()
        for s in analysis.walk_stmts(stmts):
            if not isinstance(s, (gast.If, gast.For, gast.While, gast.Break, gast.Continue)):
                kills, _, mutated = self.notes.get(s, "dce", _facts)
                out.update(kills)
                if mutated is not None:
                    out.add(mutated)
                group = self.owned_base(s)
                if group:
                    out.update(group)
        return out

    def block(self, stmts, live: set, loop, commit: bool):
        """(statements kept, live set before them); `live` (after them) is updated in place."""
        kept = []
        for s in reversed(stmts):
            if isinstance(s, gast.If):
                live = self.branches(s, live, loop, commit)
            elif isinstance(s, _LOOPS):
                live = self.loop(s, live, commit)
            elif isinstance(s, gast.Break):
                live = set(loop[0]) if loop else live
            elif isinstance(s, gast.Continue):
                live = set(loop[1]) if loop else live
            else:
                kills, pure, mutated = self.notes.get(s, "dce", _facts)
                group = self.owned_base(s)
                if group and not any(v in live for v in group):  # a store nobody reads: the array is dead
                    if commit:
                        self.touched.update(self.notes.names(s))
                    continue
                if group:
                    live.update(group)  # the store keeps every name sharing the array live before it
                if pure and not any(t in live for t in kills) and (mutated is None or mutated not in live):
                    if commit:  # dead: its reads do not count
                        self.touched.update(self.notes.names(s))
                    continue
                live.difference_update(kills)
                live.update(self.notes.loads(s))  # (an assignment's target is not among them)
            kept.append(s)
        kept.reverse()
        return kept, live

    def branches(self, s, live: set, loop, commit: bool) -> set:
        """The live set before `if` statement `s`, given `live` after it (updated in place unless a
        branch jumps out)."""
        if _jumps(s.body) or _jumps(s.orelse):
            STATS["live_set"] += 2 * len(live)
            body, live_b = self.block(s.body, set(live), loop, commit)
            orelse, live_o = self.block(s.orelse, set(live), loop, commit)
            live = live_b | live_o
        else:
            rel_b, rel_o = self.relevant(s.body), self.relevant(s.orelse)
            body, live_b = self.block(s.body, {v for v in rel_b if v in live}, loop, commit)
            orelse, live_o = self.block(s.orelse, {v for v in rel_o if v in live}, loop, commit)
            live.difference_update(rel_b & rel_o)  # the rest stays as live as after the `if`
            live.update(live_b, live_o)
            STATS["live_set"] += len(rel_b) + len(rel_o) + len(live_b) + len(live_o)
        if commit:
            s.body, s.orelse = body or [gast.Pass()], orelse
        live.update(analysis.loads(s.test))
        return live

    def loop(self, s, live: set, commit: bool) -> set:
        """The live set before loop `s`: the body's live-in flows back to its head until stable
        (statements a later iteration reads are kept), then the body is swept for good."""
        if _jumps(s.body):
            return self.loop_copying(s, live, commit)
        rel = self.relevant(s.body)
        extra = set()  # the head's live set: `live` and these
        if isinstance(s, gast.While):  # the test runs before every iteration
            extra.update(analysis.loads(s.test))
        while True:
            _, body_in = self.block(s.body, {v for v in rel if v in live or v in extra}, None, False)
            new = {v for v in body_in if v not in live and v not in extra}
            STATS["live_set"] += len(rel) + len(body_in)
            if not new:
                break
            extra |= new
        if commit:
            body, _ = self.block(s.body, {v for v in rel if v in live or v in extra}, None, True)
            s.body = body or [gast.Pass()]
        live.update(extra)
        live.update(analysis.loads(s.iter) if isinstance(s, gast.For) else analysis.loads(s.test))
        return live

    def loop_copying(self, s, live: set, commit: bool) -> set:
        """`loop` for a body with a `break` or `continue`: with copies of the whole live set."""
        after = frozenset(live)
        head = set(live)
        if isinstance(s, gast.While):
            head.update(analysis.loads(s.test))
        while True:
            STATS["live_set"] += len(head)
            _, body_in = self.block(s.body, set(head), (after, head), False)
            if body_in <= head:
                break
            head |= body_in
        if commit:
            body, _ = self.block(s.body, set(head), (after, frozenset(head)), True)
            s.body = body or [gast.Pass()]
        out = set(head)
        out.update(analysis.loads(s.iter) if isinstance(s, gast.For) else analysis.loads(s.test))
        return out


def _item_stores(body) -> bool:
    return any(isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript) for s in analysis.walk_stmts(body))


def dead_code(body: list, params, facts) -> tuple[list, set[str]]:
    # (which arrays the function owns matters only to a store into an item: most bodies have none)
    sweep = _Sweep(facts["notes"], owned_arrays(body, params) if _item_stores(body) else None)
    kept, _ = sweep.block(body, set(), None, True)
    if len(kept) == len(body) and not sweep.touched:
        return body, set()
    return kept, sweep.touched


PASS = Pass("dead_code", dead_code, idempotent=True, forgets=True)
