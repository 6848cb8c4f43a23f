"""Array loop kernels (jit, with numba): a `for` loop whose state is arrays -- a recurrence
`h = tanh(h @ w + xs[t])`, a forward sweep pushing its states on a tape, the backward sweep
popping them -- becomes one call of a compiled loop (`s2s.compiler.emit.numba_arrayloops`), which runs the
loop as written when numba is missing, the trip count is small, or an argument is not what the
kernel compiles (float64 arrays and floats, lists of float64 arrays of one shape).

Before::

    for t in r0:
        t6 = proj_0[t] + xp.dot(h, wh) + b
        tape.append(h)
        h = xp.tanh(t6)

After::

    h, = aloop_0(xp, b, h, proj_0, r0, tape, wh)

A loop qualifies when its body is straight-line: assignments to names of array expressions
(numbers, names, arithmetic, `@`, `.T`, `xp.dot`, the scalar functions of `xp` a loop kernel
calls, `Prim.loop_kernel`, subscripts by integer expressions of the loop variable with slices),
`L.append(value)` of a value known to be an array (`known["name_shapes"]`, `known["arrays"]`)
and `name = L.pop()` on lists bound before the loop (each appended or popped once an
iteration, never both); its iterable is a name (a `range` when it runs) or a `range(...)`
call. Integer names (the loop variable, names computed from it by `+` and `-`) appear only in
indices; a product or sum of two integers outside an index keeps the loop in Python (numba's
int64 overflows where Python's ints do not), as does a value assignment of an integer. It also
has to be about arrays -- a list, a product of matrices, a transpose, or an array of the jit
signature (`known["name_shapes"]`, `known["arrays"]`) used whole or sliced -- else it is left to
the scalar loop kernels (`loopkernel.py`, the next pass). Lists must be made in the function
(`L = []`, not a parameter's). The names it assigns that the rest of the function reads come
back as results; they must be bound before the loop (one it assigns before reading goes to the
Python loop too, for a loop of no iterations); the loop variable may be one (the kernel runs
at least MIN_TRIPS iterations).

A reverse sweep's forward loop (`_Tape`) pushes several values an iteration onto one tape:
saved variables' old values (`tape.append(x)` or `tape.append(rt.shape_stub(x))` before `x`
is assigned; `None` before the loop), items saved before a store (`rt.copy_slot(a, j)`); it
stores into arrays it made (`a[j] = v`), reads indices from integer arrays (`j = y[i]`) and
takes a vector's `sum`, `max` or `min`. Each push site becomes one array of rows (the sites,
the seventh item of a loop in `known["arrayloops"]`), which the emitter turns back into the
tape's items in the Python loop's order. Where the function writes into arrays, the kernel's
copies must hold what Python's list holds: every array pushed is one the iteration made and
writes into no more after the push (sites pushing one object share its item), and a loop that
pops is refused.
"""
from __future__ import annotations

import copy
from collections import Counter

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry
from . import arraypops
from .accumulate import writes_arrays
from .base import Pass

MIN_TRIPS = 32  # below this, numba's call and the lists' conversions cost more than the loop
_VALUE_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.MatMult, gast.Pow)
_RESERVED = frozenset({"np", "numba", "xp"})  # the kernel's own names (and its suffix `__`)


def _int_const(e) -> bool:
    return isinstance(e, gast.Constant) and type(e.value) is int


