"""Reverse mode: a forward sweep that records what the backward sweep needs, then the backward sweep.

Recorded on two plain lists: `tape` for values of active variables that an assignment overwrites,
`ctl` for everything else the backward sweep needs to replay control flow (branch decisions, loop
ranges and trip counts, overwritten inactive values). Loops stay loops; nothing is unrolled.

`Reverse` builds both sweeps at once: this module holds the forward sweep (what each statement
saves on `tape` and `ctl`) and the assembly, reverse_backward.py the backward sweep (which pops
those saves in reverse order), reverse_checkpoints.py the loops run under a checkpoint schedule;
they are mixins of `Reverse`, so the arrows point from here to them. The VJP rules are declared
in primitives/, what the tape keeps is tape.py, and the drivers at the bottom (`grad_fn`,
`split_fns`, `saving_fn`) are the entry points the API calls.
"""
from __future__ import annotations

import dataclasses

import gast

from .. import analysis
from ..analysis import raising
from ..analysis.owned import owned_arrays, read_names
from ..ir import build
from ..ir.core import CoreFn, is_catch
from ..ir.names import Namer
from ..primitives import registry
from . import complex_checks
from . import tape as tapes
from .adjoint import Adjoints
from .base import (
    Callees,
    GeneratedFn,
    Transform,
    bind_prim,
    containers,
    header_for,
    index_value,
    loc,
    split_self_updates,
)
from .record_writes import written_positions
from .reverse_backward import BackwardSweep
from .reverse_checkpoints import CheckpointedLoops


@dataclasses.dataclass
class Sweeps:
    """What `Reverse.run` produces: the statements that create the records (`init`), the forward
    sweep, its output atom, the statements that seed the backward sweep, the backward sweep, and
    one cotangent expression per parameter."""

    init: list
    forward: list
    out: gast.expr
    seed: list
    backward: list
    grads: list


