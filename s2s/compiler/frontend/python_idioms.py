"""Python that real code uses, rewritten in the user's AST before normalizing (issue 45, section 3).

Each rewrite gives what Python computes, in constructs the normalizer already follows:
- `pi, sqrt = np.pi, np.sqrt` (names bound in parallel to values that read none of them) becomes
  one assignment per name, so a function alias is resolved as `sqrt = np.sqrt` is;
- `a, *rest, b = x` becomes `a = t[0]`, `rest = list(t[1:-1])`, `b = t[-1]` of `t = x`, after a
  check that `x` has enough items (Python's ValueError);
- `(n := v)` in a statement's expression becomes `n = v` before the statement, where Python's order
  of evaluation is kept: not in a `while` test, a comprehension, a lambda, after `and`/`or` or in a
  conditional expression, nor when the statement reads `n` elsewhere (those stay refused);
- `d = {**a, "k": v}` becomes one dict literal when the keys of each `**` source are known now (a
  dict literal bound once and never stored into), else a copy of the first and stores in order;
- `reversed(s)` becomes `s[::-1]` (a list, tuple or range), `filter(f, xs)` `[v for v in xs if
  f(v)]`, `math.pow(a, b)` `float(a ** b)`, and `math.fsum(xs)` `float(sum(xs))`;
- `max(items, key=f)` (and `min`) of a name or a display of names takes the keys `[f(v) for v in
  items]` along, and picks the item at the first largest key as `max(items)` picks by value.
"""
from __future__ import annotations

import builtins
import copy
import math

import gast
import numpy as np

from ..ir import build
from ..ir.core import SourceRewriter
from ..primitives.registry import EXT
from .census import Census

_HOISTS_FROM = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return, gast.If)
_SCOPES = (gast.Lambda, gast.ListComp, gast.DictComp, gast.SetComp, gast.GeneratorExp, gast.FunctionDef)


def rewrite(fn: gast.FunctionDef, lookup, facts: Census) -> gast.FunctionDef:
    """Rewrite `fn` in place; `lookup(name)` is the environment's (found, object) for a global;
    `facts`: its census (marked stale when the tree changes)."""
    state = _State(fn, lookup, facts.locals, facts.names)
    if any(_call_kind(state, c) for c in facts.of(gast.Call)):  # (else the visit would change nothing)
        _Calls(state).visit(fn)
        facts.stale = True
    state.walrus = facts.has(gast.NamedExpr)
    fn.body = state.block(fn.body)
    if state.changed:
        facts.stale = True
    return fn


class _State(SourceRewriter):
    walrus = True  # whether the function may hold a `:=` (else no statement is searched for one)
    changed = False  # whether a statement was rewritten

    def resolves_to(self, node, obj) -> bool:
        """Whether the name or attribute chain `node` is `obj` (a global, not a local)."""
        found, value = self.global_value(node)
        return found and value is obj

    def statement(self, s) -> list:
        out = self._statement(s)
        if len(out) != 1 or out[0] is not s:
            self.changed = True
        return out

    def _statement(self, s) -> list:
        if isinstance(s, _HOISTS_FROM) and self.walrus:
            pre = _walrus(self, s)
            if pre:
                return pre + self._statement(s)
        if isinstance(s, gast.Assign) and len(s.targets) == 1:
            split = _parallel(self, s) or _starred(self, s) or _merged(self, s)
            if split:
                return split
        if isinstance(s, gast.For):
            return _row_views(self, s) or [s]
        return [s]

    def numpy_name(self) -> str | None:
        """A global name of the function bound to the numpy module (what a rewrite may call)."""
        for name in sorted(self.taken - self.locals):
            found, value = self.lookup(name)
            if found and value is np:
                return name
        return None


def _located(new, old):
    return gast.copy_location(new, old)


def _names(node) -> set:
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}


def _parallel(state, s):
    """`a, b = e1, e2` as `a = e1; b = e2` when no value reads a target and every target is a name."""
    t, v = s.targets[0], s.value
    if not (isinstance(t, (gast.Tuple, gast.List)) and isinstance(v, (gast.Tuple, gast.List))
            and len(t.elts) == len(v.elts) and all(isinstance(e, gast.Name) for e in t.elts)):
        return None
    targets = {e.id for e in t.elts}
    if len(targets) != len(t.elts) or any(_names(e) & targets for e in v.elts) \
            or any(isinstance(e, gast.Starred) for e in v.elts):
        return None
    return [_located(build.assign(build.name(a.id, store=True), b), s) for a, b in zip(t.elts, v.elts)]


