"""Batching (vmap): a core-form function rewritten to run on a batch of examples at once.

A variable is either unbatched or batched at axis 0 (decided for the whole function by a fixed
point, `batched_vars`). Statements on unbatched values stay as they are; ops on batched values
follow the batching table (registry.BATCH: `batch=` of each declaration). Control flow
whose condition is batched runs under a mask (a boolean per example): both branches of an `if`
run, and each variable a branch assigns is merged with `rt.masked_merge(mask, new, old)`; a `while` runs until no
example is live; `break`/`continue` under a batched condition clear lanes of the loop's masks.

About 800 lines in one module: the `Batcher` visitor (statements, masked control flow, the
call of each op's rule) and the three entry points that wrap its body (`vmap_fn`, `body_fn`,
`batch_loop`) share the analyses at the top. The rules are declared with
each primitive (s2s/compiler/primitives/), specialization on per-example ranks is batch_ranks.py, and vmap's
compositions with grad and jacrev are compose.py.
"""
from __future__ import annotations

import collections
import copy

import gast

from ...errors import S2SValueError, shown_path
from .. import analysis
from ..ir import build
from ..ir.core import CoreFn
from ..primitives import registry
from .base import Callees, GeneratedFn, Transform, bind_prim, header_for, index_value, loc, stores_into
from .batch_ranks import lowered, per_example_ranks, rank_simplified

# `x.shape`, `x.ndim`, `x.size` of a batched x: the batching helper of the shape query of that name
SHAPE_ATTRS = {p.shape_query: registry.BATCH[n].helper for n, p in registry.PRIMS.items() if p.shape_query}


def _names(node) -> list[str]:
    return [n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]


def _unclipped(mask) -> list:
    """The `clip=False` argument of a gather or write key outside masked code: every lane is live
    there, so an index out of range is NumPy's IndexError (runtime/batch.py `_vb_adv`)."""
    return [build.const(False)] if mask is None else []


def selectable(body, params) -> set[str]:
    """Names whose value may already exist when a masked statement assigns them (so it must be
    merged with the old value): parameters, names assigned twice, names assigned in a loop."""
    counts: dict[str, int] = {}
    in_loop: set[str] = set()
    everywhere = _load_counts(body)  # once: a count per loop would walk the body once per loop

    def visit(stmts, loop):
        for s in stmts:
            for t in analysis.targets(s):
                counts[t] = counts.get(t, 0) + 1
            if isinstance(s, (gast.For, gast.While)):
                inside, exposed = _load_counts([s]), analysis.exposed(s.body)  # read outside: more reads than inside
                in_loop.update(t for t in _assigned(s.body) if t in exposed or everywhere[t] > inside[t])
                if isinstance(s, gast.For):
                    in_loop.add(s.target.id)
                visit(s.body, True)
            elif isinstance(s, gast.If):
                visit(s.body, loop)
                visit(s.orelse, loop)
    visit(body, False)
    return set(params) | {v for v, c in counts.items() if c > 1} | in_loop


def _assigned(stmts) -> set[str]:
    return {t for s in analysis.walk_stmts(stmts) for t in analysis.targets(s)}


def _load_counts(stmts) -> collections.Counter:
    """How often each name is read in `stmts` (blocks included)."""
    out: collections.Counter = collections.Counter()
    for s in stmts:
        if isinstance(s, (gast.If, gast.For, gast.While)):
            out.update(_names(s.test if not isinstance(s, gast.For) else s.iter))
            out += _load_counts(s.body)
            out += _load_counts(s.orelse)
        else:
            out.update(_names(s))
    return out


def result_batched(value, bset) -> bool:
    kind = analysis.classify(value)
    if kind == "const":
        return False
    if kind == "attr":
        return value.attr not in SHAPE_ATTRS and value.attr != "dtype" and _names(value.value)[0] in bset
    if (p := registry.lookup(kind)) is not None and p.unbatched_result:  # a shape, a setting
        return False
    if p is not None and p.batched_by and isinstance(value, gast.Call):  # (a backend, a tree's structure)
        arg = bind_prim(p, value).get(p.batched_by)
        return arg is not None and any(n in bset for n in _names(arg))
    if kind == "list.pop":
        return value.func.value.id in bset
    return any(n in bset for n in _names(value) if n not in ("xp", "rt"))


def _range_args(s):
    it = s.iter
    return it.args if isinstance(it, gast.Call) and analysis.dotted(it.func) == "range" else [it]


def batched_vars(body, params) -> set[str]:
    """Every variable that holds a batched value somewhere (the fixed point of one pass)."""
    bset = set(params)
    sel = selectable(body, params)

    def visit(stmts, masked):
        for s in stmts:
            if isinstance(s, gast.If):
                m = masked or _names(s.test)[0] in bset if isinstance(s.test, gast.Name) else masked
                visit(s.body, m)
                visit(s.orelse, m)
            elif isinstance(s, gast.While):
                m = masked or isinstance(s.test, gast.Name) and s.test.id in bset or has_batched_jump(s.body, bset)
                visit(s.body, m)
            elif isinstance(s, gast.For):
                m = masked or any(n in bset for a in _range_args(s) for n in _names(a)) \
                    or has_batched_jump(s.body, bset)
                visit(s.body, m)
            elif isinstance(s, gast.Assign):
                t = s.targets[0]
                rb = result_batched(s.value, bset)
                if isinstance(t, gast.Subscript):
                    if rb or masked or any(n in bset for n in _names(t.slice)):
                        bset.add(t.value.id)
                    continue
                for v in analysis.targets(s):
                    if rb or masked and v in sel:
                        bset.add(v)
            elif isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
                    and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "append":
                if any(n in bset for n in _names(s.value.args[0])):
                    bset.add(s.value.func.value.id)
    while True:
        before = len(bset)
        visit(body, False)
        if len(bset) == before:
            return bset