class Reverse(BackwardSweep, CheckpointedLoops, Transform):
    """Reverse mode of one core-form function with respect to `active_params`: `run` returns the
    forward sweep (with its records), the seed, and the backward sweep, for api.py to assemble."""

    def __init__(self, core: CoreFn, active_params, calls: Callees, checkpoint=None, aux: bool = False,
                 outputs: frozenset[int] | None = None, idioms: bool = True):
        self.tanh_idioms = idioms  # (not under a checkpoint policy's replay, which saves by statement)
        super().__init__(core, active_params, calls)
        self.checkpoint = checkpoint  # None, "auto" or a budget in bytes: the top-level loops' schedule
        self.consume = False  # whether the backward sweep may use up the record (grad's: run once)
        ret = self.body[-1]
        self.outputs = outputs
        if outputs is not None and _project_outputs(self.body, ret, outputs):
            # the caller reads only these items of the returned tuple: the others are returned as
            # None, so what only they read is dead (an author's `dW` beside the loss, `f(...)[0]`)
            self.active = analysis.activity(self.body, active_params)
            self.containers = containers(self.body, self.active)
            self.leaves -= self.containers
        outs = analysis.loads(ret.value) if isinstance(ret, gast.Return) and ret.value else ()
        pair = _aux_pair(self.body, ret) if aux else None
        self.useful = analysis.useful(self.body, pair[1] if pair else outs)
        if pair:
            self.useful.add(pair[0])
        # dead stores: an array the function owns alone (analysis.owned) whose value never reaches
        # the output has a zero cotangent, so it is neither taped nor restored (e.g. an author's own
        # `dW` updated slice by slice beside the loss); dce then drops its statements
        owned = owned_arrays(self.body, self.params, pair[2] if pair else ())
        dead = {v for v in self.active if v in owned and not owned[v] & self.useful}
        self.dead_stores = set().union(*(owned[v] for v in dead)) if dead else set()
        if dead:
            self.active = analysis.activity(self.body, active_params, dead)
        if pair and dead:  # the aux element is read by the output's pack only: not for the backward sweep
            self.relevant = analysis.relevant([s for s in self.body if s is not pair[3]], self.active,
                                              self.dead_stores)
            self.relevant.update(pair[1])
        else:
            self.relevant = analysis.relevant(self.body, self.active, self.dead_stores)
        self.adj = Adjoints(self.namer, containers=self.containers, leaves=self.leaves)
        self.tape = self.namer.exact("tape")
        self.ctl = self.namer.exact("ctl")
        self.discard = None  # the target of cotangents nobody reads
        self.used_lists: set[str] = set()
        self.saved: set[str] = set()
        self.saved_at: set = set()
        self.value_saves: set[str] = set()  # variables saved because an assignment overwrites them
        self.value_records: set[int] = set()  # ids of those saves' pushes and pops (what `tapes.slim` may drop)
        self.slot_records: dict[int, str] = {}  # ids of item saves and restores -> their container (`tapes.slim_slots`)
        self.recorded: list = []  # the statements of those ids, held so that no new node takes an id of theirs
        self.seen = set(self.params)
        self.restores: set[str] = set()  # "arrays"/"lists": what the backward sweep updates in place
        self.counts: dict[str, int] | None = None
        self.item_reads: dict[str, frozenset[int] | None] | None = None
        self.replay = None  # s2s.checkpoint's policy: statements whose value comes from `self.residuals`
        self.residuals = None
        self.out_read = True  # whether the caller reads the output's value (grad's does not)

    # ---- forward sweep ----
    def forward(self, stmts, depth: int) -> list:
        out = []
        for s in stmts:
            if isinstance(s, gast.Return):
                continue
            if isinstance(s, gast.If):
                body, orelse = self.forward(s.body, depth), self.forward(s.orelse, depth)
                if is_catch(s.test):  # its saves run before it: its backward pops them on either path
                    saves, body = self.catch_saves(s, body)
                    out.extend(saves)
                if self.record_branch(s, depth):
                    # recorded where each path ends, so it is the first thing the backward sweep pops
                    body = _at_path_ends(body, self.push(self.ctl, build.const(True)))
                    orelse = _at_path_ends(orelse, self.push(self.ctl, build.const(False)))
                out.append(loc(build.if_(s.test, body, orelse), s))
                continue
            if isinstance(s, (gast.For, gast.While)):
                if depth == 0 and self.checkpoint is not None and self.checkpointable(s):
                    out.extend(self.forward_checkpointed(s, depth))
                else:
                    out.extend(self.forward_loop(s, depth))
                continue
            out.extend(self.saves(s, depth))
            new = self.forward_stmt(s)
            if self.replay is not None and self.replay(s):  # a value the policy saved: not recomputed
                new = loc(build.assign(s.targets[0].id, build.call("rt.next_residual", [build.name(self.residuals)])), s)
            tape_var = self.call_tapes.get(s)
            if tape_var is not None and depth > 0:
                self.saved.add(tape_var)
                self.saved_at.add((s, tape_var))
                out.append(self.push(self.ctl, build.name(tape_var)))
            out.append(new)
            for t in analysis.targets(s):
                self.seen.add(t)
        return out

    def record_branch(self, s, depth) -> bool:
        test = s.test
        return depth > 0 or is_catch(test) or not isinstance(test, gast.Name) or self.assigned_count(test.id) > 1

    def catch_saves(self, s, body) -> tuple[list, list]:
        """(the pushes of catch block `s`'s forward statements `body`, the rest): each push moves
        before the block, which is sound where the statements before it assign none of the names it
        reads (the temporaries of `y = f(y)`, split as `t = f(y); y = t`)."""
        saves, rest, assigned = [], [], set()
        for st in body:
            if self.is_push(st) and not build.names_in(st) & assigned:
                saves.append(st)
                continue
            if self.is_push(st):
                self.fail(s, "s2s cannot record this statement inside `try` for the backward sweep.",
                          "Assign its value to a new name inside the `try`, and copy it after.")
            rest.append(st)
            assigned.update(build.names_in(st) if isinstance(st, gast.If | gast.For | gast.While)
                            else analysis.targets(st))
        return saves, rest

    def is_push(self, s) -> bool:
        """Whether `s` pushes on the sweeps' records (`tape.append(v)`, `ctl.append(v)`)."""
        f = s.value.func if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) else None
        return isinstance(f, gast.Attribute) and f.attr == "append" and isinstance(f.value, gast.Name) \
            and f.value.id in (self.tape, self.ctl)

    def assigned_count(self, var) -> int:
        if self.counts is None:  # the body's assignments do not change while the sweeps are built
            self.counts = analysis.assigned_counts(self.body)
        return self.counts.get(var, 0) + (var in self.params)

    def saves(self, s, depth) -> list:
        out = []
        for t in analysis.targets(s):
            if t in self.relevant and (t in self.seen or depth > 0):
                self.saved.add(t)
                self.saved_at.add((s, t))
                self.value_saves.add(t)
                out.append(self.push(self.tape if t in self.active else self.ctl, build.name(t)))
                self.value_records.add(id(out[-1]))
                self.recorded.append(out[-1])
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript):
            base = s.targets[0].value.id
            if base in self.relevant:
                slot = build.call("rt.copy_slot", [build.name(base), index_value(s.targets[0].slice)])
                out.append(self.push(self.tape if base in self.active else self.ctl, slot))
                self.slot_records[id(out[-1])] = base
                self.recorded.append(out[-1])
        return out

    def push(self, lst, value):
        self.used_lists.add(lst)
        return build.expr_stmt(build.call(build.attr(build.name(lst), "append"), [value]))

    def pop(self, lst):
        self.used_lists.add(lst)
        return build.call(build.attr(build.name(lst), "pop"), [])

    def forward_stmt(self, s):
        if isinstance(s, gast.Assign) and isinstance(s.value, gast.Call) and analysis.classify(s.value) == "call":
            callee = self.callee(s)
            if callee is not None:
                fwd_name, _, _, args = callee
                tape_var = self.namer.fresh("saved")
                self.call_tapes[s] = tape_var
                target = s.targets[0]
                new = build.assign(build.tuple_([build.load(target), build.name(tape_var)], store_=True),
                               build.call(build.name(fwd_name), args))
                return loc(new, s)
        return s

    def for_range(self, s, out, info):
        """The range of for loop `s` as a name (assigned in `out` when it is an expression), its
        target's value pushed for the backward sweep when the loop overwrites a relevant one."""
        rng = s.iter
        if not isinstance(rng, gast.Name):
            r = self.namer.fresh("r")
            out.append(loc(build.assign(r, rng), s))
            rng = build.name(r)
        if s.target.id in self.relevant and s.target.id in self.seen:
            self.saved.add(s.target.id)
            out.append(self.push(self.ctl, build.name(s.target.id)))
            info["restore_target"] = True
        return rng

    def forward_loop(self, s, depth) -> list:
        out, info = [], {}
        has_break = any(isinstance(n, gast.Break) for n in analysis.loop_level(s.body))
        counter = self.namer.fresh("trips") if has_break or isinstance(s, gast.While) else None
        if counter:
            out.append(build.assign(counter, build.const(0)))
        if isinstance(s, gast.For):
            rng = self.for_range(s, out, info)
            body = ([build.assign(counter, build.binop(build.name(counter), gast.Add(), build.const(1)))] if counter else [])
            self.seen.add(s.target.id)
            body += self.forward(s.body, depth + 1)
            loop = gast.For(target=build.name(s.target.id, store=True), iter=rng, body=body, orelse=[],
                            type_comment=None)
            out.append(loc(loop, s))
            record = build.subscript(rng, gast.Slice(lower=None, upper=build.name(counter), step=None)) if counter else rng
        else:
            body = [build.assign(counter, build.binop(build.name(counter), gast.Add(), build.const(1)))]
            body += self.forward(s.body, depth + 1)
            out.append(loc(gast.While(test=s.test, body=body, orelse=[]), s))
            record = build.name(counter)
        if depth > 0:
            out.append(self.push(self.ctl, record))
            info["replay"] = None
        else:
            info["replay"] = record
        self.loops[s] = info
        return out













    def callee(self, s):
        """For `y = f(args)` with an active argument: (fwd name, bwd name, activity mask, args)."""
        key = s
        if key in self.callees:
            return self.callees[key]
        value = s.value
        fn = self.core.ns[value.func.id]
        args = self.bind_call(fn, value)
        mask = tuple(isinstance(a, gast.Name) and a.id in self.active for a in args)
        if not any(mask) or not set(analysis.targets(s)) & self.useful and self.pure_callee(fn):
            self.callees[key] = None  # no derivative flows back through its result: a plain call
            return None
        self.check_no_mutated_arguments(s, fn, mask)
        items = self.items_read(s)
        fwd, bwd = self.calls.split(fn, mask) if items is None else self.calls.split(fn, mask, items)
        base = self.callee_label(fn)
        fwd_name = self.bind(f"fwd_{base}", fwd)
        bwd_name = self.bind(f"bwd_{base}", bwd)
        self.callees[key] = (fwd_name, bwd_name, mask, args)
        return self.callees[key]

    def items_read(self, s) -> frozenset[int] | None:
        """For `t = f(args)`: the items of `t` the function reads (`t[0]`, `t[2]`), when `t` is
        assigned once and read only by indexing it with a constant; else None (all of it). An item
        only read into a name nothing reads does not count."""
        if self.item_reads is None:
            self.item_reads = _item_reads(self.body, read_names(self.body, self.params))
        t = s.targets[0]
        if not isinstance(t, gast.Name) or t.id in self.params or self.assigned_count(t.id) != 1:
            return None
        fn = self.core.ns[s.value.func.id]
        if self.calls.has_rules(fn) or self.calls.core(fn).filename.startswith("<s2s"):
            return None  # (a sweep s2s generated, differentiated again, keeps its whole record)
        ret = self.body[-1]
        if self.outputs is not None and isinstance(ret, gast.Return) and isinstance(ret.value, gast.Name) \
                and ret.value.id == t.id and analysis.loads(self.body).count(t.id) == 1:
            return self.outputs  # it returns the callee's tuple as it is: its caller's items
        return self.item_reads.get(t.id)

    def pure_callee(self, fn) -> bool:
        """Whether a call of `fn` acts only through its result: no custom rules, and its core form
        updates nothing in place and calls no other user function (which might)."""
        if self.calls.has_rules(fn):
            return False
        callee = self.calls.core(fn)
        if callee.inplace_params:
            return False
        for st in analysis.walk_stmts(callee.node.body):
            if isinstance(st, gast.Expr) and isinstance(st.value, gast.Call) or isinstance(st, gast.AugAssign) \
                    or isinstance(st, gast.Assign) and isinstance(st.targets[0], gast.Subscript):
                return False  # a call for its effect (np.add.at, list.append), an update in place
            value = getattr(st, "value", None)
            if isinstance(value, gast.Call) and getattr(registry.lookup(analysis.classify(value)), "effect", False):
                return False  # a draw (or another effect): run again, it would draw anew
            if isinstance(value, gast.Call) and (analysis.classify(value) in ("call", "list.pop")
                                                 or any(k.arg == "out" for k in value.keywords)
                                                 or isinstance(value.func, gast.Attribute)
                                                 and value.func.attr in registry.MUTATING_METHODS):
                return False
        return True









    # ---- assembly ----
    def run(self, seed) -> Sweeps:
        """Both sweeps; `seed(out)` is the expression that starts the backward one."""
        self.loops, self.callees, self.call_tapes, self.bwd_loops = {}, {}, {}, {}
        self.live = analysis.Liveness(self.body)
        self.certain = analysis.definitely_assigned(self.body, self.params, at=gast.If)
        ret = self.body[-1]
        assert isinstance(ret, gast.Return)
        fwd = self.forward(self.body, 0)
        out_atom = ret.value
        defined: dict = {}
        seed_stmts = []
        if isinstance(out_atom, gast.Name) and out_atom.id in self.active:
            b = self.adj.name(out_atom.id)
            seed_stmts.append(build.assign(b, seed(out_atom)))
            defined[b] = False
        elif isinstance(out_atom, gast.Name):
            check = seed(out_atom)  # an inactive output: grad still refuses a boolean or non-scalar one
            if isinstance(check, gast.Call):
                seed_stmts.append(build.expr_stmt(check))
        bwd = self.backward(self.body, defined, 0)
        replayed = self.carried(bwd)
        names = set().union(*(i.get("assigned", ()) for i in self.loops.values())) if replayed else set()
        redo = tapes.recomputable(self.body, self.params, self.loops)
        kept = tapes.slim(fwd, bwd, self.value_saves, redo, self.bwd_loops, self.value_records,
                          replayed=(replayed, names))
        self.saved -= self.value_saves - kept
        if not tapes.slim_slots(self.body, fwd, bwd, self.slot_records, frozenset(self.params)):
            self.restores.discard("arrays")
        grads = []
        for p in self.params:
            b = self.adj.name(p)
            grads.append(build.name(b) if b in defined else build.call("rt.zeros_like_tree", [build.name(p)]))
        fwd = self.keep_raising(fwd, seed_stmts + bwd + [build.ret(build.tuple_(grads))], out_atom)
        init = [build.assign(lst, build.list_([])) for lst in (self.tape, self.ctl) if lst in self.used_lists]
        init += [build.assign(v, build.const(None)) for v in sorted(self.needs_init())]
        return Sweeps(init, fwd, out_atom, seed_stmts, bwd, grads)

    def keep_raising(self, fwd, rest, out_atom) -> list:
        """The forward sweep `fwd` with a reader (`ext.s2s_keep`) after each of the user's
        statements whose value carries no derivative, may raise, and is read by neither sweep nor
        the caller (`rest`: what runs after `fwd`): only the output's value read it (`y = n / (n -
        3)` of a shape, added to the loss), and the plain function raises there (analysis/raising.py).
        An array the function owns whose value never reaches the output (`self.dead_stores`, an
        author's `dW`) goes with what only it reads, as in the user's function (frontend/dead_calls.py)."""
        mine = {s for s in analysis.walk_stmts(self.body)  # (and `a op= v`'s check of an active array)
                if raising.simple(s) and (not set(analysis.targets(s)) & self.active or _checks(s.value))}
        if not mine:
            return fwd
        read = frozenset([out_atom.id]) if self.out_read and isinstance(out_atom, gast.Name) else frozenset()
        keep = raising.unread_raising(fwd + rest, mine, live_at_end=read, sinks=self.dead_stores)
        _checked(fwd, keep, self.dead_stores, self.active)
        return raising.with_keeps(fwd, keep, self.namer, self.ns) if keep else fwd

    def needs_init(self) -> set[str]:
        """Saved variables whose first assignment is nested: they may be unset when first saved."""
        first = analysis.first_assignment_nested(self.body)
        return {v for v in self.saved if v not in self.params and first.get(v, True)}


