"""Which statements may raise, and which of them nothing reads: the one "may raise" fact.

The rule (docs/errors-and-caching.md): a derivative raises what the plain function raises, where
it raises it. So a statement that may raise runs even when no later statement reads its value.
Two places ask: the user's own function (frontend/dead_calls.py: a value the user never reads)
and reverse mode's forward sweep (transforms/reverse.py: a value that carries no derivative and
that only the output's value reads, which `grad` does not compute). Both give each such
statement a reader, `kept = ext.s2s_keep(v)`, an effect no pass removes; a statement that cannot
raise gets none, so no work is added for it.
"""
from __future__ import annotations

import gast

from ..ir import build
from ..primitives import registry
from ..primitives.registry import EXT
from .liveness import Liveness
from .stmts import classify, loads, targets, walk_stmts

KEEP = "ext.s2s_keep"
_ATOMS = (gast.Name, gast.Constant)


def removable(value) -> bool:
    """Whether dead-code elimination drops `value` when its result is dead, and it cannot raise: a
    name, a literal, an attribute read, a display of atoms."""
    if isinstance(value, _ATOMS + (gast.Attribute,)):
        return True
    if isinstance(value, (gast.Tuple, gast.List)):
        return all(isinstance(e, _ATOMS) for e in value.elts)
    if isinstance(value, gast.Dict):
        return all(isinstance(e, _ATOMS) for e in value.keys + value.values if e is not None)
    return False


def cannot_raise(value) -> bool:
    """Whether evaluating core-form value `value` certainly raises nothing (or is kept anyway: an
    effect, a list's pop)."""
    if removable(value):
        return True
    if isinstance(value, gast.Call):
        kind = classify(value)
        if kind == "list.pop":
            return True  # never removed (a call of a user function is, once inlined: kept here)
        p = registry.lookup(kind)
        return p is not None and p.effect  # kept already
    return False


class Faint(Liveness):
    """Liveness in which the statements of `gone` (dead ones that dead-code elimination drops)
    read and assign nothing: what only they read is dead too."""

    def __init__(self, body, gone, live_at_end=frozenset()):
        self.gone = gone
        super().__init__(body, live_at_end)

    def effect(self, s) -> tuple:
        return ((), ()) if s in self.gone else super().effect(s)


def simple(s) -> bool:
    """Whether `s` is an assignment of core form (not a comment)."""
    return isinstance(s, gast.Assign) and not build.is_comment(s)


def with_keeps(stmts, keep: dict, namer, ns) -> list:
    """`stmts` (nested blocks included, changed in place) with `kept = ext.s2s_keep(name)` after
    each statement of `keep` (statement -> the name its reader reads); `ns` gets `ext`."""
    out = []
    for s in stmts:
        out.append(s)
        if isinstance(s, (gast.If, gast.For, gast.While)):
            s.body = with_keeps(s.body, keep, namer, ns)
            if isinstance(s, gast.If):
                s.orelse = with_keeps(s.orelse, keep, namer, ns)
            continue
        read = keep.get(s)
        if read is not None:
            ns["ext"] = EXT
            reader = build.assign(namer.fresh("kept"), build.call(KEEP, [build.name(read)]))
            out.append(gast.copy_location(reader, s))
    return out


def unread_raising(body, candidates, rounds: int = 16, live_at_end=frozenset(), sinks=frozenset()) -> dict:
    """statement -> its target, for each statement of `candidates` (simple statements assigning
    one name) that may raise and whose value nothing reads, once what only the statements that
    dead-code elimination drops read is dead too (`live_at_end`: the names read after `body`).
    A dead statement that assigns or reads a name of `sinks` (an array nothing reads, which
    dead-code elimination drops with its stores), or assigns only what such statements read,
    goes without a reader, and so does what only it reads."""
    if _all_read(body, candidates, live_at_end):
        return {}  # (no liveness analysis of the whole body: every candidate's value is read)
    gone: set = set()
    fed: set[str] = set(sinks)
    keep: dict = {}
    assigners: dict[str, list] = {}  # name -> the simple statements that assign it
    for round_ in range(rounds):
        live = Faint(body, gone, live_at_end)
        new = set()
        fed_before, first = len(fed), round_ == 0
        for s in walk_stmts(body):
            if not simple(s) or s in gone or s in keep or s not in live.after:
                continue
            names = [t.id for t in ([s.targets[0]] if isinstance(s.targets[0], gast.Name) else [])]
            if not names:
                continue
            if first:
                assigners.setdefault(names[0], []).append(s)
            if names[0] in live.after[s]:
                continue
            if names[0] in fed or sinks and not fed.isdisjoint(loads(s)):
                new.add(s)
                fed.update(loads(s))
            elif s in candidates and not cannot_raise(s.value):
                keep[s] = names[0]
            elif dropped(s.value):
                new.add(s)
        if not new:
            break
        gone |= new
        if len(fed) == fed_before and not _may_die(new, assigners, gone, keep, live, body):
            break  # (the next round would find what this one did: nothing new)
    return keep


