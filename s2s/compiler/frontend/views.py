"""View or copy, decided as NumPy decides it, for the alias check (aliases.py): an operation whose
result may share its argument's memory (a reshape, `np.asarray(b, dtype=...)`, `b.astype(t,
copy=False)`, `np.broadcast_arrays(b, c)`, `np.array(b, copy=False)`) makes another name of that
array, so an update in place through either is checked against reads of the other. A case s2s
cannot decide when it transforms (the dtype of `b` is not known) counts as a view."""
from __future__ import annotations

import copy

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry

# operations lowered to a composite's call (np.broadcast_arrays: rt.broadcast_arrays_2) keep the
# view fact of the operation here
_VIEW_FACT = "_s2s_view_of"


def _false(node) -> bool:
    return isinstance(node, gast.Constant) and node.value is False


def astype(base, args, kws: dict) -> gast.Call:
    """`base.astype(dtype, order, casting, subok, copy=True)` as `xp.asarray(base, dtype=...)` (the
    same value; `order` and `subok` change no value, `casting` is checked before, expressions.py),
    marked a copy unless `copy=False` is given (then a view where the dtype is the array's own)."""
    kws = dict(kws)
    copy = kws.pop("copy", args[4] if len(args) > 4 else None)
    dtype = args[0] if args else kws.get("dtype")
    rest = {k: v for k, v in kws.items() if k not in ("dtype", "order", "casting", "subok")}
    call = build.call("xp.asarray", [base], {"dtype": dtype, **rest} if dtype is not None else rest)
    setattr(call, _VIEW_FACT, "view" if copy is not None and _false(copy) else "copy")
    return call


def keep_view(key, call: gast.Call) -> gast.Call:
    """The lowered `call` of primitive `key`, marked a view where the primitive's result may be one."""
    if key in registry.VIEW_CALLS:
        setattr(call, _VIEW_FACT, "every" if key in registry.VIEW_EACH_CALLS else "view")
    return call


def may_view(value) -> bool:
    """Whether the call `value` may return a view of its first argument's array."""
    if not isinstance(value, gast.Call):
        return False
    fact = getattr(value, _VIEW_FACT, None)
    if fact is not None:
        return fact != "copy"
    key = analysis.dotted(value.func)
    if key == "rt.dtype_gate":  # (the value itself)
        return True
    if key == "xp.array":  # a copy unless copy=False
        return any(k.arg == "copy" and _false(k.value) for k in value.keywords)
    return key in registry.VIEW_CALLS


def viewed(value) -> list:
    """The arguments whose arrays the call `value` may return views of: its first, or each of
    them (np.broadcast_arrays); none where it copies."""
    if not may_view(value):
        return []
    every = getattr(value, _VIEW_FACT, None) == "every" or analysis.dotted(value.func) in registry.VIEW_EACH_CALLS
    given = value.args + [k.value for k in value.keywords] if every else value.args[:1]  # (a composite's by keyword)
    return [a for a in given if isinstance(a, gast.Name)]


def stores_in_order(norm, target, value, early) -> bool:
    """`a[i], a[j] = a[j], a[i]` (`early`: the right side's values, read before any store) as its
    stores in order, each right-side read of a written array read again before a later store and
    taken where NumPy's would be a view (`rt.after_stores`): rows of a matrix are views, so the
    second store writes the row the first one wrote. False (nothing emitted) where a target is
    not a subscript or a name."""
    if not all(isinstance(t, (gast.Subscript, gast.Name)) for t in target.elts) or len(target.elts) != len(early.elts):
        return False
    written = {t.value.id for t in target.elts if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name)}
    for k, (t, src, v) in enumerate(zip(target.elts, value.elts, early.elts)):
        if k and isinstance(src, gast.Subscript) and isinstance(src.value, gast.Name) and src.value.id in written:
            late = norm.atom(copy.deepcopy(src))
            v = norm.tmp(build.call("rt.after_stores", [v, late, build.name(src.value.id)]))
        norm.assign_to(t, v)
    return True