# ---- helpers ----
def _checks(value) -> bool:
    """Whether `value` calls a primitive that raises where NumPy would (`a op= v`'s `rt.inplace`)."""
    p = registry.lookup(analysis.classify(value)) if isinstance(value, gast.Call) else None
    return p is not None and p.checks


def _checked(fwd, keep, sinks, active) -> None:
    """Each check of an active array in the forward sweep (`a op= v`'s `rt.inplace`) that `keep`
    lacks becomes `rt.inplace_checked`, which no pass removes unless shape folding shows that it
    passes: a pass that reads `a`'s shape from elsewhere would leave it unread. Not where `a` is
    (a view of) an array nothing reads (`sinks`: an author's dead `dW`); an inactive one is
    `keep`'s (unread_raising)."""
    views = {s.targets[0].id for s in analysis.walk_stmts(fwd) if raising.simple(s)
             and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Subscript)
             and isinstance(s.value.value, gast.Name) and s.value.value.id in sinks}
    for s in analysis.walk_stmts(fwd):
        if raising.simple(s) and s not in keep and isinstance(s.targets[0], gast.Name) and s.targets[0].id in active \
                and analysis.dotted(s.value.func if isinstance(s.value, gast.Call) else None) == "rt.inplace":
            a = s.value.args[1] if len(s.value.args) > 1 else None
            if not (isinstance(a, gast.Name) and (a.id in sinks or a.id in views)):
                s.value.func = build.attr(build.name("rt"), "inplace_checked")


