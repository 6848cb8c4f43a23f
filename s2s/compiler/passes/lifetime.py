"""Memory lifetime: every temporary is released (`del`) right after its last use, so a large
intermediate array goes back to NumPy's allocator before the next one is made.

Before::

    t1 = xp.exp(x)
    t2 = 1.67 * t1
    t3 = t2 - 1.67
    return t3

After::

    t1 = xp.exp(x)
    t2 = 1.67 * t1
    del t1
    t3 = t2 - 1.67
    del t2
    return t3

Only top-level statements get a `del`, for names certainly bound there and not parameters. It is
the last stage (after the fixed point): the record keeps the code without `del`s for later
transforms, which start from core form.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from .base import Pass


def release(body: list, params, facts) -> tuple[list, bool]:
    if any(isinstance(s, gast.Delete) for s in body):
        return body, False  # released already
    live = facts["top_liveness"]
    bound: set[str] = set()
    out, changed = [], False
    for s in body:
        out.append(s)
        if build.is_comment(s):
            continue
        if isinstance(s, gast.Return):
            break
        bound |= {t for t in analysis.targets(s)} if isinstance(s, gast.Assign) else set()
        reads = analysis.loads(s) if isinstance(s, (gast.For, gast.While, gast.If)) else live.effects[s][0]
        dead = sorted({n for n in reads if n in bound and n not in live.after[s] and n not in params})
        if isinstance(s, (gast.For, gast.While, gast.If)):
            bound |= _certain(s)
        if dead:
            d = gast.Delete(targets=[build.name(n, store=True) for n in dead])
            for t in d.targets:
                t.ctx = gast.Del()
            out.append(gast.copy_location(d, s))
            bound -= set(dead)  # rebound later only where it is certain
            changed = True
    return out, changed


def _certain(s) -> set[str]:
    """Names a compound statement binds on every path (only an `if` with both branches counts)."""
    if isinstance(s, gast.If) and s.orelse:
        return _block_binds(s.body) & _block_binds(s.orelse)
    return set()


def _block_binds(stmts) -> set[str]:
    out = set()
    for s in stmts:
        if isinstance(s, gast.Assign):
            out |= set(analysis.targets(s))
        out |= _certain(s)
    return out


PASS = Pass("lifetime", release, needs=("top_liveness",))