class _Scan:
    """What a loop's expressions read: names in value positions (float64 arrays or floats when it
    runs) and in index positions (ints); `python_floats`: an operation that raises on Python floats
    (`x / 0.0`, `(-1.0) ** 0.5`) where numba gives inf or NaN; `arrays`: it computes on arrays."""

    def __init__(self, ranks: dict):
        self.values: set[str] = set()
        self.indices: set[str] = set()
        self.python_floats = False
        self.arrays = False
        self.ranks = ranks
        self.local = None  # (the ranks of the loop's names as it assigns them, where the caller keeps them)

    def index(self, e) -> bool:
        if _int_const(e):
            return True
        if isinstance(e, gast.Name):
            self.indices.add(e.id)
            return True
        if isinstance(e, gast.BinOp) and isinstance(e.op, (gast.Add, gast.Sub)):
            return self.index(e.left) and self.index(e.right)
        if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
            return self.index(e.operand)
        return False

    def _part(self, p) -> bool:
        if isinstance(p, gast.Slice):
            self.arrays = True
            return all(b is None or self.index(b) for b in (p.lower, p.upper, p.step))
        return self.index(p)

    def value(self, e) -> bool:
        if isinstance(e, gast.Constant):
            return type(e.value) in (int, float)
        if isinstance(e, gast.Name):
            self.values.add(e.id)
            self.arrays |= len(self.ranks.get(e.id) or ()) >= 1
            return True
        if isinstance(e, gast.BinOp) and isinstance(e.op, _VALUE_OPS):
            if isinstance(e.op, gast.Pow):
                if not (isinstance(e.right, gast.Constant) and type(e.right.value) in (int, float)):
                    return False
                self.python_floats |= type(e.right.value) is float or e.right.value < 0
            local = self.local if self.local is not None else self.ranks  # (an array divided: never raises)
            self.python_floats |= isinstance(e.op, gast.Div) and not (_rank(e.left, local) or _rank(e.right, local))
            self.arrays |= isinstance(e.op, gast.MatMult)
            return self.value(e.left) and self.value(e.right) and (_floaty(e.left) or _floaty(e.right))
        if isinstance(e, gast.UnaryOp) and isinstance(e.op, (gast.USub, gast.UAdd)):
            return self.value(e.operand) and _floaty(e.operand)
        if isinstance(e, gast.Subscript):
            if not isinstance(e.value, gast.Name):
                return False
            self.values.add(e.value.id)
            parts = e.slice.elts if isinstance(e.slice, gast.Tuple) else [e.slice]
            self.arrays |= len(self.ranks.get(e.value.id) or ()) > len(parts)
            return all(self._part(p) for p in parts)
        if isinstance(e, gast.Attribute) and e.attr == "T":
            self.arrays = True
            return not isinstance(e.value, gast.Constant) and self.value(e.value)
        if arraypops.rt_form(e) is not None:  # (a reverse sweep's runtime helper with a kernel form)
            return arraypops.rt_args_ok(e, self)
        if (x := _reduction_of(e)) is not None:  # (`(a * b).sum()` inside an expression; of another rank than 1,
            # numba's typing refuses the kernel's `_sum1` and the Python loop runs)
            return _rank(x, self.local if self.local is not None else self.ranks) in (1, None) and self.value(x)
        if _zeros_shape(e) is not None:
            self.arrays = True
            return True
        if isinstance(e, gast.Call) and not e.keywords and not any(isinstance(a, gast.Starred) for a in e.args):
            f = analysis.dotted(e.func) or ""
            if f == "xp.dot" and len(e.args) == 2 or f == "xp.transpose" and len(e.args) == 1:
                self.arrays = True
            elif not (f.startswith("xp.") and (p := registry.lookup(f)) is not None and p.loop_kernel):
                return False
            return all(self.value(a) for a in e.args)
        return False


def _floaty(e) -> bool:
    """Whether `e` is certainly a float (array) where every value name is one: no integer
    arithmetic of constants alone."""
    if isinstance(e, gast.Constant):
        return type(e.value) is float
    if isinstance(e, gast.BinOp):
        return _floaty(e.left) or _floaty(e.right)
    if isinstance(e, gast.UnaryOp):
        return _floaty(e.operand)
    return True