def _mask_operands(v) -> list | None:
    """The operands a value is a boolean mask of when they are masks (`&`, `|`, `^`, `~`, a copy),
    [] for a comparison (always a mask), None for any other value. (A mask made otherwise,
    np.logical_and's, is refused by the runtime when it indexes, without the user's line.)"""
    if isinstance(v, gast.Compare):
        return []
    if isinstance(v, gast.BinOp) and isinstance(v.op, (gast.BitAnd, gast.BitOr, gast.BitXor)):
        return [v.left, v.right]
    if isinstance(v, gast.UnaryOp) and isinstance(v.op, gast.Invert):
        return [v.operand]
    return [v] if isinstance(v, gast.Name) else None


def has_batched_jump(body, bset) -> bool:
    """Whether a break/continue of this loop sits under a batched condition."""
    def visit(stmts, under):
        for s in stmts:
            if isinstance(s, (gast.Break, gast.Continue)) and under:
                return True
            if isinstance(s, gast.If):
                u = under or isinstance(s.test, gast.Name) and s.test.id in bset
                if visit(s.body, u) or visit(s.orelse, u):
                    return True
        return False
    return visit(body, False)


class Frame:
    """A loop whose lanes can leave it: `live` (lanes still looping) and `it` (lanes still in this
    iteration) are names of boolean masks, or None for a loop every lane leaves together."""

    def __init__(self, live=None, it=None):
        self.live, self.it = live, it