def _starred(state, s):
    """`a, *rest, b = x` as indexing of one temporary, after Python's check of its length."""
    t = s.targets[0]
    if not isinstance(t, (gast.Tuple, gast.List)):
        return None
    stars = [i for i, e in enumerate(t.elts) if isinstance(e, gast.Starred)]
    if len(stars) != 1 or not all(isinstance(e, gast.Name) for e in t.elts if not isinstance(e, gast.Starred)) \
            or not isinstance(t.elts[stars[0]].value, gast.Name):
        return None
    k = stars[0]
    before, after = k, len(t.elts) - k - 1
    tmp = state.fresh("unpacked")
    out = [build.assign(build.name(tmp, store=True), s.value)]
    need = before + after
    short = gast.Compare(left=build.call("len", [build.name(tmp)]), ops=[gast.Lt()], comparators=[build.const(need)])
    out.append(build.if_(short, [gast.Raise(exc=build.call("ValueError", [build.const(
        f"not enough values to unpack (expected at least {need})")]), cause=None)], []))
    for i in range(before):
        out.append(build.assign(build.name(t.elts[i].id, store=True), gast.Subscript(
            value=build.name(tmp), slice=build.const(i), ctx=gast.Load())))
    rest = gast.Slice(lower=build.const(before) if before else None,
                      upper=build.const(-after) if after else None, step=None)
    out.append(build.assign(build.name(t.elts[k].value.id, store=True),
                            build.call("list", [gast.Subscript(value=build.name(tmp), slice=rest, ctx=gast.Load())])))
    for j in range(after):
        out.append(build.assign(build.name(t.elts[k + 1 + j].id, store=True), gast.Subscript(
            value=build.name(tmp), slice=build.const(j - after), ctx=gast.Load())))
    for o in out:
        _located(o, s)
        for n in gast.walk(o):
            if hasattr(n, "lineno") or isinstance(n, (gast.expr, gast.stmt)):
                gast.copy_location(n, s)
    return out


