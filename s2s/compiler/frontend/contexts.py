"""`with np.errstate(...)` inside a transformed function (`try` statements: handlers.py).

The body runs under NumPy's floating-point error settings: `ext.s2s_errstate_enter(**kw)` sets
them (np.seterr, keeping the old ones) before the body and `ext.s2s_errstate_exit(old)` restores
them after it, both effects that no pass removes or moves (s2s/compiler/primitives/rules_guards.py). The
derivative's statements for the body (a jvp's tangents, reverse mode's forward sweep) run between
the two; reverse mode's backward sweep runs under the caller's settings. A `return` that ends the
body (`with np.errstate(over="ignore"): return np.where(...)`, the numerically stable sigmoid) has
its value computed under the settings, then the settings restored, then the return. Any other
`return`, `break` or `continue` inside the body, and any other context manager, are refused: the
exit would not run. Inside a `try` body, whose handler may catch what the body raises, the body's
statements keep an exception (handlers.kept_exception) until the settings are restored, then raise
it again; elsewhere an exception leaves the function with the settings it set.
"""
from __future__ import annotations

import gast
import numpy as np

from ..ir import build
from ..primitives.registry import EXT
from . import handlers

_JUMPS = (gast.Return, gast.Break, gast.Continue)


def _jumps_out(stmts):
    for s in stmts:
        for n in gast.walk(s):
            if isinstance(n, _JUMPS):
                return n
    return None


def lower_with(norm, s) -> None:
    """Lower `with np.errstate(k=v, ...): body` (a settings call s2s resolves; values atoms)."""
    if len(s.items) != 1 or s.items[0].optional_vars is not None:
        norm.fail(s, "s2s supports `with` only for `np.errstate(...)` (one context, no `as`) inside a transformed "
                     "function: another context manager runs code on entry and exit that s2s does not follow.",
                  "Enter it around the call of the transformed function instead.")
    cm = s.items[0].context_expr
    obj = None
    if isinstance(cm, gast.Call) and not cm.args and all(k.arg is not None for k in cm.keywords):
        try:
            obj = norm.static(cm.func)
        except Exception:  # noqa: BLE001 - refused below
            obj = None
    if obj is None and isinstance(cm, gast.Name | gast.Attribute):
        try:
            if getattr(norm.static(cm), "s2s_transparent", False):  # s2s's own entry marker: the body alone
                for st in s.body:
                    norm.stmt(st)
                return
        except Exception:  # noqa: BLE001 - refused below
            pass
    if obj is not np.errstate:
        norm.fail(s, "s2s supports `with` only for `np.errstate(...)` with keyword arguments inside a transformed "
                     "function: another context manager runs code on entry and exit that s2s does not follow.",
                  "Enter it around the call of the transformed function instead.")
    body, tail = s.body, None
    if body and isinstance(body[-1], gast.Return):  # the body's last statement: value, exit, return
        body, tail = body[:-1], body[-1]
    jump = _jumps_out(body)
    if jump is not None:
        norm.fail(jump, "s2s does not support a `return`, `break` or `continue` inside `with np.errstate(...)`: "
                        "the settings would not be restored.",
                  "Assign the value inside the `with` block and return or jump after it.")
    norm.ns["ext"] = EXT
    old = norm.tmp(build.call("ext.s2s_errstate_enter", [], {k.arg: norm.atom(k.value) for k in cm.keywords}),
                   "errstate")
    loc, saved, norm.out = norm.loc, norm.out, []
    for st in body:
        norm.stmt(st)
    value = None
    if tail is not None:
        norm.loc, norm.current = (tail.lineno, tail.col_offset), tail
        value = norm.atom(tail.value) if tail.value is not None else build.const(None)
    inner, norm.out = norm.out, saved
    again = None
    if getattr(norm, "catching", 0):  # inside a `try` that may catch what the body raises: restore first
        inner, again = handlers.kept_exception(norm, inner)
    norm.out.extend(inner)
    norm.loc = loc
    norm.tmp(build.call("ext.s2s_errstate_exit", [old]), "restored")
    if again is not None:
        norm.emit(again)
    if tail is not None:
        norm.loc = (tail.lineno, tail.col_offset)
        norm.emit(build.ret(value))

