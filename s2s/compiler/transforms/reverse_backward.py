"""The backward sweep of reverse mode: adjoint code for each statement, in reverse order, that pops
what the forward sweep (reverse.py) pushed onto `tape` and `ctl`, in the opposite order.

`BackwardSweep` is a mixin of `Reverse`: each `backward_*` method here undoes the saves of the
forward method for the same kind of statement there (`saves`, `forward_stmt`, `forward_loop`,
`record_branch`), so a change to what one pushes is a change to what the other pops.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from ..ir.core import is_catch
from ..primitives import registry
from .adjoint import merge
from .base import bind_prim, index_value, is_list_op, is_repeat, maybe_sequence_op, simplify


def _freshens(stmts, b) -> bool:
    """Whether `b = rt.fresh(b)` stands in `stmts` (at any depth)."""
    return any(isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id == b
               and isinstance(s.value, gast.Call) and analysis.dotted(s.value.func) == "rt.fresh"
               for s in analysis.walk_stmts(stmts))


def _strip_unbroadcast(expr):
    if isinstance(expr, gast.Call) and analysis.dotted(expr.func) == "rt.unbroadcast":
        return expr.args[0]
    return expr


class BackwardSweep:
    """The backward sweep's methods of `Reverse` (it holds the state: adjoints, records, loops)."""

    def backward(self, stmts, defined: dict, depth: int) -> list:
        """Adjoint code for `stmts`, in reverse, grouped under the original statements' comments."""
        out, group = [], []
        for s in reversed(stmts):
            if build.is_comment(s):
                if group:
                    out.append(s)
                    out.extend(group)
                group = []
                continue
            group.extend(self.backward_stmt(s, defined, depth))
        out.extend(group)
        return out

    def backward_stmt(self, s, defined, depth) -> list:
        out: list = []
        if isinstance(s, (gast.Return, gast.Break, gast.Continue, gast.Pass, gast.Assert, gast.Expr)) \
                and not is_list_op(s):
            return out
        if isinstance(s, gast.If):
            return self.backward_if(s, defined, depth)
        if isinstance(s, (gast.For, gast.While)):
            return self.backward_loop(s, defined, depth)
        if is_list_op(s):
            return self.backward_append(s, defined)
        t = s.targets[0]
        if isinstance(t, gast.Subscript):
            out += self.backward_setitem(s, defined)
        elif isinstance(t, gast.Tuple):
            out += self.backward_unpack(s, defined)
        else:
            out += self.backward_assign(s, defined)
        return out + self.restores_of(s)

    def restores_of(self, s) -> list:
        """The backward sweep's pops of what the forward sweep saved before assignment `s` ran."""
        out: list = []
        t = s.targets[0]
        tape_var = self.call_tapes.get(s)
        if tape_var is not None and (s, tape_var) in self.saved_at:
            out.append(build.assign(tape_var, self.pop(self.ctl)))
        for v in reversed(analysis.targets(s)):  # saved in order, restored in reverse
            if (s, v) in self.saved_at:
                out.append(build.assign(v, self.pop(self.tape if v in self.active else self.ctl)))
                self.value_records.add(id(out[-1]))
                self.recorded.append(out[-1])
        if isinstance(t, gast.Subscript) and t.value.id in self.relevant:
            self.restores.add("arrays")
            lst = self.tape if t.value.id in self.active else self.ctl
            if isinstance(t.slice, gast.Constant) and isinstance(t.slice.value, str):  # a dict's item: it may be new
                out.append(build.expr_stmt(build.call("rt.restore_slot", [build.name(t.value.id), build.clone(t.slice),
                                                                           self.pop(lst)])))
                self.slot_records[id(out[-1])] = t.value.id
                self.recorded.append(out[-1])
                return out
            out.append(build.assign(build.subscript(build.name(t.value.id), index_value(t.slice), store_=True),
                                    self.pop(lst)))
            self.slot_records[id(out[-1])] = t.value.id
            self.recorded.append(out[-1])
        return out

    def take(self, var, defined):
        """The adjoint of `var` to propagate, or None if it is zero; it is consumed."""
        if var not in self.active:
            return None
        b = self.adj.name(var)
        if b not in defined:
            return None
        del defined[b]
        return build.name(b)

    def backward_assign(self, s, defined) -> list:
        out: list = []
        var = s.targets[0].id
        value = s.value
        kind = analysis.classify(value)
        if kind == "list.pop":
            lst = value.func.value.id
            g = self.take(var, defined)  # consumed even from an inactive list: the pop overwrites `var`
            if lst in self.active:
                b = self.adj.name(lst)
                if b not in defined:  # one zero per element the list holds here
                    out.append(build.assign(b, build.call("rt.zeros_list", [build.name(lst)])))
                    defined[b] = True
                self.own_list(b, defined, out)
                blst = build.name(b)
                item = g if g is not None else build.call("rt.zeros_like_tree", [build.name(var)])
                out.append(build.expr_stmt(build.call(build.attr(blst, "append"), [item])))
            if lst in self.relevant:
                self.restores.add("lists")
                out.append(build.expr_stmt(build.call(build.attr(build.name(lst), "append"), [build.name(var)])))
            return out
        g = self.take(var, defined)
        if g is None:
            return out
        if kind == "const":
            return out
        if kind == "copy":
            if value.id in self.active:
                self.adj.accumulate(value.id, g, defined, out)
            return out
        if kind == "pack":
            for k, e in enumerate(value.elts):
                if isinstance(e, gast.Name) and e.id in self.active:
                    self.adj.accumulate(e.id, build.subscript(g, build.const(k)), defined, out)
            return out
        if kind == "dict":
            for key, e in zip(value.keys, value.values):
                if isinstance(e, gast.Name) and e.id in self.active:
                    self.adj.accumulate(e.id, build.subscript(g, key), defined, out)
            return out
        if kind == "getitem":
            base = value.value.id
            if base in self.active:
                acc = self.adj.owned(base, defined, out)
                out.append(build.assign(acc.id, build.call("rt.add_at", [acc, index_value(value.slice), g])))
            return out
        if kind == "call":
            return out + self.backward_call(s, g, defined)
        return out + self.backward_prim(s, kind, g, defined)

    def backward_prim(self, s, kind, g, defined) -> list:
        out: list = []
        p = registry.lookup(kind)
        if p is None:
            self.fail(s, f"s2s has no derivative rule for `{kind}`.",
                      "Register one with s2s.defvjp, or wrap the value in stop_gradient if no derivative is needed.")
        if p.nondiff:
            return out
        args = bind_prim(p, s.value)
        for pname, atom in args.items():
            if not (isinstance(atom, gast.Name) and atom.id in self.active) or pname in p.zero_args:
                continue
            rule = p.vjp.get(pname)
            if maybe_sequence_op(s.value, self.containers):
                me, other = ("x", "y") if pname == "x" else ("y", "x")
                rule = f"rt.operand_cotangent(g, {me}, {other}, {kind!r}, {int(pname == 'x')})"
            if registry.VJP_IN_PLACE.get(kind, ("",))[0] == pname:
                out += self._in_place(kind, atom.id, args, g, defined)
                continue
            if rule is None:
                self.fail(s, f"s2s cannot differentiate `{kind}` with respect to its argument `{pname}`.",
                          "Wrap that argument in stop_gradient, or register a rule with s2s.defvjp.")
            subs = {k: (v if v is not None else build.const(None)) for k, v in args.items()}
            subs.update(g=g, ans=build.name(s.targets[0].id))
            expr = build.template(rule, **subs)
            if p.broadcasting and all(isinstance(v, gast.Constant) and not isinstance(v.value, complex)
                                      for k, v in args.items() if k != pname) \
                    and not (is_repeat(s.value) and atom.id in self.params):  # `xs * 3` of a list argument:
                expr = _strip_unbroadcast(expr)  # rt.unbroadcast refuses the repeated list's cotangent
            self.adj.accumulate(atom.id, simplify(expr), defined, out)
        return out

    def _in_place(self, kind, var, args, g, defined) -> list:
        """`b_var = h(b_var, g, <the op's other arguments>)` for an op of VJP_IN_PLACE: the cotangent
        added into an adjoint the sweep owns, not into zeros the size of `var` each time."""
        out: list = []
        pname, fn = registry.VJP_IN_PLACE[kind]
        acc = self.adj.owned(var, defined, out)
        rest = [v if v is not None else build.const(None) for k, v in args.items() if k != pname]
        out.append(build.assign(acc.id, build.call(fn, [acc, g] + rest)))
        return out

    def backward_call(self, s, g, defined) -> list:
        callee = self.callee(s)
        if callee is None:
            return []
        _, bwd_name, mask, args = callee
        out: list = []
        if not all(mask) and self.discard is None:  # a name no user variable has: `_` may be one
            self.discard = self.namer.exact("_")
        cts = [self.namer.fresh("ct") if m else self.discard for m in mask]
        tape_var = self.call_tapes[s]
        call = build.call(build.name(bwd_name), [build.name(tape_var), g])
        out.append(build.assign(build.tuple_([build.name(c) for c in cts], store_=True), call))
        for arg, m, ct in zip(args, mask, cts):
            if m:
                self.adj.accumulate(arg.id, build.name(ct), defined, out)
        return out

    def backward_unpack(self, s, defined) -> list:
        out: list = []
        src = s.value.id
        elts = [e.id for e in s.targets[0].elts]
        gs = []
        for e in elts:
            g = self.take(e, defined)
            gs.append(g)
        if src not in self.active or all(g is None for g in gs):
            return out
        parts = [g if g is not None else build.call("rt.zeros_like_tree", [build.name(e)]) for g, e in zip(gs, elts)]
        self.adj.containers.add(src)
        # a sweep's record (a tuple, unpacked whole): its cotangent is the tuple of the parts', built
        # without reading `src`, whose lists later pops and appends change (read back at a later
        # point, it would give the record a cotangent of another length)
        ct = build.tuple_(parts) if src in self.record_copies() else build.call("rt.like", [build.tuple_(parts),
                                                                                             build.name(src)])
        self.adj.accumulate(src, ct, defined, out)
        return out

    def record_copies(self) -> set[str]:
        """Names bound once, to a backward sweep's own copy of its record (`rt.private`,
        `rt.copy_saved`): certainly plain tuples."""
        if getattr(self, "_record_copies", None) is None:
            self._record_copies = {s.targets[0].id for s in self.body if isinstance(s, gast.Assign)
                                   and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call)
                                   and getattr(registry.lookup(analysis.dotted(s.value.func)), "record_copy", False)
                                   and self.assigned_count(s.targets[0].id) == 1}
        return self._record_copies

    def backward_setitem(self, s, defined) -> list:
        out: list = []
        t = s.targets[0]
        base = t.value.id
        if base not in self.active or self.adj.name(base) not in defined:
            return out
        acc = self.adj.owned(base, defined, out)
        v = s.value
        if isinstance(v, gast.Name) and v.id in self.active:
            ct = self.namer.fresh("ct")
            out.append(build.assign(build.tuple_([build.name(ct), acc], store_=True),
                                build.call("rt.take_at", [acc, index_value(t.slice), v])))
            self.adj.accumulate(v.id, build.name(ct), defined, out)
        else:
            out.append(build.assign(acc.id, build.call("rt.zero_at", [acc, index_value(t.slice)])))
        return out

    def backward_append(self, s, defined) -> list:
        out: list = []
        call = s.value
        lst = call.func.value.id
        v = call.args[0]
        b = self.adj.name(lst)
        if lst in self.active and b in defined:
            self.own_list(b, defined, out)
            item = build.call(build.attr(build.name(b), "pop"), [])
            if isinstance(v, gast.Name) and v.id in self.active:
                # the pop is a statement of its own: inside `b_v = rt.tree_add(b_v, ...)` it went
                # with that assignment when `b_v` was dead (dead-code elimination keeps pops only)
                popped = self.namer.fresh("ct")
                out.append(build.assign(popped, item))
                self.adj.accumulate(v.id, build.name(popped), defined, out)
            else:
                out.append(build.expr_stmt(item))
        if lst in self.relevant:
            self.restores.add("lists")
            out.append(build.expr_stmt(self.pop_expr(lst)))
        return out

    @staticmethod
    def own_list(b, defined, out) -> None:
        """Before the sweep pops or appends to the adjoint list `b`: a copy of it when it may be
        a list the caller holds (a cotangent passed in), so a backward sweep never empties its
        caller's list (a vjp of a vjp pops the tape cotangents its caller keeps in its record)."""
        if not defined[b]:
            out.append(build.assign(b, build.call("rt.fresh", [build.name(b)])))
            defined[b] = True

    def pop_expr(self, lst):
        return build.call(build.attr(build.name(lst), "pop"), [])

    def backward_if(self, s, defined, depth) -> list:
        d_then, d_else = dict(defined), dict(defined)
        then = self.backward(s.body, d_then, depth)
        orelse = self.backward(s.orelse, d_else, depth)
        new = merge([(then, d_then), (orelse, d_else)], self.adj, self.live.before[s], self.certain[s])
        defined.clear()
        defined.update(new)
        if is_catch(s.test):  # where its statement raised, what was saved before it is popped all the same
            orelse += [r for st in reversed(s.body) if isinstance(st, gast.Assign) for r in self.restores_of(st)]
        if not then and not orelse:
            if self.record_branch(s, depth):
                return [build.expr_stmt(self.pop(self.ctl))]
            return []
        test = s.test
        out = []
        if self.record_branch(s, depth):
            br = self.namer.fresh("branch")
            out.append(build.assign(br, self.pop(self.ctl)))
            test = build.name(br)
        out.append(build.if_(test, then or [gast.Pass()], orelse))
        return out

    def backward_loop(self, s, defined, depth) -> list:
        info = self.loops[s]
        entry = dict(defined)
        pre: list = []
        while True:
            d = dict(entry)
            body = self.backward(s.body, d, depth + 1)
            grown = [b for b in d if b not in entry]
            # an adjoint the body copies to update it in place (`b = rt.fresh(b)`) and leaves owned:
            # one copy before the loop, not one per iteration (quadratic in the trip count)
            copied = [b for b in entry if not grown and not entry[b] and d.get(b) and _freshens(body, b)]
            if not grown and not copied:
                break
            for b in sorted(grown):
                pre.append(self.adj.zero(self.adj.var_of(b)))
                entry[b] = True
            for b in sorted(copied):
                pre.append(build.assign(b, build.call("rt.fresh", [build.name(b)])))
                entry[b] = True
        for b in sorted(entry):
            if b not in d:
                body.append(self.adj.zero(self.adj.var_of(b)))
            elif not d[b]:
                entry[b] = False
        defined.clear()
        defined.update(entry)
        out = pre
        if info.get("ckpt"):
            return out + self.backward_checkpointed(s, info, body)
        replay = info["replay"]
        if replay is None:
            rv = self.namer.fresh("r")
            out.append(build.assign(rv, self.pop(self.ctl)))
            replay = build.name(rv)
        if isinstance(s, gast.For):
            rev = self.namer.fresh("r")
            out.append(build.assign(rev, build.call("rt.reversed_range", [replay])))
            self.bwd_loops[s] = gast.For(target=build.name(s.target.id, store=True), iter=build.name(rev),
                                         body=body or [gast.Pass()], orelse=[], type_comment=None)
            out.append(self.bwd_loops[s])
            if info.get("restore_target"):
                out.append(build.assign(s.target.id, self.pop(self.ctl)))
        else:
            k = self.namer.fresh("k")
            out.append(build.for_range(k, [replay], body))
        return out
