"""Expression re-forming (jit): a temporary read exactly once, in the next statements of the same
block, is written into the expression that reads it, so NumPy can reuse the memory of its
unnamed temporaries (it writes `a * b + c` into the buffer of `a * b`) and no name keeps an
intermediate array alive.

Before::

    t1 = xp.exp(x)
    t2 = 1.67 * t1
    t3 = t2 - 1.67
    return t3

After::

    return 1.67 * xp.exp(x) - 1.67

A right-hand side moves only over pure assignments that do not rebind what it reads, so values
and the order of anything with an effect are unchanged. Like `lifetime` it runs after the fixed
point, on the code that runs; the record keeps core form for later transforms.

A move must not keep arrays alive longer than the core form did: an operand whose last read is
the moved statement (released there by `lifetime`) stays alive until the reading statement ends.
So when such an operand exists (one not known to be a Python number), the right-hand side moves
only into the very next statement, and only where that statement passes the value on (a return,
a tuple) or, when `fusion` follows, where the moves make the statement one fused kernel (which
allocates nothing but its result); a move made for a kernel that then does not form (fusion
declines the expression) is undone. Measured: vmap(grad) of W1 at B=65536 held 1.6 MB more at
its peak, touched 26% more fresh pages per call and ran 1.2x slower than without jit when dying
operands moved into calls; writing `-(a * b)` (NumPy negates in place) still cost 26% more page
faults than the named form, and no time where memory is not handed back to the system.
"""
from __future__ import annotations

import collections

import gast

from .. import analysis
from ..ir import build
from . import algebra, fusion
from .base import Pass, assigns, pure


def _movable_over(s, reads: set[str], target: str) -> bool:
    return build.is_comment(s) or isinstance(s, gast.Assign) and isinstance(s.targets[0], (gast.Name, gast.Tuple)) \
        and pure(s.value) and not (assigns(s) & (reads | {target}))


def elementwise_only(value) -> bool:
    """Whether `value` only combines its operands element by element (a full `xp.sum` of that, or
    a tuple of such values, included): what `fusion` makes one kernel of."""
    if isinstance(value, (gast.Tuple, gast.List)):
        return all(elementwise_only(e) for e in value.elts)
    if isinstance(value, gast.Call) and analysis.dotted(value.func) == "xp.sum" and len(value.args) == 1 \
            and not value.keywords:
        value = value.args[0]
    return fusion.elementwise_ops(value) is not None


def _passes_on(value) -> bool:
    """Whether `value` only passes values on (names, constants, tuples of them): it allocates nothing."""
    return all(isinstance(n, (gast.Name, gast.Constant, gast.Tuple, gast.List, gast.expr_context))
               for n in build.walk(value))


def substitute_read(stmt, name: str, value):
    """Write `value` (itself: its statement goes) for the one read of `name` in `stmt`'s value;
    `value`, or None."""
    if isinstance(stmt.value, gast.Name) and stmt.value.id == name:
        stmt.value = value
        return value
    for node in build.walk(stmt.value):
        for field, child in gast.iter_fields(node):
            kids = child if isinstance(child, list) else [child]
            for k, kid in enumerate(kids):
                if isinstance(kid, gast.Name) and kid.id == name and isinstance(kid.ctx, gast.Load):
                    if isinstance(child, list):
                        child[k] = value
                    else:
                        setattr(node, field, value)
                    return value
    return None


def _dying(s, value, ctx) -> set[str]:
    """The arrays `value` (moving from statement `s`) reads that are released at `s`."""
    live, numbers, _, local, _, _ = ctx
    return {n for n in analysis.operands(value) if n in local and n not in live.after[s]} - numbers


def _fold_into(stmts, i, counts, ctx) -> bool:
    s = stmts[i]
    t = s.targets[0].id
    reads = set(analysis.operands(s.value))
    pending, order, notes = ctx[2], ctx[4], ctx[5]
    dying = _dying(s, s.value, ctx)
    for j in range(i + 1, len(stmts)):
        u = stmts[j]
        if t in notes.loads(u):  # (a block's statement may be noted as it was: the scan stops there anyway)
            if isinstance(u, (gast.Assign, gast.Return, gast.Expr)) and u.value is not None \
                    and not (isinstance(u, gast.Assign) and t in analysis.loads(u.targets[0])):
                keep = not dying or _passes_on(u.value)
                if not keep and (pending is None or not (elementwise_only(s.value) and elementwise_only(u.value))):
                    return False  # it would hold `dying` while an array is allocated
                new = substitute_read(u, t, s.value)
                if new is not None:
                    notes.forget(u)
                    del stmts[i]
                    if not keep:  # kept only if the statement becomes one kernel (`_settle`)
                        pending.append((stmts, s, order[id(s)], t, new))
                    return True
            return False
        if dying and not build.is_comment(u) or not _movable_over(u, reads, t):
            return False
    return False