def _rank(e, ranks: dict):
    """The rank of `e`'s value where the ranks of the names it reads tell (`ranks`: name -> a
    shape or a tuple of its length), else None."""
    if isinstance(e, gast.Constant):
        return 0
    if isinstance(e, gast.Name):
        r = ranks.get(e.id)
        return None if r is None else len(r)
    if isinstance(e, gast.Subscript):
        base = _rank(e.value, ranks)
        parts = e.slice.elts if isinstance(e.slice, gast.Tuple) else [e.slice]
        return None if base is None else base - sum(not isinstance(p, gast.Slice) for p in parts)
    if isinstance(e, gast.BinOp) and isinstance(e.op, gast.MatMult) or isinstance(e, gast.Call) and \
            analysis.dotted(e.func) == "xp.dot" and len(e.args) == 2:
        a, b = (e.left, e.right) if isinstance(e, gast.BinOp) else e.args
        ra, rb = _rank(a, ranks), _rank(b, ranks)
        return None if ra is None or rb is None or ra > 2 or rb > 2 else max(ra + rb - 2, 0)
    if isinstance(e, gast.BinOp):
        ra, rb = _rank(e.left, ranks), _rank(e.right, ranks)
        return None if ra is None or rb is None else max(ra, rb)
    if isinstance(e, gast.UnaryOp):
        return _rank(e.operand, ranks)
    if isinstance(e, gast.Attribute) and e.attr == "T":
        return _rank(e.value, ranks)
    if _reduction_of(e) is not None:
        return 0
    if arraypops.rt_form(e) is not None:
        return arraypops.rt_rank(e, ranks, _rank)
    if (shape := _zeros_shape(e)) is not None:
        return len(shape)
    if isinstance(e, gast.Call) and len(e.args) == 1:  # (a scalar function of `xp`, a transpose)
        return _rank(e.args[0], ranks)
    if isinstance(e, gast.Call) and e.args and not e.keywords and (p := registry.lookup(analysis.dotted(e.func) or "")) \
            is not None and p.loop_kernel:  # (`xp.maximum(0, x)`: elementwise, broadcasting)
        rs = [_rank(a, ranks) for a in e.args]
        return None if None in rs else max(rs)
    return None


def _zeros_shape(e):
    """The shape of `xp.zeros(shape)` of int constants (a reverse sweep's zero cotangent), else None."""
    if not (isinstance(e, gast.Call) and analysis.dotted(e.func) == "xp.zeros" and len(e.args) == 1 and not e.keywords):
        return None
    a = e.args[0]
    dims = a.elts if isinstance(a, gast.Tuple) else [a]
    return tuple(d.value for d in dims) if all(_int_const(d) and d.value >= 0 for d in dims) else None


def _list_call(e, method: str):
    """The list name of `L.append(x)` / `L.pop()`, or None."""
    if isinstance(e, gast.Call) and isinstance(e.func, gast.Attribute) and e.func.attr == method \
            and isinstance(e.func.value, gast.Name) and not e.keywords \
            and len(e.args) == (1 if method == "append" else 0) and not any(isinstance(a, gast.Starred) for a in e.args):
        return e.func.value.id
    return None


def _iter_ok(it, scan: _Scan) -> bool:
    if isinstance(it, gast.Name):
        return True
    return isinstance(it, gast.Call) and analysis.dotted(it.func) == "range" and 1 <= len(it.args) <= 3 \
        and not it.keywords and all(scan.index(a) for a in it.args)


def _call_of(e, name: str, nargs: int) -> bool:
    return isinstance(e, gast.Call) and analysis.dotted(e.func) == name and len(e.args) == nargs and not e.keywords


def _reduction_of(e):
    """`x` of a whole reduction of `x` that an array loop kernel computes itself (`Prim.reduction`
    with `Prim.array_loop`: `xp.sum(x)`, `x.sum()`, NumPy's pairwise sum; `max`, `min`), else None."""
    if not (isinstance(e, gast.Call) and isinstance(e.func, gast.Attribute) and not e.keywords):
        return None
    if len(e.args) == 1 and isinstance(e.args[0], gast.Name):
        p = registry.lookup(analysis.dotted(e.func) or "")
        return e.args[0] if p is not None and p.reduction and p.array_loop else None
    if not e.args and not (isinstance(e.func.value, gast.Name) and e.func.value.id == "xp"):
        return e.func.value if e.func.attr in METHOD_REDUCTIONS else None
    return None


# array methods that are reductions an array loop kernel computes (`x.sum()`): method -> its function there
METHOD_REDUCTIONS = {m: p.array_loop for p in registry.PRIMS.values() if p.reduction and p.array_loop for m in p.methods}


def _fresh(e) -> bool:
    """Whether `e` makes a new array (arithmetic, a call), not a view or a name of another one."""
    return isinstance(e, (gast.BinOp, gast.UnaryOp)) or isinstance(e, gast.Call) and _list_call(e, "pop") is None \
        and _reduction_of(e) is None


