"""Local names bound once to a module or a function (`m = np`, `f = np.sin`): resolved as that object.

`m = np; m.sum(x ** 2)` must differentiate `np.sum`, not treat `m` as an opaque value whose
method is unknown. A local assigned exactly once, by a plain `name = <global name or attribute
chain>` whose value is a module or a function s2s resolves, is taken as that object wherever it
is read (the assignment emits nothing). A module that still reaches a value any other way (a
local bound to it twice, a branch) is refused by the normalizer: never a silently constant call.
"""
from __future__ import annotations

import types

import gast

from . import resolve


def find(fn: gast.FunctionDef, locals_: set[str], static) -> dict:
    """{local name: object} for the once-bound aliases of `fn`; `static(node)` evaluates a
    non-local name or attribute chain (raising when it cannot)."""
    stores: dict[str, int] = {}
    for n in gast.walk(fn):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param, gast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef)) and n is not fn:
            stores[n.name] = stores.get(n.name, 0) + 2
    out = {}
    for s in fn.body:  # top-level statements only: the binding runs before every read after it
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)):
            continue
        name, value = s.targets[0].id, s.value
        if stores.get(name) != 1 or not _rooted_outside(value, locals_):
            continue
        try:
            obj = static(value)
        except Exception:  # noqa: BLE001 - not a static value: an ordinary local
            continue
        if isinstance(obj, types.ModuleType) or callable(obj) and (
                resolve.prim_key(obj) is not None or resolve.is_user_function(obj)):
            out[name] = obj
    return out


def _rooted_outside(node, locals_: set[str]) -> bool:
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name) and node.id not in locals_
