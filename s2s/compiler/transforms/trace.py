"""Tracing (autograd's tracer, without boxes): after each statement of a core-form function, the
statement that builds its result's node from its arguments' nodes, `n_y = rt.trace_op(make, y,
sin, (x,), {}, (n_x,))`, `make` being the node class the caller gives. Nodes travel in a companion
name per variable (`n_x`), as tangents do in forward mode; a variable's node is None where its
value does not depend on the traced arguments, and the helpers make a node only where some
argument has one. Callees are traced versions of themselves, so the ops of a function s2s
generated (a derivative) are traced like the user's own.

Which variables may have a node is known statically, as a set that only grows: the function is
generated again until the set is stable (a loop's body reads nodes its later statements make), and
in the last pass every assignment of a variable in the set assigns its node too, None where the
statement makes none, so a node is defined wherever its variable is.
"""
from __future__ import annotations

import gast
import numpy as np

from .. import analysis
from ..ir import build
from ..ir.core import CoreFn
from ..primitives import registry
from .base import Callees, Companions, GeneratedFn, Transform, header_for, index_value, loc


class Tracer(Transform):
    """The traced version of one core-form function, tracing the parameters in `active_params`."""

    def __init__(self, core: CoreFn, active_params, calls: Callees):
        super().__init__(core, active_params, calls)
        self.nodes = Companions(self.namer, "n_")
        self.make = self.namer.exact("make_node")
        self.has = set(active_params)  # variables whose node may be set (grows only)

    def n(self, var: str) -> str:
        return self.nodes.name(var)

    def node_of(self, atom):
        """The node of an atom (its companion name), or the constant None."""
        if isinstance(atom, gast.Name) and atom.id in self.has:
            return build.name(self.n(atom.id))
        return build.const(None)

    def traced(self, atom) -> bool:
        return isinstance(atom, gast.Name) and atom.id in self.has

    def set(self, var: str, value, out: list) -> None:
        out.append(build.assign(self.n(var), value))
        self.has.add(var)

    def reset(self, var: str, out: list) -> None:
        """`var` was assigned a value with no node: its companion forgets an older one."""
        if var in self.has:
            out.append(build.assign(self.n(var), build.const(None)))

    def rt(self, helper: str, *args):
        return build.call(f"rt.{helper}", [build.name(self.make), *args])

    # ---- statements ----
    def block(self, stmts) -> list:
        out = []
        for s in stmts:
            if isinstance(s, gast.If):
                out.append(loc(build.if_(s.test, self.block(s.body), self.block(s.orelse)), s))
            elif isinstance(s, gast.For):
                body = self.block(s.body)
                if s.target.id in self.has:  # (a loop index is an int: no node)
                    body.insert(0, build.assign(self.n(s.target.id), build.const(None)))
                out.append(loc(gast.For(target=s.target, iter=s.iter, body=body, orelse=self.block(s.orelse),
                                        type_comment=None), s))
            elif isinstance(s, gast.While):
                out.append(loc(gast.While(test=s.test, body=self.block(s.body), orelse=self.block(s.orelse)), s))
            elif isinstance(s, gast.Return):
                out.append(loc(build.ret(build.tuple_([s.value, self.node_of(s.value)])), s))
            elif isinstance(s, gast.Expr):
                out.extend(self.expr(s))
            elif isinstance(s, gast.Assign):
                out.extend(self.assign(s))
            else:  # comments, pass, break, continue, assert
                out.append(s)
        return out

    def expr(self, s) -> list:
        call = s.value
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr == "append"):
            return [s]
        lst, item = call.func.value.id, call.args[0]
        if lst not in self.has and not self.traced(item):
            return [s]
        out = [s]
        self.set(lst, build.call("rt.trace_appended", [build.name(self.make), self.node_of(call.func.value),
                                                       build.name(lst), self.node_of(item)]), out)
        return out

    def assign(self, s) -> list:
        t = s.targets[0]
        out = [s]
        if isinstance(t, gast.Subscript):
            base = t.value.id
            if base in self.has or self.traced(s.value):
                self.set(base, self.rt("trace_setitem", build.name(base), self.node_of(t.value),
                                       index_value(t.slice), s.value, self.node_of(s.value)), out)
            return out
        if isinstance(t, gast.Tuple):
            names = [e.id for e in t.elts]
            if self.traced(s.value):
                out.append(build.assign(build.tuple_([build.name(self.n(v)) for v in names], store_=True),
                                        self.rt("trace_unpack", s.value, self.node_of(s.value),
                                                build.const(len(names)))))
                self.has.update(names)
            else:
                for v in names:
                    self.reset(v, out)
            return out
        var, value = t.id, s.value
        kind = analysis.classify(value)
        if kind == "call":
            return self.call(s)
        if (p := registry.lookup(kind)) is not None and p.restores:
            self.fail(s, f"s2s cannot trace `{kind}`: it hands back values saved earlier (a gradient's "
                      "checkpoint), whose nodes the trace would lose.", "Trace the function without checkpoint=.")
        if kind == "list.pop":
            lst = value.func.value.id
            if lst in self.has:
                out.append(build.assign(build.tuple_([build.name(self.n(var)), build.name(self.n(lst))], store_=True),
                                        self.rt("trace_pop", build.name(self.n(lst)), build.name(lst), build.name(var))))
                self.has.add(var)
            else:
                self.reset(var, out)
            return out
        node = self.rule(kind, var, value)
        if node is None:
            self.reset(var, out)
            return out
        p = registry.lookup(kind)
        if p is not None and p.mutates and isinstance(node, gast.Call) and isinstance(value, gast.Call) \
                and p.mutated < len(value.args) and isinstance(value.args[p.mutated], gast.Name):
            # a helper that updates an argument in place (a backward sweep's add_at): the node's
            # argument is its value before the update, as it is for every other op
            before = self.namer.fresh("before")
            out.insert(0, build.assign(before, build.call("rt.trace_snapshot", [value.args[p.mutated]])))
            node.args[3].elts[p.mutated] = build.name(before)
        self.set(var, node, out)
        return out

    def rule(self, kind: str, var: str, value):
        """The expression of `var`'s node, or None when it certainly has none."""
        if kind == "const":
            return None
        if kind == "copy":
            return build.name(self.n(value.id)) if self.traced(value) else None
        if kind in ("pack", "dict"):
            elts = value.elts if kind == "pack" else value.values
            if not any(self.traced(e) for e in elts):
                return None
            nodes = [self.node_of(e) for e in elts]
            if kind == "dict":
                return gast.Dict(keys=build.clone(value.keys), values=nodes)
            return build.list_(nodes) if isinstance(value, gast.List) else build.tuple_(nodes)
        if kind == "getitem":
            if not self.traced(value.value):
                return None
            return self.rt("trace_item", build.name(var), self.node_of(value.value), value.value,
                           index_value(value.slice))
        if kind == "attr":
            if not self.traced(value.value):
                return None
            return self.rt("trace_attr", build.name(var), self.node_of(value.value), value.value,
                           build.const(value.attr))
        return self.primitive(kind, var, value)

    def primitive(self, kind: str, var: str, value):
        p = registry.lookup(kind)
        if p is not None and not _makes_node(kind, p):
            return None
        if not isinstance(value, gast.Call) and _operator_function(p) is None:
            return None  # (`not x`, `a is b`, `k in d`: no NumPy function)
        if p is not None and (p.record_copy or p.real_identity):  # a backward sweep's copy of its record, a
            # real cotangent's real part: the same nodes (autograd's tracer has no such op)
            src = value.args[0]
            return build.call("rt.trace_copy", [self.node_of(src)]) if self.traced(src) else None
        if isinstance(value, gast.Call):
            args, kwargs = list(value.args), {k.arg: k.value for k in value.keywords if k.arg is not None}
            fun = build.clone(value.func)
        else:
            args = [value.left, value.right] if isinstance(value, gast.BinOp) else \
                [value.operand] if isinstance(value, gast.UnaryOp) else [value.left, value.comparators[0]]
            kwargs = {}
            fun = build.name(self.bind(_operator_function(p).__name__, _operator_function(p)))
        # (every argument of a NumPy function with a node is a parent, a condition of np.where
        # too, as in autograd; s2s's own helpers read some only for their shape)
        params, shape_only = (list(p.params), p.zero_args) if p is not None and not kind.startswith("xp.") else ([], ())
        parents = [self.node_of(a) if not (i < len(params) and params[i] in shape_only) else build.const(None)
                   for i, a in enumerate(args)]
        by_name = {k: self.node_of(v) for k, v in kwargs.items() if self.traced(v) and k not in shape_only}
        if all(isinstance(n, gast.Constant) for n in parents) and not by_name:
            return None
        call = self.rt("trace_op", build.name(var), fun, build.tuple_(args),
                       gast.Dict(keys=[build.const(k) for k in kwargs], values=list(kwargs.values())),
                       build.tuple_(parents))
        if p is not None and p.aliasing:
            call.keywords.append(gast.keyword(arg="aliasing", value=build.const(True)))
        if by_name:  # (a keyword argument's parent is at its name)
            call.keywords.append(gast.keyword(arg="keyword_parents", value=gast.Dict(
                keys=[build.const(k) for k in by_name], values=list(by_name.values()))))
        return call

    def call(self, s) -> list:
        value = s.value
        var = s.targets[0].id
        fn = self.core.ns[value.func.id]
        args = self.bind_call(fn, value)
        mask = tuple(self.traced(a) for a in args)
        if not any(mask):
            out = [s]
            self.reset(var, out)
            return out
        if self.calls.has_rules(fn):  # the user's primitive (custom_vjp, autograd's `primitive`): one node
            out = [s]
            self.set(var, self.rt("trace_op", build.name(var), value.func, build.tuple_(args), gast.Dict(keys=[], values=[]),
                                  build.tuple_([self.node_of(a) for a in args])), out)
            return out
        traced = self.bind(f"trace_{self.callee_label(fn)}", self.calls.trace(fn, mask))
        call = build.call(build.name(traced), [build.name(self.make), *args,
                                               *[self.node_of(a) for a, m in zip(args, mask) if m]])
        self.has.add(var)
        return [loc(build.assign(build.tuple_([build.name(var), build.name(self.n(var))], store_=True), call), s)]

    def run(self, active_params) -> list:
        while True:  # until the set of variables with a node is stable (a loop reads its body's nodes)
            before = set(self.has)
            body = self.block(self.body)
            if self.has == before:
                break
        # (every assignment of a variable in `has` sets its node: a parameter not traced gets None first)
        start = [build.assign(self.n(v), build.const(None)) for v in self.params
                 if v in self.has and v not in active_params]
        return start + body


