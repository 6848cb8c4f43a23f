"""A list of functions built by a loop (issue 45, section 5), rewritten in the user's AST before
normalizing into a list literal of functions known now, which the normalizer follows (a loop over
it, an index with a constant):

    fs = []                                 k = 0
    for k in range(3):                      def term_1(u, k=k): ...
        def term(u, k=k): ...       ->      k = 1
        fs.append(term)                     def term_2(u, k=k): ...
                                            ...
                                            fs = [term_1, term_2, term_3]

The loop is unrolled when its sequence is known now (`range` of integer constants, or a tuple or
list literal of constants, at most 64 items), it has no `else`, its body holds only `def`s, simple
assignments to names and `fs.append(f)` of a function made in that iteration (a `def`'s name or a
lambda), and `fs = []` is bound just before it and read nowhere in between. Each iteration binds the
loop variable first, so the defaults (`k=k`) are evaluated with its value then, and a function that
reads the variable without a default reads its last value, as in Python.
"""
from __future__ import annotations

import copy

import gast

from ..ir import build
from .census import Census

_MAX_ITEMS = 64


def rewrite(fn: gast.FunctionDef, facts: Census) -> gast.FunctionDef:
    """Rewrite `fn`'s loops that build lists of functions in place (nested blocks included);
    `facts`: its census (marked stale when there is a loop to look at)."""
    if facts.has(gast.Lambda) or any(type(d) is gast.FunctionDef for d in facts.nested_defs()):
        taken = set(facts.names)
        _block_in(fn, taken)
        facts.stale = True
    return fn


def _block_in(node, taken) -> None:
    for field in ("body", "orelse", "finalbody"):
        stmts = getattr(node, field, None)
        if isinstance(stmts, list):
            for s in stmts:
                if not isinstance(s, gast.FunctionDef):
                    _block_in(s, taken)
            setattr(node, field, _block(stmts, taken))
    for h in getattr(node, "handlers", []) or []:
        _block_in(h, taken)


def _block(stmts: list, taken: set) -> list:
    out: list = []
    for s in stmts:
        unrolled = _unrolled(out, s, taken) or _comprehension(s, taken)
        if unrolled is None:
            out.append(s)
        else:
            out += unrolled
    return out


def _sequence(it) -> list | None:
    """The values of a loop's sequence known now: range of integer constants, or a literal of constants."""
    if isinstance(it, (gast.Tuple, gast.List)) and all(isinstance(e, gast.Constant) for e in it.elts):
        return [e.value for e in it.elts]
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.func.id == "range" and not it.keywords \
            and 1 <= len(it.args) <= 3 and all(isinstance(a, gast.Constant) and type(a.value) is int for a in it.args):
        r = range(*(a.value for a in it.args))
        return list(r) if len(r) <= _MAX_ITEMS else None
    return None


def _appended(s) -> tuple[str, gast.expr] | None:
    """(list name, value) of a statement `name.append(value)`."""
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Attribute) \
            and s.value.func.attr == "append" and isinstance(s.value.func.value, gast.Name) \
            and len(s.value.args) == 1 and not s.value.keywords:
        return s.value.func.value.id, s.value.args[0]
    return None


def _fresh(base: str, taken: set) -> str:
    i = 1
    while f"{base}_{i}" in taken:
        i += 1
    taken.add(f"{base}_{i}")
    return f"{base}_{i}"


