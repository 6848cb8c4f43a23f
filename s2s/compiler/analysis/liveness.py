"""Liveness: which names each statement may read later (`Liveness`, `TopLiveness`), as read-only
set views over next-use tables, linear in the program."""
from __future__ import annotations

import bisect
import collections.abc

import gast

from ...base.stats import STATS
from .stmts import loads, loop_level, targets

_CONTROL = (gast.If, gast.For, gast.While, gast.Break, gast.Continue)


def _effect(s) -> tuple:
    """(names read, names then certainly assigned) of a simple statement."""
    if isinstance(s, gast.Assign) and not isinstance(s.targets[0], gast.Subscript):
        return loads(s.value), targets(s)
    return loads(s), ()


class _Run:
    """Where each name is next read or overwritten in a run of statements without control flow
    (or whose blocks count as a whole: `effect`), and what is live after the run: enough to answer
    "is `v` live here" for any statement of it."""

    def __init__(self, stmts, live_out, effect=_effect):
        self.live_out = live_out
        self.pos: dict[str, list[int]] = {}
        self.reads: dict[str, list[bool]] = {}
        pos, first = self.pos, self.reads
        for p, s in enumerate(stmts):
            reads, kills = effect(s)
            for v in (dict.fromkeys(reads) if len(reads) > 1 else reads):  # it reads its operands before it assigns
                at = pos.get(v)
                if at is None:
                    pos[v], first[v] = [p], [True]
                else:
                    at.append(p)
                    first[v].append(True)
            for v in kills:
                if v not in reads:
                    at = pos.get(v)
                    if at is None:
                        pos[v], first[v] = [p], [False]
                    else:
                        at.append(p)
                        first[v].append(False)

    def live_in(self) -> set[str]:
        """The live set before the run: what its statements read before overwriting, and what is
        live after it that it does not overwrite first (set operations, not a loop over names)."""
        first_read = [v for v, r in self.reads.items() if r[0]]
        first_kill = [v for v, r in self.reads.items() if not r[0]]
        return self.live_out.difference(first_kill).union(first_read)

    def live(self, v, start) -> bool:
        """Whether `v` is live before statement `start` of the run (`len` for the run's end)."""
        pos = self.pos.get(v)
        if pos is not None:
            k = bisect.bisect_left(pos, start)
            if k < len(pos):
                return self.reads[v][k]
        return v in self.live_out


class SetView(collections.abc.Set):
    """A read-only set answered without building it: `__contains__` from the analysis's tables,
    the elements (`_set`) built on first iteration. Has the usual set methods, which return sets."""

    __slots__ = ("_all",)

    def _set(self) -> set[str]:
        raise NotImplementedError

    def __iter__(self):
        return iter(self._set())

    def __len__(self) -> int:
        return len(self._set())

    @classmethod
    def _from_iterable(cls, it):
        return set(it)

    def copy(self) -> set[str]:
        return set(self._set())

    def union(self, *others) -> set[str]:
        return self._set().union(*others)

    def intersection(self, *others) -> set[str]:
        return self._set().intersection(*others)

    def difference(self, *others) -> set[str]:
        return self._set().difference(*others)

    def issubset(self, other) -> bool:
        return self._set().issubset(other)

    def issuperset(self, other) -> bool:
        return all(v in self for v in other)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({sorted(self._set())!r})"


class LiveSet(SetView):
    """The live set at one point of a run: membership from the run's next-use table in O(log n),
    the whole set only when iterated. Statements in straight-line code share one table, so the
    analysis costs no copy of the live set per statement."""

    __slots__ = ("run", "start")

    def __init__(self, run: _Run, start: int):
        self.run, self.start, self._all = run, start, None

    def __contains__(self, v) -> bool:
        return self.run.live(v, self.start)

    def _set(self) -> set[str]:
        if self._all is None:
            names = set(self.run.live_out) | set(self.run.pos)
            STATS["live_set"] += len(names)  # (built per branch, it would be quadratic: count it)
            self._all = {v for v in names if self.run.live(v, self.start)}
        return self._all


