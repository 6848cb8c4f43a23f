"""Dead restores: a tape's push and its pop go when the popped value is never read.

The reverse sweep saves a variable before each overwrite in a loop and restores it in the
backward loop; once shape folding has written `rt.unbroadcast(g, t5)` as `g`, the restored
`t5` is read by nobody, and the push, the pop and the stub they carry are per-iteration work
for nothing. With `t5` read nowhere in the backward loop nor after it,

Before::

    tape = []
    for t in r0:
        tape.append(rt.shape_stub(t5))
        t5 = t3 + t4
        tape.append(h)
        h = xp.tanh(t5 + b)
    for t in r1:
        g = g * (1 - h * h)
        h = tape.pop()
        t5 = tape.pop()

After::

    tape = []
    for t in r0:
        t5 = t3 + t4
        tape.append(h)
        h = xp.tanh(t5 + b)
    for t in r1:
        g = g * (1 - h * h)
        h = tape.pop()

Only for a local list pushed only at the top level of one top-level loop's body and popped
only at the top level of a later one's, as many times per iteration, with no `break`,
`continue` or `return` in either loop (so pop i of every backward iteration takes push k - 1 - i
of a forward one, whatever the trip counts), and nothing else reading the list.
"""
from __future__ import annotations

import gast

from .. import analysis
from .base import Pass
from .stack import noted_lists, pop_of, push_of

_JUMPS = (gast.Break, gast.Continue, gast.Return)


def _loop_of(body, stmts_of):
    """The one top-level plain `for` loop of `body` whose own body holds every statement of
    `stmts_of` (at its top level), or None."""
    ids = {id(s) for s in stmts_of}
    for s in body:
        if isinstance(s, gast.For) and not s.orelse and ids <= {id(x) for x in s.body}:
            return s
    return None


def _plain(loop) -> bool:
    return not any(isinstance(n, _JUMPS) for n in analysis.iter_nodes(loop.body))


def _dead_pairs(body, lst):
    """The (push, pop) statements of list `lst` to drop: those whose popped name is dead."""
    pushes = [s for s in analysis.walk_stmts(body) if (p := push_of(s)) is not None and p[0] == lst]
    pops = [s for s in analysis.walk_stmts(body) if (p := pop_of(s)) is not None and p[0] == lst]
    if not pushes or len(pushes) != len(pops) or analysis.loads(body).count(lst) != len(pushes) + len(pops):
        return []  # (a list measured, or passed on, keeps every push)
    fwd, bwd = _loop_of(body, pushes), _loop_of(body, pops)
    if fwd is None or bwd is None or not (_plain(fwd) and _plain(bwd)):
        return []
    top = [id(s) for s in body]
    if top.index(id(fwd)) >= top.index(id(bwd)):
        return []
    later = body[top.index(id(bwd)):]  # (the backward loop and what follows it)
    read = set(analysis.loads(later))
    pushes.sort(key=lambda s: [id(x) for x in fwd.body].index(id(s)))
    pops.sort(key=lambda s: [id(x) for x in bwd.body].index(id(s)))
    k = len(pops)
    return [(pushes[k - 1 - i], pop) for i, pop in enumerate(pops)
            if (t := pop_of(pop)[1]) is None or t not in read]


def dead_restores(body: list, params, facts) -> tuple[list, set[str]]:
    if not any(isinstance(s, gast.For) for s in body) or not noted_lists(body, params, facts["notes"], local=False):
        return body, set()
    touched: set[str] = set()
    for lst in sorted(noted_lists(body, params, facts["notes"])):
        pairs = _dead_pairs(body, lst)
        drop = {id(s) for pair in pairs for s in pair}
        if not drop:
            continue
        for s in body:
            if isinstance(s, gast.For) and any(id(x) in drop for x in s.body):
                touched.update(n for x in s.body if id(x) in drop for n in facts["notes"].names(x))
                s.body[:] = [x for x in s.body if id(x) not in drop] or [gast.Pass()]
    return body, touched


PASS = Pass("dead_restores", dead_restores, idempotent=True)