def _unrolled(before: list, loop, taken: set) -> list | None:
    """The statements that replace `loop` (and the `fs = []` it appends to, taken off `before`), or
    None when the loop is not one that builds a list of functions."""
    if not (isinstance(loop, gast.For) and isinstance(loop.target, gast.Name) and not loop.orelse):
        return None
    values = _sequence(loop.iter)
    if values is None:
        return None
    defs = {s.name for s in loop.body if isinstance(s, gast.FunctionDef)}
    lists = set()
    for s in loop.body:
        app = _appended(s)
        if app is not None and (isinstance(app[1], gast.Lambda) or isinstance(app[1], gast.Name) and app[1].id in defs):
            lists.add(app[0])
        elif not (isinstance(s, (gast.FunctionDef, gast.Pass)) or isinstance(s, gast.Assign) and all(
                isinstance(t, gast.Name) for t in s.targets)):
            return None
    if len(lists) != 1:
        return None
    (name,) = lists
    init = _initialized_empty(before, name)
    if init is None or any(isinstance(n, gast.Name) and n.id == name for s in loop.body if _appended(s) is None
                           for n in gast.walk(s)):
        return None
    before.pop(init)
    out, items = [], []
    var = loop.target.id
    for v in values:
        out.append(build.located(build.assign(build.name(var, store=True), build.const(v)), loop, only_missing=True))
        renamed: dict[str, str] = {}
        for s in loop.body:
            app = _appended(s)
            if app is not None:
                value = app[1]
                if isinstance(value, gast.Lambda):
                    item = _fresh("item", taken)
                    out.append(build.located(build.assign(build.name(item, store=True), copy.deepcopy(value)), s,
                                             only_missing=True))
                else:
                    item = renamed[value.id]
                items.append(item)
                continue
            s = copy.deepcopy(s)
            if isinstance(s, gast.FunctionDef):
                renamed[s.name] = s.name = _fresh(s.name, taken)
            out.append(s)
    out.append(build.located(build.assign(build.name(name, store=True), build.list_([build.name(i) for i in items])),
                             loop, only_missing=True))
    return out


def _initialized_empty(before: list, name: str) -> int | None:
    """The position in `before` of `name = []`, read and bound nowhere after it; else None."""
    for i in range(len(before) - 1, -1, -1):
        s = before[i]
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) \
                and s.targets[0].id == name:
            return i if isinstance(s.value, gast.List) and not s.value.elts else None
        if any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(s)):
            return None
    return None


def _makes_function(e) -> bool:
    """A lambda, or a call of `partial` (functools.partial written as `partial` or `functools.partial`)."""
    return isinstance(e, gast.Lambda) or isinstance(e, gast.Call) and (
        isinstance(e.func, gast.Name) and e.func.id == "partial"
        or isinstance(e.func, gast.Attribute) and e.func.attr == "partial")


def _comprehension(s, taken: set) -> list | None:
    """`fs = [lambda u, k=k: ... for k in range(3)]` (or of `partial(term, k=k)`) as one assignment
    per item, the comprehension's variable renamed in each to a fresh local bound to its value first
    (and, in a lambda's body, to one bound to its last value, as Python's closures read it)."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
            and isinstance(s.value, gast.ListComp) and len(s.value.generators) == 1 and _makes_function(s.value.elt)):
        return None
    gen = s.value.generators[0]
    values = _sequence(gen.iter)
    if values is None or gen.ifs or not isinstance(gen.target, gast.Name):
        return None
    var = gen.target.id
    last = _fresh(var, taken)  # what a function's body reads when called: the variable's last value
    out, items = [], []
    for v in values:  # (a name per item, bound once: a partial reads its arguments' names when called)
        fresh = _fresh(var, taken)
        out.append(build.located(build.assign(build.name(fresh, store=True), build.const(v)), s, only_missing=True))
        item = _fresh("item", taken)
        out.append(build.located(build.assign(build.name(item, store=True), _renamed(s.value.elt, var, fresh, last)),
                                 s, only_missing=True))
        items.append(item)
    if values:
        out.append(build.located(build.assign(build.name(last, store=True), build.const(values[-1])), s,
                                 only_missing=True))
    out.append(build.located(build.assign(s.targets[0], build.list_([build.name(i) for i in items])), s,
                             only_missing=True))
    return out


def _renamed(e, var: str, fresh: str, last: str):
    """A copy of `e` with the reads of `var` renamed: to `fresh` where Python evaluates them now (a
    lambda's defaults, a call's arguments), to `last` in a lambda's body (read when it is called),
    but for a parameter of the lambda's own."""
    e = copy.deepcopy(e)

    def visit(node, name, bound):
        if isinstance(node, gast.Lambda):
            for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                visit(d, name, bound)
            visit(node.body, last, bound | {a.id for a in node.args.args + node.args.kwonlyargs})
            return
        if isinstance(node, gast.Name) and node.id == var and var not in bound:
            node.id = name
        for child in gast.iter_child_nodes(node):
            visit(child, name, bound)

    visit(e, fresh, frozenset())
    return e
