"""What a pass is: a function over a body that declares the analyses it reads.

`run(body, params, facts) -> (body, changed)`: `params` are the names the function's callers see
besides what it returns; `facts[name]` is the result of each analysis in `needs`, computed on
the body on first use (see `ANALYSES`; a pass with nothing to do computes none); `facts["known"]`
is what the caller knows about the arguments (a jit signature: which parameters are Python floats); `facts["dirty"]` is
what changed since the pass last ran (`changes`'s form; None: anything may have) and
`facts["memo"]` a dict the pass may keep things in from one run to the next within one
`optimize`, and `facts["notes"]` the statement facts all passes share (`Notes`).

`changed` says what the pass changed, for the pipeline (`optimize`) to know which passes to run
again: a set of names (those of every statement it changed, added or removed: what they assign
and what they read, before and after; empty: nothing changed), or a bool (True: anything may have
changed, the form of passes that do not track their changes). A pass declared `idempotent` finds
nothing to do on its own output, so its own changes do not make it run again. A pass declared
`forgets` calls `notes.forget` on every simple statement it changes in place (it puts new
statement objects where it replaces one), so the notes of the statements it did not change stay.
"""
from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable

import gast

from ...base.stats import STATS
from .. import analysis
from ..primitives import registry

ANALYSES: dict[str, Callable] = {
    "liveness": lambda body, params: analysis.Liveness(body),
    "top_liveness": lambda body, params: analysis.TopLiveness(body),  # at top-level statements only
    "shape_roots": analysis.shape_roots,
}

_IMPURE = ("call", "list.pop")  # a user function's call; a list's pop


def pure(value) -> bool:
    """Whether evaluating core-form right-hand side `value` only computes a value: it may be
    removed, moved, or merged with an equal one. Draws, checks, user calls and mutations may not."""
    kind = analysis.classify(value)
    if kind in _IMPURE:
        return False
    p = registry.lookup(kind)
    return (p is None or not (p.effect or p.mutates)) and not (isinstance(value, gast.Call) and mutated(value))


def mutated(call):
    """The argument atom a call updates in place, or None: a mutating helper's (`Prim.mutated`),
    or the array a per-example loop `rt.map_examples` of a mutating helper updates (batched code)."""
    f, args = analysis.dotted(call.func) or "", call.args
    if f == "rt.map_examples" and len(args) > 3 and isinstance(args[0], gast.Constant):
        f, args = args[0].value, args[3:]
    p = registry.lookup(f)
    return args[p.mutated] if p is not None and p.mutates and len(args) > p.mutated else None


def assigns(stmt) -> set[str]:
    """Every name a statement binds, blocks included (targets of item stores count as their base)."""
    return set().union(*(bound(s) for s in analysis.walk_stmts([stmt])))


def bound(s) -> list[str]:
    """The names one statement binds, not looking into its blocks (an item store's base counts)."""
    if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript):
        base = s.targets[0].value
        while isinstance(base, gast.Subscript):
            base = base.value
        return [base.id] if isinstance(base, gast.Name) else []
    return analysis.targets(s)


