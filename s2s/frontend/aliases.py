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

from ..ir import build


class Aliases:
    """A small points-to model, in the order the normalizer reads statements: each name points to
    abstract objects (arrays, lists, dicts), and a container object holds element objects. An update
    in place of a name's objects is seen by every other name whose objects are those or hold them."""

    def __init__(self, fn: gast.FunctionDef):
        self.points: dict[str, frozenset[int]] = {}
        self.holds: dict[int, set[int]] = {}
        self.fresh = itertools.count()
        self.home: dict[str, int] = {}
        self.log: list | None = None  # inside a loop: the body's operations, to run again (loop())
        self.branches: list = []
        self.loads = [(n.lineno, n.col_offset, n.id) for n in build.walk(fn)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and hasattr(n, "lineno")]
        self.kills = _unconditional_assignments(fn)

    def known(self, name: str) -> bool:
        return name in self.points

    def objects(self, name: str) -> frozenset[int]:
        if name not in self.points:  # a value from before (a parameter, a global): its own object
            o = self.home.setdefault(name, next(self.fresh))
            self.points[name] = frozenset([o])
            self.holds.setdefault(o, set())
        return self.points[name]

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
        self.points[a] = held
        for o in held:
            self.holds.setdefault(o, set())

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
        self.branches.append([self.snapshot(), None])

    def else_branch(self) -> None:
        self._note("else_branch")
        top = self.branches[-1]
        top[1] = self.snapshot()
        self.restore(top[0])

    def end_branch(self) -> None:
        """After an `if` (or `x if c else y`), a name may be what either branch made it."""
        self._note("end_branch")
        self.merge(self.branches.pop()[1])

    @contextlib.contextmanager
    def loop(self):
        """Read a loop's body once, then run its operations again from the state the next iteration
        starts in (the head's joined with the body's end) until nothing changes: an alias made late
        in one iteration is seen by an update early in the next."""
        outer, self.log = self.log, []
        head = self.snapshot()
        try:
            yield
        finally:
            ops, self.log = self.log, outer
        if outer is not None:
            outer.extend(ops)
        for _ in range(8):
            tail = self.snapshot()
            self.restore(head)
            self.merge(tail)
            joined = self.snapshot()
            if joined == head:
                return
            head = joined
            saved, self.log = self.log, None
            try:
                for op in ops:
                    getattr(self, op[0])(*op[1:])
            finally:
                self.log = saved

    def snapshot(self) -> tuple:
        return dict(self.points), {o: set(h) for o, h in self.holds.items()}

    def restore(self, snap: tuple) -> None:
        self.points, self.holds = dict(snap[0]), {o: set(h) for o, h in snap[1].items()}

    def merge(self, snap: tuple) -> None:
        """Join another path's state into this one: after an `if`, a name may be what either
        branch made it."""
        for n, objs in snap[0].items():
            self.points[n] = self.points.get(n, frozenset()) | objs
        for o, h in snap[1].items():
            self.holds.setdefault(o, set()).update(h)

    def forget(self, a: str, o: int | None = None) -> None:
        """`a` was given a new value of its own (object `o`: the same one when a loop's body runs
        again, so that the iterations reach a fixed point)."""
        o = next(self.fresh) if o is None else o
        self._note("forget", a, o)
        self.points[a] = frozenset([o])
        self.holds.setdefault(o, set())

    def hold(self, container: str, name: str) -> None:
        """`container` now holds `name`'s object too (`[name]`, `{"k": name}`, `lst.append(name)`)."""
        self._note("hold", container, name)
        for o in self.objects(container):
            self.holds[o] |= self.objects(name)

    def share_elements(self, a: str, b: str) -> None:
        """`a` is a new container holding `b`'s elements (a shallow copy: `list(b)`)."""
        self._note("share_elements", a, b)
        for o in self.objects(a):
            self.holds[o] |= self.elements(b)

    def _reach(self, objs) -> set[int]:
        seen, todo = set(), list(objs)
        while todo:
            o = todo.pop()
            if o not in seen:
                seen.add(o)
                todo += self.holds.get(o, ())
        return seen

    def sharers(self, name: str, elements: bool = False) -> set[str]:
        """The other names that would see an update in place of `name` (with `elements`: of the
        elements `name` holds, `name[i] += v`)."""
        changed = set(self.objects(name)) | (self.elements(name) if elements else set())
        return {n for n, objs in self.points.items() if n != name and self._reach(objs) & changed}

    def read_later(self, others: set[str], stmt, loops) -> list[str]:
        """Which of `others` (the names that would see an update in place: `sharers`) the function
        reads after `stmt` (or anywhere in an enclosing loop, which runs again)."""
        if not others:
            return []
        if getattr(stmt, "lineno", None) is None:
            return []
        # the update's own statement reads its operands before it writes (`x[0] = a * 2.0`)
        pos = (getattr(stmt, "end_lineno", None) or stmt.lineno, getattr(stmt, "end_col_offset", None) or 0)
        spans = [(lp.lineno, max(getattr(n, "lineno", None) or lp.lineno for n in gast.walk(lp)), lp)
                 for lp in loops if getattr(lp, "lineno", None) is not None]
        out = []
        for line, col, n in self.loads:
            if n not in others:
                continue
            here = (line, col)
            # the innermost enclosing loop that also holds the read runs both again; a statement of
            # its own body that rebinds the name first makes the read see the new value
            loop = next((lp for lo, hi, lp in reversed(spans) if lo <= line <= hi), None)
            loop_kills = _unconditional_assignments(loop).get(n, []) if loop is not None else []
            kills = list(self.kills.get(n, ())) + loop_kills
            if here > pos and not any(pos < k < here for k in kills):
                out.append(n)
            elif loop is not None and not any(k < here for k in loop_kills):
                out.append(n)
        return sorted(set(out))


def _unconditional_assignments(fn: gast.FunctionDef) -> dict[str, list[tuple]]:
    """Where each name is given a new value by a statement of the function's (or loop's) own body (run on
    every path): the position just after that statement. A later read of the name reads the new
    value, not the array it named before."""
    out: dict[str, list[tuple]] = {}
    for s in fn.body:
        if not isinstance(s, (gast.Assign, gast.AnnAssign)) or getattr(s, "lineno", None) is None:
            continue
        targets = s.targets if isinstance(s, gast.Assign) else [s.target]
        end = (getattr(s, "end_lineno", None) or s.lineno, float("inf"))
        for t in targets:
            for n in ([t] if isinstance(t, gast.Name) else getattr(t, "elts", [])):
                if isinstance(n, gast.Name):
                    out.setdefault(n.id, []).append(end)
    return out