def _settle(pending, floats, ctx, every: bool, compiled=None) -> None:
    """Undo the moves that were to make one kernel where the statement did not become one (and
    that still release an array: moves of its operands may have taken that away): each moved
    expression is named and assigned again just before the statement, in program order."""
    groups: dict = {}
    owners: dict = {}  # id(block) -> {id(node): the statement of the block that holds it}, one walk per block
    for stmts, s, pos, t, new in pending:
        if not _dying(s, new, ctx):
            continue
        where = owners.get(id(stmts))
        if where is None:
            where = owners[id(stmts)] = {id(n): u for u in stmts for n in build.walk(u)}
        owner = where[id(new)]
        groups.setdefault(id(owner), (stmts, owner, []))[2].append((pos, t, new))
    before: dict = {}  # id(block) -> (block, {id(owner): statements restored before it, last first})
    for stmts, owner, moves in groups.values():
        if isinstance(owner, (gast.Assign, gast.Return)) \
                and fusion.fusion_candidate(owner.value, floats, every, compiled) is not None \
                and (isinstance(owner, gast.Return) or isinstance(owner.targets[0], gast.Name)):
            continue
        restored = [owner]
        ahead = before.setdefault(id(stmts), (stmts, {}))[1].setdefault(id(owner), [])
        for _, t, new in sorted(moves, key=lambda m: -m[0]):  # the latest first: each goes before the last
            node, field = next((n, f) for r in restored for n in build.walk(r) for f, c in gast.iter_fields(n)
                               if c is new or isinstance(c, list) and any(k is new for k in c))
            child = getattr(node, field)
            if isinstance(child, list):
                child[[k is new for k in child].index(True)] = build.name(t)
            else:
                setattr(node, field, build.name(t))
            s = build.assign(t, new)
            ahead.append(s)  # (each just before the one restored before it)
            restored.append(s)
    for stmts, ahead in before.values():  # each block rebuilt once, not an insert (and a search) per move
        stmts[:] = [r for u in stmts for r in (*reversed(ahead.get(id(u), ())), u)]


def _block(stmts, counts, params, ctx) -> bool:
    changed = False
    for s in stmts:
        for f in ("body", "orelse"):
            if getattr(s, f, None):
                changed |= _block(getattr(s, f), counts, params, ctx)
    for i in range(len(stmts) - 1, -1, -1):
        s = stmts[i]
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and counts[s.targets[0].id] == 1 \
                and s.targets[0].id not in params and not build.is_atom(s.value) and pure(s.value) \
                and not isinstance(s.value, (gast.List, gast.Dict, gast.Tuple)):
            changed |= _fold_into(stmts, i, counts, ctx)
    return changed


def reform(body: list, params, facts) -> tuple[list, bool]:
    binds = collections.Counter(t for s in analysis.walk_stmts(body) for t in analysis.targets(s))
    counts = collections.Counter(analysis.loads(body))
    counts = collections.Counter({n: c if binds[n] == 1 else 99 for n, c in counts.items()})
    numbers = algebra.python_floats(body, params, facts["known"].get("floats", ()))
    pending = [] if facts["known"].get("fuse") else None
    order = {id(s): k for k, s in enumerate(analysis.walk_stmts(body))}
    held = {e.id for s in body if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Tuple)
            and isinstance(s.value, gast.Name) and s.value.id in params
            for e in s.targets[0].elts if isinstance(e, gast.Name) and binds[e.id] == 1}  # the caller holds them too
    ctx = (facts["liveness"], numbers | set(params), pending, set(binds) - held, order, facts["notes"])
    changed = False
    while _block(body, counts, set(params), ctx):  # again: an operand moved away may have been what died
        changed = True
    if pending:
        _settle(pending, numbers, ctx, facts["known"].get("fuse") == "every", facts["known"].get("compiled"))
    return body, changed


PASS = Pass("reform", reform, needs=("liveness",))