def _row_views(state, s):
    """`for row in M: ... row op= v ...`: the rows of an array are views, so NumPy's `op=` changes
    `M`. Where `M` has two or more dimensions, a loop over the row indices in which `row` reads
    `M[i]` and `row op= v` is the element update `M[i] op= v` (which s2s follows); a 1-d `M`'s
    items are NumPy scalars, which `op=` rebinds: the loop as written, with `row = row op v`. Only
    where `row` is bound by this loop and its updates, is read nowhere else, and is only read
    (no item store, no method call), and the body binds or stores into `M` nowhere (else None: the
    alias check's refusal stays)."""
    t, m = s.target, s.iter
    if not (isinstance(t, gast.Name) and isinstance(m, gast.Name) and t.id != m.id):
        return None
    inside = [n for b in s.body for n in gast.walk(b)]
    augs = [n for n in inside if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name)
            and n.target.id == t.id]
    np_name = state.numpy_name() if augs else None
    if np_name is None or any(isinstance(n, (gast.FunctionDef, gast.Lambda, gast.ClassDef) + _SCOPES[:-1])
                              for n in inside):
        return None
    mine = {id(n) for n in gast.walk(s)}
    targets = {id(a.target) for a in augs} | {id(t)}
    uses = [n for n in gast.walk(state.fn) if isinstance(n, gast.Name) and n.id == t.id]
    if any(id(n) not in mine or id(n) not in targets and not isinstance(n.ctx, gast.Load) for n in uses):
        return None
    held = {id(n.value) for n in inside if isinstance(n, (gast.Subscript, gast.Attribute))
            and (not isinstance(n.ctx, gast.Load) or isinstance(n, gast.Attribute))}
    if any(id(n) in held for n in uses):
        return None  # (`row[0] = v`, `row.sort()`: left to the alias check)
    if any(isinstance(n, gast.Name) and n.id == m.id and not isinstance(n.ctx, gast.Load) for n in inside) or any(
            isinstance(n, (gast.Subscript, gast.Attribute)) and not isinstance(n.ctx, gast.Load)
            and m.id in _names(n) for n in inside):
        return None
    i = state.fresh("row_index")

    class _Rows(gast.NodeTransformer):
        def visit_Name(self, n):
            if n.id == t.id and isinstance(n.ctx, gast.Load):
                return _located(gast.Subscript(value=build.name(m.id), slice=build.name(i), ctx=gast.Load()), n)
            return n

        def visit_AugAssign(self, a):
            self.generic_visit(a)
            if not any(a is b for b in aug_copies):
                return a
            a.target = _located(gast.Subscript(value=build.name(m.id), slice=build.name(i), ctx=gast.Store()), a)
            return a

    viewed = copy.deepcopy(s)
    aug_copies = [n for n in gast.walk(viewed) if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name)
                  and n.target.id == t.id]
    viewed.body = [_Rows().visit(b) for b in viewed.body]
    viewed.target = build.name(i, store=True)
    viewed.iter = build.call("range", [build.call("len", [build.name(m.id)])])
    for a in augs:  # (the loop as written, for a 1-d `M`: its items are numbers)
        rebound = gast.Assign(targets=[build.name(t.id, store=True)],
                              value=gast.BinOp(left=build.name(t.id), op=a.op, right=a.value), type_comment=None)
        a.__class__, a.__dict__ = gast.Assign, rebound.__dict__
    nd = build.call(build.attr(build.name(np_name), "ndim"), [build.name(m.id)])
    test = gast.Compare(left=nd, ops=[gast.Gt()], comparators=[build.const(1)])
    out = build.if_(test, [viewed], [s])
    for n in gast.walk(out):
        if isinstance(n, (gast.expr, gast.stmt)) and not hasattr(n, "lineno"):
            gast.copy_location(n, s)
        elif isinstance(n, (gast.expr, gast.stmt)) and getattr(n, "lineno", None) is None:
            gast.copy_location(n, s)
    return [out]


def _literal_keys(state, src):
    """The constant keys of dict `src` when it is a name bound once, to a dict literal with constant
    keys, never stored into and only read by `src[k]` or `**src` (so its keys are known now); else
    None."""
    if not isinstance(src, gast.Name) or src.id not in state.locals:
        return None
    binds = [n for n in gast.walk(state.fn) if isinstance(n, gast.Assign) and any(
        isinstance(t, gast.Name) and t.id == src.id for t in n.targets)]
    stores = [n for n in gast.walk(state.fn) if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store)
              and isinstance(n.value, gast.Name) and n.value.id == src.id]
    names = [n for n in gast.walk(state.fn) if isinstance(n, gast.Name) and n.id == src.id
             and isinstance(n.ctx, gast.Store)]
    if len(binds) != 1 or len(names) != 1 or stores or not isinstance(binds[0].value, gast.Dict):
        return None
    read_whole = {id(n.value) for n in gast.walk(state.fn) if isinstance(n, gast.Subscript)} | \
        {id(v) for n in gast.walk(state.fn) if isinstance(n, gast.Dict) for k, v in zip(n.keys, n.values) if k is None}
    if any(isinstance(n, gast.Name) and n.id == src.id and isinstance(n.ctx, gast.Load) and id(n) not in read_whole
           for n in gast.walk(state.fn)):
        return None  # (passed on or a method called: it may change)
    keys = binds[0].value.keys
    if not all(isinstance(k, gast.Constant) for k in keys):
        return None
    return [k.value for k in keys]


