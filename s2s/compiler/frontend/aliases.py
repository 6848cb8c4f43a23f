"""Which names may refer to the same array or list, directly or as an element of a container, so
that an in-place update through one of them that another one still reads afterwards is reported
instead of differentiated wrongly.

NumPy updates arrays in place (`z += 1`, `b[0] = v`, a view `row = m[i]` then `row *= 2`), and a
list holds its elements by reference (`b = [y]; y += 1` changes `b[0]`); s2s treats `z += v` as
`z = z + v` and records `b[i] = v` for `b` alone, which is exact unless another name that holds
the same object is read later.
"""
from __future__ import annotations

import contextlib
import itertools

import gast

from ...base.stats import STATS
from ..ir import build

_MISSING = object()  # in a journal: the key had no entry when the branch or loop began


class Aliases:
    """A small points-to model, in the order the normalizer reads statements: each name points to
    abstract objects (arrays, lists, dicts), and a container object holds element objects. An update
    in place of a name's objects is seen by every other name whose objects are those or hold them.

    Branches and loops keep journals, not copies of the state: each open branch or loop holds
    what every name and object it changed was when it began, so an `if` costs what its branches
    change, not the size of the whole state (issue 46: a copy per `if` made a long function's
    normalization quadratic)."""

    def __init__(self, fn: gast.FunctionDef, names: list):
        self.points: dict[str, frozenset[int]] = {}
        self.holds: dict[int, set[int]] = {}
        # inverse indexes for `sharers`, supersets (a branch undone leaves stale entries, checked
        # at use): the names that pointed to each object, and the objects that held it
        self.named: dict[int, set[str]] = {}
        self.holders: dict[int, set[int]] = {}
        self.fresh = itertools.count()
        self.home: dict[str, int] = {}
        self.log: list | None = None  # inside a loop: the body's operations, to run again (loop())
        self.branches: list = []
        self.frames: list[tuple[dict, dict]] = []  # journals of the open branches and loops (see _put)
        self.loads = [(n.lineno, n.col_offset, n.id) for n in names  # (`fn`'s Name nodes: its census)
                      if isinstance(n.ctx, gast.Load) and hasattr(n, "lineno")]
        self.kills = _unconditional_assignments(fn)
        self.last_lines: dict[int, tuple] = {}  # id(loop) -> (loop, the last (line, column) it spans)

    def known(self, name: str) -> bool:
        return name in self.points

    def objects(self, name: str) -> frozenset[int]:
        if name not in self.points:  # a value from before (a parameter, a global): its own object
            o = self.home.setdefault(name, next(self.fresh))
            self._put(name, frozenset([o]))
            self._held(o)
        return self.points[name]

    def _put(self, name: str, objs: frozenset[int]) -> None:
        """`name` now points to `objs`; the innermost open branch or loop notes what it was."""
        if self.frames:
            self.frames[-1][0].setdefault(name, self.points.get(name, _MISSING))
        self.points[name] = objs
        self._name(name, objs)

    def _name(self, name: str, objs) -> None:
        for o in objs:
            self.named.setdefault(o, set()).add(name)

    def _hold_all(self, o: int, objs) -> None:
        """`o` now holds `objs` too."""
        self._held(o).update(objs)
        for x in objs:
            self.holders.setdefault(x, set()).add(o)

    def _held(self, o: int) -> set[int]:
        """The set of objects `o` holds, to change in place (made empty if `o` is new); the
        innermost open branch or loop notes what it held."""
        if self.frames:
            journal = self.frames[-1][1]
            if o not in journal:
                h = self.holds.get(o)
                journal[o] = _MISSING if h is None else set(h)
        return self.holds.setdefault(o, set())

    def _open(self) -> None:
        self.frames.append(({}, {}))

    def _close(self) -> tuple[dict, dict]:
        """End the innermost journal; what it noted is noted in the enclosing one too (the
        values from before, where that one has none for the key yet)."""
        points, holds = self.frames.pop()
        if self.frames:
            outer_points, outer_holds = self.frames[-1]
            for n, v in points.items():
                outer_points.setdefault(n, v)
            for o, h in holds.items():
                outer_holds.setdefault(o, h)
        return points, holds

    def _undo(self, journal: tuple[dict, dict]) -> None:
        """Put back what `journal` noted (the state its branch began in, for what it changed)."""
        for n, v in journal[0].items():
            if v is _MISSING:
                self.points.pop(n, None)
            else:
                self.points[n] = v
                self._name(n, v)
        for o, h in journal[1].items():
            if h is _MISSING:
                self.holds.pop(o, None)
            else:
                self.holds[o] = set(h)
                for x in h:
                    self.holders.setdefault(x, set()).add(o)

    def _join(self, journal: tuple[dict, dict], other: tuple[dict, dict]) -> bool:
        """Join into the state, for each key `journal` noted, its value in `other` (a key's
        value, or `_MISSING`): a name may point to what either path made it point to. Whether
        anything changed."""
        changed = False
        for n in journal[0]:
            v = other[0][n]
            if v is _MISSING:
                continue
            now = self.points.get(n)
            joined = v if now is None else now | v
            if joined != now:
                self._put(n, joined)
                changed = True
        for o in journal[1]:
            h = other[1][o]
            if h is _MISSING:
                continue
            now = self.holds.get(o)
            if now is None or not h <= now:
                self._hold_all(o, h)
                changed = True
        return changed

    def elements(self, name: str) -> set[int]:
        return set().union(*(self.holds[o] for o in self.objects(name)))

    def link(self, a: str, b: str, element: bool = False, whole: bool = True) -> None:
        """`a` now names `b`'s object (`a = b`, or a view `a = b[i]` of an array), or with `element`
        also one of the objects `b` holds (`a = b[i]` of a list); without `whole`, only one of those
        (`b` is known to be a list or dict: its item is not `b`)."""
        self._note("link", a, b, element, whole)
        held = frozenset(self.elements(b)) if element else frozenset()
        if whole or not held:
            held |= self.objects(b) if whole else frozenset([self.home.setdefault("[]" + a, next(self.fresh))])
        self._put(a, held)
        for o in held:
            self._held(o)

    def _note(self, *op) -> None:
        if self.log is not None:
            self.log.append(op)

    def check(self, run) -> None:
        """`run()` checks an update in place now; inside a loop it runs again in later iterations."""
        self._note("run", run)
        run()

    def run(self, fn) -> None:
        fn()

    def begin_branch(self) -> None:
        self._note("begin_branch")
        self._open()
        self.branches.append(None)

    def else_branch(self) -> None:
        """The first branch's state is kept for what it changed; the second starts where it began."""
        self._note("else_branch")
        journal = self._close()
        self.branches[-1] = (journal, self._values(journal))
        self._undo(journal)
        self._open()

    def end_branch(self) -> None:
        """After an `if` (or `x if c else y`), a name may be what either branch made it."""
        self._note("end_branch")
        first, first_values = self.branches.pop()
        second = self._close()
        # what the first branch left, for everything either branch changed (a key only the
        # second changed: the first left it as both began)
        values = ({n: first_values[0][n] if n in first[0] else v for n, v in second[0].items()},
                  {o: first_values[1][o] if o in first[1] else h for o, h in second[1].items()})
        for n in first[0]:
            values[0].setdefault(n, first_values[0][n])
        for o in first[1]:
            values[1].setdefault(o, first_values[1][o])
        self._join(values, values)

    def _values(self, journal: tuple[dict, dict]) -> tuple[dict, dict]:
        """The state's values now for the keys `journal` noted (`_MISSING` where a key has none)."""
        return ({n: self.points.get(n, _MISSING) for n in journal[0]},
                {o: set(self.holds[o]) if o in self.holds else _MISSING for o in journal[1]})

    @contextlib.contextmanager
    def loop(self):
        """Read a loop's body once, then run its operations again from the state the next iteration
        starts in (the head's joined with the body's end) until nothing changes: an alias made late
        in one iteration is seen by an update early in the next."""
        outer, self.log = self.log, []
        self._open()  # the whole loop's journal, for the enclosing branch or loop
        self._open()  # this iteration's: what the head of the iteration held
        try:
            yield
        finally:
            ops, self.log = self.log, outer
        if outer is not None:
            outer.extend(ops)
        for _ in range(8):
            iteration = self._close()
            tail = self._values(iteration)
            self._undo(iteration)
            if not self._join(iteration, tail):  # the head joined with the tail is the head
                self._close()
                return
            self._open()
            saved, self.log = self.log, None
            try:
                for op in ops:
                    getattr(self, op[0])(*op[1:])
            finally:
                self.log = saved
        self._close()
        self._close()

    def forget(self, a: str, o: int | None = None) -> None:
        """`a` was given a new value of its own (object `o`: the same one when a loop's body runs
        again, so that the iterations reach a fixed point)."""
        o = next(self.fresh) if o is None else o
        self._note("forget", a, o)
        self._put(a, frozenset([o]))
        self._held(o)

    def hold(self, container: str, name: str) -> None:
        """`container` now holds `name`'s object too (`[name]`, `{"k": name}`, `lst.append(name)`)."""
        self._note("hold", container, name)
        for o in self.objects(container):
            self._hold_all(o, self.objects(name))

    def share_elements(self, a: str, b: str) -> None:
        """`a` is a new container holding `b`'s elements (a shallow copy: `list(b)`)."""
        self._note("share_elements", a, b)
        for o in self.objects(a):
            self._hold_all(o, self.elements(b))

    def sharers(self, name: str, elements: bool = False) -> set[str]:
        """The other names that would see an update in place of `name` (with `elements`: of the
        elements `name` holds, `name[i] += v`): those that point to a changed object or to one
        that holds it, directly or through other containers. Found backwards from the changed
        objects through the inverse indexes, so a check costs what shares them, not the number
        of names (issue 46: a walk over every name per `tape.append` made the normalization of
        a long gradient quadratic)."""
        changed = set(self.objects(name)) | (self.elements(name) if elements else set())
        seen, todo = set(changed), list(changed)
        while todo:
            o = todo.pop()
            for h in self.holders.get(o, ()):
                if h not in seen and o in self.holds.get(h, ()):
                    seen.add(h)
                    todo.append(h)
        STATS["alias_walk"] += len(seen)
        return {n for o in seen for n in self.named.get(o, ())
                if n != name and o in self.points.get(n, ())}

    def _last_pos(self, loop) -> tuple:
        """The last (line, column) loop statement `loop` (of the function, which normalizing never
        changes) spans, found once per loop: positions, not lines, since a one-line body shares its
        line with the loop's header and statements around it may share theirs."""
        got = self.last_lines.get(id(loop))
        if got is None or got[0] is not loop:
            got = self.last_lines[id(loop)] = (loop, max(_end(n) for n in build.walk(loop)
                                                         if getattr(n, "lineno", None) is not None))
        return got[1]

    def read_later(self, others: set[str], stmt, loops) -> list[str]:
        """Which of `others` (the names that would see an update in place: `sharers`) the function
        reads after `stmt` (or anywhere in an enclosing loop, which runs again)."""
        if not others:
            return []
        if getattr(stmt, "lineno", None) is None:
            return []
        STATS["alias_walk"] += len(self.loads)
        # the update's own statement reads its operands before it writes (`x[0] = a * 2.0`)
        pos = _end(stmt, 0)
        spans = [((lp.lineno, lp.col_offset), self._last_pos(lp), lp) for lp in loops
                 if getattr(lp, "lineno", None) is not None]
        out = []
        for line, col, n in self.loads:
            if n not in others:
                continue
            here = (line, col)
            # the innermost enclosing loop that also holds the read runs both again; a statement of
            # its own body that rebinds the name first makes the read see the new value
            loop = next((lp for lo, hi, lp in reversed(spans) if lo <= here <= hi), None)
            loop_kills = _unconditional_assignments(loop).get(n, []) if loop is not None else []
            kills = list(self.kills.get(n, ())) + loop_kills
            # (a statement frontend/view_writes.py puts after a store, `c = x[:, 1]` again, has the
            # store's position: it ends where the update does, and rebinds after it)
            if here > pos and not any(pos <= k < here for k in kills):
                out.append(n)
            elif loop is not None and not any(k < here for k in loop_kills):
                out.append(n)
        return sorted(set(out))


