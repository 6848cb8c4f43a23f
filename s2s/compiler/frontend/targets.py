"""An unpacking target put in the order Python binds it, before the normalizer emits it.

Python binds `a, b, c = v` left to right: a name bound twice keeps its last value (`out, _, _ =
f(x)`, `(a, b), a = ...`), and a store into an element (`y[i], i = ...`) reads the names as they
were before the later parts rebind them. The core form's unpack (`a, b = t`, then the nested parts
and element stores) binds every name at once, so `plan` gives each binding that a later part
repeats a fresh name of its own, and each name that an earlier part reads a fresh name assigned to
it after the rest. The unpack then binds each name once: reverse and forward mode give the part a
name stands for the adjoint and the tangent of that name (a name bound twice gave its zero the
shape, and its cotangent the value, of the wrong part).
"""
from __future__ import annotations

import copy

import gast


def bindings(target) -> list[gast.Name]:
    """The names `target` binds, in the order Python binds them (depth first, left to right)."""
    if isinstance(target, gast.Name):
        return [target]
    if isinstance(target, (gast.Tuple, gast.List)):
        return [n for e in target.elts for n in bindings(e)]
    if isinstance(target, gast.Starred):
        return bindings(target.value)
    return []  # an element or attribute store binds no name


def _reads(node) -> set[str]:
    """The names an element or attribute store in `node` reads (its base and index)."""
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Store)}


def plan(target, fresh) -> tuple:
    """`target` (a tuple or list) with fresh names from `fresh()` where the unpack would bind out of
    Python's order, and the pairs `(name, fresh)` to assign after the unpack and its nested parts,
    in that order. `target` itself is left as it was."""
    target = copy.deepcopy(target)
    seen: set[str] = set()
    for n in reversed(bindings(target)):  # each binding but the last of its name: a value nobody reads
        if n.id in seen:
            n.id = fresh()
        seen.add(n.id)
    later: list[tuple[str, str]] = []
    read: set[str] = set()
    for e in target.elts:
        if isinstance(e, gast.Name):
            if e.id in read:  # `y[i], i = ...`: the store reads `i` before this part rebinds it
                name, e.id = e.id, fresh()
                later.append((name, e.id))
        else:
            read |= _reads(e)
    return target, later