class _Tape:
    """The pushes of a loop onto its lists, site by site, as a reverse sweep's forward loop makes
    them (several an iteration on one tape): a value (`L.append(e)`, a row of the site's array); a
    saved variable's old value (`L.append(x)` or `L.append(rt.shape_stub(x))` before `x` is
    assigned: the value before the loop, then each iteration's last, so the kernel writes row
    k + 1 at the end of iteration k); an item saved before a store (`rt.copy_slot(a, j)`). Also
    what such a loop writes: items of an array made earlier in the same iteration (`a[j] = v`,
    also through another name, `ds = probs`), and the indices it reads from an integer array
    (`j = y[i]`).

    Each name holds an object some statement of the iteration made (its *maker*: `b = a` holds
    `a`'s): sites that push one object share one item, as Python's list holds it twice. With
    `writes` (the function writes into arrays) every array pushed must be one the loop made new
    and writes into no more after the push, so the kernel's copies hold what Python's list would."""

    def __init__(self, body: list, local: dict, writes: bool):
        self.local, self.writes = local, writes
        self.sites: list = []  # (position in body, list, kind, node or name, stub, rank, maker or None)
        self.body = body
        self.done: set = set()  # names assigned so far this iteration
        self.maker: dict = {}  # name -> the position of the statement that made its object (this iteration)
        self.made_new: set = set()  # positions that made a new array
        self.stores: list = []  # (maker, position) of each store
        self.numpy: set = set()  # names bound so far to NumPy values
        self.np_values: dict = {}  # saved name -> whether every value it is assigned is NumPy's
        self.ints: set = set()
        self.assigned_names = {s.targets[0].id for s in body if isinstance(s, gast.Assign)
                               and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)}
        self.index_use = {n.id for s in body for sub in analysis.iter_nodes([s]) if isinstance(sub, gast.Subscript)
                          for n in analysis.iter_nodes([sub.slice]) if isinstance(n, gast.Name)}
        self.index_use |= {n.id for s in body for c in analysis.iter_nodes([s]) if _call_of(c, "rt.copy_slot", 2)
                           for n in analysis.iter_nodes([c.args[1]]) if isinstance(n, gast.Name)}
        self.index_use |= arraypops.index_uses(body)

    def _numpy_valued(self, e) -> bool:
        if isinstance(e, gast.Name):
            return e.id in self.numpy or bool(self.local.get(e.id))
        if isinstance(e, gast.Subscript):
            return isinstance(e.value, gast.Name) and bool(self.local.get(e.value.id))
        if isinstance(e, gast.BinOp):
            return self._numpy_valued(e.left) or self._numpy_valued(e.right)
        if isinstance(e, gast.UnaryOp):
            return self._numpy_valued(e.operand)
        if arraypops.rt_form(e) is not None:  # (`rt.inplace(r, a, ...)`: NumPy's where `r` is)
            return any(self._numpy_valued(a) for a in arraypops.flow_args(e))
        return _reduction_of(e) is not None or isinstance(e, gast.Call) and (analysis.dotted(e.func) or "").startswith("xp.")

    def _new(self, name: str):
        """The position that made the new array `name` holds now, or None (a view, an outside object)."""
        m = self.maker.get(name)
        return m if m in self.made_new else None

    def push(self, stmt, lst: str, arg, scan) -> bool:
        at = self.body.index(stmt)
        stub = _call_of(arg, "rt.shape_stub", 1)
        inner = arg.args[0] if stub else arg
        if _call_of(arg, "rt.copy_slot", 2) and isinstance(arg.args[0], gast.Name):
            item = build.subscript(build.name(arg.args[0].id), copy.deepcopy(arg.args[1]))
            parts = arg.args[1].elts if isinstance(arg.args[1], gast.Tuple) else [arg.args[1]]
            r = self.local.get(arg.args[0].id)
            if r is None or len(r) < len(parts) or not scan.value(item):
                return False
            self.sites.append((at, lst, "slot", item, False, len(r) - len(parts), None))
            return True
        plain = not stub and not self.writes and _rank(inner, self.local) and _Scan(scan.ranks).value(inner)
        if not plain and isinstance(inner, gast.Name) and inner.id in self.assigned_names \
                and inner.id not in self.done:  # (else a value: an RNN's `h`; stores so far: into this iteration's arrays)
            self.sites.append((at, lst, "saved", inner.id, stub, None, None))
            self.np_values.setdefault(inner.id, True)
            return True
        r = _rank(inner, self.local)
        if not (scan.value(inner) and _floaty(inner)) or not r:
            return False  # (what may be a number appended: the kernel appends rows of an array)
        maker = self._new(inner.id) if isinstance(inner, gast.Name) else None
        if self.writes and not (_fresh(inner) or maker is not None):
            return False  # (a view or an outside array, which a store may change after the push)
        self.sites.append((at, lst, "value", inner, stub, r, None if stub else maker))
        return True

    def store(self, s, scan) -> bool:
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Subscript)):
            return False
        t = s.targets[0]
        parts = t.slice.elts if isinstance(t.slice, gast.Tuple) else [t.slice]
        a = t.value.id if isinstance(t.value, gast.Name) else None
        if a is None or self._new(a) is None or len(self.local.get(a) or ()) != len(parts) \
                or not all(scan.index(p) for p in parts):
            return False  # (only into an array this iteration made: the kernel changes nothing it is given)
        v = s.value
        if not (isinstance(v, gast.Constant) and type(v.value) in (int, float)
                or scan.value(v) and _floaty(v) and _rank(v, self.local) == 0):
            return False
        self.stores.append((self._new(a), self.body.index(s)))
        return True

    def assigned(self, t: str, stmt) -> None:
        value, at = stmt.value, self.body.index(stmt)
        self.done.add(t)
        first = value.args[0] if arraypops.rt_form(value) is not None and value.args else None
        if isinstance(first, gast.Name) and arraypops.hands_back_first(value):  # (`rt.add_at(b, j, v)` is `b`,
            self.maker[t] = self.maker.get(first.id)  # written into: a store into what `b` holds)
            if arraypops.writes_first(value):
                self.stores.append((self.maker.get(first.id), at))
        elif isinstance(value, gast.Name):
            self.maker[t] = self.maker.get(value.id)  # (its object: None for one from before the loop)
        else:
            self.maker[t] = at
            if _fresh(value) and self.local.get(t):
                self.made_new.add(at)
        numpy = self._numpy_valued(value)
        (self.numpy.add if numpy else self.numpy.discard)(t)
        if t in self.np_values:
            self.np_values[t] &= numpy

    def int_read(self, t: str, value, scan) -> bool:
        if not (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and t in self.index_use
                and value.value.id not in self.assigned_names):
            return False
        parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
        if not all(not isinstance(p, gast.Slice) and scan.index(p) for p in parts):
            return False
        self.ints.add(value.value.id)
        return True

    def special(self, lst: str) -> bool:
        """Whether list `lst` needs the tape's handling (not one value pushed an iteration)."""
        return self.writes or any(site[1] == lst and (site[2] != "value" or site[4]) for site in self.sites)

    def sound(self, tapes: set, popped) -> bool:
        if self.writes and popped:
            return False  # (a pop where the function writes into arrays: Python's items are the objects)
        for k, (at, lst, kind, node, stub, rank, maker) in enumerate(self.sites):
            if kind == "value" and maker is not None and any(m == maker and w > at for m, w in self.stores):
                return False  # (a store after the push changes the object Python's list holds)
            if kind == "saved":
                r = self.local.get(node)
                if r is None or node in self.ints or not self.np_values.get(node):
                    return False  # (no rank, an int, a Python number)
                maker = self._new(node) if r else None
                if r and self.writes and maker is None:
                    return False  # (where arrays are written: a view, or an array from before the loop)
                self.sites[k] = (at, lst, kind, node, stub, len(r), None if stub else maker)
        return all(site[1] in tapes for site in self.sites if site[2] != "value" or site[4])

    def apart_from(self, results) -> bool:
        """Whether no value site pushes an object a result holds after the loop (the last
        iteration's: Python's list and the name share it, the kernel's copy would not), where
        the function writes into arrays (elsewhere one object or two equal ones read the same)."""
        if not self.writes:
            return True
        ends = {self.maker.get(n) for n in results} - {None}
        return not any(site[2] == "value" and site[6] in ends for site in self.sites)

    def saved_names(self) -> set:
        return {site[3] for site in self.sites if site[2] == "saved"}

    def without_saved(self) -> list:
        """The body without the saved variables' pushes (the kernel reads them at the iteration's end)."""
        at = {site[0] for site in self.sites if site[2] == "saved"}
        return [s for k, s in enumerate(self.body) if k not in at]

    def tape_sites(self, tapes: set, loop) -> list:
        """The sites of the lists in `tapes`, by their position in `loop.body`."""
        return [(loop.body.index(self.body[at]),) + site[1:] for site in self.sites if site[1] in tapes
                for at in (site[0],)]