def _aux_pair(body, ret):
    """For `has_aux`: (the returned name, the names its first element reads, ids of the second's
    Name nodes, the statement) when the function returns a name bound once, at the top level, to
    a 2-tuple (`out = loss, aux`); else None. The aux element is returned but gets no cotangent, so
    it is no reason to tape anything."""
    if not isinstance(ret, gast.Return) or not isinstance(ret.value, gast.Name):
        return None
    name = ret.value.id
    binds = [s for s in analysis.walk_stmts(body) if name in analysis.targets(s)]
    if len(binds) != 1 or binds[0] not in body or not isinstance(binds[0].value, gast.Tuple) \
            or len(binds[0].value.elts) != 2:
        return None
    first, second = binds[0].value.elts
    return name, analysis.loads(first), {id(n) for n in gast.walk(second) if isinstance(n, gast.Name)}, binds[0]





def _project_outputs(body, ret, outputs: frozenset[int]) -> bool:
    """Make the function return None in place of the items of its result outside `outputs`, when
    it returns a name bound once, at the top level, to a tuple with every item of `outputs` (the
    caller reads no other item: `loss = f(...)[0]`); whether it did."""
    if not isinstance(ret, gast.Return) or not isinstance(ret.value, gast.Name):
        return False
    name = ret.value.id
    binds = [s for s in analysis.walk_stmts(body) if name in analysis.targets(s)]
    if len(binds) != 1 or binds[0] not in body or not isinstance(binds[0].value, gast.Tuple):
        return False
    elts = binds[0].value.elts
    if any(k >= len(elts) for k in outputs) or any(isinstance(e, gast.Starred) for e in elts):
        return False
    dropped = [k for k, e in enumerate(elts) if k not in outputs and not isinstance(e, gast.Constant)]
    for k in dropped:
        elts[k] = build.const(None)
    return bool(dropped)


