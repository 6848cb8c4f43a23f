"""Name hygiene: a user's variable never captures a name generated code relies on.

Generated code reaches the array module, the runtime and the builtins through global names
(`xp`, `rt`, `ext`, `stop_gradient`, `len`, `range`, ...: `ir.names.RESERVED`). Before a parsed
function is normalized, every parameter, local, loop or comprehension variable and nested `def`
the user names after one of them is renamed (`xp` -> `xp_1`), scope by scope as Python binds
them, so the rest of the pipeline never sees a user binding of a reserved name. Fresh names come
from a `Namer`, which never hands out a reserved name either: hygiene holds by construction, not
by the luck of the names a user picks. A reserved name the function only reads (a global module
`xp`, the builtin `len`) is not a binding and stays as it is.
"""
from __future__ import annotations

import gast

from ..ir.names import RESERVED, Namer
from .census import Census

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
           gast.GeneratorExp)


def rename_reserved(fn: gast.FunctionDef, facts: Census) -> gast.FunctionDef:
    """`fn` with every user binding of a reserved name renamed (in place; `fn` is returned);
    `facts`: its census (marked stale when a name changes)."""
    if not facts.binds_reserved:
        return fn
    namer = Namer(facts.names | {n.name for n in facts.of(gast.FunctionDef)})
    _scope(fn, {}, namer)
    facts.stale = True
    return fn


def _scope(node, outer: dict, namer: Namer) -> None:
    """Rename inside scope `node` (a def, lambda or comprehension), given the enclosing renames."""
    own = _bound(node) & RESERVED
    mapping = {k: v for k, v in outer.items() if k not in _bound(node)}
    mapping.update({n: namer.exact(n) for n in sorted(own)})
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
        _args(node.args, mapping)
        body = node.body if isinstance(node.body, list) else [node.body]
    else:  # a comprehension: its first iterable belongs to the enclosing scope (renamed there)
        for k, gen in enumerate(node.generators):
            _visit(gen.target, mapping, namer)
            if k:
                _visit(gen.iter, mapping, namer)
            for cond in gen.ifs:
                _visit(cond, mapping, namer)
        body = [node.key, node.value] if isinstance(node, gast.DictComp) else [node.elt]
    for stmt in body:
        _visit(stmt, mapping, namer)


def _args(args, mapping: dict) -> None:
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None and a.id in mapping:
            a.id = mapping[a.id]


def _visit(node, mapping: dict, namer: Namer) -> None:
    """Rename under `node` in the current scope; nested scopes get their own mapping."""
    if isinstance(node, gast.Name):
        node.id = mapping.get(node.id, node.id)
        return
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        node.name = mapping.get(node.name, node.name)
        for d in node.decorator_list + node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            _visit(d, mapping, namer)  # evaluated where the def is
        _scope(node, mapping, namer)
        return
    if isinstance(node, gast.Lambda):
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            _visit(d, mapping, namer)
        _scope(node, mapping, namer)
        return
    if isinstance(node, _SCOPES):
        _visit(node.generators[0].iter, mapping, namer)
        _scope(node, mapping, namer)
        return
    for child in gast.iter_child_nodes(node):
        _visit(child, mapping, namer)


def _bound(node) -> set[str]:
    """Names scope `node` binds: its parameters, the names it stores, its nested defs' names."""
    out: set[str] = set()
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
        a = node.args
        out |= {p.id for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p is not None}
        stack = list(node.body) if isinstance(node.body, list) else [node.body]
    else:
        stack = [g.target for g in node.generators]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            out.add(n.id)
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef)):
            out.add(n.name)
            continue
        if isinstance(n, _SCOPES):
            continue
        stack.extend(gast.iter_child_nodes(n))
    return out