def _merged(state, s):
    """`d = {**a, "k": v, **b}`: with every `**` source's keys known now, one dict literal of their
    items (later keys win, at the first one's place, as Python's); otherwise the first source copied
    by a comprehension and the rest stored in order."""
    v = s.value
    if not (isinstance(v, gast.Dict) and any(k is None for k in v.keys) and isinstance(s.targets[0], gast.Name)):
        return None
    items: dict = {}
    static = True
    for k, val in zip(v.keys, v.values):
        keys = _literal_keys(state, val) if k is None else [k.value] if isinstance(k, gast.Constant) else None
        if keys is None:
            static = False
            break
        for key in keys:
            read = gast.Subscript(value=build.name(val.id), slice=build.const(key), ctx=gast.Load()) if k is None \
                else val
            if key in items and not isinstance(items[key], gast.Subscript):
                static = False  # (an explicit value Python evaluates and drops: kept in order below)
            items[key] = read
    if static:
        new = gast.Dict(keys=[build.const(k) for k in items], values=list(items.values()))
        return [_located(build.assign(s.targets[0], _located(new, v)), s)]
    out, name = [], s.targets[0].id
    tmp = state.fresh("merged")
    for i, (k, val) in enumerate(zip(v.keys, v.values)):
        if i == 0:
            key = state.fresh("key")
            first = gast.DictComp(key=build.name(key), value=gast.Subscript(
                value=val, slice=build.name(key), ctx=gast.Load()), generators=[gast.comprehension(
                    target=build.name(key, store=True), iter=_keys(val), ifs=[], is_async=0)]) if k is None \
                else gast.Dict(keys=[k], values=[val])
            out.append(build.assign(build.name(tmp, store=True), first))
        elif k is None:
            key = state.fresh("key")
            out.append(gast.For(target=build.name(key, store=True), iter=_keys(val), body=[build.assign(
                gast.Subscript(value=build.name(tmp), slice=build.name(key), ctx=gast.Store()),
                gast.Subscript(value=val, slice=build.name(key), ctx=gast.Load()))], orelse=[], type_comment=None))
        else:
            out.append(build.assign(gast.Subscript(value=build.name(tmp), slice=k, ctx=gast.Store()), val))
    out.append(build.assign(build.name(name, store=True), build.name(tmp)))
    for o in out:
        for n in gast.walk(o):
            if isinstance(n, (gast.expr, gast.stmt)):
                gast.copy_location(n, s)
    return out


def _keys(d):
    return build.call(build.attr(copy.deepcopy(d), "keys"), [])


def _walrus(state, s) -> list:
    """The `n = v` assignments that hoist the walrus expressions of statement `s` (replaced by `n`)."""
    found = []

    def visit(node, safe):
        for field, value in gast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for i, child in enumerate(children):
                if not isinstance(child, gast.AST) or isinstance(child, (gast.stmt, *_SCOPES)):
                    continue
                ok = safe and not isinstance(node, gast.IfExp) and not (isinstance(node, gast.BoolOp) and i > 0)
                if isinstance(child, gast.NamedExpr) and ok:
                    visit(child, ok)
                    found.append(child)
                    repl = _located(build.name(child.target.id), child)
                    if isinstance(value, list):
                        value[i] = repl
                    else:
                        setattr(node, field, repl)
                else:
                    visit(child, ok)

    parts = [s.test] if isinstance(s, gast.If) else [s] if not isinstance(s, gast.If) else []
    if not any(isinstance(n, gast.NamedExpr) for p in parts for n in gast.walk(p)):
        return []
    probe = copy.deepcopy(s)
    if isinstance(s, gast.If):
        holder = gast.Expr(value=s.test)
        visit(holder, True)
        s.test = holder.value
    else:
        visit(s, True)
    targets = [w.target.id for w in found]
    reads = [n.id for n in gast.walk(probe.test if isinstance(probe, gast.If) else probe)
             if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Store)]
    if len(set(targets)) != len(targets) or any(reads.count(t) for t in targets):
        return _undo(s, probe)
    return [_located(build.assign(build.name(w.target.id, store=True), w.value), s) for w in found]


def _undo(s, probe):
    """Put the statement back as written (its walrus stays refused by the normalizer)."""
    for field, value in gast.iter_fields(probe):
        setattr(s, field, value)
    return []


def _filtered(st, node):
    """`filter(f, xs)` as `[v for v in xs if f(v)]` (a one-parameter lambda's body inlined, its
    parameter the loop's name; `None` keeps the true items), a list where Python's is an iterator
    consumed once, as s2s's generators are."""
    f, xs = node.args
    if isinstance(f, gast.Lambda) and len(f.args.args) == 1 and not f.args.defaults \
            and not (f.args.vararg or f.args.kwarg or f.args.kwonlyargs or f.args.posonlyargs):
        var, test = f.args.args[0].id, f.body
    else:
        var = st.fresh("item")
        test = build.name(var) if isinstance(f, gast.Constant) and f.value is None else \
            build.call(f, [build.name(var)])
    comp = gast.comprehension(target=build.name(var, store=True), iter=xs, ifs=[test], is_async=0)
    return _located(gast.ListComp(elt=build.name(var), generators=[comp]), node)