def _item_reads(body, read: set[str]) -> dict[str, frozenset[int] | None]:
    """name -> the constant items of it the body reads (`t[0]`, or `a, b = t`), or None where some
    read of the name is anything else; one walk of the body. An item read into a name nothing
    loads (`x = t[1]`, `a, unused = t`) does not count."""
    subs, names, into, unpacks = [], [], [], []
    for top in body:
        for n in build.walk(top):  # (gast.walk's order, without its generator per node)
            if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) and isinstance(n.ctx, gast.Load) \
                    and isinstance(n.slice, gast.Constant) and type(n.slice.value) is int and n.slice.value >= 0:
                subs.append(n)
            elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                names.append(n)
            elif isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name):
                into.append(n)
            elif isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Tuple) \
                    and isinstance(n.value, gast.Name) and all(isinstance(e, gast.Name) for e in n.targets[0].elts):
                unpacks.append(n)
    loaded = {n.id for n in names} & read  # (`read`: analysis.owned.read_names)
    seen = {id(n.value) for n in subs} | {id(s.value) for s in unpacks}
    unread = {id(s.value) for s in into if s.targets[0].id not in loaded}  # `x = t[k]`, x never read
    items: dict[str, frozenset[int] | None] = {}

    def add(name, ks):
        if items.get(name, frozenset()) is not None:
            items[name] = items.get(name, frozenset()) | ks
    for n in subs:
        add(n.value.id, frozenset() if id(n) in unread else frozenset({n.slice.value}))
    for s in unpacks:
        add(s.value.id, frozenset(k for k, e in enumerate(s.targets[0].elts) if e.id in loaded))
    for n in names:
        if id(n) not in seen:
            items[n.id] = None
    return items