def _kernel_of(loop, bound: set, outside: set, ranks: dict, lists_ok: set, writes: bool = False):
    """(params, results, roles, python_floats) of `loop` as an array loop kernel, or None when it
    does not qualify (`bound`: names bound before it; `outside`: names read after it before being
    assigned; `lists_ok`: the lists it may append to or pop from; roles: param -> "value",
    "index", "append", "pop", "range" or "carry")."""
    if not (isinstance(loop, gast.For) and isinstance(loop.target, gast.Name) and not loop.orelse):
        return None
    var = loop.target.id
    scan, iter_scan = _Scan(ranks), _Scan(ranks)
    if not _iter_ok(loop.iter, iter_scan):
        return None
    appended, popped = Counter(), Counter()
    index_names, value_names = {var}, set()
    local = dict(ranks)  # (the ranks of the loop's own names as it assigns them)
    body = [s for s in loop.body if not (build.is_comment(s) or isinstance(s, gast.Pass))]
    tape = _Tape(body, local, writes)
    pops = arraypops.Pops(body, var, arraypops.pop_tapes(body))  # (a backward sweep's tapes, stores, deferred sums)
    scan.local = local
    for s in body:
        if isinstance(s, gast.Expr) and (lst := _list_call(s.value, "append")) is not None:
            appended[lst] += 1
            if not tape.push(s, lst, s.value.args[0], scan):
                return None
            continue
        if tape.store(s, scan):  # (`a[j] = v` into an array this iteration made)
            continue
        if (what := pops.statement(s, scan, local, _rank)) == "refuse":
            return None
        if what is not None:
            if what != "store":
                t = s.targets[0].id
                tape.assigned(t, s)
                value_names.add(t)
            continue
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)):
            return None
        t = s.targets[0].id
        r = _rank(s.value, local) if _list_call(s.value, "pop") is None else len(local.get(t) or ()) or None
        local[t] = None if r is None or local.get(t, (None,) * r) is None or len(local.get(t, (None,) * r)) != r \
            else (None,) * r
        tape.assigned(t, s)
        pops.assigned(t, s.value)
        if (lst := _list_call(s.value, "pop")) is not None:
            popped[lst] += 1
            value_names.add(t)
        elif (probe := _Scan(ranks)).index(s.value) and probe.indices & index_names:  # (`j = t + 1`)
            scan.index(s.value)
            index_names.add(t)
        elif tape.int_read(t, s.value, scan):  # (`j = y[i]`, an index read from an integer array)
            index_names.add(t)
        elif (x := _reduction_of(s.value)) is not None and _rank(x, local) == 1 and scan.value(x):
            value_names.add(t)
        elif scan.value(s.value) and _floaty(s.value):
            value_names.add(t)
        else:
            return None
    lists = set(appended) | set(popped) | pops.lists
    tapes = {lst for lst in appended if appended[lst] > 1 or tape.special(lst)}
    if not lists - pops.lists <= lists_ok or set(appended) & pops.lists \
            or any(c != 1 for lst, c in (appended + popped).items() if lst not in tapes) \
            or set(appended) & set(popped) or not tape.sound(tapes, popped):
        return None
    if tape.ints & (scan.values | scan.indices | index_names | value_names):
        return None
    if not (lists or scan.arrays) or index_names & value_names or scan.indices & scan.values:
        return None  # (a loop of scalar arithmetic: loopkernel's)
    if scan.values & index_names or scan.indices & value_names or var in value_names:
        return None
    names = {n.id for n in gast.walk(loop) if isinstance(n, gast.Name)} - {"xp"}
    if any(n in _RESERVED or n.endswith("__") for n in names) or lists & (scan.values | scan.indices) \
            or lists & (index_names | value_names) or not lists <= bound:
        return None
    assigned = index_names | value_names
    results = sorted(assigned & outside)  # (the loop variable too: the kernel runs at least MIN_TRIPS trips)
    early = analysis.exposed(tape.without_saved()) - {"xp", "rt", var}  # (rt: a push's shape_stub or copy_slot)
    if not set(results) <= bound or early - bound - lists or not tape.apart_from(results):
        return None
    popped_ok = pops.sound(results, bound)
    if popped_ok is None:
        return None
    if (iter_scan.indices | ({loop.iter.id} if isinstance(loop.iter, gast.Name) else set())) & assigned:
        return None
    roles = {n: "value" for n in scan.values - assigned | (value_names & early)}
    roles.update({n: "index" for n in scan.indices - assigned | (index_names & early - {var})})
    roles.update({n: "append" for n in appended})
    roles.update({n: "tape" for n in tapes})
    roles.update({n: "pop" for n in popped})
    roles.update({n: "ints" for n in tape.ints})
    roles.update({n: "poptape" for n in pops.lists})
    roles.update({n: "rows" for n in pops.rows})
    roles.update({n: "written" for n in popped_ok[0] if roles.get(n) == "value"})  # (copied in, copied back)
    for n in iter_scan.indices | ({loop.iter.id} if isinstance(loop.iter, gast.Name) else set()):
        roles.setdefault(n, "range")
    for n in results:  # (assigned before read: what a loop of no iterations leaves, for the Python loop)
        roles.setdefault(n, "carry")
    for n in tape.saved_names():  # (the value before the loop: the tape's first item)
        roles.setdefault(n, "pre")
    if any(n not in bound for n in roles):
        return None
    numpy = frozenset(r for r in results if r in tape.numpy and not local.get(r))  # (NumPy scalars in Python)
    return sorted(roles), results, roles, scan.python_floats, tape.tape_sites(tapes, loop) \
        + pops.loop_sites(loop, *popped_ok) + ([(None, None, "numpy", numpy, None, None, None)] if numpy else [])


