"""Recompute and chain (jit, with fusion): the elementwise statements of a straight-line body
become fewer, larger expressions, so `fusion` makes one kernel where it would make several.

Reverse mode writes the forward and the backward sweep of an elementwise chain as separate
statements: a mask computed once and read by several backward statements, a cotangent bound
and then accumulated into. `reform` moves only values read once by a name bound once, so the
chain stays three statements (two of them NumPy calls)::

    t0 = x > 0
    b_x = xp.where(t0, 1.05, 0.0)
    b_x = b_x + 1.67 * xp.where(t0, 0.0, 1.05) * xp.exp(x)

Here a *cheap* value (comparisons, arithmetic, `where`, `abs`, `maximum`, `minimum` of at most
`CHEAP` operations) read only by elementwise statements is computed again in each of them
instead of being stored (a kernel recomputes it from operands it loads anyway), and a name
bound by an elementwise statement and read only by the next statement, which rebinds it, is
written into that statement::

    b_x = xp.where(x > 0, 1.05, 0.0) + 1.67 * xp.where(x > 0, 0.0, 1.05) * xp.exp(x)

which `fusion` makes one kernel: the forward and backward sweeps in one pass over memory. A
rewrite is kept only when every statement it touched becomes a fusion candidate (else it is
undone), and a recomputed value's array operands must be arguments, or live at least until its
last reader, so no array lives longer than before. After a round that changed something,
`reform` moves the single-use values it now can, and the next round chains again (W4b's
`leaky_square` on NumPy's block kernels takes two rounds).
"""
from __future__ import annotations

import collections

import gast

from .. import analysis
from ..ir import build
from ..ir.build import clone
from ..primitives import registry
from . import algebra, fusion, reform
from .base import Pass, pure
from .reform import elementwise_only, substitute_read

CHEAP = 3  # operations: a value this small is recomputed rather than stored


def _cheap(value) -> bool:
    """At most `CHEAP` operations, calls only of primitives declared `cheap` (`xp.where`, `xp.abs`...)."""
    if any(isinstance(n, gast.Call) and not getattr(registry.lookup(analysis.dotted(n.func) or ""), "cheap", False)
           for n in build.walk(value)):
        return False
    n = fusion.elementwise_ops(value)
    return n is not None and 1 <= n <= CHEAP


def _target(s) -> str | None:
    if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
        return s.targets[0].id
    return None


def _reader(s) -> bool:
    """A statement whose whole value is elementwise: where a recomputed value may go."""
    return isinstance(s, (gast.Assign, gast.Return)) and s.value is not None \
        and (isinstance(s, gast.Return) or _target(s) is not None) and elementwise_only(s.value)


def _substitute_all(stmt, name: str, value) -> int:
    """Write a copy of `value` for every read of `name` in `stmt`'s value; how many."""
    k = 0
    while substitute_read(stmt, name, clone(value)) is not None:
        k += 1
    return k