def _makes_node(kind: str, p) -> bool:
    """Whether an op of this kind makes a node: autograd's tracer records every NumPy function
    but the shape queries; s2s's own helpers that carry no derivative (a seed, zeros, shapes) are
    not ops of the user's code and make none."""
    if not p.nondiff:
        return True
    return (kind.startswith("xp.") or bool(p.symbol)) and not p.shape_query and not p.number_result


def _operator_function(p):
    """The NumPy function an operator is, as autograd names its nodes (`+` is np.add, `-x`
    np.negative): the ufunc NumPy's arrays call for its symbol, or None (`not`, `is`, `in`)."""
    expr = f"{p.symbol[6:]} a" if p.symbol.startswith("unary ") else f"a {p.symbol} a"
    try:
        fun = eval(expr, {"a": _PROBE})  # (a declared operator's symbol, on the probe array)
    except TypeError:
        return None
    return fun if isinstance(fun, np.ufunc) else None


class _Probe(np.ndarray):
    """An array whose operators hand back the ufunc NumPy would call for them."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return ufunc


_PROBE = np.zeros(()).view(_Probe)


def trace_fn(core: CoreFn, mask: tuple, calls: Callees) -> GeneratedFn:
    """trace_f(make_node, *params, *nodes of the params flagged in `mask`) -> (out, node of out)."""
    active = [p for p, m in zip(core.params, mask) if m]
    tracer = Tracer(core, active, calls)
    body = tracer.run(active)
    name = tracer.namer.exact(f"trace_{core.name}")
    params = [tracer.make, *core.params, *[tracer.n(p) for p in active]]
    return GeneratedFn(name, build.function(name, params, body), {**core.ns, **tracer.ns}, core.filename,
                       header_for("trace", core))