def _made_empty(lst: str, body: list, k: int) -> bool:
    """Whether `lst = []` comes before `body[k]`, with no mention of `lst` in between."""
    j = k - 1
    while j >= 0 and not any(isinstance(n, gast.Name) and n.id == lst for n in analysis.iter_nodes([body[j]])):
        j -= 1
    s = body[j] if j >= 0 else None
    return isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id == lst \
        and isinstance(s.value, gast.List) and not s.value.elts


def _concat_only(lst: str, fresh: set, body: list, k: int) -> bool:
    """Whether list `lst` (in `fresh`: the lists loop `body[k]` appends to once an iteration,
    made empty before it) is read after the loop only as `if lst:` and, inside an `if` on one of
    `fresh` (each as long as the others), `xp.concatenate(lst)`, as a deferred sum's lists are
    (`accumulate.py`); if so, those calls become `lst[0]`: the kernel call leaves the
    concatenation as the list's one item."""
    mentions = sum(1 for n in analysis.iter_nodes(body[k + 1:]) if isinstance(n, gast.Name) and n.id == lst)
    calls, tests = [], 0
    for s in analysis.walk_stmts(body[k + 1:]):
        if isinstance(s, gast.If) and isinstance(s.test, gast.Name) and s.test.id in fresh:
            tests += s.test.id == lst
            calls += [n for n in analysis.iter_nodes(s.body) if isinstance(n, gast.Call)
                      and analysis.dotted(n.func) == "xp.concatenate" and len(n.args) == 1 and not n.keywords
                      and isinstance(n.args[0], gast.Name) and n.args[0].id == lst]
    if not calls or mentions != len(calls) + tests:
        return False
    first_item = _FirstItem({id(c) for c in calls}, lst)
    for i in range(k + 1, len(body)):
        body[i] = first_item.visit(body[i])
    return True


