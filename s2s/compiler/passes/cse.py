"""Common subexpressions: a pure right-hand side computed again in the same block, from the same
unchanged operands, reads the first result instead.

Before::

    t11 = x ** 2
    t12 = t10 * t11
    t15 = x ** 2
    return t12 + t15

After::

    t11 = x ** 2
    t12 = t10 * t11
    t15 = t11
    return t12 + t15

Values that are ever mutated in place (item stores, `rt.add_at`, list appends) are never merged,
and neither are fresh lists or dicts, so no two names come to share one mutable object.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from .base import Pass, assigns, mutated, pure


def _notes(s, notes):
    """(key or None, operands, names it mutates) of a simple statement."""
    mut = set()
    if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript):
        mut |= assigns(s)
    for n in notes.calls(s):
        if isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name):
            mut.add(n.func.value.id)
        m = mutated(n)
        if isinstance(m, gast.Name):
            mut.add(m.id)
    key, ops = None, ()
    if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
        v = s.value
        ops = analysis.operands(v)
        if not build.is_atom(v) and not isinstance(v, (gast.List, gast.Dict)) and pure(v):
            key = _key(v)
    return key, ops, mut


def _simple(stmts, notes):
    """Each simple statement (not a block, not a comment) with its notes."""
    for s in analysis.walk_stmts(stmts):
        if not build.is_comment(s) and not isinstance(s, (gast.If, gast.For, gast.While)):
            yield s, notes.get(s, "cse", lambda s: _notes(s, notes))


_FIELDS: dict[type, tuple[str, ...]] = {}


def _key(node):
    """A hashable value equal for equal expressions (what `gast.dump` prints, without printing)."""
    cls = type(node)
    if cls is gast.Name:
        return node.id
    if cls is gast.Constant:
        return cls, type(node.value), repr(node.value)
    if cls is list:
        return tuple(_key(n) for n in node)
    if not isinstance(node, gast.AST):
        return node
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple(f for f in cls._fields if f not in ("ctx", "type_comment"))
    return (cls,) + tuple(_key(getattr(node, f, None)) for f in fields)


class _Seen:
    """The right-hand sides available in a block so far: key -> (target, operands), with an index
    from each name to the entries that read it or hold it, so a write forgets exactly those."""

    def __init__(self):
        self.entries: dict = {}
        self.by_name: dict[str, list] = {}

    def add(self, key, target: str, operands) -> None:
        entry = (target, operands)
        self.entries[key] = entry
        for n in {target, *operands}:
            self.by_name.setdefault(n, []).append((key, entry))

    def forget(self, names) -> None:
        for n in names:
            for key, entry in self.by_name.pop(n, ()):
                if self.entries.get(key) is entry:
                    del self.entries[key]


def _block(stmts, mutated, touched: set[str], notes) -> None:
    seen = _Seen()
    for s in stmts:
        for f in ("body", "orelse"):
            if getattr(s, f, None):
                _block(getattr(s, f), mutated, touched, notes)
        if build.is_comment(s):
            continue
        if not isinstance(s, gast.Assign) or not isinstance(s.targets[0], gast.Name):
            seen.forget(assigns(s))
            if not isinstance(s, (gast.Assign, gast.Expr, gast.Return)):
                seen = _Seen()
            else:  # `a.append(v)`: `a[-1]` read before is not `a[-1]` read after
                seen.forget(notes.get(s, "cse", lambda s: _notes(s, notes))[2])
            continue
        t = s.targets[0].id
        key, ops, mut = notes.get(s, "cse", lambda s: _notes(s, notes))
        seen.forget(mut)  # (`v = a.pop()`)
        if key is not None and t not in mutated:
            hit = seen.entries.get(key)
            if hit is not None:
                touched.update(notes.names(s), (hit[0],))
                s.value = build.name(hit[0])
                notes.forget(s)
                key = None
        else:
            key = None
        seen.forget((t,))
        if key is not None and t not in ops:
            seen.add(key, t, ops)


def common_subexpressions(body: list, params, facts) -> tuple[list, set[str]]:
    notes = facts["notes"]
    mutated = set().union(*(n[2] for _, n in _simple(body, notes)))
    touched: set[str] = set()
    _block(body, mutated, touched, notes)
    return body, touched


PASS = Pass("common_subexpressions", common_subexpressions, idempotent=True, forgets=True)
