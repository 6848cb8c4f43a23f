"""Lambda lifting: a `def` (or a lambda bound to a name) inside a transformed function becomes a
function of its own whose free local variables are extra leading parameters, so every transform
treats it like any other user function."""
from __future__ import annotations

import copy
import functools

import gast

from ...base import record
from ..ir import build
from ..ir.core import local_names
from . import at_updates, function_values
from .refs import Ref


def lift(norm, fdef: gast.FunctionDef):
    """Compile the lifted version of nested `fdef`; return (function, names of its free locals)."""
    for n in gast.walk(fdef):
        if isinstance(n, (gast.Nonlocal, gast.Global)):
            norm.fail(n, f"s2s does not support `{type(n).__name__.lower()}` in a function defined inside a "
                         "transformed function.", "Return the new value from the inner function instead.")
    fdef, snapshots, bound = _defaults_read_locals(norm, fdef)
    inner = local_names(fdef)
    free, ns, functions = [], {}, dict(bound)
    for n in gast.walk(fdef):
        if not (isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)) or n.id in inner or n.id in bound:
            continue
        if n.id in norm.fvalues or n.id in norm.lifted:  # a function made in the enclosing function
            functions[n.id] = norm.fvalues[n.id] if n.id in norm.fvalues else Ref(*norm.lifted[n.id])
        elif n.id in norm.locals:
            if n.id not in free:
                free.append(n.id)
        else:
            found, obj = norm.env.lookup(n.id)
            if found:
                ns[n.id] = obj
    rebuild = _functions_read(norm, fdef, functions, free, ns)
    node = copy.deepcopy(fdef)
    node.name = f"{norm.fn.name}_{fdef.name}"
    node.decorator_list = []
    free += [snap for _, snap in snapshots if snap not in free]
    node.args.args = [build.name(v) for v in free] + node.args.args
    node.body = [build.located(build.assign(param, build.name(snap)), node.body[0]) for param, snap in snapshots] \
        + [build.located(stmt, node.body[0]) for stmt in rebuild] + node.body
    for a in node.args.args:
        a.ctx = gast.Param()
    for n in gast.walk(node):
        if getattr(n, "lineno", None) is not None:
            n.lineno += norm.line_offset
            n.col_offset = getattr(n, "col_offset", 0) + norm.col_offset
        if getattr(n, "end_lineno", None) is not None:
            n.end_lineno += norm.line_offset
    fn = norm.compile_nested(node.name, at_updates.plain_copy(copy.deepcopy(node), ns, norm.filename), ns,
                             norm.filename)  # (x.at[i].set(v) as NumPy in the copy that runs as written)
    # later transforms start from the AST with the user's line numbers and file; it is the def as
    # written, not core form (`written`: jit's inliner normalizes it, as any user function's source)
    record.attach(fn, core=(node, {**ns, "xp": fn.__globals__["xp"], "rt": fn.__globals__["rt"]}, norm.filename),
                  written=True)
    return fn, free


def lambda_to_def(name: str, lam: gast.Lambda, where) -> gast.FunctionDef:
    fdef = gast.FunctionDef(name=name, args=lam.args, body=[gast.Return(value=lam.body)], decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
    gast.copy_location(fdef, where)
    gast.copy_location(fdef.body[0], where)
    return fdef


def _defaults_read_locals(norm, fdef: gast.FunctionDef):
    """`def term(u, k=k)` in a loop: a default that reads locals of the enclosing function is
    evaluated where the def runs, into a local of its own (a snapshot, as Python does), which the
    lifted function takes like a free local and binds to the parameter. Such a parameter is then
    no parameter any more: a call that passes it is refused by the arity of the lifted function.
    A default that is a function (`lambda u, k=g: k(u)` with `g` made in the enclosing function, or
    `k=np.tanh`) is bound the same way, as the function itself (returned in `bound`: parameter ->
    Ref), so calls through the parameter resolve."""
    a = fdef.args
    firsts = len(a.args) - len(a.defaults)
    snapshots, kept_args, kept_defaults, bound = [], [], [], {}
    for i, p in enumerate(a.args):
        d = a.defaults[i - firsts] if i >= firsts else None
        ref = function_values.value(norm, d) if d is not None and function_values.could_be(norm, d) else None
        if isinstance(ref, Ref):
            bound[p.id] = ref
        elif d is not None and any(isinstance(n, gast.Name) and n.id in norm.locals for n in gast.walk(d)):
            snap = norm.namer.fresh(f"{fdef.name}_{p.id}")
            norm.emit(build.assign(snap, norm.atom(d)))
            norm.locals.add(snap)
            snapshots.append((p.id, snap))
        else:
            kept_args.append(p)
            if d is not None:
                kept_defaults.append(d)
    for d in a.kw_defaults:
        if d is not None and any(isinstance(n, gast.Name) and n.id in norm.locals for n in gast.walk(d)):
            norm.fail(d, f"a keyword-only default of `{fdef.name}` reads a variable of the enclosing function.",
                      "Make it a positional parameter with that default.")
    if not snapshots and not bound:
        return fdef, [], {}
    fdef = copy.copy(fdef)
    fdef.args = copy.copy(a)
    fdef.args.args, fdef.args.defaults = kept_args, kept_defaults
    return fdef, snapshots, bound


def _functions_read(norm, fdef, functions: dict, free: list, ns: dict) -> list:
    """Functions of the enclosing function that the nested one reads: known ones enter its
    namespace; one that closes over locals is rebuilt first thing from them, taken as free locals
    (`f = partial(lifted_f, w)`). Returns those statements."""
    out = []
    for name, ref in functions.items():
        if isinstance(ref, Ref) and ref.free:
            free += [v for v in ref.free if v not in free]
            partial, target = f"{name}_partial", f"{name}_fn"
            ns[partial], ns[target] = functools.partial, ref.fn
            out.append(gast.parse(f"{name} = {partial}({target}, {', '.join(ref.free)})").body[0])
        elif isinstance(ref, Ref):
            ns[name] = ref.fn
        else:
            flat = list(ref.values()) if isinstance(ref, dict) else list(ref)
            if any(not isinstance(r, Ref) or r.free for r in flat):
                norm.fail(fdef, f"`{fdef.name}` reads `{name}`, a collection of functions made here that use local "
                                "variables; s2s passes such a collection only to code in this function.",
                          f"Index `{name}` here and pass the function itself.")
            ns[name] = {k: r.fn for k, r in ref.items()} if isinstance(ref, dict) else type(ref)(r.fn for r in ref)
    return out