class _FirstItem(gast.NodeTransformer):
    """The calls `xp.concatenate(lst)` listed (by id) as `lst[0]`."""

    def __init__(self, calls: set, lst: str):
        self.calls, self.lst = calls, lst

    def visit_Call(self, node):
        if id(node) in self.calls:
            return build.subscript(build.name(self.lst), build.const(0))
        self.generic_visit(node)
        return node


def _trips(e, ranges: dict):
    """The length of the range `e` is, where it is known here (`range` of numbers, `range`
    results of known ranges), else None (`ranges`: name -> ("range", length) or ("int", value))."""
    if isinstance(e, gast.Name):
        known = ranges.get(e.id)
        return known[1] if known is not None and known[0] == "range" else None
    f = analysis.dotted(e.func) if isinstance(e, gast.Call) and not e.keywords else None
    p = registry.lookup(f) if f else None
    if p is None or not p.range_result:
        return None
    if p.builtin == "range":
        ints = [a.value if _int_const(a) else ranges.get(a.id, (None,))[-1] if isinstance(a, gast.Name)
                and ranges.get(a.id, ("",))[0] == "int" else None for a in e.args]
        return len(range(*ints)) if 1 <= len(ints) <= 3 and None not in ints else None
    return _trips(e.args[0], ranges) if len(e.args) == 1 else None  # (`rt.reversed_range(r)`: r's length)


