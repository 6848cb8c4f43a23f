"""Forward mode: after each primal statement, the statement that computes its tangent.

A tangent that is not in `defined` is zero and is not computed; loops and branches keep their
shape, with tangents zero-filled where one path defines them and another does not.
"""
from __future__ import annotations

import gast

from ...base.stats import STATS
from .. import analysis
from ..ir import build
from ..ir.core import CoreFn
from ..primitives import registry
from .base import (
    Callees,
    Companions,
    Defined,
    GeneratedFn,
    Transform,
    bind_prim,
    header_for,
    join,
    loc,
    maybe_sequence_op,
    simplify,
)


class Forward(Transform):
    """Forward mode of one core-form function: each statement followed by its tangent's."""

    def __init__(self, core: CoreFn, active_params, calls: Callees):
        super().__init__(core, active_params, calls)
        self.tangents = Companions(self.namer, "d_")

    def d(self, var: str) -> str:
        return self.tangents.name(var)

    def tangent(self, atom, defined):
        """The tangent of an atom, or None when it is zero."""
        if isinstance(atom, gast.Name) and atom.id in self.active and self.d(atom.id) in defined:
            return build.name(self.d(atom.id))
        return None

    def set(self, var, value, defined, out, owned=False):
        out.append(build.assign(self.d(var), value))
        defined[self.d(var)] = owned

    # ---- statements ----
    def block(self, stmts, defined) -> list:
        out = []
        for s in stmts:
            if build.is_comment(s) or isinstance(s, (gast.Pass, gast.Break, gast.Continue, gast.Assert)):
                out.append(s)
            elif isinstance(s, gast.Return):
                out.append(s)
            elif isinstance(s, gast.If):
                d1, d2 = Defined(defined), Defined(defined)
                before = self.assigned
                self.assigned = after_body = _Assigned(before)
                body = self.block(s.body, d1)
                self.assigned = after_else = _Assigned(before)
                orelse = self.block(s.orelse, d2)
                self.assigned = before
                before.update(after_body.own & after_else.own)  # definitely assigned after the if
                STATS["branch_set"] += len(after_body.own) + len(after_else.own)
                changed = d1.changed | d2.changed  # (a companion neither path changed keeps its value)
                merged = self.merge([(body, d1, after_body), (orelse, d2, after_else)], self.live.after[s], changed)
                defined.apply(merged, changed)
                out.append(loc(build.if_(s.test, body, orelse), s))
            elif isinstance(s, (gast.For, gast.While)):
                out.extend(self.loop(s, defined))
            elif isinstance(s, gast.Expr):
                out.extend(self.append(s, defined))
            else:
                out.extend(self.assign(s, defined))
            self.assigned.update(analysis.targets(s))
        return out

    def merge(self, branches, live, keys):
        """Join the tangents `keys` that the paths changed. A tangent dead after the join is dropped;
        a live one is zero-filled on the paths that lack it, where its variable is certainly assigned.
        A tangent no path changed keeps its value even when it is dead after the join: it is never
        read again before its variable is assigned, which sets or removes it (liveness), so keeping
        it changes no generated statement and the join costs what the branches changed."""
        return join(branches, self.tangents, live,
                    lambda var, path: (self.tangents.zero(var) if var in path[2] else None, True), keys)

    def loop(self, s, defined) -> list:
        """Tangents carried around the loop are zero-initialized before it; one that the body
        drops but the next iteration (or the code after) reads is zeroed again at the body's end."""
        entry = Defined(defined)
        before = self.assigned
        exposed, live_in, live_out = analysis.exposed(s.body), self.live.before[s], self.live.after[s]
        pre = []
        while True:
            self.assigned = _Assigned(before)
            dd = Defined(entry)
            body = self.block(s.body, dd)
            var = self.tangents.var_of
            grown = [b for b in dd.changed if b in dd and b not in entry
                     and (var(b) in exposed or var(b) in live_out and var(b) in before)]
            if not grown:
                break
            for b in sorted(grown):
                pre.append(self.tangents.zero(self.tangents.var_of(b)))
                entry[b] = True
        for b in sorted(b for b in dd.changed if b in entry):  # (what the body left alone stays)
            if b not in dd:
                if self.tangents.var_of(b) in live_in:
                    body.append(self.tangents.zero(self.tangents.var_of(b)))
                else:
                    del entry[b]
            elif not dd[b]:
                entry[b] = False
        defined.apply(entry, entry.changed)
        # made in the body and read after the loop (only reachable when the body ran)
        defined.update({b: False for b in dd.changed if b in dd and b not in entry
                        and self.tangents.var_of(b) in live_out})
        self.assigned = before  # the body may run no times
        if isinstance(s, gast.For):
            new = gast.For(target=s.target, iter=s.iter, body=body, orelse=[], type_comment=None)
        else:
            new = gast.While(test=s.test, body=body, orelse=[])
        return pre + [loc(new, s)]

    def append(self, s, defined) -> list:
        call = s.value
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr == "append"):
            return [s]
        lst = call.func.value.id
        v = call.args[0]
        dv = self.tangent(v, defined)
        out = []
        dl = self.d(lst)
        if lst in self.active and (dl in defined or dv is not None):
            if dl not in defined:
                self.set(lst, build.call("rt.zeros_list", [build.name(lst)]), defined, out, owned=True)
            out.append(s)
            item = dv if dv is not None else build.call("rt.zeros_like_tree", [v])
            out.append(build.expr_stmt(build.call(build.attr(build.name(dl), "append"), [item])))
            return out
        return [s]

    def assign(self, s, defined) -> list:
        out = []
        t = s.targets[0]
        if isinstance(t, gast.Subscript):
            base = t.value.id
            dv = self.tangent(s.value, defined)
            db = self.d(base)
            if base in self.active and (dv is not None or db in defined):
                if db not in defined:
                    self.set(base, build.call("rt.zeros_like_tree", [build.name(base)]), defined, out, owned=True)
                elif not defined[db]:
                    self.set(base, build.call("rt.fresh", [build.name(db)]), defined, out, owned=True)
                out.append(s)
                value = dv if dv is not None else build.const(0.0)
                out.append(build.assign(build.subscript(build.name(db), build.clone(t.slice), store_=True), value))
                return out
            return [s]
        if isinstance(t, gast.Tuple):
            dsrc = self.tangent(s.value, defined)
            out.append(s)
            for e in t.elts:
                defined.pop(self.d(e.id), None)
            if dsrc is not None:
                out.append(build.assign(build.tuple_([build.name(self.d(e.id)) for e in t.elts], store_=True), dsrc))
                for e in t.elts:
                    defined[self.d(e.id)] = True  # aliases exactly as the unpacked primals do
            return out
        var = t.id
        value = s.value
        kind = analysis.classify(value)
        if kind == "call":
            return self.call(s, defined)
        out.append(s)
        tan = self.rule(s, kind, value, defined) if var in self.active else None
        defined.pop(self.d(var), None)
        if tan is not None:
            self.set(var, tan, defined, out, owned=_mirrors(kind, tan, defined))
        return out

    def rule(self, s, kind, value, defined):
        if kind == "const":
            return None
        if kind == "copy":
            return self.tangent(value, defined)
        if kind in ("pack", "dict"):
            elts = value.elts if kind == "pack" else value.values
            ts = [self.tangent(e, defined) for e in elts]
            if all(x is None for x in ts):
                return None
            parts = [x if x is not None else build.call("rt.zeros_like_tree", [e]) for x, e in zip(ts, elts)]
            if kind == "dict":
                return gast.Dict(keys=build.clone(value.keys), values=parts)
            return build.list_(parts) if isinstance(value, gast.List) else build.tuple_(parts)
        if kind == "getitem":
            dx = self.tangent(value.value, defined)
            return None if dx is None else build.subscript(dx, build.clone(value.slice))
        if kind == "list.pop":
            lst = value.func.value.id
            dl = self.d(lst)
            return build.call(build.attr(build.name(dl), "pop"), []) if dl in defined else None
        if maybe_sequence_op(value, self.containers) and any(
                isinstance(e, gast.Name) and self.tangent(e, defined) is None for e in (value.left, value.right)):
            return self.sequence_tangent(s, kind, value, defined)  # (with both tangents, `dx + dy` joins them)
        p = registry.lookup(kind)
        if p is None:
            self.fail(s, f"s2s has no derivative rule for `{kind}`.")
        if p.nondiff:
            return None
        args = bind_prim(p, value)
        if p.linear_in:
            (lin,) = p.linear_in[:1]
            dl = self.tangent(args.get(lin), defined)
            if dl is None:
                return None
            new = build.clone(value)
            _replace_arg(new, p, lin, dl)
            return new
        terms = []
        missing = False
        for pname, atom in args.items():
            if not isinstance(atom, gast.Name) or pname in p.zero_args:
                continue
            dx = self.tangent(atom, defined)
            if dx is None:
                missing = True
                continue
            rule = p.jvp.get(pname)
            if rule is None:
                self.fail(s, f"s2s cannot differentiate `{kind}` with respect to `{pname}` in forward mode.")
            subs = {k: (v if v is not None else build.const(None)) for k, v in args.items()}
            subs.update(ans=build.name(s.targets[0].id), **{"d" + pname: dx})
            terms.append(simplify(build.template(rule, **subs)))
        if not terms:
            return None
        total = terms[0]
        for term in terms[1:]:
            total = build.call("rt.tree_add", [total, term]) if p.tree_sum else build.binop(total, gast.Add(), term)
        if p.broadcasting and missing:
            total = build.call("rt.broadcast_to_like", [total, build.name(s.targets[0].id)])
        return total

    def sequence_tangent(self, s, kind, value, defined):
        """Tangent of `x + y` or `x * y` where an operand may be a list or tuple: each operand's
        tangent mapped by the transpose of its cotangent map (`rt.operand_cotangent_t`), which concatenates
        or repeats lists and broadcasts arrays at run time; terms summed leaf by leaf."""
        ops = [(value.left, value.right, 1), (value.right, value.left, 0)]
        terms = [build.call("rt.operand_cotangent_t", [dx, build.name(s.targets[0].id), me, other, build.const(kind),
                                                       build.const(first)])
                 for me, other, first in ops if (dx := self.tangent(me, defined)) is not None]
        total = terms[0] if terms else None
        for term in terms[1:]:
            total = build.call("rt.tree_add", [total, term])
        return total

    def call(self, s, defined) -> list:
        value = s.value
        var = s.targets[0].id
        fn = self.core.ns[value.func.id]
        args = self.bind_call(fn, value)
        tans = [self.tangent(a, defined) for a in args]
        mask = tuple(t is not None for t in tans)
        defined.pop(self.d(var), None)
        if not any(mask):
            return [s]
        self.check_no_mutated_arguments(s, fn, mask)
        jfn = self.calls.jvp(fn, mask)
        base = self.callee_label(fn)
        name = self.bind(f"jvp_{base}", jfn)
        call = build.call(build.name(name), list(args) + [t for t in tans if t is not None])
        defined[self.d(var)] = False
        return [loc(build.assign(build.tuple_([build.name(var), build.name(self.d(var))], store_=True), call), s)]

    def run(self, active_params):
        defined = Defined({self.d(p): False for p in active_params})
        self.assigned = _Assigned()
        self.assigned.update(self.core.params)
        self.live = analysis.Liveness(self.body)
        body = self.block(self.body, defined)
        ret = body[-1]
        out = ret.value
        dout = self.tangent(out, defined) or build.call("rt.zeros_like_tree", [out])
        body[-1] = build.ret(build.tuple_([out, dout]))
        return body, [self.d(p) for p in active_params]


