"""Structure jumps so every `break`, `continue` and `return` ends its path, and returns become one exit.

Reverse mode replays a loop body backwards; that is only simple when no statement of the body can
follow a jump. `if c: break` followed by `rest` becomes `if c: break` / `else: rest`; a `return`
inside a loop becomes `ret = v; returned = True; break` with `if returned: return ret` after the
loop; finally all returns assign one variable that the last statement returns.
"""
from __future__ import annotations

import copy

import gast

from ..ir import build
from ..ir.core import is_catch
from .guards import is_raise

JUMPS = (gast.Break, gast.Continue, gast.Return)  # (and a lowered `raise`: _ends)


def _walk_level(stmts, into_loops: bool):
    for s in stmts:
        yield s
        if isinstance(s, gast.If) and not is_catch(s.test):  # (a catch block's raise does not end the path)
            yield from _walk_level(s.body, into_loops)
            yield from _walk_level(s.orelse, into_loops)
        elif into_loops and isinstance(s, (gast.For, gast.While)):
            yield from _walk_level(s.body, into_loops)


def _has(stmts, kinds, into_loops=False) -> bool:
    return any(isinstance(s, kinds) or kinds is JUMPS and is_raise(s) for s in _walk_level(stmts, into_loops))


def _ends(s) -> bool:
    """Whether `s` ends its path: a jump, or a lowered `raise` (frontend/guards.py)."""
    return isinstance(s, JUMPS) or is_raise(s)


def restructure(body: list, namer) -> list:
    returns = [s for s in _walk_level(body, True) if isinstance(s, gast.Return)]
    if not returns:
        body.append(build.ret(build.const(None)))
    state: dict = {}
    body = _loop_returns(body, namer, state)
    if not isinstance(body[-1], gast.Return):  # e.g. `while True:` returning from inside: may fall off the end
        body.append(build.ret(build.const(None)))
    body = _sink(body)
    if len([s for s in _walk_level(body, True) if isinstance(s, gast.Return)]) > 1 \
            or not isinstance(body[-1], gast.Return):  # (a guard's raise ends the other paths)
        ret = state.get("val") or namer.fresh("ret")
        body = _single_exit(body, ret)
        body.append(build.ret(build.name(ret)))
    if state:
        body = [build.assign(state["flag"], build.const(False)), build.assign(state["val"], build.const(None))] + body
    return body


def _loop_returns(stmts, namer, state) -> list:
    out = []
    for s in stmts:
        if isinstance(s, gast.If):
            s.body = _loop_returns(s.body, namer, state)
            s.orelse = _loop_returns(s.orelse, namer, state)
        elif isinstance(s, (gast.For, gast.While)) and _has(s.body, gast.Return, True):
            if not state:
                state["flag"], state["val"] = namer.fresh("returned"), namer.fresh("ret")
            s.body = _returns_to_breaks(s.body, state)
            out.append(s)
            out.append(_located(build.if_(build.name(state["flag"]), [build.ret(build.name(state["val"]))]), s))
            continue
        out.append(s)
    return out


def _returns_to_breaks(stmts, state) -> list:
    out = []
    for s in stmts:
        if isinstance(s, gast.Return):
            out += [_located(build.assign(state["val"], s.value), s),
                    _located(build.assign(state["flag"], build.const(True)), s), _located(gast.Break(), s)]
            continue
        if isinstance(s, gast.If):
            s.body = _returns_to_breaks(s.body, state)
            s.orelse = _returns_to_breaks(s.orelse, state)
        elif isinstance(s, (gast.For, gast.While)) and _has(s.body, gast.Return, True):
            s.body = _returns_to_breaks(s.body, state)
            out.append(s)
            out.append(_located(build.if_(build.name(state["flag"]), [gast.Break()]), s))
            continue
        out.append(s)
    return out


def _sink(stmts) -> list:
    """Move the statements after an `if` that may jump into the branches that fall through."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, (gast.For, gast.While)):
            s.body = _sink(s.body)
        if isinstance(s, gast.If) and not is_catch(s.test):
            s.body, s.orelse = _sink(s.body), _sink(s.orelse)
            if _has([s], JUMPS):
                rest = _sink(stmts[i + 1:])
                s.body = _append(s.body, rest)
                s.orelse = _append(s.orelse, copy.deepcopy(rest))
                out.append(s)
                return out
        out.append(s)
        if _ends(s):
            return out
    return out


def _append(block, rest):
    if not rest:
        return block
    if block and _ends(block[-1]):
        return block
    if block and isinstance(block[-1], gast.If) and _has([block[-1]], JUMPS):
        last = block[-1]
        last.body = _append(last.body, rest)
        last.orelse = _append(last.orelse, copy.deepcopy(rest))
        return block
    return [s for s in block if not isinstance(s, gast.Pass)] + rest


def _single_exit(stmts, ret) -> list:
    out = []
    for s in stmts:
        if isinstance(s, gast.Return):
            out.append(_located(build.assign(ret, s.value), s))
            continue
        if isinstance(s, gast.If):
            s.body = _single_exit(s.body, ret) or [gast.Pass()]
            s.orelse = _single_exit(s.orelse, ret)
        out.append(s)
    return out


def _located(new, old):
    if hasattr(old, "lineno"):
        new.lineno, new.col_offset = old.lineno, getattr(old, "col_offset", 0)
    return new
