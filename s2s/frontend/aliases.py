"""Which names may refer to the same array, so that an in-place update through one of them that
another one still reads afterwards is reported instead of differentiated wrongly.

NumPy updates arrays in place (`z += 1`, `b[0] = v`, a view `row = m[i]` then `row *= 2`); s2s
treats `z += v` as `z = z + v` and records `b[i] = v` for `b` alone, which is exact unless another
name for the same array is read later.
"""
from __future__ import annotations

import gast


class Aliases:
    def __init__(self, fn: gast.FunctionDef):
        self.groups: dict[str, set[str]] = {}
        self.loads = [(n.lineno, n.col_offset, n.id) for n in gast.walk(fn)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and hasattr(n, "lineno")]

    def link(self, a: str, b: str) -> None:
        """`a` now names the same array as `b` (a copy of the name, or a view of it)."""
        self.forget(a)
        group = self.groups.setdefault(b, {b})
        group.add(a)
        for n in group:
            self.groups[n] = group

    def forget(self, a: str) -> None:
        """`a` was given a new value."""
        group = self.groups.pop(a, None)
        if group is not None:
            group.discard(a)

    def others_read_later(self, name: str, stmt, loops) -> list[str]:
        """Other names of `name`'s array that the function reads after `stmt` (or anywhere in an
        enclosing loop, which runs again)."""
        others = self.groups.get(name, {name}) - {name}
        if not others:
            return []
        if getattr(stmt, "lineno", None) is None:
            return []
        pos = (stmt.lineno, getattr(stmt, "col_offset", 0))
        spans = [(lp.lineno, max(getattr(n, "lineno", None) or lp.lineno for n in gast.walk(lp)))
                 for lp in loops if getattr(lp, "lineno", None) is not None]
        out = []
        for line, col, n in self.loads:
            if n in others and ((line, col) > pos or any(lo <= line <= hi for lo, hi in spans)):
                out.append(n)
        return sorted(set(out))
