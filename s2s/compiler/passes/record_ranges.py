"""Loop ranges of int literals, followed through a reverse sweep's record (for one-trip loops,
`onetrip.py`): a name bound once to `range(0, 64, 64)`, an item unpacked from a record that
holds such a name, and `rt.reversed_range` of one.

An inlined call's backward sweep replays its forward loop over the range the forward sweep
saved in its record: `saved0 = (..., r0, ...)` then `(..., r1, ...) = rt.private(saved0, False)`
and `for i in rt.reversed_range(r1)`. The record's copy hands a range back as it is (a range is
immutable), so `r1` is `r0`'s range and the backward loop runs as many trips as the forward one
(the forward batch loop of the Elman RNN's `forward` runs once over a dataset of one batch, so its
backward loop does too).
"""
from __future__ import annotations

import gast

from .. import analysis
from ..primitives import registry


def literal_ranges(body: list, counts: dict) -> dict:
    """Name -> the `range(...)` call of int literals it holds: names bound once at the top level
    of `body` to one, and names unpacked (once) from a record's copy at the position where the
    record, a tuple display bound once, holds such a name."""
    ranges: dict = {}
    tuples: dict = {}
    for s in body:
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1):
            continue
        t, v = s.targets[0], s.value
        if isinstance(t, gast.Name) and counts.get(t.id) == 1:
            if literal_range(v, ranges) is not None:
                ranges[t.id] = v
            elif isinstance(v, gast.Tuple):
                tuples[t.id] = v
        elif isinstance(t, gast.Tuple) and _record_copy(v) and isinstance(v.args[0], gast.Name) \
                and v.args[0].id in tuples:
            items = tuples[v.args[0].id].elts
            if len(items) != len(t.elts):
                continue
            for target, item in zip(t.elts, items):
                if isinstance(target, gast.Name) and counts.get(target.id) == 1 and isinstance(item, gast.Name) \
                        and item.id in ranges:
                    ranges[target.id] = ranges[item.id]
    return ranges


def _record_copy(v) -> bool:
    """Whether `v` calls a backward sweep's copy of its record (`Prim.record_copy`: rt.private,
    rt.copy_saved), which hands every range in it back as it is."""
    p = registry.lookup(analysis.dotted(v.func) or "") if isinstance(v, gast.Call) and v.args else None
    return p is not None and p.record_copy


def literal_range(node, ranges) -> range | None:
    """The range of int literals `node` is (a `range` call, a name of `ranges`, or
    `rt.reversed_range` of one), or None."""
    if isinstance(node, gast.Name):
        node = ranges.get(node.id)
    if isinstance(node, gast.Call) and analysis.dotted(node.func) == "rt.reversed_range" and len(node.args) == 1 \
            and not node.keywords:
        inner = literal_range(node.args[0], ranges)
        return None if inner is None else inner[::-1]
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "range"
            and not node.keywords and 1 <= len(node.args) <= 3):
        return None
    if not all(isinstance(a, gast.Constant) and type(a.value) is int for a in node.args):
        return None
    try:
        return range(*(a.value for a in node.args))
    except ValueError:  # (a step of 0: the loop raises, as it should)
        return None