class Notes:
    """Facts about statements, kept from one pass to the next within one `optimize` while the
    statement is unchanged (every fact is a function of the statement alone). A pass that changes
    a statement reports the statement's names (before and after), so the pipeline forgets the
    notes of every statement that names something a pass reported (`changed`), and of all of them
    when a pass reports "anything"; after a pass declared `forgets` (it forgot each statement it
    changed in place), only those of the blocks (`if`, loops) that name something it reported."""

    def __init__(self):
        self.table: dict = {}  # statement object (kept alive here) -> (names, loads, {kind: fact})
        self.index: dict[str, list] = {}  # name -> statements noted as naming it (to forget them)
        self.blocks: dict[str, list] = {}  # the same for the statements with blocks
        self.analyses: dict = {}  # analysis name -> (body, its result), while no pass changed anything

    def _entry(self, stmt):
        entry = self.table.get(stmt)
        if entry is None:
            STATS["note_made"] += 1
            reads = analysis.loads(stmt)
            loads = frozenset(reads)
            entry = self.table[stmt] = (loads.union(analysis.targets(stmt)) - _MODULES, loads, {"reads": reads})
            index = self.blocks if getattr(stmt, "body", None) or getattr(stmt, "orelse", None) else self.index
            for n in entry[0]:
                index.setdefault(n, []).append(stmt)
        return entry

    def names(self, stmt) -> frozenset[str]:
        """The variables a simple statement reads or assigns (what `names_of` says)."""
        entry = self.table.get(stmt)  # (noted already, most often: no call)
        return (entry if entry is not None else self._entry(stmt))[0]

    def loads(self, stmt) -> frozenset[str]:
        """The names it reads (`analysis.loads`, as a set)."""
        entry = self.table.get(stmt)
        return (entry if entry is not None else self._entry(stmt))[1]

    def reads(self, stmt) -> list[str]:
        """The names it reads, with repeats (`analysis.loads`; not to be changed)."""
        return self._entry(stmt)[2]["reads"]

    def read_counts(self, body) -> collections.Counter:
        """How often each name is read in `body` (`Counter(analysis.loads(body))`), from the
        simple statements' notes: a walk only of the statements changed since they were noted."""
        counts: collections.Counter = collections.Counter()
        for s in analysis.walk_stmts(body):
            cls = type(s)
            if cls is gast.If or cls is gast.While:
                counts.update(analysis.loads(s.test))
            elif cls is gast.For:
                counts.update(analysis.loads([s.target, s.iter]))
            elif getattr(s, "body", None) or getattr(s, "orelse", None):  # (not core form: walk it all)
                return collections.Counter(analysis.loads(body))
            else:
                counts.update(self._entry(s)[2]["reads"])
        return counts

    def get(self, stmt, kind: str, compute):
        """`compute(stmt)`, noted under `kind`."""
        entry = self.table.get(stmt)
        facts = (entry if entry is not None else self._entry(stmt))[2]
        fact = facts.get(kind, _NONE)
        if fact is _NONE:
            fact = facts[kind] = compute(stmt)
        return fact

    def checked(self, stmt, kind: str) -> bool:
        """Whether `kind` (a pass's look at the statement) was marked on it since it last changed;
        marks it: a pass that found nothing to do there need not look again while the statement
        and what else it reads stay the same."""
        entry = self.table.get(stmt)
        facts = (entry if entry is not None else self._entry(stmt))[2]
        if kind in facts:
            return True
        facts[kind] = True
        return False

    def calls(self, stmt) -> list:
        """The calls in a simple statement."""
        return self.get(stmt, "calls", calls_in)

    def forget(self, stmt) -> None:
        """Drop a statement's notes (a pass changed it in place)."""
        self.table.pop(stmt, None)

    def changed(self, names: set[str] | None, forgot: bool = False) -> None:
        """A pass changed the statements that name `names` (None: anything); `forgot`: it forgot
        each simple statement it changed in place already."""
        if names is None or names:
            self.analyses.clear()
        if names is None:
            self.table.clear()
            self.index.clear()
            self.blocks.clear()
            return
        for index in (self.blocks,) if forgot else (self.blocks, self.index):
            for n in names:
                for s in index.get(n, ()):
                    self.table.pop(s, None)


_NONE = object()  # (a fact not noted yet)
_MODULES = frozenset(("xp", "rt", "ext"))  # what generated code calls, never its variables
_ATOMS = (gast.Name, gast.Constant)


_OPERANDS = {gast.BinOp: ("left", "right"), gast.UnaryOp: ("operand",), gast.Compare: ("left",),
             gast.Subscript: ("value",), gast.Attribute: ("value",)}


def bottom_up(e, rewrite):
    """(`e` with `rewrite` -- a node to an equal simpler one, or None -- applied to every operand,
    innermost first, and to `e`; whether anything changed): generated code nests expressions."""
    changed = False
    for field in _OPERANDS.get(type(e), ()):
        new, c = bottom_up(getattr(e, field), rewrite)
        setattr(e, field, new)
        changed |= c
    children = e.args if isinstance(e, gast.Call) else e.elts if isinstance(e, (gast.Tuple, gast.List)) else \
        e.comparators if isinstance(e, gast.Compare) else ()
    for i, child in enumerate(children):
        children[i], c = bottom_up(child, rewrite)
        changed |= c
    new = rewrite(e)
    return (e, changed) if new is None else (new, True)


