"""Operations whose results the user's function never reads still run: they may raise.

`y = np.linalg.inv(S)` with `y` unread raises LinAlgError in the plain function when `S` is
singular; dead-code elimination would drop it, and `grad`, `jit` or `vmap` of the function would
return a number where the plain function raises. So the core form of a user's function ends each
such statement's value in `ext.s2s_keep(y)` (s2s/compiler/primitives/rules_guards.py), an effect
with no derivative that no pass removes: the operation stays, and so do the values it reads.

This is the one place the rule lives: every pass that drops dead code (passes/dce.py, the
transforms' activity and liveness) sees a statement that is read. Only statements dead in the
user's own function are kept this way; values that become dead because a transform does not need
them (the loss itself under `grad`) are removed as before, since the plain function computed them
too and a transform's derivative reads the same operands. A statement that cannot raise is not
kept: a name, a literal, a tuple or list of those, an attribute read, a lowered `raise` and other
effects (kept anyway), a list's `pop`. Nor is the arithmetic of an accumulator nothing reads (an
array the function updates item by item, rebound by arithmetic: an author's own `dW` beside the
loss, issue 46's dead stores): its stores and its `dW = dW / n` go, with what only they read.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from ..ir.names import Namer
from ..primitives import registry
from ..primitives.registry import EXT

KEEP = "ext.s2s_keep"
_ATOMS = (gast.Name, gast.Constant)


def _cannot_raise(value) -> bool:
    """Whether evaluating core-form value `value` certainly raises nothing."""
    if isinstance(value, _ATOMS + (gast.Attribute,)):
        return True
    if isinstance(value, (gast.Tuple, gast.List)):
        return all(isinstance(e, _ATOMS) for e in value.elts)
    if isinstance(value, gast.Dict):
        return all(isinstance(e, _ATOMS) for e in value.keys + value.values if e is not None)
    if isinstance(value, gast.Call):
        kind = analysis.classify(value)
        if kind in ("list.pop", "call"):
            return True  # never removed: not this module's to keep
        p = registry.lookup(kind)
        return p is not None and p.effect  # kept already
    return False


def _accumulators(body) -> set[str]:
    """Names the function stores items into (`dW[:, j] = ...`)."""
    return {s.targets[0].value.id for s in analysis.walk_stmts(body)
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript)
            and isinstance(s.targets[0].value, gast.Name)}


def _sunk(stmts, live, namer, ns, accumulators=frozenset()) -> list:
    """`stmts` (nested blocks included) with an `ext.s2s_keep` after each dead statement that may raise."""
    out = []
    for s in stmts:
        out.append(s)
        if isinstance(s, (gast.If, gast.For, gast.While)):
            s.body = _sunk(s.body, live, namer, ns, accumulators)
            if isinstance(s, gast.If):
                s.orelse = _sunk(s.orelse, live, namer, ns, accumulators)
            continue
        if not isinstance(s, gast.Assign) or build.is_comment(s):
            continue
        target = s.targets[0]
        after = live.after.get(s)
        if after is None:
            continue
        if isinstance(target, gast.Subscript):  # `A[10] = v` into an array nothing reads again
            base = target.value
            read = base.id if isinstance(base, gast.Name) and base.id not in after \
                and base.id not in accumulators else None
        elif isinstance(target, gast.Name) and target.id not in after and not _cannot_raise(s.value) \
                and not (target.id in accumulators and isinstance(s.value, (gast.BinOp, gast.UnaryOp))):
            read = target.id
        else:
            read = None  # (an unpacking keeps its source live through the names it binds)
        if read is not None:
            ns["ext"] = EXT
            keep = build.assign(namer.fresh("kept"), build.call(KEEP, [build.name(read)]))
            out.append(gast.copy_location(keep, s))
    return out


def keep_dead_calls(core) -> None:
    """Give each statement of user function `core` (a CoreFn, changed in place) whose value is
    never read, and whose evaluation may raise, a reader that no pass removes."""
    node = core.node
    live = analysis.Liveness(node.body)
    namer = Namer(build.names_in(node) | {"xp", "rt", "ext"})
    node.body = _sunk(node.body, live, namer, core.ns, _accumulators(node.body))
