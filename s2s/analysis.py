"""Side-table analyses of a core-form function: what each statement reads and writes, and activity."""
from __future__ import annotations

import bisect
import collections.abc

import gast

from .ir.core import BINOPS
from .primitives import registry
from .stats import STATS

CMPOPS = {gast.Lt: "lt", gast.LtE: "le", gast.Gt: "gt", gast.GtE: "ge", gast.Eq: "eq", gast.NotEq: "ne",
          gast.Is: "is", gast.IsNot: "isnot", gast.In: "in", gast.NotIn: "notin"}
UNOPS = {gast.USub: "neg", gast.UAdd: "pos", gast.Not: "not", gast.Invert: "invert"}
BUILTINS = {"len", "range", "float", "int", "abs", "print", "isinstance", "bool", "str", "stop_gradient",
            "list", "tuple", "slice"}


def dotted(node) -> str | None:
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        base = dotted(node.value)
        return None if base is None else base + "." + node.attr
    return None


def classify(value) -> str:
    """The kind of a core-form right-hand side: a primitive key, or atom/pack/getitem/call/pop/...."""
    if isinstance(value, gast.Name):
        return "copy"
    if isinstance(value, gast.Constant):
        return "const"
    if isinstance(value, gast.BinOp):
        return BINOPS[type(value.op)]
    if isinstance(value, gast.UnaryOp):
        return UNOPS[type(value.op)]
    if isinstance(value, gast.Compare):
        return CMPOPS[type(value.ops[0])]
    if isinstance(value, (gast.Tuple, gast.List)):
        return "pack"
    if isinstance(value, gast.Dict):
        return "dict"
    if isinstance(value, gast.Subscript):
        return "getitem"
    if isinstance(value, gast.Attribute):
        return "attr"
    if isinstance(value, gast.Call):
        func = value.func
        if isinstance(func, gast.Attribute) and func.attr == "pop" and not value.args:
            return "list.pop"
        key = dotted(func)
        if key is not None and key.startswith(("xp.", "rt.", "ext.")):
            if key.startswith("ext.") and registry.lookup(key) is None:
                return "call"
            return key
        if isinstance(func, gast.Name) and func.id in BUILTINS:
            return func.id
        return "call"
    raise TypeError(f"not a core-form value: {gast.dump(value)}")


def operands(value) -> list[str]:
    """Names a right-hand side reads (including indices and keyword values), with repeats, in no
    particular order."""
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "pop":
        return [value.func.value.id]
    out = loads(value)  # in no particular order
    if isinstance(value, gast.Call):
        fname = dotted(value.func)
        if fname and fname in out:
            out.remove(fname.split(".")[0]) if "." not in fname else None
        if isinstance(value.func, gast.Name) and value.func.id in out:
            out.remove(value.func.id)
        for head in ("xp", "rt", "ext"):
            while head in out:
                out.remove(head)
    return out


def diff_operands(value) -> list[str]:
    """Names through which a derivative can flow into the value (not indices, shapes, conditions)."""
    kind = classify(value)
    if kind in ("const", "attr", "len", "range", "int", "bool", "str", "print", "isinstance", "stop_gradient"):
        return []
    if kind == "getitem":
        return [value.value.id] if isinstance(value.value, gast.Name) else []
    p = registry.lookup(kind)
    if p is not None and p.nondiff:
        return []
    if kind in ("copy",):
        return [value.id]
    if kind in ("pack",):
        return [e.id for e in value.elts if isinstance(e, gast.Name)]
    if kind == "dict":
        return [v.id for v in value.values if isinstance(v, gast.Name)]
    return operands(value)


def targets(stmt) -> list[str]:
    """Names a statement (not descending into blocks) assigns."""
    if isinstance(stmt, gast.Assign):
        t = stmt.targets[0]
        if isinstance(t, gast.Name):
            return [t.id]
        if isinstance(t, gast.Tuple):
            return [e.id for e in t.elts]
    if isinstance(stmt, gast.For):
        return [stmt.target.id]
    return []


def walk_stmts(stmts):
    """Every statement of `stmts` and of the blocks nested in them, in program order."""
    stack = [iter(stmts)]
    while stack:
        for s in stack[-1]:
            STATS["stmt_walk"] += 1
            yield s
            body, orelse = getattr(s, "body", None), getattr(s, "orelse", None)
            if orelse:
                stack.append(iter(orelse))
            if body:
                stack.append(iter(body))
            if body or orelse:
                break
        else:
            stack.pop()