class _Block:
    """The top-level statements of a body, with what the rewrites need to know about them.

    A statement a rewrite removes leaves `None` in its place until the round ends (`statements`),
    and the names each statement reads are kept with an index of where each name is read, both
    updated for the statements a rewrite changes: finding a value's readers and asking whether
    an operand is read later cost what they find, not a scan of the body (issue 46: scans per
    candidate made jit's compile time grow with the square of a long function)."""

    def __init__(self, body, params, known):
        self.body, self.params = list(body), set(params)
        self.floats = algebra.python_floats(body, params, known.get("floats", ()))
        self.every, self.compiled = known.get("fuse") == "every", known.get("compiled")
        self.binds = collections.Counter(t for s in analysis.walk_stmts(body) for t in analysis.targets(s))
        self._reads = [set(analysis.loads(s)) for s in body]
        self._where: dict[str, set[int]] = collections.defaultdict(set)  # name -> positions reading it
        for j, names in enumerate(self._reads):
            for n in names:
                self._where[n].add(j)

    def candidate(self, s) -> bool:
        return fusion.fusion_candidate(s.value, self.floats, self.every, self.compiled) is not None

    def statements(self) -> list:
        """The body as the round left it."""
        return [s for s in self.body if s is not None]

    def _put(self, j: int, s) -> None:
        """Statement `j` is now `s` (`None`: removed); its reads are noted again."""
        self.body[j] = s
        old, new = self._reads[j], set(analysis.loads(s)) if s is not None else set()
        for n in old - new:
            self._where[n].discard(j)
        for n in new - old:
            self._where[n].add(j)
        self._reads[j] = new

    def recompute(self, i: int) -> bool:
        """Recompute the cheap value of statement `i` in each of its readers."""
        s = self.body[i]
        t = _target(s)
        if s is None or t is None or t in self.params or self.binds[t] != 1 or not pure(s.value) \
                or not _cheap(s.value):
            return False
        operands = set(analysis.loads(s.value)) - {"xp"}
        if any(self.binds[n] > (0 if n in self.params else 1) for n in operands):
            return False  # an operand rebound: it would be read with another value
        readers = sorted(j for j in self._where[t] if j > i)
        if not readers or not all(_reader(self.body[j]) for j in readers):
            return False
        last = readers[-1]
        if any(n not in self.params and n not in self.floats and max(self._where[n], default=-1) < last
               for n in operands):
            return False  # an array that died at `s` would live until `last`
        saved = {j: clone(self.body[j]) for j in readers}
        for j in readers:
            _substitute_all(self.body[j], t, s.value)
        if not self._chain(readers):
            for j, old in saved.items():
                self.body[j] = old
            return False
        self._put(i, None)
        return True

    def _chain(self, readers) -> bool:
        """Write each reader into the next statement where that one reads it once and rebinds it
        (or returns it); whether every statement left becomes a kernel (else nothing changes:
        the caller restores the readers)."""
        trial = {j: clone(self.body[j]) for j in readers}
        gone = set()
        for j in readers:
            k = self._next(j)
            t = _target(trial[j])
            if k is None or t is None:
                continue
            u = trial.get(k) or self.body[k]
            if (_target(u) == t or isinstance(u, gast.Return)) and _reader(u) \
                    and analysis.loads(u).count(t) == 1:
                u = trial[k] = trial.get(k) or clone(u)
                substitute_read(u, t, trial[j].value)
                gone.add(j)
        if not all(self.candidate(s) for j, s in trial.items() if j not in gone):
            return False
        for j, s in trial.items():
            self._put(j, None if j in gone else s)
        return True

    def chain(self, j: int) -> bool:
        """Write elementwise statement `j` into the next one, which reads its name once and
        rebinds or returns it, when that makes the next one a kernel."""
        k = self._next(j)
        s = self.body[j]
        t = _target(s)
        if s is None or k is None or t is None or not _reader(s) or not pure(s.value):
            return False
        u = self.body[k]
        if not (_target(u) == t or isinstance(u, gast.Return)) or not _reader(u) or analysis.loads(u).count(t) != 1:
            return False
        trial = clone(u)
        substitute_read(trial, t, s.value)
        if not self.candidate(trial):
            return False
        self._put(k, trial)
        self._put(j, None)
        return True

    def _next(self, j: int) -> int | None:
        """The next statement after `j` that is not a comment."""
        for k in range(j + 1, len(self.body)):
            if self.body[k] is not None and not build.is_comment(self.body[k]):
                return k
        return None


def recompute(body: list, params, facts) -> tuple[list, bool]:
    if not facts["known"].get("fuse"):
        return body, False
    changed = False
    for _ in range(3):  # each round may leave single-use values reform moves, and new neighbours
        block = _Block(body, params, facts["known"])
        now = False
        for i in range(len(body) - 1, -1, -1):
            now |= block.recompute(i)
        for j in range(len(block.body) - 2, -1, -1):
            now |= block.chain(j)
        body = block.statements()
        if not now:
            break
        changed = True
        body, _ = reform.PASS(body, params, facts["known"])
    return body, changed


PASS = Pass("recompute", recompute)