def _may_die(new, assigners, gone, keep, live, body) -> bool:
    """Whether dropping the statements `new` may leave another statement's value unread: only the
    names they read lose readers (a dropped statement's target is dead, so dropping its
    assignment changes no liveness), so only a statement assigning one of those, not dropped or
    kept already, may be found dead in the next round; and not one whose name stays read
    (`_still_read`)."""
    lost = {n for s in new for n in loads(s)}
    if any(s not in gone and s not in keep for read in lost for s in assigners.get(read, ())):
        return not _still_read(new, live, body)
    return False


def _still_read(new, live, body) -> bool:
    """Whether every name a statement of `new` reads is live after it (`live`,
    this round's liveness), none of them is inside a loop, and none assigns what it reads:
    then whatever reached such a read goes on, without being overwritten, to a later read,
    which is kept or again one of `new`, later in the program (no loop leads back), so every
    assignment that was live stays live once `new` is dropped, and the next round (a whole
    liveness analysis again) would find nothing new."""
    flat = set(_outside_loops(body))
    for s in new:
        if s not in flat:
            return False
        read = set(loads(s))
        if s.targets[0].id in read:
            return False
        after = live.after[s]
        if not all(n in after for n in read):
            return False
    return True


def _all_read(body, candidates, live_at_end) -> bool:
    """Whether the value of every statement of `candidates` that may raise is read in every round
    of `unread_raising` (which then keeps none): its name is assigned nowhere else, and read after
    the top-level statement that holds it by a top-level statement that is never dropped (a
    test, a loop's iterable, an expression statement, a return, a store into an item, or a
    candidate whose value is read so in turn), or at the end (`live_at_end`). Liveness finds such
    a name live after the candidate whatever the rounds drop: one backward scan instead of a
    liveness analysis of the whole body per round (a gradient's forward and backward sweep)."""
    raising = {s for s in candidates if simple(s) and isinstance(s.targets[0], gast.Name)
               and not cannot_raise(s.value)}
    if not raising:
        return True
    names = {s.targets[0].id for s in raising}
    stores: dict[str, int] = {}
    for s in walk_stmts(body):
        if s.__class__ not in _KNOWN:
            return False
        for n in targets(s) if s.__class__ is not gast.Delete else \
                [t.id for t in s.targets if isinstance(t, gast.Name)]:
            if n in names:
                stores[n] = stores.get(n, 0) + 1
    read = set(live_at_end)  # names a statement that is never dropped reads after this point
    found = 0
    for top in reversed(body):
        for s in walk_stmts([top]):
            if s in raising and stores.get(s.targets[0].id) == 1 and s.targets[0].id in read:
                found += 1
                if s is top:
                    read.update(loads(s))  # (a candidate read so is never dropped: what it reads stays read)
        cls = top.__class__
        if cls is gast.If or cls is gast.While:
            read.update(loads(top.test))
        elif cls is gast.For:
            read.update(loads(top.iter))
        elif cls is gast.Expr or cls is gast.Return or cls is gast.Assign and not isinstance(top.targets[0], gast.Name):
            read.update(loads(top))
    return found == len(raising)


_KNOWN = frozenset((gast.Assign, gast.Expr, gast.Return, gast.If, gast.For, gast.While, gast.Delete, gast.Pass,
                    gast.Break, gast.Continue, build.Comment))


def _outside_loops(stmts):
    """The statements of `stmts` and of their branches, not of loop bodies."""
    for s in stmts:
        if isinstance(s, (gast.For, gast.While)):
            continue
        yield s
        if isinstance(s, gast.If):
            yield from _outside_loops(s.body)
            yield from _outside_loops(s.orelse)


def dropped(value) -> bool:
    """Whether dead-code elimination drops an assignment of `value` whose targets are dead: not a
    call of a user function, a list's pop or an effect (passes/dce.py's rule)."""
    kind = classify(value)
    if kind in ("call", "list.pop"):
        return False
    p = registry.lookup(kind)
    if p is not None and p.effect:
        return False
    return not any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr == "pop"
                   for n in build.walk(value))


def checked(body: list) -> None:
    """Each check in `body` (`Prim.checks`: `a op= v`'s `rt.inplace`) becomes `rt.inplace_checked`, which
    no pass removes unless shape folding shows that it passes: a transform that drops the primal
    output (jacfwd's tangent alone) still raises where NumPy's update in place does, loops included."""
    for s in walk_stmts(body):
        if simple(s) and isinstance(s.value, gast.Call) and classify(s.value) == "rt.inplace":
            s.value.func = build.attr(build.name("rt"), "inplace_checked")