def activity(body, active_params) -> set[str]:
    """Variables whose value depends differentiably on the active parameters (a fixpoint)."""
    active = set(active_params)
    changed = True
    while changed:
        changed = False
        for s in walk_stmts(body):
            new = []
            if isinstance(s, gast.Assign):
                t = s.targets[0]
                if isinstance(t, gast.Subscript):
                    if isinstance(s.value, gast.Name) and s.value.id in active:
                        new = [t.value.id]
                elif isinstance(t, gast.Tuple):
                    if isinstance(s.value, gast.Name) and s.value.id in active:
                        new = [e.id for e in t.elts]
                elif any(n in active for n in diff_operands(s.value)):
                    new = [t.id]
            elif isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
                f = s.value.func
                if isinstance(f, gast.Attribute) and f.attr == "append":
                    arg = s.value.args[0]
                    if isinstance(arg, gast.Name) and arg.id in active:
                        new = [f.value.id]
            for n in new:
                if n not in active:
                    active.add(n)
                    changed = True
    return active


def useful(body, outputs) -> set[str]:
    """Variables whose value can reach the `outputs` differentiably (a fixpoint backwards over the
    same edges as `activity`; flow-insensitive, so a superset): a derivative never flows back to
    any other variable, whose adjoint is zero (e.g. the argument of a `stop_gradient`)."""
    use = set(outputs)
    stmts = list(walk_stmts(body))
    stmts.reverse()  # uses propagate backwards: a straight-line body settles in one sweep
    changed = True
    while changed:
        changed = False
        for s in stmts:
            new: list = []
            if isinstance(s, gast.Assign):
                t = s.targets[0]
                if isinstance(t, gast.Subscript):
                    if t.value.id in use:
                        new = loads(s.value)
                elif isinstance(t, gast.Tuple):
                    if any(e.id in use for e in t.elts):
                        new = loads(s.value)
                elif t.id in use:
                    new = diff_operands(s.value)
            elif isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
                f = s.value.func
                if isinstance(f, gast.Attribute) and f.attr == "append" and dotted(f.value) in use:
                    new = loads(s.value)
            elif isinstance(s, gast.For) and any(isinstance(n, gast.Name) and n.id in use for n in gast.walk(s.target)):
                new = loads(s.iter)
            for n in new:
                if n not in use:
                    use.add(n)
                    changed = True
    return use


def relevant(body, active) -> set[str]:
    """Active variables and every name an active statement reads: what the backward sweep may need."""
    rel = set(active)
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign):
            t = s.targets[0]
            base = t.value.id if isinstance(t, gast.Subscript) else None
            outs = targets(s) + ([base] if base else [])
            if any(o in active for o in outs):
                rel.update(operands(s.value))
                if isinstance(t, gast.Subscript):
                    rel.update(n.id for n in gast.walk(t.slice) if isinstance(n, gast.Name))
                    rel.add(base)
        elif isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
            f = s.value.func
            if isinstance(f, gast.Attribute) and f.value.id in active:
                rel.update(operands(s.value))
    return rel


_LEAF_FIELDS = {"ctx", "op", "ops", "type_comment", "kind", "id", "attr", "arg", "name", "level", "module",
                "conversion", "is_async", "simple", "value_kind"}
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls) -> tuple[str, ...]:
    """The fields of a node type that may hold expressions or statements (not ctx, op, names)."""
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _LEAF_FIELDS)
    return fields


def loads(node_or_stmts) -> list[str]:
    """Every name read under a statement or list of statements (with repeats)."""
    return [n.id for n in _walk(node_or_stmts, True)]


def iter_nodes(node_or_stmts):
    """Every AST node under a node or list of nodes, themselves included, in no particular order:
    `gast.walk` without its per-field generators (the passes look at every node of every round)."""
    return _walk(node_or_stmts, False)


def _walk(node_or_stmts, only_loads: bool):
    """The one walk behind `iter_nodes` (every node) and `loads` (only the Names read, and then it
    yields nothing else): a plain stack over the fields that may hold nodes, instead of
    `gast.walk`'s generator per field, since it runs for every statement of every pass. Counts
    the nodes it looks at in STATS (`load_walk` or `node_walk`)."""
    stack = list(node_or_stmts) if isinstance(node_or_stmts, list) else [node_or_stmts]
    pop, push, extend, count = stack.pop, stack.append, stack.extend, 0
    name, constant, load, child_fields = gast.Name, gast.Constant, gast.Load, _CHILD_FIELDS
    try:
        while stack:
            node = pop()
            count += 1
            cls = type(node)
            if cls is name:
                if only_loads:
                    if type(node.ctx) is load:
                        yield node
                    if node.annotation is not None:  # (a parameter's; iter_nodes stops at Names)
                        push(node.annotation)
                    continue
                yield node
                continue
            if not only_loads:
                yield node
            if cls is constant:
                continue
            for field in child_fields.get(cls) or _child_fields(cls):
                value = getattr(node, field, None)
                if value.__class__ is list:
                    extend(v for v in value if isinstance(v, gast.AST))
                elif isinstance(value, gast.AST):
                    push(value)
    finally:
        STATS["load_walk" if only_loads else "node_walk"] += count


