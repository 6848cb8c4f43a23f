"""Batching (vmap): a core-form function rewritten to run on a batch of examples at once.

A variable is either unbatched or batched at axis 0 (decided for the whole function by a fixed
point, `batched_vars`). Statements on unbatched values stay as they are; ops on batched values
follow the batching table (registry.BATCH: `batch=` of each declaration). Control flow
whose condition is batched runs under a mask (a boolean per example): both branches of an `if`
run, and each variable a branch assigns is merged with `rt.masked_merge(mask, new, old)`; a `while` runs until no
example is live; `break`/`continue` under a batched condition clear lanes of the loop's masks.

The `Batcher` visitor here rewrites statements and masked control flow and holds the entry points
that wrap its body (`vmap_fn`, `body_fn`, `batch_loop`); which variables are batched is
batch_vars.py, the batching of each operation and call is batch_calls.py (a mixin of `Batcher`),
specialization on per-example ranks is batch_ranks.py, and vmap's compositions with grad and
jacrev are compose.py. The rules are declared with each primitive (s2s/compiler/primitives/).
"""
from __future__ import annotations

import copy

import gast

from ...errors import S2SValueError, shown_path
from .. import analysis
from ..analysis.python_numbers import DIVISIONS, is_number, python_numbers
from ..ir import build
from ..ir.core import CATCH_FINALLY, CoreFn, is_catch, source_file
from ..primitives import registry
from ..primitives.registry import EXT
from .base import Callees, GeneratedFn, Transform, bind_prim, header_for, index_value, loc
from .batch_calls import BatchedCalls, const_is
from .batch_masks import MaskedSelections
from .batch_ranks import per_example_ranks, rank_simplified
from .batch_vars import (
    SHAPE_ATTRS,
    batched_vars,
    has_batched_jump,
    loaded_names,
    mask_operands,
    range_args,
    selectable,
)


def _may_separate(parts) -> bool:
    """Whether the index may hold advanced parts (arrays, and integers beside them) with a basic
    part (a slice, None, Ellipsis) between them: NumPy then puts their broadcast dimensions first
    per example, and a store's batched key needs the examples' positions as an array too
    (rt.example_key), not a leading slice. A name may hold either."""
    def basic(p):
        return isinstance(p, gast.Slice) or analysis.dotted(getattr(p, "func", None)) == "slice" \
            or isinstance(p, gast.Constant) and (p.value is None or p.value is Ellipsis)

    def integer(p):
        p = p.operand if isinstance(p, gast.UnaryOp) and isinstance(p.op, gast.USub) else p
        return isinstance(p, gast.Constant) and type(p.value) is int

    may_adv = [not basic(p) for p in parts]
    may_basic = [not integer(p) and (basic(p) or isinstance(p, gast.Name)) for p in parts]
    if not any(a and not integer(p) for a, p in zip(may_adv, parts)):
        return False
    return any(may_basic[k] and any(may_adv[:k]) and any(may_adv[k + 1:]) for k in range(1, len(parts) - 1))


def _unclipped(mask) -> list:
    """The `clip=False` argument of a gather or write key outside masked code: every lane is live
    there, so an index out of range is NumPy's IndexError (runtime/_index_layout.py `batched_key`)."""
    return [build.const(False)] if mask is None else []


















class Frame:
    """A loop whose lanes can leave it: `live` (lanes still looping) and `it` (lanes still in this
    iteration) are names of boolean masks, or None for a loop every lane leaves together."""

    def __init__(self, live=None, it=None):
        self.live, self.it = live, it