class Liveness:
    """Which names each statement may read later: `after[s]` and `before[s]` (live sets).

    Side tables are keyed by the statement object itself, which they keep alive, so a key can
    never be reused by another node the way `id()` can once a pass frees a statement. Every
    block is one run of a next-use table (`_Run`) in which a nested `if` or loop counts as a
    whole, by its gen/kill summary (`_summary`'s form: what it may read first, what it certainly
    assigns), over the live set after the block: the sets are `LiveSet` views (membership in
    O(log n) per enclosing block, set operations), and no set the size of everything live is
    built per branch or loop, so the analysis is linear in the program (in a gradient, every saved
    value is live across every branch). A loop whose body breaks or continues is analysed as a
    whole by `CopyingLiveness` (sets copied at each block). Treat all as read-only."""

    def __init__(self, body, live_at_end=frozenset()):
        self.after: dict[gast.stmt, collections.abc.Set[str]] = {}
        self.before: dict[gast.stmt, collections.abc.Set[str]] = {}
        self.effects: dict = {}
        self.live_in = self.block(body, frozenset(live_at_end))

    def effect(self, s) -> tuple:
        """(names `s` may read before assigning them, names it certainly assigns), kept per statement."""
        e = self.effects.get(s)
        if e is None:
            e = self.effects[s] = self.summary(s) if isinstance(s, _CONTROL) else _effect(s)
        return e

    def summary(self, s) -> tuple:
        if isinstance(s, gast.If):
            r_b, k_b = self.block_summary(s.body)
            r_o, k_o = self.block_summary(s.orelse)
            return r_b | r_o | set(loads(s.test)), k_b & k_o
        if _jumps(s.body):  # a loop's effect is gen-only whatever its jumps: what it reads first
            return set(CopyingLiveness([]).stmt(s, frozenset(), None)), set()
        reads, _ = self.block_summary(s.body)
        return reads | set(loads(s.iter) if isinstance(s, gast.For) else loads(s.test)), set()

    def block_summary(self, stmts) -> tuple:
        """The effect of a block without jumps out of it, composed backwards."""
        reads: set[str] = set()
        kills: set[str] = set()
        for s in reversed(stmts):
            r, k = self.effect(s)
            reads.difference_update(k)
            reads.update(r)
            kills.update(k)
        STATS["live_set"] += len(reads) + len(kills)
        return reads, kills

    def block(self, stmts, live):
        """Fill the tables for a block given the live set after it; returns the set before it."""
        run = _Run(stmts, live, self.effect)
        STATS["live_stmt"] += len(stmts)
        STATS["live_set"] += len(run.pos)
        for p in range(len(stmts) - 1, -1, -1):  # backward: a statement object that occurs twice
            s = stmts[p]                            # (a shared comment) keeps its first place's sets
            after = self.after[s] = LiveSet(run, p + 1)
            if isinstance(s, gast.If):
                self.block(s.body, after)
                self.block(s.orelse, after)
            elif isinstance(s, (gast.For, gast.While)):
                self.loop(s, after)
            self.before[s] = LiveSet(run, p)
        return LiveSet(run, 0)

    def loop(self, s, after):
        """A loop's body, live after it: what is live after the loop, what the body may read first
        and (a `while`) its test, all flowing back to the loop's head."""
        if _jumps(s.body):
            copying = CopyingLiveness([])
            copying.after, copying.before = self.after, self.before
            copying.stmt(s, set(after), None)
            return
        head = set(self.block_summary(s.body)[0])
        if isinstance(s, gast.While):  # the test runs before every iteration
            head.update(loads(s.test))
        self.block(s.body, _Union(after, head))


def _jumps(stmts) -> bool:
    """Whether a loop body holds a `break` or `continue` of its own loop."""
    return any(isinstance(s, (gast.Break, gast.Continue)) for s in loop_level(stmts))