class Batcher(Transform):
    """The batched body of one core-form function, given which parameters are batched."""

    def __init__(self, core: CoreFn, batched_params, calls: Callees, ranks=None):
        super().__init__(core, batched_params, calls)
        self.n = self.namer.exact("batch_size")
        self.rank = per_example_ranks(self.body, ranks or {})
        rank_simplified(self.body, self.rank)
        self.bset = batched_vars(self.body, list(batched_params))
        self.sel = selectable(self.body, core.params)
        self.frames: list[Frame] = []
        self.live = analysis.Liveness(self.body)
        self.regions: list = []  # live sets after each enclosing masked region (innermost last)
        self.list_mask: dict[str, str] = {}  # list -> the mask it was made under, if not merged
        self.containers: set[str] = set()  # names bound to a list or dict display
        self.split_done: set[int] = set()  # rt.operand_cotangent statements already split (operand_cotangent_split)
        self.masks: set[str] = set()  # names holding a boolean mask (program order: see assign)

    def is_batched(self, atom) -> bool:
        return isinstance(atom, gast.Name) and atom.id in self.bset

    def tmp(self, out, expr, base="v"):
        name = self.namer.fresh(base)
        out.append(build.assign(name, expr))
        return build.name(name)

    # ---- statements ----
    def block(self, stmts, mask) -> list:
        out = []
        for s in stmts:
            if build.is_comment(s) or isinstance(s, (gast.Pass, gast.Assert)):
                out.append(s)
            elif isinstance(s, (gast.Break, gast.Continue)):
                out.extend(self.jump(s, mask))
            elif isinstance(s, gast.Return):
                out.append(s)
            elif isinstance(s, gast.If):
                out.extend(self.if_(s, mask))
            elif isinstance(s, gast.While):
                out.extend(self.while_(s, mask))
            elif isinstance(s, gast.For):
                out.extend(self.for_(s, mask))
            elif isinstance(s, gast.Expr):
                out.extend(self.expr(s, mask))
            else:
                out.extend(self.assign(s, mask))
            if mask is not None and self.frames and self.frames[-1].it is not None \
                    and mask != self.frames[-1].it and isinstance(s, (gast.If, gast.For, gast.While)) \
                    and has_batched_jump([s], self.bset | {"__all__"}):
                out.append(build.assign(mask, build.call("rt.mask_and", [build.name(mask), build.name(self.frames[-1].it)])))
        return out

    def jump(self, s, mask):
        f = self.frames[-1] if self.frames else None
        if f is None or f.it is None or mask == f.it:
            return [s]
        out = [build.assign(f.it, build.call("rt.mask_and_not", [build.name(f.it), build.name(mask)]))]
        if isinstance(s, gast.Break):
            out.append(build.assign(f.live, build.call("rt.mask_and_not", [build.name(f.live), build.name(mask)])))
        return out

    def if_(self, s, mask):
        if not self.is_batched(s.test):
            return [loc(build.if_(s.test, self.block(s.body, mask), self.block(s.orelse, mask)), s)]
        out = []
        m1, m2 = self.namer.fresh("mask"), self.namer.fresh("mask")
        out.append(build.assign(m1, build.call("rt.mask_and", [build.name(mask) if mask else build.const(None), s.test])))
        out.append(build.assign(m2, build.call("rt.mask_and_not", [build.name(mask) if mask else build.const(None),
                                                                   s.test])))
        # a value assigned under a mask needs no merge with the old one if the examples outside
        # the mask never read it: not after the `if`, not in the other branch
        self.regions.append(self.live.after[s] | analysis.exposed(s.orelse))
        out += self.guarded(m1, self.block(s.body, m1))
        self.regions[-1] = self.live.after[s]
        out += self.guarded(m2, self.block(s.orelse, m2))
        self.regions.pop()
        return out

    def guarded(self, mask, stmts) -> list:
        """A branch's batched statements, run only when some example takes it: a branch no example
        takes is skipped (it may not even run on those values, e.g. a matrix rule on scalars)."""
        if all(build.is_comment(s) or isinstance(s, gast.Pass) for s in stmts):
            return stmts
        go = self.namer.fresh("go")
        return [build.assign(go, build.call("rt.mask_any", [build.name(mask)])), build.if_(build.name(go), stmts, [])]

    def _live_init(self, mask):
        return build.name(mask) if mask else build.call("rt.full_mask", [build.name(self.n)])

    def while_(self, s, mask):
        batched = self.is_batched(s.test)
        jumps = has_batched_jump(s.body, self.bset)
        if not batched and not jumps:
            return [loc(build.while_(s.test, self.block(s.body, mask)), s)]
        out = []
        live, it, go = self.namer.fresh("live"), self.namer.fresh("lanes"), self.namer.fresh("go")
        out.append(build.assign(live, build.call("rt.mask_and", [self._live_init(mask), s.test]) if batched
                            else self._live_init(mask)))
        self.frames.append(Frame(live, it))
        self.regions.append(self.live.before[s])
        body = [build.assign(it, build.name(live))] + self.block(s.body, it)
        self.regions.pop()
        self.frames.pop()
        if batched:
            body.append(build.assign(live, build.call("rt.mask_and", [build.name(live), s.test])))
            out.append(build.assign(go, build.call("rt.mask_any", [build.name(live)])))
            body.append(build.assign(go, build.call("rt.mask_any", [build.name(live)])))
            out.append(loc(build.while_(build.name(go), body), s))
        else:
            body += self._exit_when_done(live, go)
            out.append(loc(build.while_(s.test, body), s))
        return out

    def _exit_when_done(self, live, go):
        return [build.assign(go, build.call("rt.mask_any", [build.name(live)])),
                build.if_(build.not_(build.name(go)), [gast.Break()], [])]

    def for_(self, s, mask):
        args = _range_args(s)
        batched = any(self.is_batched(a) for a in args)
        jumps = has_batched_jump(s.body, self.bset)
        target, first = self._target_broadcast(s)
        if not batched and not jumps:
            return [loc(gast.For(target=target, iter=s.iter, body=first + self.block(s.body, mask), orelse=[],
                                  type_comment=None), s)]
        out = []
        live, it, go = self.namer.fresh("live"), self.namer.fresh("lanes"), self.namer.fresh("go")
        out.append(build.assign(live, self._live_init(mask)))
        iter_ = s.iter
        head = []
        if batched:
            if len(args) == 3 or len(args) == 2 and self.is_batched(args[0]):
                self.fail(s, "vmap supports `for i in range(start, stop)` with a per-example `stop` only "
                             "(start and step the same for every example).")
            stop = args[-1]
            # int(): the largest stop is a device array on CuPy, which range refuses
            top = self.tmp(out, build.call("int", [build.call("xp.max", [stop])]), "stop")
            iter_ = build.call("range", list(args[:-1]) + [top])
            head.append(build.assign(it, build.call("rt.mask_and", [build.name(live),
                                                          gast.Compare(left=s.target, ops=[gast.Lt()],
                                                                       comparators=[stop])])))
        else:
            head.append(build.assign(it, build.name(live)))
        self.frames.append(Frame(live, it))
        self.regions.append(self.live.before[s])
        body = first + head + self.block(s.body, it)
        self.regions.pop()
        self.frames.pop()
        if jumps:
            body += self._exit_when_done(live, go)
        out.append(loc(gast.For(target=target, iter=iter_, body=body, orelse=[], type_comment=None), s))
        return out

    def _target_broadcast(self, s):
        """(loop target, statements opening the body): when the index's name is batched elsewhere
        (batchedness is per name: `j` set per example by a masked `while`, then reused as
        `for j in range(n)`), the loop runs a fresh name and the body starts by broadcasting it to
        `j`, since the range gives one number for every example."""
        if not self.is_batched(s.target):
            return s.target, []
        index = self.namer.fresh("index")
        return build.name(index, store=True), [build.assign(s.target.id, build.call("rt.replicate_batch",
            [build.name(index), build.name(self.n)]))]

    def expr(self, s, mask):
        call = s.value
        if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr == "append":
            lst = call.func.value.id
            if mask is not None and self.list_mask.get(lst) != mask:
                self.fail(s, "vmap cannot append to a list under a condition or in a loop that differs per "
                             "example (the list would have a different length per example).",
                          "Write into a preallocated array instead: `out[i] = v`.")
            v = call.args[0]
            if lst in self.bset and not self.is_batched(v):
                out = []
                w = self.tmp(out, build.call("rt.replicate_batch", [v, build.name(self.n)]))
                return out + [build.expr_stmt(build.call(build.attr(build.name(lst), "append"), [w]))]
            return [s]
        if mask is not None and isinstance(call, gast.Call):
            self.fail(s, "vmap cannot run a call for its side effects under a condition that differs per "
                         "example.", "Move the call out of the branch or loop.")
        return [s]

    def assign(self, s, mask):
        t = s.targets[0]
        if isinstance(t, gast.Name):  # a mask here: x[t] with t batched is refused at its line (no_mask)
            ops = _mask_operands(s.value)
            is_mask = ops is not None and all(isinstance(o, gast.Name) and o.id in self.masks for o in ops)
            (self.masks.add if is_mask else self.masks.discard)(t.id)
        elif isinstance(t, gast.Tuple):
            self.masks.difference_update(e.id for e in t.elts if isinstance(e, gast.Name))
        if isinstance(t, gast.Subscript):
            return self.setitem(s, mask)
        split = self.operand_cotangent_split(s)
        if split is not None:
            return self.block(split, mask)
        if analysis.classify(s.value) == "ext.s2s_raise" and any(self.is_batched(a) for a in s.value.args):
            return [loc(self.raise_where(s, mask), s)]
        pre, expr, rb = self.value(s, s.value, mask)
        out = list(pre)
        if isinstance(t, gast.Tuple):
            if rb:  # `a, b = x` of a batched array unpacks each example's rows (its second axis), not the batch
                expr = build.call("rt.batched_tuple", [build.tuple_([build.const(True)]), expr])
            return out + [loc(o, s) for o in self.unpacked([e.id for e in t.elts], expr, rb, mask)]
        var = t.id
        if var in self.bset and not rb:
            expr = build.call("rt.replicate_batch", [expr, build.name(self.n)])
        self.list_mask.pop(var, None)
        if self.keeps_old(var, mask):
            x = self.tmp(out, expr)
            out.append(loc(self.merged(var, x, mask), s))
            return out
        (self.containers.add if isinstance(s.value, (gast.List, gast.Dict)) else self.containers.discard)(var)
        if isinstance(s.value, gast.List):
            # a new list, not merged: no example outside `mask` reads it, and every example inside
            # appends to it alike while the mask stays the same
            self.list_mask[var] = mask
        return out + [loc(build.assign(var, expr), s)]

    def raise_where(self, s, mask):
        """A guard's `raise` whose message differs per example: it raises with the first example
        that reaches it (frontend/guards.py; the branch runs only when some example does)."""
        call = s.value
        flags = build.tuple_([build.const(self.is_batched(a)) for a in call.args[1:]])
        return build.assign(s.targets[0].id, build.call("ext.s2s_raise_where", [
            build.name(mask) if mask else build.const(None), flags, *call.args],
            {k.arg: k.value for k in call.keywords}))

    def operand_cotangent_split(self, s):
        """`v = rt.operand_cotangent(ct, a, b, op, first)` on batched values (reverse mode's rule for
        `a + b` and `a * b` where an operand may be a list) as `if rt.plain_operands(a, b):` the
        broadcasting rule of arrays (`v = rt.unbroadcast(ct [* b], a)`) `else:` the call, run once
        per example. The array branch is made of primitives whose batched forms have derivatives,
        so grad of the batched code (vmap(grad(grad(f)))) differentiates it; None for another
        statement."""
        if not isinstance(s.targets[0], gast.Name) or analysis.classify(s.value) != "rt.operand_cotangent" \
                or id(s) in self.split_done:
            return None
        args = bind_prim(registry.lookup("rt.operand_cotangent"), s.value)
        op, other_wrt = args["op"], args["wrt_other"]
        mul = isinstance(op, gast.Constant) and op.value == "mul"  # else "add": the sum's cotangent
        if not any(self.is_batched(args[k]) for k in ("ct", "operand", "other")) or not isinstance(op, gast.Constant) \
                or not mul and not _const_is(other_wrt, 0):
            return None
        ct, operand, other = args["ct"], args["operand"], args["other"]
        ct, operand, other = (copy.deepcopy(a) for a in (ct, operand, other))  # (the call keeps its own)
        body, src = [], ct
        if mul:
            prod = self.namer.fresh("v")
            body.append(loc(build.assign(prod, gast.BinOp(left=ct, op=gast.Mult(), right=other)), s))
            if self.is_batched(ct) or self.is_batched(other):
                self.bset.add(prod)
            src = build.name(prod)
        body.append(loc(build.assign(s.targets[0].id, build.call("rt.unbroadcast", [src, operand])), s))
        plain = self.namer.fresh("plain")
        self.split_done.add(id(s))  # the `else` branch: the call itself, batched by its rule
        return [loc(build.assign(plain, build.call("rt.plain_operands", [operand, other])), s),
                loc(build.if_(build.name(plain), body, [s]), s)]

    def keeps_old(self, var, mask) -> bool:
        """Whether `var` assigned under `mask` must keep its old value on the other lanes: it may
        hold one (`selectable`) and an example outside the mask reads it afterwards."""
        return mask is not None and var in self.sel and any(var in r for r in self.regions)

    def unpacked(self, names, expr, rb, mask) -> list:
        """`a, b = expr` target by target, as a single-name assignment is: each unbatched element
        of a batched target is broadcast, and under a mask only the targets another example reads
        later are merged with their old values (a name first bound in the branch has none)."""
        merge = [self.keeps_old(v, mask) for v in names]
        lift = [not rb and v in self.bset for v in names]
        for v in names:
            self.list_mask.pop(v, None)
        if not any(merge) and not any(lift):
            return [build.assign(build.tuple_([build.name(v) for v in names], store_=True), expr)]
        tmps = [self.namer.fresh("v") for _ in names]
        out = [build.assign(build.tuple_([build.name(x) for x in tmps], store_=True), expr)]
        for v, x, m, up in zip(names, tmps, merge, lift):
            val = build.call("rt.replicate_batch", [build.name(x), build.name(self.n)]) if up else build.name(x)
            out.append(self.merged(v, val, mask) if m else build.assign(v, val))
        return out

    def merged(self, var, new, mask):
        return build.assign(var, build.call("rt.masked_merge", [build.name(mask), new, build.name(var)]))

    def setitem(self, s, mask):
        """`A[i] = v` on batched `A`: a plain subscript assignment with the batch axis in the key, the
        value lifted to the slot's per-example rank, and the old slot kept on masked-off lanes."""
        t = s.targets[0]
        base = t.value.id
        if base not in self.bset:
            return [s]
        out: list = []
        idx = index_value(t.slice)
        parts = idx.elts if isinstance(idx, gast.Tuple) else [idx]
        flags = [any(n in self.bset for n in _names(p)) for p in parts]
        self.no_mask(s, parts)
        if base in self.containers and not any(flags):  # a list or dict: every item holds the batch
            v = s.value if self.is_batched(s.value) else \
                self.tmp(out, build.call("rt.replicate_batch", [s.value, build.name(self.n)]))
            if mask is not None:
                old = self.tmp(out, build.subscript(build.name(base), copy.deepcopy(t.slice)), "old")
                v = self.tmp(out, build.call("rt.masked_merge", [build.name(mask), v, old]))
            out.append(build.assign(build.subscript(build.name(base), copy.deepcopy(t.slice), store_=True), v))
            return [loc(o, s) for o in out]
        if not any(flags) and isinstance(t.slice, (gast.Tuple, gast.Slice, gast.Constant)):
            elts = t.slice.elts if isinstance(t.slice, gast.Tuple) else [t.slice]
            key = gast.Tuple(elts=[gast.Slice(lower=None, upper=None, step=None)] + [copy.deepcopy(e) for e in elts],
                             ctx=gast.Load())
        else:
            ib = build.const(any(flags)) if not isinstance(idx, gast.Tuple) or not any(flags) \
                else build.tuple_([build.const(f) for f in flags])
            key = self.tmp(out, build.call("rt.example_key", [idx, ib, build.name(base)] + _unclipped(mask)), "key")
        v = s.value
        if self.is_batched(v):
            v = self.tmp(out, build.call("rt.lift_rank_to_slot", [v, build.name(base), index_value(key)]), "lift")
        if mask is not None:
            old = self.tmp(out, build.subscript(build.name(base), copy.deepcopy(key)), "old")
            v = self.tmp(out, build.call("rt.masked_merge", [build.name(mask), v, old]))
        out.append(build.assign(build.subscript(build.name(base), copy.deepcopy(key), store_=True), v))
        return [loc(o, s) for o in out]

    # ---- values: (statements before, expression, whether the result is batched) ----
    def value(self, s, value, mask):
        kind = analysis.classify(value)
        if kind == "const":
            return [], value, False
        if kind == "copy":
            return [], value, self.is_batched(value)
        if kind in ("pack", "dict"):
            return self.pack(value)
        if kind == "getitem":
            return self.getitem(value, s, mask)
        if kind == "attr":
            if not self.is_batched(value.value):
                return [], value, False
            if value.attr in SHAPE_ATTRS:
                return [], build.call(SHAPE_ATTRS[value.attr], [build.tuple_([build.const(True)]), value.value]), False
            return [], value, value.attr != "dtype"
        if kind == "list.pop":
            if mask is not None and value.func.value.id in self.bset \
                    and self.list_mask.get(value.func.value.id) != mask:
                self.fail(s, "vmap cannot pop from a list under a condition that differs per example.")
            return [], value, value.func.value.id in self.bset
        if kind == "call":
            return self.call(s, value)
        return self.prim(s, kind, value)

    def pack(self, value):
        elts = value.elts if isinstance(value, (gast.Tuple, gast.List)) else value.values
        if not any(self.is_batched(e) for e in elts):
            return [], value, False
        pre = []
        new = [e if self.is_batched(e) or isinstance(e, gast.Constant) and e.value is None
               else self.tmp(pre, build.call("rt.replicate_batch", [e, build.name(self.n)])) for e in elts]
        node = copy.copy(value)
        if isinstance(value, gast.Dict):
            node.values = new
        else:
            node.elts = new
        return pre, node, True

    def getitem(self, value, s=None, mask=None):
        base = value.value
        idx = index_value(value.slice)
        parts = idx.elts if isinstance(idx, gast.Tuple) else [idx]
        flags = [any(n in self.bset for n in _names(p)) for p in parts]
        self.no_mask(s, parts)
        if not any(flags):
            if not self.is_batched(base):
                return [], value, False
            return [], build.call("rt.example_getitem", [base, idx]), True
        ib = build.const(True) if not isinstance(idx, gast.Tuple) else build.tuple_([build.const(f) for f in flags])
        sliced = [p for p, f in zip(parts, flags) if f and analysis.dotted(getattr(p, "func", None)) == "slice"]
        if sliced:  # a window with per-example bounds (runtime/loops.py)
            where = f"{shown_path(self.core.filename)}:{getattr(s, 'lineno', '?')}"
            extra = [build.const(True)] if self.is_batched(base) else []
            return [], build.call("rt.loop_windows", [base, idx, ib, build.const(where)] + extra), True
        return [], build.call("rt.example_getitem", [base, idx, build.const(self.is_batched(base)),
                                                     ib] + _unclipped(mask)), True

    def no_mask(self, s, parts):
        """Refuse an index by a boolean mask that differs per example: each example would select a
        different number of elements (JAX refuses it too)."""
        if any(isinstance(p, gast.Name) and p.id in self.masks and p.id in self.bset for p in parts):
            self.fail(s, "vmap cannot index with a boolean mask that differs per example (`x[mask]`): each "
                         "example would select a different number of elements, and no stacked result exists.",
                      "Keep the shape fixed: select with the mask instead (`np.where(mask, x, 0)`, "
                      "`np.sum(x * mask)`).")

    def call(self, s, value):
        fn = self.core.ns[value.func.id]
        args = self.bind_call(fn, value)
        mask = tuple(self.is_batched(a) for a in args)
        if not any(mask):
            return [], value, False
        self.check_unbatched_arguments_kept(s, fn, mask, args)
        pre: list = []
        if self.calls.has_rules(fn):  # the user's rules see every argument batched
            args = [a if self.is_batched(a) else self.tmp(pre, build.call("rt.replicate_batch", [a,
                build.name(self.n)])) for a in args]
            mask = (True,) * len(args)
        name = self.bind(f"vmap_{self.callee_label(fn)}", self.calls.batch(fn, mask))
        return pre, build.call(build.name(name), list(args)), True

    def check_unbatched_arguments_kept(self, s, fn, mask, args=()):
        """A callee that updates an unbatched argument in place while another is batched may store
        per-example values in it; its batched version works on a batched copy, so the caller's
        value would not change: reject it at the call. So is an item stored into a list or dict
        the caller built (its batched version indexes its parameter as a batched array)."""
        if self.calls.has_rules(fn):
            return
        callee = self.calls.core(fn)
        for base, line in callee.inplace_params.items():
            k = callee.params.index(base)
            arg = args[k] if k < len(args) else None
            if mask[k] and isinstance(arg, gast.Name) and arg.id in self.containers \
                    and stores_into(callee.node, base, items_only=True):  # (an append works: the list's own)
                self.fail(s, f"`{callee.name}` stores an item into its parameter `{base}` "
                             f"({shown_path(callee.filename)}:{line}), the list or dict `{arg.id}` "
                             "this function built: vmap batches it as an array there, not as a container.",
                          f"Store the item where `{arg.id}` is built, or return the new value from `{callee.name}`.")
            if not mask[k] and stores_into(callee.node, base):
                self.fail(s, f"`{callee.name}` updates its parameter `{base}` in place "
                             f"({shown_path(callee.filename)}:{line}) while vmap batches its other arguments: "
                             "the per-example values would not reach the caller's value.",
                          f"Return the new value from `{callee.name}` instead of updating `{base}`.")

    def prim(self, s, kind, value):
        rule = registry.BATCH.get(kind)
        p = registry.lookup(kind)
        args = bind_prim(p, value) if p is not None else {}
        if not any(self.is_batched(a) for a in args.values() if a is not None):
            if not any(n in self.bset for n in _names(value)):
                return [], value, False
        if rule is None or p is None:
            self.fail(s, f"vmap has no batching rule for `{kind}` on a per-example value.",
                      "Declare one (`batch=`) where s2s/compiler/primitives/ declares it, or move the call out of the "
                      "batched function.")
        fixed = [k for k in rule.fixed if self.is_batched(args.get(k))]
        if rule.kind == "create" or fixed:
            what = f"`{fixed[0]}` of `{kind}`" if fixed else f"`{kind}` with per-example arguments"
            self.fail(s, f"vmap cannot batch {what} (the shape of an array cannot differ per example).")
        pre: list = []
        if rule.kind == "same":
            if p.batched_by and not self.is_batched(args.get(p.batched_by)):
                return pre, value, False  # a constant moved to a batched value's backend, leaves in a batched tree's shape
            return pre, value, True
        if rule.kind == "broadcast":
            return pre, self.lift(value, p, args, pre), True
        if rule.kind == "axis":
            return self.axes(value, p, args, rule, pre)
        real = [k for k in p.params if not k.startswith("*")]
        flags = build.tuple_([build.const(self.is_batched(args[k])) for k in real])
        if rule.kind == "helper":
            plain = lowered(kind, [self.is_batched(args[k]) for k in real], {k: args[k] for k in real}, self.rank,
                            lambda e: self.tmp(pre, e)) if None not in (args.get(k) for k in real) else None
            if plain is not None:
                return pre, plain, True
            vals = [args[k] if args[k] is not None else build.const(None) for k in real]
            if isinstance(value, gast.Call) and len(value.args) > len(real):
                vals += value.args[len(real):]
            extra = {k.arg: k.value for k in value.keywords if k.arg not in real} if isinstance(value, gast.Call) else {}
            return pre, build.call(rule.helper, [flags] + vals, extra), not registry.PRIMS[kind].unbatched_result
        # looped: one call per example of the op itself
        pos = list(value.args) if isinstance(value, gast.Call) else list(args.values())[:len(_operands(value))]
        kws = {k.arg: k.value for k in value.keywords} if isinstance(value, gast.Call) else {}
        fl = build.tuple_([build.const(self.is_batched(a)) for a in pos + list(kws.values())])  # keywords too, in order
        fn = build.const(kind)
        return pre, build.call("rt.map_examples", [fn, fl, build.name(self.n)] + pos, kws), True

    def lift(self, value, p, args, pre):
        """Each batched operand reshaped to broadcast per example against the other operands."""
        ops = [k for k in p.params if isinstance(args.get(k), gast.Name) and k not in ("dtype",)]
        new = dict(args)
        for k in ops:
            if not self.is_batched(args[k]):
                continue
            cur = args[k]
            for o in ops:
                rk, ro = self.rank.get(args[k].id), self.rank.get(args[o].id)
                if rk is not None and ro is not None and rk >= ro:
                    continue  # known per-example ranks: already broadcasts as the examples would
                if o != k and args[o].id != args[k].id:
                    how = "rt.lift_rank_tree" if p.name == "rt.tree_add" else "rt.lift_rank"  # cotangent trees
                    cur = self.tmp(pre, build.call(how, [cur, args[o], build.const(self.is_batched(args[o]))]), "lift")
            new[k] = cur
        return _rebuild(value, p, new)

    def axes(self, value, p, args, rule, pre):
        arr = next(args[k] for k in p.params if self.is_batched(args.get(k)))
        new = dict(args)
        if rule.none_axis == "norm" and _const_is(args.get("axis"), None) and _const_is(args.get("ord"), None) \
                and not _const_is(args.get("keepdims"), False):
            # the 2-norm of all entries kept as dims: vector_norm over every per-example axis, which
            # also takes none (a 0-d example) or more than two (norm's tuple axes take one or two)
            axes = self.tmp(pre, build.call("rt.example_axes", [arr]), "axes")
            keep = args.get("keepdims") or build.const(False)
            return pre, build.call("xp.linalg.vector_norm", [args[p.params[0]]], {"axis": axes, "keepdims": keep}), True
        for k in rule.axes:
            ax = args.get(k)
            if ax is None or isinstance(ax, gast.Constant) and ax.value is None:
                none_axis = rule.none_axis
                if none_axis == "norm":  # ord None: the 2-norm of all entries, any per-example rank
                    plain = all(_const_is(args.get(a), v) for a, v in (("ord", None), ("keepdims", False)))
                    none_axis = "flat" if plain else "all"
                if none_axis == "all":
                    new[k] = self.tmp(pre, build.call("rt.example_axes", [arr]), "axes")
                elif none_axis == "flat":
                    first = p.params[0]
                    how = "rt.flatten_examples_each" if p.list_args else "rt.flatten_examples"  # (concatenate)
                    new[first] = self.tmp(pre, build.call(how, [args[first]]), "flat")
                    new[k] = build.const(1)
            else:
                if rule.none_axis == "flat" and self.rank.get(getattr(args[p.params[0]], "id", None)) in (None, 0) \
                        and self.is_batched(args[p.params[0]]) and not p.list_args:  # (a 0-d example: scanned flat)
                    first = p.params[0]
                    new[first] = self.tmp(pre, build.call("rt.examples_1d", [args[first]]), "ex1d")
                rank = self.rank.get(getattr(arr, "id", None))
                if rule.none_axis == "all" and isinstance(ax, gast.Constant) and ax.value in (0, -1) and rank is None:
                    new[k] = self.tmp(pre, build.call("rt.example_axis", [ax, arr, build.const("all")]), "axis")
                elif rule.none_axis == "all" and isinstance(ax, gast.Constant) and ax.value in (0, -1) and rank == 0:
                    new[k] = build.tuple_([])  # a reduction of a number along 0 or -1 is the number (NumPy)
                elif isinstance(ax, gast.Constant):
                    new[k] = build.const(ax.value + 1 if ax.value >= 0 else ax.value)
                else:
                    new[k] = self.tmp(pre, build.call("rt.example_axis", [ax, arr, build.const(rule.none_axis)]), "axis")
        if p.list_args:
            lst = args[p.list_args[0]]
            if not self.is_batched(lst):
                new[p.list_args[0]] = self.tmp(pre, build.call("rt.replicate_batch", [lst, build.name(self.n)]))
        return pre, _rebuild(value, p, new, keywords=rule.axes), True