def _at_path_ends(block, stmt) -> list:
    """`block` with `stmt` run last on every path through it (before a final break/continue)."""
    block = [b for b in block if not isinstance(b, gast.Pass)]
    if block and isinstance(block[-1], (gast.Break, gast.Continue)):
        return block[:-1] + [stmt, block[-1]]
    last = block[-1] if block else None
    if isinstance(last, gast.If) and any(isinstance(n, (gast.Break, gast.Continue)) for n in analysis.loop_level([last])):
        last.body = _at_path_ends(last.body, build.clone(stmt))
        last.orelse = _at_path_ends(last.orelse, build.clone(stmt))
        return block
    return block + [stmt]






# ---- whole functions ----

def grad_fn(core: CoreFn, argnums, nums: tuple, has_aux: bool, with_value: bool, calls: Callees,
            checkpoint=None, complex_params: tuple | None = (), kind: str = "") -> GeneratedFn:
    """`grad`/`value_and_grad` of `core` wrt the parameters at `nums`: one function, both sweeps
    (`checkpoint`: the schedule of its top-level loops, None for none). `complex_params`: the
    positions of the parameters that may be complex (None: any), which decide where JAX's check of
    a real output and the real part of a real argument's cotangent are needed (complex_checks.py);
    `kind`: the transform JAX's error names (jacrev's, whose scalar output's Jacobian this is)."""
    rev = Reverse(core, [core.params[i] for i in nums], calls, checkpoint, aux=has_aux)
    rev.consume = True
    rev.out_read = with_value or has_aux
    holo = [build.const(True)] if holomorphic_output(core) else []  # (its seed may be complex)
    literal: list = []  # (the output whose seed is the literal 1.0, which rt.seed does not check)

    def seed(out):
        s = seed_of(core, out)
        if isinstance(s, gast.Constant):
            literal.append(out)
        return s
    sw = rev.run((lambda out: build.call("rt.seed_aux", [out] + holo)) if has_aux else seed)
    fact = complex_checks.Fact(core, complex_params, calls)
    # (a real argument's gradient is the real part of a complex cotangent, where one may arise)
    picked = [fact.real_cotangent(sw.grads[i], core.params[i]) for i in nums]
    gout = picked[0] if isinstance(argnums, int) else build.tuple_(picked)
    result, seed_stmts = gout, sw.seed
    out = build.call("rt.private", [sw.out, build.const(True)]) if rev.restores else sw.out  # before any restore
    if has_aux:
        aux = rev.namer.fresh("aux")
        value = rev.namer.fresh("value")
        seed_stmts = sw.seed + [build.assign(build.tuple_([build.name(value), build.name(aux)], store_=True), out)]
        result = build.tuple_([build.tuple_([build.name(value), build.name(aux)]), gout]) if with_value \
            else build.tuple_([gout, build.name(aux)])
    elif with_value:
        value = rev.namer.fresh("value")
        seed_stmts = [build.assign(value, out)] + sw.seed
        result = build.tuple_([build.name(value), gout])
    kind, what = ("value_and_grad" if with_value else "grad"), kind or ("value_and_grad" if with_value else "grad")
    if literal and not holo:  # JAX's error for a complex output, where it may be complex (rt.seed checks the others)
        seed_stmts = fact.real_output(literal[0], what, rev.namer) + seed_stmts
    name = rev.namer.exact(f"{kind}_{core.name}")
    body = sw.init + sw.forward + [build.comment("---- backward ----")] + seed_stmts + sw.backward + [build.ret(result)]
    return GeneratedFn(name, build.function(name, core.params, body), {**core.ns, **rev.ns}, core.filename,
                       header_for(kind, core, f"wrt argument {argnums}"))


def seed_of(core: CoreFn, out):
    """The cotangent that starts the backward sweep of `grad`: the literal 1.0 when the output is
    certainly a scalar (`scalar_names`: assigned once, a full sum/mean/max of an array or arithmetic
    of such and numbers), else a run-time check that it is (and is real, but for a holomorphic
    derivative's function)."""
    if holomorphic_output(core):
        return build.call("rt.seed", [out, build.const(True)])
    return build.const(1.0) if out.id in scalar_names(core) else build.call("rt.seed", [out])


