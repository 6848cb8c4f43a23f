"""A call of the function that a call returned: `maker(ans, x)(g)`, as autograd's VJP makers
are applied (`defvjp(f, lambda ans, x: lambda g: ...)`).

`maker(a, b)(g)` becomes `maker_then(a, b, g)`, a copy of `maker` that takes the outer call's
arguments too and whose every `return F` reads `return F(g)`; the normalizer then resolves `F`
(a lambda, a local def, a partial made there) as any function made in the body.
"""
from __future__ import annotations

import copy
import types

import gast

from ...base import record
from ...errors import S2SError
from ..ir import build
from . import idioms


def applied(fn: types.FunctionType, nargs: int):
    """`fn` followed by a call of what it returns with `nargs` more positional arguments (the
    copy takes them after `fn`'s own parameters)."""
    def compute():
        rec = record.of(fn)
        if rec is not None and rec.core is not None:  # a copy s2s wrote (specialized on function arguments)
            node, ns, filename = copy.deepcopy(rec.core[0]), dict(rec.core[1]), rec.core[2]
        else:
            (node, filename), ns = idioms.parsed_def(fn), idioms.namespace_of(fn)
        a = node.args
        if a.vararg is not None or a.kwarg is not None or a.kwonlyargs or a.posonlyargs:
            raise S2SError(f"{filename}:{node.lineno}\ns2s calls the function `{fn.__name__}(...)` returns only "
                           "when it has plain positional parameters (no *args, **kwargs, keyword-only ones).")
        taken = {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}
        extra = [idioms.fresh_name(f"then{i}", taken) for i in range(nargs)]
        returns = [r for r in _own_returns(node) if r.value is not None]
        if not returns:
            raise S2SError(f"{filename}:{node.lineno}\n`{fn.__name__}(...)` is called with what it returns, "
                           "but it returns nothing.")
        for r in returns:
            r.value = build.located(gast.Call(func=r.value, args=[gast.Name(id=e, ctx=gast.Load(), annotation=None,
                                                                         type_comment=None) for e in extra],
                                           keywords=[]), r.value)
        a.args = a.args + [build.located(gast.Name(id=e, ctx=gast.Param(), annotation=None, type_comment=None), node)
                           for e in extra]
        node.name = f"{fn.__name__}_then".replace("<lambda>", "lambda_")
        node.decorator_list = []
        return idioms.synthesize(node.name, node, ns, filename)
    return idioms.remember(("returned", id(fn), nargs), fn, compute)


def _own_returns(node):
    """The return statements of `node`'s own body (not of functions defined in it)."""
    todo = list(node.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
            continue
        if isinstance(n, gast.Return):
            yield n
        todo.extend(gast.iter_child_nodes(n))
