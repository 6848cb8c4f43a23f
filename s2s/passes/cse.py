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

from .. import analysis as an
from ..ir import build as A
from ..primitives import registry
from .base import Pass, assigns, pure


def _mutated(body) -> set[str]:
    out = set()
    for s in an.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript):
            out |= assigns(s)
        for n in gast.walk(s):
            if isinstance(n, gast.Call):
                if isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name):
                    out.add(n.func.value.id)
                h = registry.HELPERS.get(an.dotted(n.func) or "")
                if h is not None and h.mutates and n.args and isinstance(n.args[0], gast.Name):
                    out.add(n.args[0].id)
    return out


def _block(stmts, mutated) -> bool:
    changed, seen = False, {}
    for s in stmts:
        for f in ("body", "orelse"):
            if getattr(s, f, None):
                changed |= _block(getattr(s, f), mutated)
        if A.is_comment(s):
            continue
        written = assigns(s)
        if not isinstance(s, gast.Assign) or not isinstance(s.targets[0], gast.Name):
            seen = {k: v for k, v in seen.items() if not (v[1] & written) and v[0] not in written}
            if not isinstance(s, (gast.Assign, gast.Expr, gast.Return)):
                seen = {}
            continue
        v, t = s.value, s.targets[0].id
        key = None
        if not A.is_atom(v) and not isinstance(v, (gast.List, gast.Dict)) and pure(v) and t not in mutated:
            key = gast.dump(v)
            if key in seen:
                s.value = A.name(seen[key][0])
                changed = True
                key = None
        seen = {k: e for k, e in seen.items() if not (e[1] & written) and e[0] not in written}
        if key is not None and t not in an.operands(v):
            seen[key] = (t, set(an.operands(v)))
    return changed


def common_subexpressions(body: list, params, facts) -> tuple[list, bool]:
    return body, _block(body, _mutated(body))


PASS = Pass("common_subexpressions", common_subexpressions)