def holomorphic_output(core: CoreFn) -> bool:
    """Whether `core` returns the output check of a `holomorphic=True` derivative's function
    (`rt.complex_result`, s2s/api/holomorphic.py), whose complex output grad seeds with 1."""
    body = core.node.body
    ret = body[-1] if body and isinstance(body[-1], gast.Return) else None
    if ret is None or not isinstance(ret.value, gast.Name):
        return False
    return any(isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id == ret.value.id
               and isinstance(s.value, gast.Call) and analysis.dotted(s.value.func) == "rt.complex_result"
               for s in body)


def scalar_names(core: CoreFn, products: bool = False) -> set[str]:
    """Names assigned once, at the top level, a full reduction or elementwise arithmetic of such
    names and numbers (so certainly 0-d); with `products`, a dot-like product counts as one too
    (the names are then 0-d when those products are)."""
    body = core.node.body
    counts = analysis.assigned_counts(body, core.params)
    scalars: set[str] = set()
    for s in body:
        if not isinstance(s, gast.Assign) or not isinstance(s.targets[0], gast.Name) or counts[s.targets[0].id] != 1:
            continue
        v = s.value
        ok = lambda e: isinstance(e, gast.Name) and e.id in scalars or isinstance(e, gast.Constant) \
            and type(e.value) in (int, float)  # noqa: E731
        if isinstance(v, gast.BinOp) and isinstance(v.op, (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)):
            scalar = ok(v.left) and ok(v.right) and (isinstance(v.left, gast.Name) or isinstance(v.right, gast.Name))
        elif isinstance(v, gast.UnaryOp):
            scalar = isinstance(v.op, (gast.USub, gast.UAdd)) and ok(v.operand)
        elif isinstance(v, gast.Call) and not v.keywords and v.args:
            k = analysis.classify(v)
            p, rule = registry.lookup(k), registry.BATCH.get(k)
            if products and p is not None and p.maybe_scalar:
                scalar = True
            elif p is not None and p.full_reduction:
                scalar = len(v.args) == 1
            else:
                scalar = k.startswith("xp.") and rule is not None and rule.kind == "same" and all(map(ok, v.args)) \
                    and p is not None and not p.nondiff
        else:
            scalar = False
        if scalar:
            scalars.add(s.targets[0].id)
    return scalars


def split_fns(core: CoreFn, mask: tuple, calls: Callees, replay=None, checkpoint=None,
              outputs: frozenset[int] | None = None) -> tuple[GeneratedFn, GeneratedFn]:
    """(fwd, bwd): fwd(*args) -> (out, saved); bwd(saved, g) -> cotangent per parameter (None
    for the parameters `mask` leaves out). With `replay` (a predicate on statements, from an
    s2s.checkpoint policy) fwd takes first an iterator of the values `saving_fn` saved and takes
    those statements' values from it instead of computing them. With `outputs` (the items of a
    returned tuple the caller reads) the other items may be returned as None and not computed."""
    rev = Reverse(core, [p for p, m in zip(core.params, mask) if m], calls, checkpoint, outputs=outputs,
                  idioms=replay is None)
    if replay is not None:
        rev.replay, rev.residuals = replay, rev.namer.exact("residuals")
    g = rev.namer.exact("g")
    sw = rev.run(lambda out: build.name(g))
    loaded = crossing(sw, core.params)
    first_nested = {v for v, nested in analysis.first_assignment_nested(sw.forward).items() if nested}
    initialized = {t.targets[0].id for t in sw.init}
    extra_init = [build.assign(v, build.const(None)) for v in loaded if v in first_nested
                  and v not in initialized and v not in core.params]
    saved = rev.namer.exact("saved")
    fname = rev.namer.exact(f"fwd_{core.name}")
    bname = rev.namer.exact(f"bwd_{core.name}")
    fwd_body = sw.init + extra_init + sw.forward + [build.ret(build.tuple_([sw.out,
                                                                            build.tuple_([build.name(v) for v in loaded])]))]
    # the sweep's own copy of the record: calling bwd again, in any order or thread, gives the same
    # (only its lists are copied, one level deep, when it restores nothing in place; of its arrays,
    # only those it restores into, and what they are popped from or share memory with)
    own = build.call("rt.private", [build.name(saved), record_copy_arrays(rev, sw, loaded)]) if rev.restores \
        else build.call("rt.copy_saved", [build.name(saved)])
    # (a constant is unpacked under another name: `v = rt.constant(...)` is then v's one assignment)
    consts = {v: rev.namer.fresh(f"{v}_saved") for v in constants_refused(rev, sw, loaded)}
    unpack = [build.assign(build.tuple_([build.name(consts.get(v, v)) for v in loaded], store_=True), own)] \
        if loaded else []
    unpack += [build.assign(v, build.call("rt.constant", [build.name(c)])) for v, c in consts.items()]
    outs = [gr if m else build.const(None) for gr, m in zip(sw.grads, mask)]
    bwd_body = unpack + sw.seed + sw.backward + [build.ret(build.tuple_(outs))]
    ns = {**core.ns, **rev.ns}
    fparams = ([rev.residuals] if replay is not None else []) + list(core.params)
    return (GeneratedFn(fname, build.function(fname, fparams, fwd_body), ns, core.filename,
                        header_for("forward sweep", core, "replaying the saved values" if replay else "")),
            GeneratedFn(bname, build.function(bname, [saved, g], bwd_body), ns, core.filename,
                        header_for("backward sweep", core)))


