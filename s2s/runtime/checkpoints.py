"""The schedule of a checkpointed loop (`grad(f, checkpoint=...)`, transforms/reverse.py): the
forward sweep runs the loop without recording and keeps the state the loop carries at the start of
every k-th step; the backward sweep takes the segments between two snapshots last first, runs each
segment's forward sweep again with the tape, then its backward sweep.

Memory is the snapshots plus one segment's tape, time one forward sweep more: with k = ceil(sqrt(T))
both are about sqrt(T) states. A `for` over a range knows T before it starts; a `while` loop does
not, so its schedule is online: it keeps every k-th state, and when more than 2*sqrt(steps)
snapshots (or more than the budget allows) are kept, it drops every other one and doubles k.
"""
from __future__ import annotations

import math

__all__ = ("checkpoints", "checkpoint_save", "checkpoint_segments", "checkpoint_restore", "checkpoint_range",
           "Checkpoints")


class Checkpoints:
    """Snapshots of a loop's carried state: `starts[j]` is the step at which `states[j]` was taken."""

    def __init__(self, trips, budget):
        self.trips = trips      # the trip count, or None (a while loop: found as it runs)
        self.budget = budget    # "auto", or bytes for the snapshots and one segment's tape
        self.k = None           # the interval between snapshots, chosen at the first step
        self.limit = None       # the most snapshots the online schedule keeps (budget), or None
        self.steps = 0
        self.replayed = 0       # the steps the backward sweep ran again (bookkeeping, for tests and benchmarks)
        self.starts: list[int] = []
        self.states: list[tuple] = []

    def __repr__(self):
        return (f"Checkpoints(every {self.k} steps, {len(self.states)} snapshots of {self.steps} steps, "
                f"budget={self.budget!r})")

    def save(self, state: tuple) -> None:
        i = self.steps
        self.steps += 1
        if self.k is None:
            self.k = self._first_interval(state)
        if i % self.k:
            return
        self.starts.append(i)
        self.states.append(state)
        if self.trips is None:
            self._thin()

    def _first_interval(self, state) -> int:
        size = max(_nbytes(state), 1)
        if self.budget != "auto":
            # half the budget for the snapshots, half for the tape of one segment (about one state a step)
            self.limit = max(int(self.budget // (2 * size)), 2)
        if self.trips is None:
            return 1
        n = max(int(self.trips), 1)
        if self.limit is None:
            return max(math.isqrt(n - 1) + 1, 1)  # ceil(sqrt(n))
        return max(-(-n // self.limit), 1)

    def _thin(self) -> None:
        """The online schedule: keep between sqrt(steps) and 2*sqrt(steps) snapshots (or the budget's)."""
        cap = self.limit if self.limit is not None else max(2, 2 * math.isqrt(self.steps))
        while len(self.states) > cap:
            self.k *= 2
            keep = [j for j, s in enumerate(self.starts) if s % self.k == 0]
            self.starts = [self.starts[j] for j in keep]
            self.states = [self.states[j] for j in keep]

    def segment(self, j: int) -> tuple[int, int]:
        stop = self.starts[j + 1] if j + 1 < len(self.starts) else self.steps
        return self.starts[j], stop


def _nbytes(tree) -> int:
    if isinstance(tree, (tuple, list)):
        return sum(_nbytes(e) for e in tree)
    if isinstance(tree, dict):
        return sum(_nbytes(e) for e in tree.values())
    return int(getattr(tree, "nbytes", 8))


def checkpoints(trips, budget):
    """The schedule of a loop of `trips` steps (a range or a count; None: a while loop)."""
    if trips is not None and not isinstance(trips, int):
        trips = len(trips)
    return Checkpoints(trips, budget)


def checkpoint_save(ck: Checkpoints, *state) -> None:
    """At the start of each step: keep the carried state if the schedule says so."""
    ck.save(state)


def checkpoint_segments(ck: Checkpoints) -> range:
    """The segments' numbers, last first (the order the backward sweep takes them)."""
    return range(len(ck.starts) - 1, -1, -1)


def checkpoint_restore(ck: Checkpoints, j: int):
    """The state kept at the start of segment `j` (one value, or a tuple of several)."""
    state = ck.states[j]
    return state[0] if len(state) == 1 else state


def checkpoint_range(ck: Checkpoints, j: int, r=None):
    """The steps of segment `j`: that slice of loop range `r`, or a range of its length (a while loop)."""
    start, stop = ck.segment(j)
    ck.replayed += stop - start
    return range(stop - start) if r is None else r[start:stop]