def exposed(stmts) -> set[str]:
    """Names a block may read before assigning them (its live-in names)."""
    return exposed_and_assigned(stmts)[0]


def exposed_and_assigned(stmts) -> tuple[set[str], set[str]]:
    """(names the block may read before assigning them, names it assigns on every path)."""
    reads: set[str] = set()

    def visit(block, assigned):
        for s in block:
            if isinstance(s, gast.If):
                reads.update(set(loads(s.test)) - assigned)
                a1, a2 = set(assigned), set(assigned)
                visit(s.body, a1)
                visit(s.orelse, a2)
                assigned |= a1 & a2  # assigned on both paths
            elif isinstance(s, gast.While):
                reads.update(set(loads(s.test)) - assigned)
                visit(s.body, set(assigned))
            elif isinstance(s, gast.For):
                reads.update(set(loads(s.iter)) - assigned)
                visit(s.body, assigned | {s.target.id})
            else:
                reads.update(set(loads(s)) - assigned)
                assigned |= set(targets(s))
        return assigned
    assigned = visit(stmts, set())
    return reads, assigned


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
        for p, s in enumerate(stmts):
            reads, kills = effect(s)
            for v in dict.fromkeys(reads):  # a statement reads its operands before it assigns
                self.pos.setdefault(v, []).append(p)
                self.reads.setdefault(v, []).append(True)
            for v in kills:
                if v not in reads:
                    self.pos.setdefault(v, []).append(p)
                    self.reads.setdefault(v, []).append(False)

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


class _SetView(collections.abc.Set):
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