def _pure_items(items) -> bool:
    """A name, or a list or tuple display of names and literals: reading it twice reads the same items."""
    if isinstance(items, (gast.List, gast.Tuple)):
        return all(_pure_item(e) for e in items.elts)
    return isinstance(items, gast.Name)


def _pure_item(e) -> bool:
    """A name, a literal, or an item of a name at such an index (`x[0]`, `x[i]`)."""
    if isinstance(e, gast.Subscript):
        return isinstance(e.value, gast.Name) and _pure_item(e.slice)
    if isinstance(e, gast.UnaryOp):
        return _pure_item(e.operand)
    return isinstance(e, (gast.Name, gast.Constant))


def _keyed(st, node):
    """`max(items, key=f)` as `max(items, s2s_keys=[f(v) for v in items])`, which builtin_call lowers
    to the item at the first largest key (Python's `max` with a key), so `f` is called, not held."""
    items, f = node.args[0], node.keywords[0].value
    var = st.fresh("item")
    if isinstance(f, gast.Lambda) and len(f.args.args) == 1 and not f.args.defaults \
            and not (f.args.vararg or f.args.kwarg or f.args.kwonlyargs or f.args.posonlyargs):
        var, key = f.args.args[0].id, f.body
    else:
        key = build.call(f, [build.name(var)])
    comp = gast.comprehension(target=build.name(var, store=True), iter=copy.deepcopy(items), ifs=[], is_async=0)
    keys = _located(gast.ListComp(elt=key, generators=[comp]), node)
    return _located(gast.Call(func=node.func, args=[items], keywords=[gast.keyword(arg="s2s_keys", value=keys)]), node)


def _defaulted(calls, node):
    """`max(items, default=d)` (and `min`, with `key=` too): `d` where `items` is empty, else the
    call without `default` (rewritten again: `key=`). An empty display is `d` itself; a local name
    is tested by `len`, which s2s knows when transforming."""
    items = node.args[0]
    default = next(k.value for k in node.keywords if k.arg == "default")
    rest = [k for k in node.keywords if k.arg != "default"]
    if isinstance(items, (gast.List, gast.Tuple)) and not items.elts:
        return default
    call = _located(gast.Call(func=node.func, args=[items], keywords=rest), node)
    kind = _call_kind(calls.state, call)
    call = _keyed(calls.state, call) if kind == "keyed" else call
    if isinstance(items, (gast.List, gast.Tuple)) and not any(isinstance(e, gast.Starred) for e in items.elts):
        return call
    empty = gast.Compare(left=build.call("len", [copy.deepcopy(items)]), ops=[gast.Eq()], comparators=[build.const(0)])
    return _located(gast.IfExp(test=_located(empty, node), body=default, orelse=call), node)


