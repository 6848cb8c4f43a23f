"""The backward sweep's side of array loop kernels (`arrayloop.py`): a loop that pops several
values an iteration off one tape (`x = tape.pop()`, `a[j] = tape.pop()` restoring a slot), calls
the runtime helpers a reverse sweep's loop calls (`rt.unbroadcast`, `rt.sum_vjp`, `rt.add_at`,
...), whose kernel forms the emitter's prelude has, stores into arrays it was given, and adds
deferred outer products (`acc = rt.defer_dot_vjp_b(rows, acc, v, a, b)`).

Each pop becomes a row of one array per pop site, which the emitter
(`s2s.compiler.emit.numba_arraypops`) builds from the tape's last items when the loop runs and
checks: every item is a float64 array of the site's shape or a float, no two sites share an
item unless they share it in every iteration (then one array serves both), no item shares memory
with an argument. A site whose popped value nothing reads after the pop in the iteration may pop
something else last (the value a saved variable had before the loop, often `None`). The kernel
writes into copies of the arrays it was given and into its own rows: the emitter copies back the
arguments, and the rows of items something else still holds, once the kernel has run, so that
a kernel that raises half-way leaves nothing changed and the Python loop runs instead.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..primitives import registry

DEFER = "rt.defer_dot_vjp_b"


def _name(e):
    return e.id if isinstance(e, gast.Name) else None


def rt_form(e):
    """(the kernel's function, argument kinds, the argument whose rank its result has) of a runtime
    helper call `e` with a backward loop kernel's form (`Prim.backward_loop`), or None."""
    if isinstance(e, gast.Call) and not e.keywords and not any(isinstance(a, gast.Starred) for a in e.args):
        p = registry.lookup(analysis.dotted(e.func) or "")
        if p is not None and p.backward_loop and (len(e.args) == len(p.backward_loop[0]) or p.checks and len(
                e.args) == len(p.backward_loop[0]) + 1 and isinstance(e.args[-1], gast.Constant)):
            return ("_rt_" + p.name[3:],) + p.backward_loop  # (`rt.inplace`'s `array`: only vmap reads it)
    return None


def _prim(e):
    return registry.lookup(analysis.dotted(e.func))


def rt_args_ok(e, scan) -> bool:
    """Whether the arguments of runtime helper call `e` are what its kernel form takes."""
    _, kinds, _ = rt_form(e)
    for a, k in zip(e.args, kinds):
        if k == "v" and not scan.value(a) or k == "i" and not scan.index(a):
            return False
        if k in "nf" and not (isinstance(a, gast.Constant) and a.value is (None if k == "n" else False)):
            return False
        if k == "s" and not (isinstance(a, gast.Constant) and type(a.value) is str):
            return False
    return True


def rt_rank(e, ranks, rank):
    """The rank of runtime helper call `e`'s result where `rank` (arrayloop's `_rank`) tells, else None."""
    _, kinds, rule = rt_form(e)
    if rule >= 0:
        return rank(e.args[rule], ranks)
    rs = [rank(a, ranks) for a, k in zip(e.args, kinds) if k == "v"]
    return None if None in rs else max(rs)


def index_uses(body: list) -> set:
    """The names the body's runtime helper calls take as indices (`rt.add_at(b, j, v)`'s `j`)."""
    return {n.id for c in analysis.iter_nodes(body) if rt_form(c) is not None
            for a, k in zip(c.args, rt_form(c)[1]) if k == "i" for n in analysis.iter_nodes([a])
            if isinstance(n, gast.Name)}


def hands_back_first(e) -> bool:
    """Whether runtime helper call `e` may return its first argument itself (or writes into it)."""
    p = _prim(e)
    return p.aliasing or p.mutates


def writes_first(e) -> bool:
    """Whether runtime helper call `e` writes into its first argument."""
    p = _prim(e)
    return p.mutates and p.mutated == 0


def flow_args(e) -> list:
    """The arguments of runtime helper call `e` whose values its result may carry (the values not
    read only for their shape or as indices)."""
    p, kinds = _prim(e), rt_form(e)[1]
    return [a for a, k, name in zip(e.args, kinds, p.params) if k == "v" and name not in p.zero_args]


def _flows(e) -> set:
    """The names whose values `e`'s value carries (a helper's shape-only arguments left out)."""
    if rt_form(e) is not None:
        return set().union(*(_flows(a) for a in flow_args(e)))
    if isinstance(e, gast.Name):
        return {e.id}
    return set().union(*(_flows(c) for c in gast.iter_child_nodes(e))) if not isinstance(e, gast.Constant) else set()


def pop_tapes(body: list) -> set:
    """The lists the loop body pops more than once an iteration, or into a store (`a[j] = L.pop()`):
    a backward sweep's tapes."""
    counts: dict = {}
    stores = set()
    for s in body:
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and (lst := _pop_of(s.value)) is not None:
            counts[lst] = counts.get(lst, 0) + 1
            if isinstance(s.targets[0], gast.Subscript):
                stores.add(lst)
    return {lst for lst, c in counts.items() if c > 1} | stores


def _pop_of(e):
    if isinstance(e, gast.Call) and isinstance(e.func, gast.Attribute) and e.func.attr == "pop" \
            and isinstance(e.func.value, gast.Name) and not e.args and not e.keywords:
        return e.func.value.id
    return None


class Pops:
    """The pop sites of a loop's tapes (`lists`), its stores into arrays it was given and its
    deferred outer products, statement by statement as `arrayloop._kernel_of` scans the body."""

    def __init__(self, body: list, var: str, lists: set):
        self.body, self.var, self.lists = body, var, lists
        self.sites: list = []  # (position in body, list, kind, target, None, rank, None)
        self.links: list = []  # (name, name) pairs that may hold one object
        self.written: set = set()  # names whose objects the loop writes into
        self.rows: set = set()  # the deferred sums' row holders

    def statement(self, s, scan, local: dict, rank) -> str | None:
        """What `s` is to the kernel: "pop" (`x = L.pop()`, the name's rank from `local`), "store"
        (`a[j] = v` or `a[j] = L.pop()`), "defer", or None (not one of these: the caller goes on)."""
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1):
            return None
        t, at, lst = s.targets[0], self.body.index(s), _pop_of(s.value)
        if lst is not None and lst in self.lists and isinstance(t, gast.Name):
            r = local.get(t.id)
            self.sites.append((at, lst, "pop", t.id, None, None if r is None else len(r), None))
            return "pop"
        if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name):
            parts = t.slice.elts if isinstance(t.slice, gast.Tuple) else [t.slice]
            if any(isinstance(p, gast.Slice) for p in parts) or not all(scan.index(p) for p in parts) \
                    or not scan.value(t.value):
                return "refuse"
            if lst is not None:
                if lst not in self.lists:
                    return "refuse"
                r = local.get(t.value.id)  # (the rank of what it restores: an item, or a row)
                self.sites.append((at, lst, "popstore", t, None, None if r is None else len(r) - len(parts), None))
            elif not (scan.value(s.value) and rank(s.value, local) == 0):
                return "refuse"
            self.written.add(t.value.id)
            return "store"
        if isinstance(t, gast.Name) and isinstance(s.value, gast.Call) and analysis.dotted(s.value.func) == DEFER:
            args = s.value.args
            if s.value.keywords or len(args) != 5 or not all(isinstance(a, gast.Name) for a in args) \
                    or args[1].id != t.id or t.id in {args[0].id, args[2].id, args[3].id, args[4].id}:
                return "refuse"
            if not all(scan.value(a) for a in args[1:]):
                return "refuse"
            self.rows.add(args[0].id)
            self.sites.append((at, args[0].id, "defer", (t.id, args[2].id, args[3].id, args[4].id,
                                                         self._row_of(args[3].id)), None, None, None))
            return "defer"
        return None

    def _row_of(self, a: str):
        """The array whose row `a` is, where the body assigns `a` once, as `P[var]` of an array it
        does not assign (the deferred product then takes `P`'s rows, not copies), else None."""
        found = [s.value for s in self.body if isinstance(s, gast.Assign) and a in analysis.targets(s)]
        if len(found) != 1 or not isinstance(found[0], gast.Subscript):
            return None
        v = found[0]
        p, i = _name(v.value), _name(v.slice)
        assigned = {t for s in self.body for t in analysis.targets(s)}
        return p if p is not None and i == self.var and p not in assigned else None

    def assigned(self, t: str, value) -> None:
        """Record what `t = value` may make `t` share an object with (a name, or a helper that
        returns its first argument); an in-place helper writes into its first argument."""
        if isinstance(value, gast.Name):
            self.links.append((t, value.id))
        if isinstance(value, gast.Call) and rt_form(value) is not None and value.args:
            p = _prim(value)
            first = _name(value.args[0])
            if hands_back_first(value) and first is not None:
                self.links.append((t, first))
            if p.mutates and p.mutated != 0:
                self.written.add("")  # (into another argument: refused by `sound`)
            elif p.mutates:
                if first is None:
                    self.written.add("")  # (into a value no name holds: refused by `sound`)
                else:
                    self.written.add(first)

    def _groups(self) -> dict:
        """name -> the set of names that may hold its object."""
        group: dict = {}
        for a, b in self.links:
            ga, gb = group.get(a, {a}), group.get(b, {b})
            if ga is not gb:
                ga |= gb
                for n in ga:
                    group[n] = ga
        return group

    def sound(self, results, bound) -> tuple | None:
        """(the names whose objects the loop may write into, the pop sites whose popped value
        may be something else last, those the loop never reads, the names that may reach a
        division), or None where the kernel cannot stand for the loop: a result that may hold a
        popped row, a deferred sum whose total the loop reads elsewhere, an in-place helper on an
        unnamed value or into another argument. A deferred sum's rows of an argument the loop
        writes into are kept as copies."""
        if "" in self.written:
            return None
        group = self._groups()
        popped = {site[3] for site in self.sites if site[2] == "pop"}
        row_names = set().union(*(group.get(n, {n}) for n in popped)) if popped else set()
        if row_names & set(results):
            return None
        written = set().union(*(group.get(n, {n}) for n in self.written)) if self.written else set()
        for at, _, kind, spec, *_ in self.sites:
            if kind != "defer":
                continue
            acc = spec[0]
            reads = [n for k, s in enumerate(self.body) if k != at
                     for n in analysis.iter_nodes([s]) if isinstance(n, gast.Name) and n.id == acc]
            if reads or acc in group or any(spec[0] in (site[3][1:4] if site[2] == "defer" else ())
                                             for site in self.sites if site[0] != at):
                return None
        uses = sum(1 for n in analysis.iter_nodes(self.body) if isinstance(n, gast.Name) and n.id in self.rows)
        if uses != sum(site[2] == "defer" for site in self.sites):
            return None  # (the rows read otherwise than by the deferred sums)
        for k, (at, lst, kind, spec, *rest) in enumerate(self.sites):
            if kind == "defer" and spec[4] is not None and spec[4] in written:  # (rows written in the loop:
                self.sites[k] = (at, lst, kind, spec[:4] + (None,), *rest)  # the kernel keeps copies of them)
        dead_last, unread = set(), set()
        first = analysis.exposed(self.body)  # (what an iteration reads of the one before)
        shape_uses = {id(a) for c in analysis.iter_nodes(self.body) if rt_form(c) is not None
                      for k, a in enumerate(c.args) if k in _prim(c).shape_only and isinstance(a, gast.Name)}
        self.shaped = {site[3] for site in self.sites if site[2] == "pop" and site[3] not in written and all(
            id(n) in shape_uses for n in analysis.iter_nodes(self.body) if isinstance(n, gast.Name)
            and n.id == site[3] and isinstance(n.ctx, gast.Load))}
        for j, (at, _, kind, target, *_) in enumerate(self.sites):
            if kind == "pop" and target not in analysis.exposed(self.body[at + 1:]):
                dead_last.add(j)
                if target not in first:
                    unread.add(j)
        return written, dead_last, unread, self._raising()

    def _raising(self) -> set:
        """The names whose values may reach an operand of `/` or `**` (which raise on Python floats
        where NumPy's give inf or NaN), through the body's assignments, in any iteration."""
        reach = {n for e in analysis.iter_nodes(self.body) if isinstance(e, gast.BinOp)
                 and isinstance(e.op, (gast.Div, gast.Pow)) for side in (e.left, e.right) for n in _flows(side)}
        changed = True
        while changed:
            changed = False
            for s in self.body:
                if isinstance(s, gast.Assign) and set(analysis.targets(s)) & reach:
                    new = _flows(s.value) - reach
                    reach |= new
                    changed |= bool(new)
        return reach

    def loop_sites(self, loop, written: set, dead_last: set, unread: set, raising: set) -> list:
        """The sites by their position in `loop.body`; a pop site's fifth item is (whether the loop
        may write into what it pops, whether its value may be something else last, whether the
        loop never reads it: a shape stub the backward sweep only pops, whether it may reach a
        division: then a Python float popped must be NumPy's, whether the loop reads only its
        shape: a shape stub's rows will do)."""
        out = []
        for j, (at, lst, kind, target, _, rank, _) in enumerate(self.sites):
            flags = (target in written, j in dead_last, j in unread, target in raising, target in self.shaped) \
                if kind == "pop" else None
            out.append((loop.body.index(self.body[at]), lst, kind, target, flags, rank, None))
        return out + [(None, None, "raising", frozenset(raising), None, None, None)] if out else out