def _const_is(atom, value) -> bool:
    """Whether an argument is absent (its default) or the literal `value`."""
    return atom is None or isinstance(atom, gast.Constant) and atom.value is value


def _operands(value):
    if isinstance(value, gast.BinOp):
        return [value.left, value.right]
    if isinstance(value, gast.UnaryOp):
        return [value.operand]
    if isinstance(value, gast.Compare):
        return [value.left, value.comparators[0]]
    return list(value.args)


def _rebuild(value, p, new, keywords=()):
    """`value` with its operands replaced by `new` (param name -> atom)."""
    value = copy.copy(value)
    if isinstance(value, gast.BinOp):
        value.left, value.right = new[p.params[0]], new[p.params[1]]
    elif isinstance(value, gast.UnaryOp):
        value.operand = new[p.params[0]]
    elif isinstance(value, gast.Compare):
        value.left, value.comparators = new[p.params[0]], [new[p.params[1]]]
    else:
        n = len(value.args)
        value.args = [new[k] for k in p.params[:n]]
        kws = {kw.arg: kw for kw in value.keywords}
        value.keywords = [gast.keyword(arg=kw.arg, value=new.get(kw.arg, kw.value)) for kw in value.keywords]
        for k in keywords:
            if k not in kws and p.params.index(k) >= n and new.get(k) is not None:
                value.keywords.append(gast.keyword(arg=k, value=new[k]))
    return value


