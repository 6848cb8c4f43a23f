"""NumPy call forms rewritten to the one the derivative rules read: np.einsum's sublist form
(`np.einsum(a, [0, 1], b, [1, 2])` -> `np.einsum('ab,bc->ac', a, b)`) and a slice inside
`np.r_[...]`/`np.c_[...]` (`np.arange` or `np.linspace`)."""
from __future__ import annotations

import string

import gast
import numpy as np

from ..ir import build
from . import static_locals


def index_trick_range(norm, sl: gast.Slice) -> gast.Name:
    """A slice inside `np.r_[...]`/`np.c_[...]` as the array NumPy makes of it: `a:b:s` is
    `np.arange(a, b, s)` (a missing start 0, step 1), and `a:b:nj` with an imaginary literal step
    is `np.linspace(a, b, n)` (n points, both ends included). Returns the local holding it."""
    start = norm.atom(sl.lower) if sl.lower is not None else build.const(0)
    if sl.upper is None:
        norm.fail(sl, "a slice inside `np.r_[...]` needs its stop, as NumPy's does.")
    stop = norm.atom(sl.upper)
    step = sl.step
    if isinstance(step, gast.Constant) and isinstance(step.value, complex):
        out = norm.tmp(build.call("xp.linspace", [start, stop, build.const(int(abs(step.value)))]))
    else:
        out = norm.tmp(build.call("xp.arange", [start, stop, norm.atom(step) if step is not None else build.const(1)]))
    norm.locals.add(out.id)  # (read again as an item of the tuple)
    return out


def einsum_sublists(norm, node: gast.Call) -> gast.Call:
    """`np.einsum(a, [0, 1], b, [1, 2], [0, 2])` -> `np.einsum('ab,bc->ac', a, b)`: the subscripts
    form is the one every derivative rule reads, so the sublist form is rewritten to it here.
    Sublists known when transforming (literals, locals assigned once to one, tuples in globals,
    closures or global tables) become a literal string; where the first sublist shows the form
    but some sublist is read only when the call runs (a global list, which may change, or a
    parameter), `rt.einsum_sublist_spec` builds the string then. Where not even the form is
    known (`einsum(x, s)` of two parameters), rt.einsum_subscripts refuses a non-string first
    argument when the call runs."""
    args = node.args
    if len(args) < 2 or (isinstance(args[0], gast.Constant) and isinstance(args[0].value, str)) \
            or any(isinstance(a, gast.Starred) for a in args):
        return node
    pairs = args[:len(args) - len(args) % 2]
    operands = pairs[0::2]
    subs = list(pairs[1::2]) + ([args[-1]] if len(args) % 2 else [])
    known = [_sublist_value(norm, s) for s in subs]
    if known[0] is _UNKNOWN:
        return node  # the form is not known: rt.einsum_subscripts refuses a sublist when the call runs
    if all(isinstance(k, tuple) for k in known):
        spec = ",".join(_sublist_letters(norm, s, k) for s, k in zip(subs, known[:len(operands)]))
        if len(args) % 2:  # the output sublist
            spec += "->" + _sublist_letters(norm, subs[-1], known[-1])
        return gast.Call(func=node.func, args=[gast.Constant(value=spec, kind=None)] + list(operands),
                         keywords=node.keywords)
    atoms = [norm.atom(o) for o in operands]  # (evaluated once: the first one is also the check's)
    ins = build.located(gast.Tuple(elts=list(subs[:len(operands)]), ctx=gast.Load()), node, only_missing=True)
    out = subs[-1] if len(args) % 2 else build.const(None)
    spec = norm.tmp(build.call("rt.einsum_sublist_spec", [norm.atom(ins), norm.atom(out), atoms[0]]))
    norm.locals.add(spec.id)  # (the call's arguments are read again as atoms)
    ops = []
    for o, a in zip(operands, atoms):
        if isinstance(o, gast.Constant) or isinstance(o, (gast.Name, gast.Attribute)) and norm.rooted_global(o):
            ops.append(o)  # a constant or a global: read again as it is
        else:
            ops.append(a)
            if isinstance(a, gast.Name):
                norm.locals.add(a.id)
    return gast.Call(func=node.func, args=[spec] + ops, keywords=node.keywords)


_UNKNOWN = object()


def _sublist_value(norm, sub):
    """A sublist's value as a tuple when it is known when transforming (a literal, a local assigned
    once to a literal, a tuple in a global, closure or global table with a literal key); None
    for one that is a sequence only then (a global list or array) or a local read when the call
    runs; _UNKNOWN when s2s cannot tell it is a sublist at all."""
    literal = static_locals.single_literal(norm, sub) if isinstance(sub, gast.Name) else sub
    if isinstance(sub, gast.Name) and literal is not None and static_locals.store_counts(norm).get(sub.id, 0) != 1:
        literal = None
    if isinstance(literal, (gast.List, gast.Tuple)):
        items = []
        for e in literal.elts:
            v = e.value if isinstance(e, gast.Constant) else Ellipsis if isinstance(e, gast.Name) and \
                e.id == "Ellipsis" and e.id not in norm.locals else _UNKNOWN
            if v is _UNKNOWN or not (v is Ellipsis or isinstance(v, int) and not isinstance(v, bool)):
                return None  # a sequence whose entries are read when the call runs
            items.append(v)
        return tuple(items)
    if isinstance(sub, (gast.Name, gast.Attribute)) and norm.rooted_global(sub) or static_locals.global_entry(norm, sub):
        obj = static_locals.static_or_none(norm, sub)
        if isinstance(obj, tuple) and all(v is Ellipsis or isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                          for v in obj):
            return tuple(v if v is Ellipsis else int(v) for v in obj)
        if isinstance(obj, (list, tuple, np.ndarray)):
            return None  # mutable: read when the call runs
    return _UNKNOWN


def _sublist_letters(norm, sub, items) -> str:
    """One einsum sublist, axis numbers (and `...`), as subscript letters."""
    out = ""
    for v in items:
        if v is Ellipsis:
            out += "..."
        elif 0 <= v < 52:
            out += string.ascii_letters[v]
        else:
            norm.fail(sub, "np.einsum's sublists hold axis numbers 0..51 (and `...`).")
    return out
