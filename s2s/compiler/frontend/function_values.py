"""Function values that flow through a transformed function: what a local, a container entry, a
partial, `getattr(module, "name")` or a lambda denotes when the function is transformed.

s2s specializes a callee on the identity of a function passed to it (idioms.specialize). This
module finds that function wherever the user put it first: `act = np.tanh`, `fs = (lambda v:
v ** 2, np.sin)`, `{"a": np.sin}[k]` with `k` a constant, `getattr(np, name)`, `partial(f, w)`
made here, a lambda that closes over local variables. Such a value is a `Ref`: the function and
the names of the local variables it closes over (its lifted form takes them first). A local
bound to one emits nothing; a call through it calls the function. A callee passed a function
with free locals is specialized to take those locals as extra leading parameters, and rebuilds
the function from them first (`f = partial(lifted, free0, ...)`), so that the callee runs as
plain Python too.

What cannot be decided when transforming (an index that is data, a local bound to functions
twice, a function used as data) is an S2SError at the user's line: never a silently wrong call.
"""
from __future__ import annotations

import copy
import functools
import inspect
import types

import gast
import numpy as np

from ...base import record
from ...errors import S2SError
from ...library import numpy_inside
from . import idioms, static_locals
from .reads import note as note_read
from .refs import Ref


def is_ref_tree(v) -> bool:
    """A Ref, or a tuple/list/dict of them."""
    if isinstance(v, Ref):
        return True
    if isinstance(v, (tuple, list)):
        return bool(v) and all(is_ref_tree(e) for e in v)
    if isinstance(v, dict):
        return bool(v) and all(is_ref_tree(e) for e in v.values())
    return False


def of_object(obj):
    """The Ref (tree) of a value known now: a function, or a tuple/list/dict of functions."""
    if isinstance(obj, (tuple, list)):
        refs = [of_object(e) for e in obj]
        if not obj or any(r is None for r in refs):
            return None
        _note_items(obj, enumerate(obj))
        return type(obj)(refs)
    if isinstance(obj, dict):
        refs = {k: of_object(v) for k, v in obj.items()}
        if not obj or any(r is None for r in refs.values()):
            return None
        _note_items(obj, obj.items())
        return refs
    if isinstance(obj, np.vectorize):
        fn = numpy_inside.vectorize_function(obj)
        return None if fn is None else Ref(fn)
    if isinstance(obj, types.ModuleType) or not idioms.is_function_value(obj):
        return None
    return Ref(obj)


def _note_items(obj, items) -> None:
    """A list or dict of functions read now: its length and entries (the code is reused while they hold)."""
    note_read("len", obj, None, len(obj))
    for k, v in items:
        note_read("item", obj, k, v)


# ---------------------------------------------------------------- what a node denotes


def could_be(norm, node) -> bool:
    """Whether `node` may denote a function (a cheap test, with no side effects)."""
    if isinstance(node, gast.Lambda):
        return True
    if isinstance(node, gast.Name):
        if node.id in norm.fvalues or node.id in norm.lifted:
            return True
        if node.id in norm.locals:
            return False
        return of_object(_static(norm, node)) is not None
    if isinstance(node, gast.Attribute):
        return norm.rooted_global(node) and of_object(_static(norm, node)) is not None
    if isinstance(node, (gast.Tuple, gast.List)):
        return bool(node.elts) and all(could_be(norm, e) for e in node.elts)
    if isinstance(node, gast.Dict):
        return bool(node.keys) and all(k is not None and constant(norm, k) is not _NONE for k in node.keys) \
            and all(could_be(norm, v) for v in node.values)
    if isinstance(node, gast.Subscript):  # (a global table with a literal key: the normalizer's static)
        return not isinstance(node.slice, (gast.Slice, gast.Tuple)) and could_be(norm, node.value) \
            and not (isinstance(node.value, gast.Name) and node.value.id not in norm.locals
                     and node.value.id not in norm.fvalues and isinstance(node.slice, gast.Constant))
    if isinstance(node, gast.Call):
        maker = _maker(norm, node)
        return maker is functools.partial and bool(node.args) or maker is getattr and len(node.args) == 2 \
            or maker is np.vectorize and len(node.args) == 1
    return False


