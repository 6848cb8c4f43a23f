"""The nodes of a parsed def by kind, from one walk: what the rewrites before normalizing ask of
the whole function (is there a walrus, a nested def, a binding of a reserved name, a call of
`reversed`?) without each walking it again (issue 43: those walks were a sixth of compile time).

A census describes the tree as it was walked. A rewrite that changes the tree marks it `stale`,
and `current()` then takes a new one; it is never kept beyond the normalizer of one parsed def.
"""
from __future__ import annotations

import gast

from ..ir.names import RESERVED

_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef)


class Census:
    """`fn`'s nodes grouped by class (`of(cls)`), and the name facts several passes share."""

    def __init__(self, fn: gast.FunctionDef):
        self.fn = fn
        self.stale = False
        nodes: dict[type, list] = {}
        stack = [fn]
        pop, push, extend, ast_ = stack.pop, stack.append, stack.extend, gast.AST
        while stack:
            n = pop()
            cls = type(n)
            group = nodes.get(cls)
            if group is None:
                nodes[cls] = [n]
            else:
                group.append(n)
            for field in n._fields:
                value = getattr(n, field, None)
                if value.__class__ is list:
                    extend(v for v in value if isinstance(v, ast_))
                elif isinstance(value, ast_):
                    push(value)
        self.nodes = nodes
        names = nodes.get(gast.Name, ())
        self.names = {n.id for n in names}  # (build.names_in)
        self.stores: dict[str, int] = {}  # name -> its bindings: stores, params, dels, 2 per nested def
        self.locals = {a.id for a in fn.args.args}  # (ir.core.local_names)
        self.binds_reserved = False  # a parameter, store or nested def named like a reserved name
        for n in names:
            ctx = type(n.ctx)
            if ctx is gast.Store or ctx is gast.Param or ctx is gast.Del:
                self.stores[n.id] = self.stores.get(n.id, 0) + 1
                if ctx is gast.Store:
                    self.locals.add(n.id)
                if ctx is not gast.Del and n.id in RESERVED:
                    self.binds_reserved = True
        for d in self.nested_defs():
            self.stores[d.name] = self.stores.get(d.name, 0) + 2
            if type(d) is gast.FunctionDef:
                self.locals.add(d.name)
            if d.name in RESERVED:
                self.binds_reserved = True

    def of(self, *classes) -> list:
        """The nodes of these classes (in no particular order)."""
        if len(classes) == 1:
            return self.nodes.get(classes[0], [])
        return [n for cls in classes for n in self.nodes.get(cls, ())]

    def has(self, *classes) -> bool:
        return any(cls in self.nodes for cls in classes)

    def nested_defs(self) -> list:
        """The `def`s inside the function (not the function itself)."""
        return [d for d in self.of(*_DEFS) if d is not self.fn]

    def current(self) -> Census:
        """This census, or a new one if a rewrite changed the tree since."""
        return Census(self.fn) if self.stale else self
