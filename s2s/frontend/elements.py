"""A scalar read `t = a[j]` kept across a store into `a` (the swap `t = a[j]; a[j] = a[j+1]; a[j+1] = t`).

Whether `a[j]` is a number (a 1-d `a`: NumPy copies it) or a view (a row of a 2-d `a`) is known only
when the code runs. So such a read is not refused at the store: before the first store into `a`
that follows it and that `t` is read after, `t = ext.s2s_detached(t, where)` (primitives/rules_python.py) keeps a 0-d `t` as
its own copy (CuPy's 0-d views included) and raises the alias check's S2SError, at the store's
line, when `t` is a view; `t` then shares nothing with `a`.
"""
from __future__ import annotations

import gast

from ..ir import build
from ..primitives.registry import EXT


def note_read(norm, target: str, value) -> None:
    """Record `target = a[j]` (a single index of a local array that is not a list or dict the
    function built), or forget `target`'s earlier record when it is bound to anything else."""
    reads = getattr(norm, "element_reads", None)
    if reads is None:
        reads = norm.element_reads = {}
    reads.pop(target, None)
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and norm.is_local(value.value) \
            and value.value.id not in norm.containers and build.is_atom(value.slice) \
            and not (isinstance(value.slice, gast.Constant) and not isinstance(value.slice.value, int)):
        reads[target] = value.value.id


def detach_before_store(norm, array: str) -> None:
    """Before a store into `array`: each recorded read of it becomes its own copy, or an S2SError."""
    reads = getattr(norm, "element_reads", {})
    mine = {t for t, a in reads.items() if a == array}
    for t in norm.aliases.read_later(mine, norm.current, list(norm.loops)) if mine else ():  # (read after it)
        del reads[t]
        file, line, _ = norm.where(norm.current)
        norm.ns["ext"] = EXT
        norm.assign_to(build.name(t, store=True), build.call("ext.s2s_detached", [
            build.name(t), build.const(f"{file}:{line}"), build.const(t), build.const(array)]))