def value(norm, node):
    """The Ref (tree) `node` denotes, or None when it is no function known now."""
    if not could_be(norm, node):
        return None
    if isinstance(node, gast.Lambda):
        fn, free = norm.local_function(node)
        return Ref(fn, free)
    if isinstance(node, gast.Name):
        if node.id in norm.fvalues:
            return norm.fvalues[node.id]
        if node.id in norm.lifted:
            return Ref(*norm.lifted[node.id])
        return of_object(_static(norm, node))
    if isinstance(node, gast.Attribute):
        return of_object(_static(norm, node))
    if isinstance(node, (gast.Tuple, gast.List)):
        refs = [value(norm, e) for e in node.elts]
        return (tuple if isinstance(node, gast.Tuple) else list)(refs)
    if isinstance(node, gast.Dict):
        return {constant(norm, k): value(norm, v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, gast.Subscript):
        return _item(norm, node)
    maker = _maker(norm, node)
    if maker is getattr:
        return _getattr(norm, node)
    if maker is np.vectorize:
        return _vectorize(norm, node)
    fn, free = norm.local_function(node)  # functools.partial(...)
    return Ref(fn, free)


def calling_lambda(norm, target, nargs: int, through=None) -> gast.Lambda:
    """`lambda a0, ..., a<nargs-1>: target(a0, ...)` at `target`'s place (with `through`:
    `through(target, a0, ...)`)."""
    names = [norm.namer.fresh("farg") for _ in range(nargs)]
    pass_on = [gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None) for n in names]
    call = gast.Call(func=copy.deepcopy(target), args=pass_on, keywords=[]) if through is None \
        else gast.Call(func=through, args=[copy.deepcopy(target)] + pass_on, keywords=[])
    lam = gast.Lambda(args=gast.arguments(args=[gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None)
                                                for n in names], posonlyargs=[], vararg=None, kwonlyargs=[],
                                          kw_defaults=[], kwarg=None, defaults=[]), body=call)
    for n in gast.walk(lam):
        if isinstance(n, (gast.expr, gast.arguments)):
            gast.copy_location(n, target)
    return lam


def fixed_arity(fn) -> bool:
    """A Python function whose every call takes the same positional arguments (no defaults, no
    `*args`, no keyword-only ones), which a stand-in may call with `*`. Any other function given to
    a stand-in (tree_map, np.vectorize) is wrapped in a lambda of as many parameters as the stand-in
    passes it: with `def helper(x, scale=2.0)`, the stand-in's `f(leaf, *others)` could not tell how
    many values that is, and reported it in s2s's own file."""
    if not isinstance(fn, types.FunctionType):
        return False
    code = fn.__code__
    return not (fn.__defaults__ or fn.__kwdefaults__ or code.co_kwonlyargcount
                or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS))


