"""The schedule of a checkpointed loop (`grad(f, checkpoint=...)`, transforms/reverse.py).

The forward sweep runs the loop without records and keeps snapshots of the state the loop
carries at some steps. The backward sweep follows a plan of actions, each starting from a
snapshot: *reverse* runs a segment of steps again with the records, then its backward sweep;
*advance* runs steps without records and keeps the state it reaches as a new snapshot.

- `checkpoint="auto"`, a `for` loop of T steps: a snapshot every k = ceil(sqrt(T)) steps, each
  segment reversed once: about 2*sqrt(T) states and one forward sweep more.
- A budget of c states (bytes / the state's bytes) for a `for` loop: segments of L = c/2 steps and
  S = c - L snapshots, placed by the binomial schedule of Griewank and Walther (revolve): with S
  snapshots and r repetitions it reverses C(S + r, S) segments, each step run at most r + 1 times.
- A `while` loop (T found as it runs): an online schedule, a snapshot every k steps, k doubling
  (every other snapshot dropped) to keep between sqrt(steps) and 2*sqrt(steps) of them, or as
  many as the budget allows; each segment is reversed once.

grad's backward sweep lets each of the forward sweep's snapshots go once its segment is done;
vjp's works on a copy of them (each plan has its own), so a `vjp_fn` gives the same answer every
time it is called, and the snapshots live as long as it does.
"""
from __future__ import annotations

import math

__all__ = ("Checkpoints", "Action", "Plan", "checkpoint_schedule", "checkpoint_save", "checkpoint_plan",
           "checkpoint_restore", "checkpoint_advance", "checkpoint_store", "checkpoint_range")


