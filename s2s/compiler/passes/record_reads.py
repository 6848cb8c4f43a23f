"""Records read without a copy (jit, issue 46 section 2): a backward sweep unpacks each record of
an inlined call, `(e_x, t2, x) = rt.copy_saved(saved0)`, where `rt.copy_saved` copies the lists
in it (which the sweep may pop) into a new tuple. Where shape folding's container facts say what
the record holds at every use (`container_shapes.Records`: a tuple display, pushed on a control
list and popped back) and none of its items can be a list (each an array or number of known
shape, another such record, or a dict only indexing reaches), the copy is the same items in a new
tuple, and the unpack reads the record itself: `(e_x, t2, x) = saved0`. The char RNN's backward
step unpacks two records so (0.5 µs each).

The facts are those of shape folding's last run (`known["name_shapes"]`); it runs with jit's
final passes.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from .base import Pass


def _copied(s):
    """`r` for `(a, b, ...) = rt.copy_saved(r)`, else None."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Tuple) \
            and isinstance(s.value, gast.Call) and analysis.dotted(s.value.func) == "rt.copy_saved" \
            and len(s.value.args) == 1 and not s.value.keywords and isinstance(s.value.args[0], gast.Name):
        return s.value.args[0].id
    return None


def _no_list(x, shapes, boxes) -> bool:
    """Whether name `x` (a record's item) holds no list: an array or number of known shape, a
    record display, or a dict whose items only indexing reaches."""
    return shapes.get(x) is not None or x in boxes.records.displays or x in boxes.dicts or x in boxes.items


def record_reads(body: list, params, facts) -> tuple[list, bool]:
    shapes = facts["known"].get("name_shapes")
    boxes = getattr(shapes, "boxes", None) if shapes else None
    if boxes is None:
        return body, False
    copies = boxes.records.copies
    changed = False
    for s in analysis.walk_stmts(body):
        if (r := _copied(s)) is None:
            continue
        items = [copies.get(e.id) if isinstance(e, gast.Name) else None for e in s.targets[0].elts]
        if items and all(x is not None and _no_list(x, shapes, boxes) for x in items):
            s.value = build.name(r)
            changed = True
    return body, changed


PASS = Pass("record_reads", record_reads)
