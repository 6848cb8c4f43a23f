"""Which parameters of a NumPy function s2s models, read from the function itself.

A primitive's declared signature (`prim(name, sig)`) lists the parameters its rules read: those
are modelled, by the value, forward, reverse, batching and jit paths alike. Every other parameter
of NumPy's function (from `inspect.signature`, or a ufunc's attributes) is unmodelled: a call that
passes one at a value other than NumPy's default is refused at the user's line, never ignored
(`order="F"` of np.ravel once gave C order's derivative). A declaration's `inert` names the
parameters that change no value (a ufunc's `casting`, einsum's `optimize`), which pass through.
"""
from __future__ import annotations

import inspect

import gast
import numpy as np

from . import registry

# a ufunc's keyword arguments besides its operands (NumPy's documented ufunc signature)
UFUNC_KEYWORDS = {"out": None, "where": True, "casting": "same_kind", "order": "K", "dtype": None,
                  "subok": True, "signature": None}
# ufunc keywords that change no value: the memory layout, the casting check, subclass wrapping
UFUNC_INERT = ("casting", "order", "subok")
# keywords handled for every operation before this check: `out=` refused where it is parsed,
# `where=`/`initial=` by a reduction's keyword form (registry.KEYWORD_FORMS) or refused by the
# transforms; `dtype=` and `copy=` are the casts' and views' (their own rules: cotangent_dtype,
# frontend/aliases), passed through to NumPy here
HANDLED_ELSEWHERE = ("out", "dtype", "copy")

_NO_DEFAULT = inspect.Parameter.empty
_UNKNOWN = object()


def numpy_function(key: str):
    """NumPy's function that primitive `key` ("xp.linalg.solve") is, or None (an s2s helper)."""
    if not key.startswith("xp."):
        return None
    obj = np
    for part in key[3:].split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj if callable(obj) and not isinstance(obj, type) else None  # (np.float32(x): a cast, not a function)


_PARAMS: dict[str, list | None] = {}


