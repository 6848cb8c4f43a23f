"""Definite assignment: the names certainly assigned where each statement starts, and whether a
name's first assignment is nested in a loop or branch."""
from __future__ import annotations

import collections.abc

import gast

from ...base.stats import STATS
from .liveness import SetView
from .stmts import targets


class AssignedSet(SetView):
    """The names certainly assigned at one point of a block: those the block assigned for sure
    before position `at` (`first`: name -> where), or certainly assigned where the block starts
    (`outer`). Membership costs one lookup per enclosing block; no set is copied per statement."""

    __slots__ = ("outer", "first", "at")

    def __init__(self, outer, first: dict[str, int], at: int):
        self.outer, self.first, self.at, self._all = outer, first, at, None

    def __contains__(self, v) -> bool:
        p = self.first.get(v)
        return p is not None and p < self.at or v in self.outer

    def _set(self) -> set[str]:
        if self._all is None:
            self._all = set(self.outer) | {v for v, p in self.first.items() if p < self.at}
        return self._all


def definitely_assigned(body, params, at=None) -> dict[gast.stmt, collections.abc.Set[str]]:
    """For each statement (the key), or each of the statement types `at`: the names certainly
    assigned whenever it starts (an `AssignedSet`: membership and set operations). One forward
    pass."""
    before: dict[gast.stmt, collections.abc.Set[str]] = {}
    _certain(body, frozenset(params), at, before)
    return before


def _certain(stmts, outer, at, before: dict) -> set[str]:
    """The names the block certainly assigns (besides `outer`'s), noting in `before` what holds
    as each statement starts (a module-level function: a closure that calls itself would be a
    reference cycle holding `before` until the cyclic collector runs)."""
    first: dict[str, int] = {}
    for i, s in enumerate(stmts):
        here = AssignedSet(outer, first, i)
        if at is None or isinstance(s, at):
            before[s] = here
        if isinstance(s, gast.If):
            both = _certain(s.body, here, at, before) & _certain(s.orelse, here, at, before)
            for v in both:
                first.setdefault(v, i)
        elif isinstance(s, (gast.For, gast.While)):
            _certain(s.body, AssignedSet(here, {s.target.id: -1} if isinstance(s, gast.For) else {}, 0), at, before)
        else:
            for t in targets(s):
                first.setdefault(t, i)
    STATS["assigned_stmt"] += len(stmts)
    return set(first)


def first_assignment_nested(body) -> dict[str, bool]:
    """For each assigned name: whether its first assignment (in program order) is inside a loop
    or a branch, so that the name may still be unset after it in some runs."""
    first: dict[str, bool] = {}

    def visit(stmts, nested):
        for s in stmts:
            for t in targets(s):
                first.setdefault(t, nested or isinstance(s, gast.For))
            for f in ("body", "orelse"):
                visit(getattr(s, f, []) or [], True)
    visit(body, False)
    return first