def record_copy_arrays(rev: Reverse, sw: Sweeps, loaded) -> gast.expr:
    """`rt.private`'s second argument: False when the backward sweep restores no array in place,
    else the positions in the record of the values it may write into (`record_writes`)."""
    if "arrays" not in rev.restores:
        return build.const(False)
    positions = written_positions(sw.seed + sw.backward, list(loaded))
    return build.tuple_([build.const(k) for k in positions]) if positions else build.const(False)


def constants_refused(rev: Reverse, sw: Sweeps, loaded) -> list[str]:
    """Saved values that depend on no parameter and reach an argument whose derivative a rule of
    the backward sweep refuses (np.trapezoid's sample points `np.array([...])`): read back from the
    record, they would look like functions of it to the next transform, which would refuse them.
    `rt.constant` tells it they are the constants they are."""
    if not any(type(n) is gast.Call and _refuses(n) for n in analysis.iter_nodes(sw.backward)):
        return []  # (the usual case, found in one walk; else the walk below keeps its order of calls)
    varying = analysis.activity(rev.body, rev.params)
    out: dict[str, None] = {}
    calls = (n for s in analysis.walk_stmts(sw.backward) for n in gast.walk(s) if isinstance(n, gast.Call))
    for call in calls:
        p = registry.lookup(analysis.classify(call))
        if p is None or not p.refused:
            continue
        for arg, atom in bind_prim(p, call).items():
            if arg in p.refused and isinstance(atom, gast.Name) and atom.id in loaded and atom.id not in varying:
                out[atom.id] = None
    return list(out)


def _refuses(call) -> bool:
    """Whether the primitive `call` calls refuses the derivative of an argument."""
    p = registry.lookup(analysis.classify(call))
    return p is not None and bool(p.refused)


def crossing(sw: Sweeps, params) -> list[str]:
    """The variables the forward sweep assigns (or receives) that the backward sweep reads: the
    values saved from one to the other, in the order the backward sweep first reads them."""
    assigned = set(params)
    for s in analysis.walk_stmts(sw.forward):
        assigned.update(analysis.targets(s))
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Tuple):
            assigned.update(e.id for e in s.targets[0].elts if isinstance(e, gast.Name))
    assigned.update(t.targets[0].id for t in sw.init)
    loaded: dict[str, None] = {}  # ordered, with constant-time membership
    for s in sw.backward + [build.ret(build.tuple_(sw.grads))]:
        for n in build.walk(s):  # (gast.walk's order, without its generator per node)
            if type(n) is gast.Name and n.id in assigned and n.id not in loaded:
                loaded[n.id] = None
    return list(loaded)


def saving_fn(core: CoreFn, saves) -> GeneratedFn:
    """`core`'s function that also returns the values of the statements `saves` picks (an
    s2s.checkpoint policy), in the order it computes them: save(*args) -> (out, [values])."""
    namer = Namer(build.names_in(core.node) | set(core.ns) | {"xp", "rt"})
    res = namer.exact("residuals")
    body = split_self_updates(build.clone(core.node.body), namer)

    def add(stmts):
        out = []
        for s in stmts:
            for f in ("body", "orelse"):
                if getattr(s, f, None):
                    setattr(s, f, add(getattr(s, f)))
            if isinstance(s, gast.Return):
                s = loc(build.ret(build.tuple_([s.value, build.name(res)])), s)
            out.append(s)
            if saves(s):
                out.append(build.expr_stmt(build.call(build.attr(build.name(res), "append"), [build.name(s.targets[0].id)])))
        return out
    name = namer.exact(f"save_{core.name}")
    node = build.function(name, core.params, [build.assign(res, build.list_([]))] + add(body))
    return GeneratedFn(name, node, dict(core.ns), core.filename, header_for("checkpointed forward", core,
                                                                            "saving what its policy saves"))