class _Assigned:
    """The variables certainly assigned so far: `own` and, for a branch or loop body, those of
    the set before it (`base`), read through rather than copied (a copy at every `if` made forward
    mode quadratic)."""

    __slots__ = ("base", "own")

    def __init__(self, base=None):
        self.base, self.own = base, set()

    def __contains__(self, name) -> bool:
        return name in self.own or self.base is not None and name in self.base

    def update(self, names) -> None:
        self.own.update(names)


def _mirrors(kind, tangent, defined) -> bool:
    """Whether a tangent aliases other arrays exactly when its primal does, so an in-place update
    of the primal may update the tangent in place too: copies and views inherit it from their
    source; pops and expressions that build a new array have it; a rule that may hand back one of
    its inputs itself does not."""
    if kind in ("copy", "getitem"):
        src = tangent.value if isinstance(tangent, gast.Subscript) else tangent
        return isinstance(src, gast.Name) and defined.get(src.id, False)
    if kind == "list.pop":
        return True
    if isinstance(tangent, gast.Name):
        return False
    if isinstance(tangent, gast.Call) and (p := registry.lookup(analysis.dotted(tangent.func))) is not None \
            and p.aliasing:  # a helper that may hand back one of its inputs itself
        return False
    return isinstance(tangent, (gast.BinOp, gast.UnaryOp, gast.Call, gast.Subscript))


def _replace_arg(call, p, pname, new):
    """Put `new` where parameter `pname` of primitive `p` is passed in `call`."""
    if isinstance(call, gast.UnaryOp):
        call.operand = new
        return
    if isinstance(call, gast.BinOp):
        if p.params.index(pname) == 0:
            call.left = new
        else:
            call.right = new
        return
    idx = p.params.index(pname)
    if idx < len(call.args):
        call.args[idx] = new
        return
    for kw in call.keywords:
        if kw.arg == pname:
            kw.value = new


def jvp_fn(core: CoreFn, mask: tuple, calls: Callees) -> GeneratedFn:
    """jvp_f(*params, *tangents of the params flagged in `mask`) -> (out, tangent_out)."""
    active = [p for p, m in zip(core.params, mask) if m]
    fw = Forward(core, active, calls)
    body, tparams = fw.run(active)
    name = fw.namer.exact(f"jvp_{core.name}")
    return GeneratedFn(name, build.function(name, core.params + tparams, body), {**core.ns, **fw.ns}, core.filename,
                       header_for("jvp", core))
