"""A slot's cotangent added and taken back out in one call (jit, issue 46 section 2). A dict's
item stored and read in one step (the char RNN's `y_hat[t] = p` then `y_hat[t][Y[t], 0]`) gives
the backward step the read's cotangent added into the slot, then the store's taken out of it:

Before::

    b_y = rt.add_at(b_y, t, b_t14)
    t14 = tape.pop()
    ct3, b_y = rt.take_at(b_y, t, t13)

After::

    ct3, b_y = rt.add_take_at(b_y, t, b_t14, t13)
    t14 = tape.pop()

`rt.add_take_at` is the two helpers in one call (a dict's copy and two dispatches fewer, about
1 µs a step). Only where nothing runs between them but pops of a list into names the two do not
read or bind (and comments), so moving the take up changes no value anyone sees.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from .base import Pass


def _call(s, name: str, n: int):
    """The arguments of `s`'s value when it is a call of `name` with `n` positional names."""
    v = getattr(s, "value", None)
    if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(v, gast.Call) \
            and analysis.dotted(v.func) == name and len(v.args) == n and not v.keywords \
            and all(isinstance(a, gast.Name) for a in v.args):
        return [a.id for a in v.args]
    return None


def _add(s):
    """(acc, k, v) for `acc = rt.add_at(acc, k, v)` of three distinct names, else None."""
    args = _call(s, "rt.add_at", 3)
    if args is None or not isinstance(s.targets[0], gast.Name) or s.targets[0].id != args[0] or len(set(args)) != 3:
        return None
    return tuple(args)


def _take(s):
    """(ct, acc, k, like) for `ct, acc = rt.take_at(acc, k, like)`, else None."""
    args = _call(s, "rt.take_at", 3)
    t = s.targets[0] if args is not None else None
    if not (isinstance(t, gast.Tuple) and len(t.elts) == 2 and all(isinstance(e, gast.Name) for e in t.elts)
            and t.elts[1].id == args[0]):
        return None
    return t.elts[0].id, args[0], args[1], args[2]


def _pop(s) -> str | None:
    """`x` for `x = L.pop()`, else None."""
    v = getattr(s, "value", None)
    if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) \
            and isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr == "pop" \
            and isinstance(v.func.value, gast.Name) and not v.args and not v.keywords:
        return s.targets[0].id
    return None


def _fuse(block: list) -> bool:
    changed = False
    i = 0
    while i < len(block):
        add = _add(block[i])
        if add is not None:
            acc, k, v = add
            j = i + 1
            while j < len(block) and (build.is_comment(block[j]) or (x := _pop(block[j])) is not None and x not in add):
                j += 1
            take = _take(block[j]) if j < len(block) else None
            between = {_pop(s) for s in block[i + 1:j]}
            if take is not None and take[1:3] == (acc, k) and not between & {take[0], take[3], v} \
                    and take[0] not in add and take[3] != acc:
                ct, like = take[0], take[3]
                block[i] = build.assign(build.tuple_([build.name(ct), build.name(acc)], store_=True),
                                        build.call("rt.add_take_at", [build.name(n) for n in (acc, k, v, like)]))
                del block[j]
                changed = True
        for field in ("body", "orelse"):
            inner = getattr(block[i], field, None)
            if isinstance(inner, list):
                changed |= _fuse(inner)
        i += 1
    return changed


def slot_takes(body: list, params, facts) -> tuple[list, bool]:
    return body, _fuse(body)


PASS = Pass("slot_takes", slot_takes)