class Checkpoints:
    """The forward sweep's snapshots of one loop: `snaps` maps a step to the state before it."""

    def __init__(self, trips, budget):
        self.trips = trips      # the trip count, or None (a while loop: found as it runs)
        self.budget = budget    # "auto", or bytes for the snapshots and one segment's records
        self.k = None           # the online schedule's interval; the segment length L otherwise
        self.slots = None       # the most snapshots kept (S), or None (online, "auto")
        self.spine: set[int] = set()  # the steps at which the forward sweep keeps one (for loops)
        self.steps = 0
        self.replayed = 0       # steps the backward sweeps ran again (bookkeeping, for tests and benchmarks)
        self.snaps: dict[int, tuple] = {}

    def __repr__(self):
        return (f"Checkpoints({len(self.snaps)} snapshots of {self.steps} steps, segments of {self.k}, "
                f"budget={self.budget!r})")

    def save(self, state: tuple) -> None:
        i = self.steps
        self.steps += 1
        if self.k is None:
            self._choose(state)
        if self.trips is not None:
            if i in self.spine:
                self.snaps[i] = state
            return
        if i % self.k == 0:
            self.snaps[i] = state
            self._thin()

    def _choose(self, state) -> None:
        """The segment length and the snapshots' places, from the trip count and the budget."""
        size = max(_nbytes(state), 1)
        states = None if self.budget == "auto" else max(int(self.budget // size), 2)
        if self.trips is None:
            self.k = 1
            self.slots = None if states is None else max(states // 2, 2)
            return
        n = max(int(self.trips), 1)
        if states is None:
            self.k = math.isqrt(n - 1) + 1                  # ceil(sqrt(n))
            self.slots = -(-n // self.k)
        elif states > n:
            self.k, self.slots = n, 1                       # the whole loop's records fit
        else:
            self.k = max(states // 2, 1)
            self.slots = max(states - self.k, 1)
        self.spine = set(_spine(0, n, self.slots - 1, self.k))

    def _thin(self) -> None:
        """The online schedule: keep sqrt(steps) to 2*sqrt(steps) snapshots (or the budget's)."""
        cap = self.slots if self.slots is not None else max(2, 2 * math.isqrt(self.steps))
        while len(self.snaps) > cap:
            self.k *= 2
            self.snaps = {s: v for s, v in self.snaps.items() if s % self.k == 0}


def _units(steps: int, unit: int) -> int:
    return -(-steps // unit)


def _beta(s: int, r: int) -> int:
    """How many segments s snapshots reverse with each run at most r more times: C(s + r, s)."""
    return math.comb(s + r, s)


def _advance_by(start: int, end: int, s: int, unit: int) -> int:
    """Revolve's first step: where to keep the next snapshot when reversing [start, end) with s
    snapshots free, or `end` when the segment is reversed from its records at once."""
    n = _units(end - start, unit)
    if n <= 1 or s <= 0:
        return end
    r = 1
    while _beta(s, r) < n:
        r += 1
    m = max(1, n - _beta(s - 1, r))
    return min(start + m * unit, end)


def _spine(start, end, s, unit):
    """The steps at which the forward sweep keeps snapshots: revolve's first advances."""
    out = [start]
    while True:
        mid = _advance_by(start, end, s, unit)
        if mid >= end:
            return out
        out.append(mid)
        start, s = mid, s - 1


class Action:
    """One step of a backward sweep's plan: from the snapshot at `start`, run [start, stop)
    without records and keep the state at `stop` (`advance`), or with them and back (`reverse`).
    `drops`: the snapshots the plan no longer needs once this action starts."""

    __slots__ = ("plan", "advance", "start", "stop", "drops")

    def __init__(self, plan, advance, start, stop):
        self.plan, self.advance, self.start, self.stop, self.drops = plan, advance, start, stop, []

    def __repr__(self):
        return f"{'advance' if self.advance else 'reverse'}({self.start}, {self.stop})"


class Plan:
    """The actions of one backward sweep, last segment first (a sequence: generated code may index
    it), and the snapshots its advances keep. With `consume` (grad: the record is used once) it
    takes the forward sweep's snapshots and lets each go once its segment is done; else (vjp_fn:
    may be called again) it works on a copy, and the forward's stay alive with the record."""

    def __init__(self, ck: Checkpoints, consume: bool = False):
        self.ck = ck
        self.snaps = ck.snaps if consume else dict(ck.snaps)
        if consume:
            ck.snaps = {}
        self.actions: list[Action] = []
        self._pending: list[int] = []
        starts = sorted(self.snaps)
        bounds = starts[1:] + [ck.steps]
        free = 0 if ck.slots is None else ck.slots - len(starts)
        online = ck.trips is None
        for j in range(len(starts) - 1, -1, -1):
            self._reverse(starts[j], bounds[j], 0 if online else free, ck.k)
            self._pending.append(starts[j])
            free += 1

    def __len__(self):
        return len(self.actions)

    def __getitem__(self, i):
        return self.actions[i]

    def _add(self, act):
        act.drops, self._pending = self._pending, []
        self.actions.append(act)

    def _reverse(self, start, stop, s, unit):
        mid = _advance_by(start, stop, s, unit)
        if mid >= stop:
            self._add(Action(self, False, start, stop))
            return
        self._add(Action(self, True, start, mid))
        self._reverse(mid, stop, s - 1, unit)
        self._pending.append(mid)
        self._reverse(start, mid, s, unit)


def _nbytes(tree) -> int:
    if isinstance(tree, (tuple, list)):
        return sum(_nbytes(e) for e in tree)
    if isinstance(tree, dict):
        return sum(_nbytes(e) for e in tree.values())
    return int(getattr(tree, "nbytes", 8))


def checkpoint_schedule(trips, budget):
    """The schedule of a loop of `trips` steps (a range or a count; None: a while loop)."""
    if trips is not None and not isinstance(trips, int):
        trips = len(trips)
    return Checkpoints(trips, budget)


def checkpoint_save(ck: Checkpoints, *state) -> None:
    """At the start of each step of the forward sweep: keep the carried state if the schedule says so."""
    ck.save(state)


def checkpoint_plan(ck: Checkpoints, consume: bool = False) -> Plan:
    """The actions of a backward sweep (see `Plan`)."""
    return Plan(ck, consume)


def checkpoint_restore(act: Action):
    """The state at the start of `act` (one value, or a tuple of several); the snapshots the plan
    is done with go first."""
    snaps = act.plan.snaps
    for d in act.drops:
        snaps.pop(d, None)
    state = snaps[act.start]
    return state[0] if len(state) == 1 else state


def _steps(act, r, advance):
    if act.advance != advance:
        return range(0)
    act.plan.ck.replayed += act.stop - act.start
    return range(act.stop - act.start) if r is None else r[act.start:act.stop]


def checkpoint_advance(act: Action, r=None):
    """The steps `act` runs without records (none unless it is an advance): that slice of the
    loop's range `r`, or a range of its length (a while loop)."""
    return _steps(act, r, True)


def checkpoint_store(act: Action, *state) -> None:
    """After an advance: keep the state it reached."""
    if act.advance:
        act.plan.snaps[act.stop] = state


def checkpoint_range(act: Action, r=None):
    """The steps `act` runs with records, then back (none unless it reverses a segment)."""
    return _steps(act, r, False)