class Batcher(MaskedSelections, BatchedCalls, Transform):
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
        self.regions: list = []  # live sets after each enclosing masked region (innermost last; tuples of sets
        # whose union it is: a union built per `if` would hold all that is live there, issue 46)
        self.list_mask: dict[str, str] = {}  # list -> the mask it was made under, if not merged
        self.containers: set[str] = set()  # names bound to a list or dict display
        self.sequences: set[str] = set()  # names bound to a list or tuple display (`+` joins them)
        self.split_done: set[int] = set()  # rt.operand_cotangent statements already split (operand_cotangent_split)
        self.masks: set[str] = set()  # names holding a boolean mask (program order: see assign)
        self.ragged: dict[str, str] = {}  # selection by a per-example mask -> the mask (batch_masks.py)
        self.masked_done: set[int] = set()  # statements batch_masks.py prepared already
        self.numbers: set[str] | None = None  # names holding Python numbers (analysis/python_numbers.py)

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
                self.no_ragged(s, s.value)
                out.append(s)
            elif isinstance(s, gast.If):
                self.no_ragged(s, s.test)
                out.extend(self.if_(s, mask))
            elif isinstance(s, gast.While):
                self.no_ragged(s, s.test)
                out.extend(self.while_(s, mask))
            elif isinstance(s, gast.For):
                self.no_ragged(s, s.iter)
                out.extend(self.for_(s, mask))
            elif isinstance(s, gast.Expr):
                self.no_ragged(s, s.value)
                out.extend(self.expr(s, mask))
            else:
                out.extend(self.assign(s, mask))
            if mask is not None and self.frames and self.frames[-1].it is not None \
                    and mask != self.frames[-1].it and isinstance(s, (gast.If, gast.For, gast.While)) \
                    and has_batched_jump([s], self.bset | {"__all__"}):
                out.append(build.assign(mask, build.call("rt.mask_and", [build.name(mask), build.name(self.frames[-1].it)])))
        return out

    def catch(self, s, mask):
        """A catch block (frontend/handlers.py): as it is where its statement reads no example's value
        and runs for every example, or where what it catches is raised again after a `finally` block;
        else an exception refuses at the user's line (which examples raised cannot be told apart)."""
        body = self.block(s.body, mask)
        reads = any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in self.bset
                    for st in s.body for n in build.walk(st))
        if s.test.id.startswith(CATCH_FINALLY) or mask is None and not reads:
            return [loc(build.if_(s.test, body, self.block(s.orelse, mask)), s)]
        where = build.const(f"{shown_path(source_file(s, self.core.filename))}:{getattr(s, 'lineno', '?')}")
        refuse = build.expr_stmt(build.call("ext.s2s_catch_batched", [where]))
        return [loc(build.if_(s.test, body, [refuse]), s)]

    def jump(self, s, mask):
        f = self.frames[-1] if self.frames else None
        if f is None or f.it is None or mask == f.it:
            return [s]
        out = [build.assign(f.it, build.call("rt.mask_and_not", [build.name(f.it), build.name(mask)]))]
        if isinstance(s, gast.Break):
            out.append(build.assign(f.live, build.call("rt.mask_and_not", [build.name(f.live), build.name(mask)])))
        return out

    def if_(self, s, mask):
        if is_catch(s.test):
            return self.catch(s, mask)
        if not self.is_batched(s.test):
            return [loc(build.if_(s.test, self.block(s.body, mask), self.block(s.orelse, mask)), s)]
        if self.pops_shared_list(s):  # (a record saved `z.ndim == 1` per example: the same for all)
            out: list = []
            where = build.const(f"{shown_path(source_file(s, self.core.filename))}:{getattr(s, 'lineno', '?')}")
            same = self.tmp(out, build.call("rt.shared_condition", [s.test, where]), "same")
            return out + [loc(build.if_(same, self.block(s.body, mask), self.block(s.orelse, mask)), s)]
        out = []
        m1, m2 = self.namer.fresh("mask"), self.namer.fresh("mask")
        out.append(build.assign(m1, build.call("rt.mask_and", [build.name(mask) if mask else build.const(None), s.test])))
        out.append(build.assign(m2, build.call("rt.mask_and_not", [build.name(mask) if mask else build.const(None),
                                                                   s.test])))
        # a value assigned under a mask needs no merge with the old one if the examples outside
        # the mask never read it: not after the `if`, not in the other branch
        self.regions.append((self.live.after[s], analysis.exposed(s.orelse)))
        out += self.guarded(m1, self.block(s.body, m1))
        self.regions[-1] = (self.live.after[s],)
        out += self.guarded(m2, self.block(s.orelse, m2))
        self.regions.pop()
        return out

    def pops_shared_list(self, s) -> bool:
        """Whether a branch of `if` pops a batched list made outside it (a backward sweep's tape):
        masked, the pop is refused; the `if` then runs on a condition that must be the same for
        every example (rt.shared_condition), as one that depends on shapes only is."""
        stmts = list(analysis.walk_stmts(s.body + s.orelse))
        made = {t for st in stmts for t in analysis.targets(st)}
        return any(isinstance(st, gast.Assign) and analysis.classify(st.value) == "list.pop"
                   and st.value.func.value.id in self.bset and st.value.func.value.id not in made for st in stmts)

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
        self.regions.append((self.live.before[s],))
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
        args = range_args(s)
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
        self.regions.append((self.live.before[s],))
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
            ops = mask_operands(s.value)
            is_mask = ops is not None and all(isinstance(o, gast.Name) and o.id in self.masks for o in ops)
            (self.masks.add if is_mask else self.masks.discard)(t.id)
        elif isinstance(t, gast.Tuple):
            self.masks.difference_update(e.id for e in t.elts if isinstance(e, gast.Name))
        done = self.masked(s, mask)
        if done is not None:
            return done[0] if done[1] is None else done[0] + self.assign(done[1], mask)
        if isinstance(t, gast.Subscript):
            return self.setitem(s, mask)
        split = self.operand_cotangent_split(s)
        if split is not None:
            return self.block(split, mask)
        if analysis.classify(s.value) == "ext.s2s_raise" and any(self.is_batched(a) for a in s.value.args):
            return [loc(self.raise_where(s, mask), s)]
        pre, expr, rb = self.value(s, s.value, mask)
        out = self.python_division(s, mask) + list(pre)
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
        (self.sequences.add if isinstance(s.value, (gast.List, gast.Tuple)) else self.sequences.discard)(var)
        if isinstance(s.value, gast.List):
            # a new list, not merged: no example outside `mask` reads it, and every example inside
            # appends to it alike while the mask stays the same
            self.list_mask[var] = mask
        return out + [loc(build.assign(var, expr), s)]

    def python_division(self, s, mask) -> list:
        """Before `y = a / b` (or `//`, `%`) of Python numbers by the source (`float(v) / 0.0`), one of
        them held per example, the check that raises Python's ZeroDivisionError for an example whose
        divisor is zero (NumPy's array division would give inf); else nothing."""
        v = s.value
        if not isinstance(v, gast.BinOp) or type(v.op) not in DIVISIONS \
                or not (self.is_batched(v.left) or self.is_batched(v.right)) \
                or isinstance(v.right, gast.Constant) and v.right.value != 0:
            return []
        if self.numbers is None:
            self.numbers = python_numbers(self.body, self.params)
        if not (is_number(v.left, self.numbers) and is_number(v.right, self.numbers)):
            return []
        check = build.call("ext.s2s_python_division", [build.name(mask) if mask else build.const(None), v.left,
                                                        v.right, build.const(DIVISIONS[type(v.op)])])
        self.ns["ext"] = EXT
        return [loc(build.expr_stmt(check), s)]

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
                or not mul and not const_is(other_wrt, 0):
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
        return mask is not None and var in self.sel and any(var in part for r in self.regions for part in r)

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
        flags = [any(n in self.bset for n in loaded_names(p)) for p in parts]
        self.no_mask(s, parts)
        if base in self.containers and not any(flags):  # a list or dict: every item holds the batch
            v = s.value if self.is_batched(s.value) else \
                self.tmp(out, build.call("rt.replicate_batch", [s.value, build.name(self.n)]))
            if mask is not None:
                old = self.tmp(out, build.subscript(build.name(base), copy.deepcopy(t.slice)), "old")
                v = self.tmp(out, build.call("rt.masked_merge", [build.name(mask), v, old]))
            out.append(build.assign(build.subscript(build.name(base), copy.deepcopy(t.slice), store_=True), v))
            return [loc(o, s) for o in out]
        if not any(flags) and isinstance(t.slice, (gast.Tuple, gast.Slice, gast.Constant)) \
                and not _may_separate(parts):
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
        flags = [any(n in self.bset for n in loaded_names(p)) for p in parts]
        self.no_mask(s, parts)
        if not any(flags):
            if not self.is_batched(base):
                return [], value, False
            return [], build.call("rt.example_getitem", [base, idx]), True
        ib = build.const(True) if not isinstance(idx, gast.Tuple) else build.tuple_([build.const(f) for f in flags])
        sliced = [p for p, f in zip(parts, flags) if f and analysis.dotted(getattr(p, "func", None)) == "slice"]
        if sliced:  # a window with per-example bounds (runtime/loops.py)
            where = f"{shown_path(source_file(s, self.core.filename))}:{getattr(s, 'lineno', '?')}"
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
