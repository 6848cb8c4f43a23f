"""`s2s.vjp(f, x)[1](ct)` and `pullback = s2s.vjp(f, x)[1]` inside a transformed function (issue 45,
section 5), rewritten in the user's AST before normalizing into the form the normalizer follows:
`y, pullback = s2s.vjp(f, x)` on a line of its own (function_calls.vjp_assign), then `pullback(ct)`.

A statement `name = s2s.vjp(...)[k]` binds the pair with `name` at position k. An item read inside
a larger expression is hoisted: the pair is bound just before the statement, where Python's order
of evaluation allows it (not inside a lambda or comprehension, after `and`/`or`, in a conditional
expression or a `while` test; those stay refused by the normalizer with its hint).
"""
from __future__ import annotations

import gast

from ...base import record
from ..ir import build
from ..ir.core import SourceRewriter
from .census import Census

_HOISTS_FROM = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return)
_SCOPES = (gast.Lambda, gast.ListComp, gast.DictComp, gast.SetComp, gast.GeneratorExp, gast.FunctionDef)


def rewrite(fn: gast.FunctionDef, lookup, facts: Census) -> gast.FunctionDef:
    """Rewrite `fn` in place; `lookup(name)` is the environment's (found, object) for a global;
    `facts`: its census (marked stale when the tree changes)."""
    items = [n for n in facts.of(gast.Subscript) if isinstance(n.slice, gast.Constant) and n.slice.value in (0, 1)
             and isinstance(n.value, gast.Call)]
    if not items:
        return fn
    rw = _Rewriter(fn, lookup, facts.locals, facts.names)
    if any(rw.is_vjp_item(n) for n in items):
        fn.body = rw.block(fn.body)
        facts.stale = True
    return fn


class _Rewriter(SourceRewriter):
    def is_vjp(self, node) -> bool:
        """Whether `node` is a call of s2s.vjp (or JAX's name for it through alias_jax): a global
        whose record has an inside form, named vjp."""
        if not isinstance(node, gast.Call):
            return False
        found, obj = self.global_value(node.func)
        rec = record.of(obj) if found and obj is not None else None
        return rec is not None and rec.inside is not None and getattr(obj, "__name__", "") == "vjp"

    def is_vjp_item(self, node) -> bool:
        return isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant) \
            and node.slice.value in (0, 1) and self.is_vjp(node.value)

    def statement(self, s) -> list:
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) \
                and self.is_vjp_item(s.value):  # pullback = s2s.vjp(f, x)[1]
            k = s.value.slice.value
            names = [build.name(self.fresh("unused"), store=True), build.name(s.targets[0].id, store=True)]
            if k == 0:
                names.reverse()
            return [build.located(build.assign(gast.Tuple(elts=names, ctx=gast.Store()), s.value.value), s,
                                  only_missing=True)]
        if not isinstance(s, _HOISTS_FROM):
            return [s]
        pre: list = []
        self.hoist(s, pre, True)
        return pre + [s]

    def hoist(self, node, pre: list, safe: bool) -> None:
        """Replace each vjp item read in `node` where hoisting keeps Python's order by a name bound
        in `pre` (the statements before `node`'s statement)."""
        for field, value in gast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for i, child in enumerate(children):
                if not isinstance(child, gast.AST) or isinstance(child, (gast.stmt, *_SCOPES)):
                    continue
                ok = safe and not isinstance(node, gast.IfExp) and not (isinstance(node, gast.BoolOp) and i > 0)
                if ok and self.is_vjp_item(child):
                    self.hoist(child.value, pre, ok)  # (a vjp item among its arguments first)
                    pair = [self.fresh("vjp_out"), self.fresh("vjp_pullback")]
                    target = gast.Tuple(elts=[build.name(n, store=True) for n in pair], ctx=gast.Store())
                    pre.append(build.located(build.assign(target, child.value), child, only_missing=True))
                    repl = build.located(build.name(pair[child.slice.value]), child, only_missing=True)
                    if isinstance(value, list):
                        value[i] = repl
                    else:
                        setattr(node, field, repl)
                else:
                    self.hoist(child, pre, ok)