# ---- whole functions ----

def batch_body(core: CoreFn, batched_params, calls: Callees, ranks=None):
    """(batcher, statements) of `core` with `batched_params` batched; the batch size is `batcher.n`."""
    bt = Batcher(core, batched_params, calls, ranks)
    nested = analysis.first_assignment_nested(bt.body)
    init = [build.assign(v, build.const(None)) for v in sorted(bt.sel) if v not in core.params
            and v in bt.bset and nested.get(v, False)]
    return bt, init + bt.block(bt.body, None)


def spec_mapped(spec) -> bool:
    """Whether an in_axes/out_axes specification maps anything."""
    if isinstance(spec, (tuple, list)):
        return any(spec_mapped(s) for s in spec)
    if isinstance(spec, dict):
        return any(spec_mapped(s) for s in spec.values())
    return spec is not None


def _finish(bt, body, out_spec, label):
    """Replace the final `return out` of a batched body by the batched result ("body": batch at
    axis 0 always; else moved to `out_spec`)."""
    out = body.pop().value
    batched = isinstance(out, gast.Name) and out.id in bt.bset
    if out_spec != "body" and batched and not spec_mapped(out_spec):
        raise S2SValueError(f"vmap has mapped output but out_axes is None ({label} returns a value that "
                            "differs per example).")
    if out_spec != "body" and not spec_mapped(out_spec):
        return body + [build.ret(out)]
    if not batched:
        out = build.call("rt.replicate_batch", [out, build.name(bt.n)])
    elif out_spec == 0 and type(out_spec) is int and bt.rank.get(out.id) is not None:
        return body + [build.ret(out)]  # an array of known rank, its batch axis already in front
    if out_spec != "body":
        out = build.call("rt.vmap_out", [out, build.name(bt.bind("out_axes", out_spec)), build.name(bt.n)])
    return body + [build.ret(out)]