class _Union(SetView):
    """The live set at a loop's head: what is live after the loop (a view) and `extra`."""

    __slots__ = ("base", "extra")

    def __init__(self, base, extra: set[str]):
        self.base, self.extra, self._all = base, extra, None

    def __contains__(self, v) -> bool:
        return v in self.extra or v in self.base

    def _set(self) -> set[str]:
        if self._all is None:
            self._all = set(self.base) | self.extra
        return self._all


class CopyingLiveness:
    """`Liveness` with plain sets at control flow (built per branch and loop, so quadratic where
    many names are live across many blocks): what `Liveness` uses for a loop that breaks or
    continues, and the reference tests compare it with."""

    def __init__(self, body, live_at_end=frozenset()):
        self.after: dict[gast.stmt, collections.abc.Set[str]] = {}
        self.before: dict[gast.stmt, collections.abc.Set[str]] = {}
        self.live_in = self.block(body, set(live_at_end), None)

    def block(self, stmts, live, loop):
        end = len(stmts)
        while end > 0:
            s = stmts[end - 1]
            if isinstance(s, _CONTROL):
                self.after[s] = live
                live = self.stmt(s, live, loop)  # never changes the set `after[s]` holds
                self.before[s] = live
                end -= 1
                continue
            start = end - 1
            while start > 0 and not isinstance(stmts[start - 1], _CONTROL):
                start -= 1
            live = self.run(stmts[start:end], live)
            end = start
        return live

    def run(self, stmts, live):
        """Statements without control flow: views over one next-use table; returns the live-in set."""
        run = _Run(stmts, live)
        for p in range(len(stmts) - 1, -1, -1):  # backward: a statement object that occurs twice
            s = stmts[p]                            # (a shared comment) keeps its first place's sets
            self.before[s] = LiveSet(run, p)
            self.after[s] = LiveSet(run, p + 1)
        STATS["live_stmt"] += len(stmts)
        STATS["live_set"] += len(live) + len(run.pos)
        return run.live_in()

    def stmt(self, s, live, loop):
        """The live set before a control-flow statement, given `live` after it (sets are never
        changed in place, so they are shared rather than copied)."""
        if isinstance(s, gast.If):
            return self.block(s.body, live, loop).union(self.block(s.orelse, live, loop), loads(s.test))
        if isinstance(s, (gast.For, gast.While)):
            # a while test runs before every iteration, so it is live at the end of the body too
            head = live.union(loads(s.test)) if isinstance(s, gast.While) else live
            while True:  # the body's live-in flows back to the loop head (`head` holds `live`)
                body_in = self.block(s.body, head, (live, head))
                STATS["live_set"] += len(body_in)
                if body_in <= head:
                    break
                head = head | body_in
            extra = loads(s.iter) if isinstance(s, gast.For) else loads(s.test)
            return head.union(extra)
        if isinstance(s, gast.Break):
            return loop[0] if loop else live
        return loop[1] if loop else live  # Continue


class TopLiveness:
    """`Liveness` at the top-level statements of a body only (`after[s]`, `before[s]`), each block
    counting as a whole (`Liveness.effect`: what it may read first, what it certainly assigns):
    the same sets there, from one next-use table, without the nested blocks' tables (the passes
    that release or reuse memory look only at the top level)."""

    def __init__(self, body, live_at_end=frozenset()):
        effects = Liveness([])
        run = _Run(body, live_at_end, effects.effect)
        self.effects = effects.effects  # statement -> (reads, kills): a simple statement's reads are its `loads`
        self.after: dict[gast.stmt, collections.abc.Set[str]] = {}
        self.before: dict[gast.stmt, collections.abc.Set[str]] = {}
        for p in range(len(body) - 1, -1, -1):  # a statement object that occurs twice keeps its first
            self.before[body[p]] = LiveSet(run, p)  # place's sets, as in `Liveness`
            self.after[body[p]] = LiveSet(run, p + 1)
        STATS["live_stmt"] += len(body)