def _unconditional_assignments(fn: gast.FunctionDef) -> dict[str, list[tuple]]:
    """Where each name is given a new value by a statement of the function's (or loop's) own body (run on
    every path): the position just after that statement. A later read of the name reads the new
    value, not the array it named before. An `if` counts for the names both of its branches bind
    (a branch that raises binds every name: nothing after it runs; frontend/view_writes.py's
    `if M.ndim > 1:` around a write through a view and its new view)."""
    out: dict[str, list[tuple]] = {}
    for s in fn.body:
        if getattr(s, "lineno", None) is None:
            continue
        if isinstance(s, gast.If):
            names = _branch_kills(s)
        elif isinstance(s, (gast.Assign, gast.AnnAssign)):
            names = _kills(s)
        else:
            continue
        end = _end(s)  # (line, column): several statements may share a line (`b = a; a += x`)
        for n in names or ():
            out.setdefault(n, []).append(end)
    return out


def _end(s, default_col=float("inf")) -> tuple:
    """Where statement or node `s` ends, as (line, column): positions, not line numbers, are
    compared, so that `a = np.zeros(2); b = a; a += x` on one line orders its statements as on
    three (a node without an end column ends at `default_col` of its last line)."""
    col = getattr(s, "end_col_offset", None)
    return (getattr(s, "end_lineno", None) or s.lineno, default_col if col is None else col)


def _kills(s) -> set[str]:
    targets = s.targets if isinstance(s, gast.Assign) else [s.target]
    return {n.id for t in targets for n in ([t] if isinstance(t, gast.Name) else getattr(t, "elts", []))
            if isinstance(n, gast.Name)}


def _block_kills(stmts) -> set[str] | None:
    """The names a block binds on every path through it; None where it never falls through (raises)."""
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, gast.Raise):
            return None
        if isinstance(s, (gast.Assign, gast.AnnAssign)):
            out |= _kills(s)
        elif isinstance(s, gast.If):
            inner = _branch_kills(s)
            if inner is None:
                return None
            out |= inner
    return out


def _branch_kills(s: gast.If) -> set[str] | None:
    body, orelse = _block_kills(s.body), _block_kills(s.orelse)
    if body is None or orelse is None:
        return orelse if body is None else body
    return body & orelse