def vmap_fn(core: CoreFn, in_axes, out_axes, axis_size, calls: Callees, ranks=None) -> GeneratedFn:
    """The batched `core` as vmap calls it: batch axes moved to the front once on entry, the body
    batched, the result's batch axis moved to `out_axes` once on exit. `ranks`: each parameter's
    per-example rank when known (operands of known ranks need no run-time alignment)."""
    params = core.params
    specs = list(in_axes) if isinstance(in_axes, (tuple, list)) and len(in_axes) == len(params) \
        else [in_axes] * len(params)
    mapped = [p for p, s in zip(params, specs) if spec_mapped(s)]
    bt, body = batch_body(core, mapped, calls, dict(zip(params, ranks)) if ranks is not None else None)
    entry = _entry(bt, params, specs, mapped, ranks or [None] * len(params), in_axes, axis_size)
    body = entry + _finish(bt, body, out_axes, core.name)
    name = bt.namer.exact(f"vmap_{core.name}")
    return GeneratedFn(name, build.function(name, params, body), {**core.ns, **bt.ns}, core.filename,
                       header_for("vmap", core, f"in_axes={in_axes!r} out_axes={out_axes!r}"))


def _entry(bt, params, specs, mapped, ranks, in_axes, axis_size) -> list:
    """vmap's first statements: the batch size (checked across the mapped arguments) and each
    mapped argument with its batch axis in front. Arrays of known rank mapped at axis 0 are in
    place already, and when every argument is a NumPy array or number of known rank and every
    mapped one is such an array, the size check is their lengths' (a plain int, NumPy's)."""
    at0 = {p for p, s, r in zip(params, specs, ranks) if p in mapped and s == 0 and type(s) is int
           and r is not None and r >= 0}
    if mapped and at0 == set(mapped) and axis_size is None and None not in ranks:  # NumPy arguments only
        size = build.call("rt.vmap_size_axis0", [build.tuple_([build.name(p) for p in mapped]),
                                                 build.tuple_([build.const(p) for p in mapped])])
    else:
        size = build.call("rt.vmap_size", [build.tuple_([build.name(p) for p in params]), build.name(bt.bind("in_axes",
                                                                                                             in_axes)),
                                     build.const(axis_size), build.tuple_([build.const(p) for p in params])])
    entry = [build.assign(bt.n, size)]
    for p, s in zip(params, specs):
        if p in mapped and p not in at0:
            entry.append(build.assign(p, build.call("rt.vmap_in", [build.name(p), build.name(bt.bind("in_axes_" + p, s)),
                                                         build.name(bt.n)])))
        elif p not in mapped and p in bt.bset:  # unmapped, but assigned per-example values later
            entry.append(build.assign(p, build.call("rt.replicate_batch", [build.name(p), build.name(bt.n)])))
    return entry