def rewrite_values(body: list, rewrite) -> bool:
    """`bottom_up(value, rewrite)` on the value of every assignment, `return` and expression
    statement of `body` and its nested blocks, in place; whether anything changed."""
    changed = False
    for s in analysis.walk_stmts(body):
        if isinstance(s, (gast.Assign, gast.Return, gast.Expr)) and s.value is not None:
            s.value, c = bottom_up(s.value, rewrite)
            changed |= c
    return changed

def names_of(stmt) -> frozenset[str]:
    """The variables a simple statement reads or assigns (what a pass reports when it changes it)."""
    return frozenset(analysis.loads(stmt)).union(analysis.targets(stmt)) - _MODULES


def calls_in(stmt) -> list:
    """Every Call node in a simple statement; core form's usual `x = f(atoms)` without a walk."""
    v = getattr(stmt, "value", None)
    if isinstance(stmt, (gast.Assign, gast.Expr, gast.Return)) and \
            (not isinstance(stmt, gast.Assign) or type(stmt.targets[0]) is gast.Name):
        if v is None or type(v) in _ATOMS:
            return []
        if type(v) is gast.Call and type(v.func) in (gast.Name, gast.Attribute) and type(v.func.value if
                type(v.func) is gast.Attribute else v.func) is gast.Name \
                and all(type(a) in _ATOMS for a in v.args) and all(type(k.value) in _ATOMS for k in v.keywords):
            return [v]
        if type(v) is gast.BinOp and type(v.left) in _ATOMS and type(v.right) in _ATOMS:
            return []
    return [n for n in analysis.iter_nodes(stmt) if type(n) is gast.Call]


def clone(node):
    """A deep copy of an AST (nodes, lists, and the plain values in them), several times faster
    than `copy.deepcopy`, which the first call of every transform pays for."""
    if isinstance(node, list):
        return [clone(n) for n in node]
    if isinstance(node, gast.AST):
        new = node.__class__.__new__(node.__class__)
        new.__dict__.update({k: clone(v) for k, v in node.__dict__.items()})
        return new
    return node


def changes(changed) -> set[str] | None:
    """A pass's report as a set of names, or None for "anything may have changed"."""
    if changed is True:
        return None
    return set(changed) if changed else set()


class _Facts(dict):
    """A pass's facts: the declared analyses computed on first access (the body must not have
    changed before then: passes read their analyses before they rewrite anything), or taken from
    `shared` (`Notes.analyses`), where an earlier pass left them and no pass changed anything since."""

    def __init__(self, body, params, needs, shared=None):
        super().__init__()
        self.body, self.params, self.needs, self.shared = body, params, needs, shared

    def __missing__(self, key):
        if key not in self.needs:
            raise KeyError(key)
        hit = self.shared.get(key) if self.shared is not None else None
        if hit is not None and hit[0] is self.body:
            value = hit[1]
        else:
            value = ANALYSES[key](self.body, self.params)
            if self.shared is not None:
                self.shared[key] = (self.body, value)
        self[key] = value
        return value


@dataclasses.dataclass(frozen=True)
class Pass:
    name: str
    run: Callable
    needs: tuple[str, ...] = ()
    idempotent: bool = False
    forgets: bool = False

    def __call__(self, body: list, params, known=None) -> tuple[list, bool]:
        """Run the pass once, on its own: (body, whether it changed anything)."""
        body, changed = self.apply(body, params, known)
        return body, changed is None or bool(changed)

    def apply(self, body: list, params, known=None, dirty: set[str] | None = None,
              memo: dict | None = None, notes: Notes | None = None) -> tuple[list, set[str] | None]:
        """Run the pass with its declared analyses at hand (`dirty`: what changed since it last
        ran, None when unknown; `memo`: what it kept from its last run; `notes`: statement facts
        shared with the other passes); returns the body and what changed (`changes`'s form)."""
        STATS["pass_run"] += 1
        facts = _Facts(body, params, self.needs, notes.analyses if notes is not None else None)
        facts["known"] = known or {}
        facts["dirty"] = dirty
        if memo is None:
            memo = {}
        elif dirty is None:
            memo.clear()  # anything may have changed: no note holds
        facts["memo"] = memo
        facts["notes"] = Notes() if notes is None else notes
        body, changed = self.run(body, params, facts)
        changed = changes(changed)
        if notes is not None:
            notes.changed(changed, self.forgets)
        return body, changed
