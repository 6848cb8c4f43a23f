"""Which names may refer to the same array, so that an in-place update through one of them that
another one still reads afterwards is reported instead of differentiated wrongly.

NumPy updates arrays in place (`z += 1`, `b[0] = v`, a view `row = m[i]` then `row *= 2`); s2s
treats `z += v` as `z = z + v` and records `b[i] = v` for `b` alone, which is exact unless another
name for the same array is read later.
"""
from __future__ import annotations

import gast

from ..ir import build


class Aliases:
    def __init__(self, fn: gast.FunctionDef):
        self.groups: dict[str, set[str]] = {}
        self.loads = [(n.lineno, n.col_offset, n.id) for n in build.walk(fn)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and hasattr(n, "lineno")]
        self.kills = _unconditional_assignments(fn)

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
        # the update's own statement reads its operands before it writes (`x[0] = a * 2.0`)
        pos = (getattr(stmt, "end_lineno", None) or stmt.lineno, getattr(stmt, "end_col_offset", None) or 0)
        spans = [(lp.lineno, max(getattr(n, "lineno", None) or lp.lineno for n in gast.walk(lp)), lp)
                 for lp in loops if getattr(lp, "lineno", None) is not None]
        out = []
        for line, col, n in self.loads:
            if n not in others:
                continue
            here = (line, col)
            # the innermost enclosing loop that also holds the read runs both again; a statement of
            # its own body that rebinds the name first makes the read see the new value
            loop = next((lp for lo, hi, lp in reversed(spans) if lo <= line <= hi), None)
            loop_kills = _unconditional_assignments(loop).get(n, []) if loop is not None else []
            kills = list(self.kills.get(n, ())) + loop_kills
            if here > pos and not any(pos < k < here for k in kills):
                out.append(n)
            elif loop is not None and not any(k < here for k in loop_kills):
                out.append(n)
        return sorted(set(out))


def _unconditional_assignments(fn: gast.FunctionDef) -> dict[str, list[tuple]]:
    """Where each name is given a new value by a statement of the function's (or loop's) own body (run on
    every path): the position just after that statement. A later read of the name reads the new
    value, not the array it named before."""
    out: dict[str, list[tuple]] = {}
    for s in fn.body:
        if not isinstance(s, (gast.Assign, gast.AnnAssign)) or getattr(s, "lineno", None) is None:
            continue
        targets = s.targets if isinstance(s, gast.Assign) else [s.target]
        end = (getattr(s, "end_lineno", None) or s.lineno, float("inf"))
        for t in targets:
            for n in ([t] if isinstance(t, gast.Name) else getattr(t, "elts", [])):
                if isinstance(n, gast.Name):
                    out.setdefault(n.id, []).append(end)
    return out