def body_fn(core: CoreFn, mask: tuple, calls: Callees) -> GeneratedFn:
    """The batched version of a function called from batched code, for one pattern of batched
    arguments (`mask`): those arguments and the result carry the batch at axis 0."""
    mapped = [p for p, m in zip(core.params, mask) if m]
    bt, body = batch_body(core, mapped, calls)
    if len(mapped) == 1:
        size = [build.assign(bt.n, build.call("rt.num_examples", [build.name(mapped[0])]))]
    else:  # every batched argument: the first may hold no array (the tangent of an axis tuple)
        both = bt.namer.fresh("batched")
        size = [build.assign(both, build.tuple_([build.name(p) for p in mapped])),
                build.assign(bt.n, build.call("rt.num_examples", [build.name(both)]))]
    entry = [build.assign(p, build.call("rt.replicate_batch", [build.name(p), build.name(bt.n)])) for p in core.params
             if p in bt.bset and p not in mapped]
    body = entry + _finish(bt, body, "body", core.name)
    if bt.n in analysis.loads(body):  # else no `batch_size = rt.num_examples(...)` on every call
        body = size + body
    name = bt.namer.exact(f"vmap_{core.name}")
    return GeneratedFn(name, build.function(name, core.params, body), {**core.ns, **bt.ns}, core.filename,
                       header_for("vmap", core, f"batched arguments {mask}"))


def batch_loop(fname: str, ns: dict, filename: str, calls: Callees, stmts, index: str, taken):
    """A loop body batched over its index (loop vectorization, passes/loopvec.py): `stmts` run
    with `index` a vector of values. Returns (name of the batch size, statements, batched names,
    namespace the statements need); generated names avoid `taken`."""
    free = sorted(analysis.exposed(stmts) - {index, "xp", "rt"})
    reserve = build.expr_stmt(build.tuple_([build.name(n) for n in sorted(set(taken) | set(ns))]))
    node = build.function(fname, [index] + free, list(stmts) + [reserve])
    bt, body = batch_body(CoreFn(fname, node, ns, filename), [index], calls)
    body = [s for s in body if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Tuple))]  # the reserve
    return bt.n, body, bt.bset, bt.ns


def mapped_params(params, in_axes) -> list[str]:
    """The parameters that vmap's `in_axes` maps."""
    specs = list(in_axes) if isinstance(in_axes, (tuple, list)) and len(in_axes) == len(params) \
        else [in_axes] * len(params)
    return [p for p, s in zip(params, specs) if spec_mapped(s)]