def _rewrite(body: list, bound: set, after: set, loops: list, ranks: dict, lists_ok: set, taken: set,
             ranges: dict, writes: bool = False) -> bool:
    """Replace the loops of `body` that qualify by kernel calls (`after`: the names read after
    `body` before being assigned; `ranges`: the lengths of ranges known here, a loop shorter
    than MIN_TRIPS stays)."""
    changed = False
    lives = [after]  # per statement from the last: the names read after it before being assigned
    for s in reversed(body[1:]):
        reads, sets = analysis.exposed_and_assigned([s])
        lives.append(reads | (lives[-1] - sets))
    for k, s in enumerate(body):
        live = lives[len(body) - 1 - k]
        trips = _trips(s.iter, ranges) if isinstance(s, gast.For) else None
        for t in {t for st in analysis.walk_stmts([s]) for t in analysis.targets(st)}:
            ranges.pop(t, None)
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            n = _trips(s.value, ranges)
            if n is not None or _int_const(s.value):
                ranges[s.targets[0].id] = ("range", n) if n is not None else ("int", s.value.value)
        if isinstance(s, gast.For) and (trips is None or trips >= MIN_TRIPS):
            found = _kernel_of(s, bound, live, ranks, lists_ok, writes)
            if found is not None:
                params, results, roles, python_floats, sites = found
                fresh = {p for p in params if roles[p] == "append" and p not in after and _made_empty(p, body, k)}
                for lst in sorted(fresh):
                    if _concat_only(lst, fresh, body, k):
                        roles[lst] = "concat"
                name = next(f"aloop_{i}" for i in range(len(loops), len(loops) + len(taken) + 1)
                            if f"aloop_{i}" not in taken)
                taken.add(name)
                loops.append((name, params, results, roles, python_floats, s, sites))
                call = build.call(name, [build.name("xp")] + [build.name(p) for p in params])
                body[k] = build.assign(build.tuple_([build.name(r) for r in results], store_=True), call) if results \
                    else build.expr_stmt(call)
                changed = True
        elif isinstance(s, gast.If):
            changed |= _rewrite(s.body, set(bound), live, loops, ranks, lists_ok, taken, {}, writes)
            changed |= _rewrite(s.orelse, set(bound), live, loops, ranks, lists_ok, taken, {}, writes)
        bound |= {t for st in analysis.walk_stmts([s]) for t in analysis.targets(st)}
    return changed


def array_loops(body: list, params, facts) -> tuple[list, bool]:
    known = facts["known"]
    loops = known.get("arrayloops")  # None: the driver has no loop kernels to offer (no numba)
    if loops is None or not any(isinstance(s, gast.For) for s in analysis.walk_stmts(body)):
        return body, False
    ranks = {n: (None,) * nd for n, (_, nd) in (known.get("arrays") or {}).items()}
    ranks.update({n: s for n, s in (known.get("name_shapes") or {}).items() if s is not None})
    taken = {n.id for n in analysis.iter_nodes(body) if isinstance(n, gast.Name)} | set(params)
    made = {st.targets[0].id for st in analysis.walk_stmts(body) if isinstance(st, gast.Assign)
            and isinstance(st.targets[0], gast.Name) and isinstance(st.value, gast.List) and not st.value.elts}
    writes = writes_arrays(body)  # (then only a tape's pushes of new values: `_Tape`)
    return body, _rewrite(body, set(params), set(), loops, ranks, made - set(params), taken, {}, writes)


PASS = Pass("arrayloop", array_loops)