def _vectorize(norm, node):
    """`np.vectorize(f)`: the function of f's parameters that calls numpy_inside.vectorized(f, ...),
    a loop over the elements of its broadcast arguments."""
    bad = [k.arg for k in node.keywords if k.arg not in ("otypes", "doc", "cache")]
    if bad:
        norm.fail(node, f"s2s supports `np.vectorize(f)` with no `{bad[0]}=`: it calls f on each element of "
                        "its broadcast arguments.", "Call f in a loop over the rows or elements you mean.", S2SError)
    ref = value(norm, node.args[0])
    if not isinstance(ref, Ref):
        norm.fail(node, "`np.vectorize(f)` needs a function s2s knows when it transforms the function.",
                  kind=S2SError)
    if isinstance(ref.fn, np.ufunc):  # elementwise over broadcast arguments already
        return ref
    try:
        params = list(inspect.signature(ref.fn).parameters.values())[len(ref.free):]
    except (TypeError, ValueError):  # a function with no signature: one argument
        params = [None]
    nargs = len([p for p in params if p is None or p.default is inspect.Parameter.empty
                 and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
    target = node.args[0]
    if not fixed_arity(ref.fn):  # a NumPy function, one with defaults: called with its parameters, not `*`
        target = calling_lambda(norm, target, nargs)
    helper = norm.namer.fresh("vectorized")
    norm.fscope[helper] = numpy_inside.vectorized
    lam = calling_lambda(norm, target, nargs, gast.Name(id=helper, ctx=gast.Load(), annotation=None,
                                                        type_comment=None))
    fn, free = norm.local_function(lam)
    return Ref(fn, free)


def _item(norm, node):
    base = value(norm, node.value)
    key = constant(norm, node.slice)
    if key is _NONE:
        norm.fail(node, f"`{_text(node)}` picks a function by an index that s2s cannot know when it transforms "
                        "the function (it is data, or a variable assigned more than once).",
                  "Index with a literal or a variable assigned once to a literal, write the choice out with "
                  "if/elif, or use s2s.lax.switch(index, branches, x).", S2SError)
    try:
        return base[key]
    except (KeyError, IndexError, TypeError):
        norm.fail(node, f"`{_text(node)}`: no entry {key!r} in the functions it indexes.", kind=S2SError)


def _getattr(norm, node):
    if node.keywords or not _rooted(norm, node.args[0]):
        return None
    name = constant(norm, node.args[1])
    if not isinstance(name, str):
        norm.fail(node, "`getattr(obj, name)` of a function needs a name s2s knows when it transforms the "
                        "function: a string literal or a variable assigned once to one.", kind=S2SError)
    base = _static(norm, node.args[0])
    obj = getattr(base, name, _NONE)
    if obj is _NONE:
        norm.fail(node, f"`{_text(node.args[0])}` has no attribute {name!r}.", kind=S2SError)
    note_read("attr", base, name, obj)
    return of_object(obj)


# ---------------------------------------------------------------- constants and statics

_NONE = object()


def constant(norm, node):
    """The constant a node denotes when transforming (a literal, `-literal`, or a local assigned
    exactly once, to a literal), or _NONE."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant):
        return -node.operand.value
    if isinstance(node, gast.Name) and node.id in norm.locals:
        values, changed = norm.bindings()
        found = values.get(node.id, [])
        if len(found) == 1 and node.id not in changed and node.id not in {a.id for a in norm.fn.args.args} \
                and static_locals.store_counts(norm).get(node.id) == 1 and isinstance(found[0], gast.Constant):
            return found[0].value
        return _NONE
    if isinstance(node, gast.Name):
        obj = _static(norm, node)
        return obj if isinstance(obj, (int, str, bool)) else _NONE
    return _NONE


def _rooted(norm, node) -> bool:
    return isinstance(node, (gast.Name, gast.Attribute)) and norm.rooted_global(node)


def _static(norm, node):
    try:
        return norm.static(node)
    except Exception:  # noqa: BLE001 - not known now
        return None


def _maker(norm, node):
    if not (isinstance(node, gast.Call) and _rooted(norm, node.func)):
        return None
    return _static(norm, node.func)


def _text(node) -> str:
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return _text(node.value) + "." + node.attr
    if isinstance(node, gast.Subscript):
        return _text(node.value) + "[...]"
    return "..."


# ---------------------------------------------------------------- binding and calling


def bind_local(norm, s, name: str, ref) -> None:
    """`name = <function value>`: remembered, nothing emitted; a name bound to functions more than
    once is refused (which one a call meant would depend on control flow)."""
    if static_locals.store_counts(norm).get(name, 0) != 1:
        norm.fail(s, f"`{name}` is assigned a function here and assigned again elsewhere in the function: "
                     "s2s resolves a function stored in a variable only when the variable is assigned once.",
                  "Give each function its own variable, or write the choice out: `if ...: y = f(x) else: y = g(x)`.",
                  S2SError)
    norm.fvalues[name] = ref


def callee(norm, node, ref) -> gast.expr:
    """A name that the normalizer resolves to the function `ref` denotes (registered as a lifted
    local when it has free locals or was lifted, else as a static value)."""
    if isinstance(ref, (tuple, list, dict)):
        norm.fail(node, f"`{_text(node)}` is a collection of functions, not a function.", kind=S2SError)
    label = getattr(ref.fn, "__name__", "f").replace("<lambda>", "lambda_")
    name = norm.namer.fresh(f"fv_{label}")
    if ref.free or record.of(ref.fn) is not None and record.of(ref.fn).core is not None \
            and isinstance(ref.fn, types.FunctionType) and not idioms.needs_adapting(ref.fn):
        norm.lifted[name] = (ref.fn, list(ref.free))
    else:
        norm.fscope[name] = ref.fn
    out = gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)
    if hasattr(node, "lineno"):
        gast.copy_location(out, node)
    return out


def refuse_as_data(norm, node) -> None:
    norm.fail(node, f"`{node.id}` holds a function, used here as a value: s2s resolves a function where it is "
                    "called, passed to a function, indexed with a constant or looped over.",
              f"Call `{node.id}(...)` here, or pass it straight to the function that calls it.", S2SError)