class _Calls(gast.NodeTransformer):
    """reversed(s) -> s[::-1]; filter(f, xs) -> [v for v in xs if f(v)]; math.pow(a, b) ->
    float(a ** b); pow(a, b) -> a ** b; math.fsum(xs) -> float(sum(xs)); sum(xs, s) -> sum([s, *xs]);
    max(a, b, key=f) -> max([a, b], key=f)."""

    def __init__(self, state):
        self.state = state

    def visit_Call(self, node):
        self.generic_visit(node)
        st, kind = self.state, _call_kind(self.state, node)
        if kind == "keyed":
            return _keyed(st, node)
        if kind == "reversed":
            step = gast.Slice(lower=None, upper=None, step=build.const(-1))
            return _located(gast.Subscript(value=node.args[0], slice=step, ctx=gast.Load()), node)
        if kind in ("pow", "builtin_pow"):
            power = _located(gast.BinOp(left=node.args[0], op=gast.Pow(), right=node.args[1]), node)
            return _located(build.call("float", [power]), node) if kind == "pow" else power
        if kind == "sum_start":  # sum(xs, s): s + xs[0] + xs[1] + ..., the order Python adds in
            start = node.args[1] if len(node.args) == 2 else node.keywords[0].value
            xs = node.args[0]
            if isinstance(xs, (gast.List, gast.Tuple)):
                items = gast.List(elts=[start, *xs.elts], ctx=gast.Load())
            else:  # ([s] + [f(v) for v in vs], [s] + list(xs))
                rest = gast.ListComp(elt=xs.elt, generators=xs.generators) if isinstance(xs, gast.GeneratorExp) \
                    else xs if isinstance(xs, gast.ListComp) else build.call("list", [xs])
                items = gast.BinOp(left=gast.List(elts=[start], ctx=gast.Load()), op=gast.Add(), right=_located(rest, node))
            return _located(gast.Call(func=node.func, args=[_located(items, node)], keywords=[]), node)
        if kind == "keyed_args":  # max(a, b, key=f): the largest of the arguments
            items = _located(gast.List(elts=node.args, ctx=gast.Load()), node)
            return _keyed(st, _located(gast.Call(func=node.func, args=[items], keywords=node.keywords), node))
        if kind == "default":
            return _defaulted(self, node)
        if kind == "filter":
            return _filtered(st, node)
        if kind == "fsum":
            return _located(build.call("float", [_located(build.call("sum", [node.args[0]]), node)]), node)
        return node


def _call_kind(st, node) -> str | None:
    """Which rewrite of `_Calls` call `node` gets (keyed, reversed, pow, filter, fsum, ...), or None."""
    f = node.func
    if len(node.args) == 1 and [k.arg for k in node.keywords] == ["key"] and _pure_items(node.args[0]) \
            and (st.resolves_to(f, builtins.max) or st.resolves_to(f, builtins.min)):
        return "keyed"
    if len(node.args) > 1 and [k.arg for k in node.keywords] == ["key"] and _pure_items(gast.List(elts=node.args)) \
            and (st.resolves_to(f, builtins.max) or st.resolves_to(f, builtins.min)):
        return "keyed_args"
    if any(isinstance(a, gast.Starred) for a in node.args):
        return None
    kws = [k.arg for k in node.keywords]
    if len(node.args) == 1 and "default" in kws and set(kws) <= {"default", "key"} \
            and (isinstance(node.args[0], (gast.List, gast.Tuple)) or isinstance(node.args[0], gast.Name)
                 and node.args[0].id in st.locals) \
            and (st.resolves_to(f, builtins.max) or st.resolves_to(f, builtins.min)):
        return "default"
    if (len(node.args) == 2 and not node.keywords or len(node.args) == 1 and [k.arg for k in node.keywords] == ["start"]) \
            and st.resolves_to(f, builtins.sum):
        return "sum_start"
    if node.keywords:
        return None
    if len(node.args) == 2 and st.resolves_to(f, builtins.pow):
        return "builtin_pow"
    if len(node.args) == 1 and st.resolves_to(f, builtins.reversed):
        return "reversed"
    if len(node.args) == 2 and st.resolves_to(f, math.pow):
        return "pow"
    if len(node.args) == 2 and st.resolves_to(f, builtins.filter):
        return "filter"
    if len(node.args) == 1 and st.resolves_to(f, math.fsum):
        return "fsum"
    return None


def builtin_call(norm, obj, args, kws):
    """`round`, `any`, `all`, and `max`/`min` of one list (Python's whole-value comparison: the
    first largest item, `ext.s2s_py_pick(items, ext.s2s_py_argmax(items))`) as core form; None for another call."""
    if obj in (round, any, all):
        return build.call(obj.__name__, args, kws)
    if obj in (max, min) and len(args) == 1 and (not kws or list(kws) == ["s2s_keys"]):
        norm.ns["ext"] = EXT  # (s2s_keys: the keys of `key=f`, python_idioms._keyed)
        pos = norm.tmp(build.call("ext.s2s_py_argmax" if obj is max else "ext.s2s_py_argmin", [kws.get("s2s_keys",
                                                                                                        args[0])]))
        return build.call("ext.s2s_py_pick", [args[0], pos])
    return None
