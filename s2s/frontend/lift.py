"""Lambda lifting: a `def` (or a lambda bound to a name) inside a transformed function becomes a
function of its own whose free local variables are extra leading parameters, so every transform
treats it like any other user function."""
from __future__ import annotations

import copy

import gast

from .. import record
from ..ir import build
from ..ir.core import local_names


def lift(norm, fdef: gast.FunctionDef):
    """Compile the lifted version of nested `fdef`; return (function, names of its free locals)."""
    for n in gast.walk(fdef):
        if isinstance(n, (gast.Nonlocal, gast.Global)):
            norm.fail(n, f"s2s does not support `{type(n).__name__.lower()}` in a function defined inside a "
                         "transformed function.", "Return the new value from the inner function instead.")
    for d in fdef.args.defaults + [d for d in fdef.args.kw_defaults if d is not None]:
        used = [n.id for n in gast.walk(d) if isinstance(n, gast.Name) and n.id in norm.locals]
        if used:
            norm.fail(d, f"the default value of a parameter of `{fdef.name}` reads `{used[0]}`, a variable of "
                         "the enclosing transformed function; s2s cannot evaluate it when the def runs.",
                      f"Read `{used[0]}` inside `{fdef.name}` instead (a closure): drop the parameter, or "
                      "pass the value at the call.")
    inner = local_names(fdef)
    free, ns = [], {}
    for n in gast.walk(fdef):
        if not (isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)) or n.id in inner:
            continue
        if n.id in norm.locals:
            if n.id not in free:
                free.append(n.id)
        else:
            found, obj = norm.env.lookup(n.id)
            if found:
                ns[n.id] = obj
    node = copy.deepcopy(fdef)
    node.name = f"{norm.fn.name}_{fdef.name}"
    node.decorator_list = []
    node.args.args = [build.name(v) for v in free] + node.args.args
    for a in node.args.args:
        a.ctx = gast.Param()
    for n in gast.walk(node):
        if getattr(n, "lineno", None) is not None:
            n.lineno += norm.line_offset
            n.col_offset = getattr(n, "col_offset", 0) + norm.col_offset
        if getattr(n, "end_lineno", None) is not None:
            n.end_lineno += norm.line_offset
    fn = norm.compile_nested(node.name, copy.deepcopy(node), ns, norm.filename)
    # later transforms start from the AST with the user's line numbers and file
    record.attach(fn, core=(node, {**ns, "xp": fn.__globals__["xp"], "rt": fn.__globals__["rt"]}, norm.filename))
    return fn, free


def lambda_to_def(name: str, lam: gast.Lambda, where) -> gast.FunctionDef:
    fdef = gast.FunctionDef(name=name, args=lam.args, body=[gast.Return(value=lam.body)], decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
    gast.copy_location(fdef, where)
    gast.copy_location(fdef.body[0], where)
    return fdef
