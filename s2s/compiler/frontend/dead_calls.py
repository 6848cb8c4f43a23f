"""Operations whose results the user's function never reads still run: they may raise.

`y = np.linalg.inv(S)` with `y` unread raises LinAlgError in the plain function when `S` is
singular; dead-code elimination would drop it, and `grad`, `jit` or `vmap` of the function would
return a number where the plain function raises. So the core form of a user's function ends each
such statement's value in `ext.s2s_keep(y)` (s2s/compiler/primitives/rules_guards.py), an effect
with no derivative that no pass removes: the operation stays, and so do the values it reads.

Every pass that drops dead code (passes/dce.py, the transforms' activity and liveness) then sees
a statement that is read. Only statements dead in the user's own function are kept here; reverse
mode keeps the values that carry no derivative and that become dead because `grad` does not
return the output (transforms/reverse.py), with the same "may raise" fact (analysis/raising.py);
an active value dead under a transform is removed as before, since a transform's derivative reads
the same operands. A statement that cannot raise is not kept: a name, a literal, a tuple or list
of those, an attribute read, a lowered `raise` and other effects (kept anyway), a list's `pop`.
Nor is an accumulator nothing reads (an array the function updates item by item, rebound by
arithmetic: an author's own `dW` beside the loss, issue 46's dead stores): its stores, its
`dW = dW / n` and what only they read go, operations that may raise included. Liveness is
faint: what only dropped statements read is dead too.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..analysis import raising
from ..ir import build
from ..ir.names import Namer

_ROUNDS = 16  # dead chains followed at most this deep (each round is one liveness over the function)


def _accumulators(body) -> set[str]:
    """Names the function stores items into (`dW[:, j] = ...`)."""
    return {s.targets[0].value.id for s in analysis.walk_stmts(body)
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript)
            and isinstance(s.targets[0].value, gast.Name)}


def _inplace(value) -> bool:
    """Whether `value` is `a op= v`'s `rt.inplace(r, a, ...)` (arithmetic, checked as NumPy's)."""
    return isinstance(value, gast.Call) and analysis.dotted(value.func) == "rt.inplace"


def _dead_read(s, after, accumulators, fed):
    """For a simple statement `s` whose targets are dead after it (`after`): ("gone", None) where
    it goes without a trace (it cannot raise; or it is an accumulator's dead arithmetic or store,
    or computes only what those read, `fed`), ("keep", name) where it may raise (`name` is what a
    reader reads), else None (it is live, or kept by dead-code elimination itself)."""
    target = s.targets[0]
    if isinstance(target, gast.Subscript):  # `A[10] = v` into an array nothing reads again
        base = target.value
        if not isinstance(base, gast.Name) or base.id in after:
            return None
        return ("fed", None) if base.id in accumulators else ("keep", base.id)
    names = analysis.targets(s)
    if not names or any(n in after for n in names):
        return None
    if raising.removable(s.value):
        return ("gone", None)
    if isinstance(target, gast.Name) and target.id in accumulators and (isinstance(s.value, (gast.BinOp, gast.UnaryOp))
                                                                        or _inplace(s.value)) \
            or any(n in fed for n in names):
        return ("fed", None)
    if isinstance(target, gast.Name) and not raising.cannot_raise(s.value):
        return ("keep", target.id)
    return None  # (an effect, a list's pop: dead-code elimination keeps it)


def _readers(body, accumulators) -> dict:
    """statement -> the name a reader after it reads, for each dead statement that may raise; dead
    statements that go without a trace are taken out of liveness until none is left."""
    gone: set = set()
    fed: set[str] = set()  # names the accumulators' dead arithmetic and stores read
    for _ in range(_ROUNDS):
        live = raising.Faint(body, gone)
        new = set()
        keep = {}
        for s in analysis.walk_stmts(body):
            if not raising.simple(s) or s in gone or s not in live.after:
                continue
            verdict = _dead_read(s, live.after[s], accumulators, fed)
            if verdict is None:
                continue
            if verdict[0] == "keep":
                keep[s] = verdict[1]
                continue
            new.add(s)
            if verdict[0] == "fed":
                fed.update(analysis.loads(s))
        if not new:
            break
        gone |= new
    return keep


def keep_dead_calls(core) -> None:
    """Give each statement of user function `core` (a CoreFn, changed in place) whose value is
    never read, and whose evaluation may raise, a reader that no pass removes."""
    node = core.node
    keep = _readers(node.body, _accumulators(node.body))
    if keep:
        namer = Namer(build.names_in(node) | {"xp", "rt", "ext"})
        node.body = raising.with_keeps(node.body, keep, namer, core.ns)