class LiveSet(_SetView):
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
    whole by `_CopyingLiveness` (sets copied at each block). Treat all as read-only."""

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
            return set(_CopyingLiveness([]).stmt(s, frozenset(), None)), set()
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
            copying = _CopyingLiveness([])
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


class _Union(_SetView):
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


class _CopyingLiveness:
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


class AssignedSet(_SetView):
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

    def block(stmts, outer) -> set[str]:
        """The names the block certainly assigns (besides `outer`'s)."""
        first: dict[str, int] = {}
        for i, s in enumerate(stmts):
            here = AssignedSet(outer, first, i)
            if at is None or isinstance(s, at):
                before[s] = here
            if isinstance(s, gast.If):
                both = block(s.body, here) & block(s.orelse, here)
                for v in both:
                    first.setdefault(v, i)
            elif isinstance(s, (gast.For, gast.While)):
                block(s.body, AssignedSet(here, {s.target.id: -1} if isinstance(s, gast.For) else {}, 0))
            else:
                for t in targets(s):
                    first.setdefault(t, i)
        STATS["assigned_stmt"] += len(stmts)
        return set(first)
    block(body, frozenset(params))
    return before


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


def assigned_counts(body, params=()) -> dict[str, int]:
    """How many statements assign each name (a parameter counts once): one walk of the body."""
    counts = dict.fromkeys(params, 1)
    for s in walk_stmts(body):
        for t in targets(s):
            counts[t] = counts.get(t, 0) + 1
    return counts


def loop_level(stmts):
    """Statements of a loop body through its branches, not descending into nested loops (where a
    `break` or `continue` belongs to this loop)."""
    for s in stmts:
        yield s
        if isinstance(s, gast.If):
            yield from loop_level(s.body)
            yield from loop_level(s.orelse)


def _same_shape_source(value):
    """The Name whose shape `value` has, if the op preserves its operand's shape."""
    kind = classify(value)
    if kind == "copy":
        return value
    p = registry.lookup(kind)
    if p is None:
        return None
    if p.same_shape:
        operand = value.operand if isinstance(value, gast.UnaryOp) else value.args[0] if isinstance(value, gast.Call) \
            else None
        return operand if isinstance(operand, gast.Name) else None
    if p.broadcasting and isinstance(value, gast.BinOp):
        left, right = value.left, value.right
        if isinstance(left, gast.Name) and isinstance(right, gast.Constant) and isinstance(right.value, (int, float)):
            return left
        if isinstance(right, gast.Name) and isinstance(left, gast.Constant) and isinstance(left.value, (int, float)):
            return right
    return None


def _shape_operands(value):
    """The operands of an elementwise op whose result has the shape they share (`xp.where`,
    comparisons, arithmetic), or of a helper whose result has its shape argument's shape."""
    if isinstance(value, gast.BinOp) and (p := registry.lookup(classify(value))) is not None and p.broadcasting:
        return [value.left, value.right]
    if isinstance(value, gast.Compare) and len(value.ops) == 1:
        return [value.left, value.comparators[0]]
    if isinstance(value, gast.Call) and not value.keywords and dotted(value.func) == "xp.where" and len(value.args) == 3:
        return list(value.args)
    like = shape_like(value)
    return [like] if like is not None else None


def shape_like(value):
    """The argument whose shape a helper call's result has (`rt.unbroadcast(g, like)`,
    `rt.sum_vjp(v, like, ...)`: the declaration's `result_like`), or None."""
    p = registry.lookup(dotted(value.func)) if isinstance(value, gast.Call) else None
    return value.args[p.result_like] if p is not None and p.result_like is not None \
        and p.result_like < len(value.args) else None


class ShapeRoots(dict):
    """`shape_roots`'s answer, with the `assigned_counts` it read as `counts` (still right for its
    callers while they rewrite only right-hand sides: one walk of the body less)."""

    counts: dict[str, int]


def shape_roots(body: list, params) -> ShapeRoots:
    """For names assigned once by a shape-preserving op: the earliest name with the same shape."""
    counts = assigned_counts(body, params)
    source = {}
    arrays = set()  # names certainly holding arrays (not lists or tuples)
    for s in body:  # straight-line statements only: each name here holds one value
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and counts[s.targets[0].id] == 1:
            src = _same_shape_source(s.value)
            if src is not None and counts.get(src.id, 0) == 1:
                if not _may_be_sequence_op(s.value, arrays):
                    source[s.targets[0].id] = src.id
                    if classify(s.value) != "copy":
                        arrays.add(s.targets[0].id)
            elif src is None and (ops := _shape_operands(s.value)) is not None:
                names = [o for o in ops if isinstance(o, gast.Name)]
                rest = [o for o in ops if not isinstance(o, gast.Name)]
                found = {_root(o.id, source) for o in names}
                if len(found) == 1 and all(counts.get(o.id, 0) == 1 for o in names) and all(
                        isinstance(o, gast.Constant) and type(o.value) in (int, float, bool) for o in rest) \
                        and not _may_be_sequence_op(s.value, arrays):
                    source[s.targets[0].id] = found.pop()
                    arrays.add(s.targets[0].id)
            if isinstance(s.value, gast.Call) and dotted(s.value.func).startswith("xp."):
                arrays.add(s.targets[0].id)
    roots = ShapeRoots((name, _root(name, source)) for name in source)
    roots.counts = counts
    return roots


def _may_be_sequence_op(value, arrays) -> bool:
    """`a + b` and `a * n` concatenate and repeat when an operand is a list or tuple: their result
    shares an operand's shape only when an operand is certainly an array or a float."""
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult))):
        return False
    operands = (value.left, value.right)
    return not any(isinstance(o, gast.Name) and o.id in arrays or isinstance(o, gast.Constant)
                   and type(o.value) is float for o in operands)


def expr_shape_root(e, roots, counts):
    """The shape root (see `shape_roots`) of expression `e`'s value, "" for a number (any
    shape), None if unknown; names count only when assigned once."""
    if isinstance(e, gast.Name):
        return roots.get(e.id, e.id) if counts.get(e.id, 0) == 1 else None
    if isinstance(e, gast.Constant):
        return "" if type(e.value) in (int, float, bool) else None
    ops = _shape_operands(e)
    if ops is None and isinstance(e, (gast.Call, gast.UnaryOp)):
        try:
            p = registry.lookup(classify(e))
        except TypeError:
            p = None
        if p is not None and p.same_shape:
            ops = [e.operand] if isinstance(e, gast.UnaryOp) else e.args[:1]
    found = {expr_shape_root(o, roots, counts) for o in ops or ()}
    if ops is None or None in found:
        return None
    found.discard("")
    return found.pop() if len(found) == 1 else "" if not found else None


def _root(name, source):
    while name in source:
        name = source[name]
    return name