def numpy_parameters(key: str) -> list[tuple[str, object, bool]] | None:
    """(name, default, keyword-only) for each parameter of NumPy's function of primitive `key`, in
    order; None where it has no such function or its signature cannot be read."""
    if key in _PARAMS:
        return _PARAMS[key]
    fn = numpy_function(key)
    out = None
    if isinstance(fn, np.ufunc):
        names = ["x"] if fn.nin == 1 else [f"x{i + 1}" for i in range(fn.nin)]
        out = [(n, _NO_DEFAULT, False) for n in names] + [(k, v, True) for k, v in UFUNC_KEYWORDS.items()]
    elif fn is not None:
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            sig = None
        if sig is not None:
            out = [(p.name, p.default, p.kind == p.KEYWORD_ONLY) for p in sig.parameters.values()
                   if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    _PARAMS[key] = out
    return out


def out_positions(key: str, numpy_s: bool = True) -> tuple[int, ...]:
    """The positions at which a call of primitive `key` takes `out` as a positional argument. Of
    NumPy's own function (`numpy_s`): a ufunc's outputs follow its `nin` operands
    (`np.multiply(x, y, o)`), a function's `out` is where its signature puts it (`np.clip(a, lo, hi,
    o)`, `np.dot(a, b, o)`); a method's are these less one (`x.sum(0, None, o)`: the array is the
    function's first). Of another function with the same rules (`math.log(x, 2)`): the declaration's."""
    fn = numpy_function(key) if numpy_s else None
    if isinstance(fn, np.ufunc):
        return tuple(range(fn.nin, fn.nin + fn.nout))
    params = numpy_parameters(key) if fn is not None else None
    if params is not None:
        names = [name for name, _, kw_only in params if not kw_only]
    else:
        p = registry.lookup(key)
        names = list(p.params) if p is not None else []
    return (names.index("out"),) if "out" in names else ()


def array_slots(key: str) -> int | None:
    """How many arrays by position a call of primitive `key` may pass where NumPy's function takes
    any number (`*xi`, `*operands`) and the declaration binds a fixed count (`np.meshgrid`'s x, y, z
    before its keyword-only `indexing`): a fourth array was read as `indexing=`. None where the count
    is unbounded (a declared `*args`, or a rewrite into one call per array)."""
    fn = numpy_function(key)
    p = registry.lookup(key)
    if fn is None or isinstance(fn, np.ufunc) or p is None or "*args" in p.params or p.rewrites:
        return None
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    if not any(q.kind == q.VAR_POSITIONAL for q in sig.parameters.values()):
        return None
    keyword_only = {q.name for q in sig.parameters.values() if q.kind == q.KEYWORD_ONLY}
    count = 0
    for name in p.params:
        if name in keyword_only:
            break
        count += 1
    return count


def inert(key: str) -> tuple[str, ...]:
    """The parameters of primitive `key` that change no value (passed through to NumPy)."""
    p = registry.lookup(key)
    own = p.inert if p is not None else ()
    return own + (UFUNC_INERT if isinstance(numpy_function(key), np.ufunc) else ())


def modelled(key: str) -> set[str]:
    """The parameter names of NumPy's function that a call of primitive `key` may pass at any value."""
    p = registry.lookup(key)
    if p is None:
        return set(inert(key)) | set(HANDLED_ELSEWHERE)
    if "**kwargs" in p.params and not isinstance(numpy_function(key), np.ufunc):  # (a query: passes them on)
        return {name for name, _, _ in numpy_parameters(key) or ()}
    return (set(p.params) - set(p.unmodelled)) | set(inert(key)) | set(HANDLED_ELSEWHERE)


def unmodelled_argument(key: str, args: list, kws: dict) -> tuple[str, object] | None:
    """The first argument of a call of primitive `key` (positional atoms `args`, keyword atoms
    `kws`) that is a parameter of NumPy's function that s2s does not model, given at a value other
    than NumPy's default, as (name, its atom); None when there is none."""
    params = numpy_parameters(key)
    if params is None:
        return None
    ok = modelled(key)
    positional = [name for name, _, kw_only in params if not kw_only]
    given = list(zip(positional, args)) + list(kws.items())
    defaults = {name: default for name, default, _ in params}
    for name, atom in given:
        if name is None or name in ok or defaults.get(name) is _NO_DEFAULT:
            continue  # (a required parameter: the operand, whatever the declaration calls it)
        if name not in defaults:
            continue  # not NumPy's: the call fails as NumPy's would (or is s2s.numpy's own, JAX's)
        if not _is_default(atom, defaults[name]):
            return name, atom
    return None


def by_name(key: str, args: list, kws: dict) -> tuple[list, dict]:
    """The arguments of a call of primitive `key` with those past its declared parameters passed by
    NumPy's names (`np.trace(a, 1, 0, 1, np.float32)`: dtype=), where the declaration's parameters
    are the first of NumPy's own: a rule or batching helper reads a keyword by name, and a value
    past its parameters by position was dropped (vmap gave float64)."""
    p = registry.lookup(key)
    params = numpy_parameters(key)
    if p is None or not params or isinstance(numpy_function(key), np.ufunc):
        return args, kws
    declared = [n for n in p.params if not n.startswith("*")]
    if len(declared) != len(p.params) or len(args) <= len(declared):
        return args, kws
    positional = [name for name, _, kw_only in params if not kw_only]
    if positional[:len(declared)] != declared or len(args) > len(positional):
        return args, kws
    extra = dict(zip(positional[len(declared):], args[len(declared):]))
    if set(extra) & set(kws):
        return args, kws  # (NumPy's TypeError: given twice)
    return list(args[:len(declared)]), {**kws, **extra}


def at_default(key: str, kws: dict) -> dict:
    """The keyword atoms `kws` of a call of primitive `key` less those its declaration does not list
    that are NumPy's parameters given at NumPy's default (`np.full_like(x, v, order='K')`,
    `np.dot(a, b, out=None)`): they change nothing, and a rule or batching helper that does not take
    them would fail on them (vmap of np.quantile(..., weights=None) raised an internal TypeError)."""
    params = numpy_parameters(key)
    p = registry.lookup(key)
    if not params or p is None or "**kwargs" in p.params:
        return kws
    fn = numpy_function(key)
    if isinstance(fn, np.ufunc):  # (UFUNC_KEYWORDS is not NumPy's own list: `signature=None` raises, and a
        # ufunc of two results, or a generalized one's `where=`; only `out=None` of one result is its default)
        return {k: v for k, v in kws.items() if not (k == "out" and fn.nout == 1 and _is_default(v, None))}
    defaults = {name: default for name, default, _ in params}
    return {k: v for k, v in kws.items()
            if k in p.params or k not in defaults or defaults[k] is _NO_DEFAULT or not _is_default(v, defaults[k])}


def _is_default(atom, default) -> bool:
    if not isinstance(atom, gast.Constant):
        return False
    if default is _NO_DEFAULT or default is np._NoValue:
        return atom.value is None
    try:
        return type(atom.value) is type(default) and bool(atom.value == default)
    except Exception:  # noqa: BLE001  (a default that does not compare with a literal)
        return False


def passed_through(key: str) -> set[str]:
    """Keywords a call of primitive `key` may carry beyond its declared parameters once the
    normalizer has checked it: the inert ones, those handled elsewhere, and NumPy's parameters
    (any unmodelled one given at a non-default value was refused there)."""
    names = {name for name, _, _ in numpy_parameters(key) or ()}
    return names | set(inert(key)) | set(HANDLED_ELSEWHERE)
