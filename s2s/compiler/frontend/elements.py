"""A scalar read `t = a[j]` kept across a store into `a` (the swap `t = a[j]; a[j] = a[j+1]; a[j+1] = t`).

Whether `a[j]` is a number (a 1-d `a`: NumPy copies it) or a view (a row of a 2-d `a`) is known only
when the code runs. So such a read is not refused at the store: before the first store into `a`
that follows it and that `t` is read after, `t = ext.s2s_detached(t, file, line, col, ...)`
(primitives/rules_python.py) keeps a 0-d `t` as its own copy (CuPy's 0-d views included) and
raises the alias check's S2SSyntaxError, at the store's line, when `t` is a view (the message it
has when transforming); `t` then shares nothing with `a`.

A nested store `xs[t][i] = v` into a list or dict the function built is below (`nested_store`).
"""
from __future__ import annotations

import gast

from ..ir import build
from ..primitives.registry import EXT


def note_read(norm, target: str, value) -> None:
    """Record `target = a[j]` (a single index of a local array that is not a list or dict the
    function built; not `a = a[p]`, which leaves the old array no name to read it by), or forget
    `target`'s earlier record when it is bound to anything else."""
    reads = getattr(norm, "element_reads", None)
    if reads is None:
        reads = norm.element_reads = {}
    reads.pop(target, None)
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and norm.is_local(value.value) \
            and value.value.id != target and value.value.id not in norm.containers and build.is_atom(value.slice) \
            and not (isinstance(value.slice, gast.Constant) and not isinstance(value.slice.value, int)):
        reads[target] = value.value.id


def detach_before_store(norm, array: str) -> None:
    """Before a store into `array`: each recorded read of it becomes its own copy, or an S2SError."""
    reads = getattr(norm, "element_reads", {})
    mine = {t for t, a in reads.items() if a == array}
    for t in norm.aliases.read_later(mine, norm.current, list(norm.loops)) if mine else ():  # (read after it)
        del reads[t]
        file, line, col = norm.where(norm.current)
        norm.ns["ext"] = EXT
        norm.assign_to(build.name(t, store=True), build.call("ext.s2s_detached", [
            build.name(t), build.const(file), build.const(line), build.const(col), build.const(t),
            build.const(array)]))


def _always_a_list(fn, name: str) -> bool:
    """Whether every binding of `name` in `fn` is a list display, a list comprehension or `[...] * n`
    (a list whatever runs: its elements are replaced by a store, never viewed)."""
    binds = [n for n in gast.walk(fn) if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)]
    values = [n.value for n in gast.walk(fn) if isinstance(n, gast.Assign) and len(n.targets) == 1
              and isinstance(n.targets[0], gast.Name) and n.targets[0].id == name]
    listy = lambda v: isinstance(v, (gast.List, gast.ListComp)) or isinstance(v, gast.BinOp) \
        and isinstance(v.op, gast.Mult) and isinstance(v.left, gast.List)  # noqa: E731
    return bool(values) and len(values) == len(binds) and all(listy(v) for v in values)


def nested_store(norm, target, value) -> bool:
    """`xs[t][i] = v` with `xs` a list or dict the function built (one-hot rows of a list of arrays):
    NumPy changes the element in place, so when no other name holds that element (the alias check
    of an element update), it is `e = ext.s2s_with_item(xs[t], i, v); xs[t] = e` (with a slice or
several indices: `e = ext.s2s_own_copy(xs[t]); e[i] = v`). False when `xs`
    is something else (the caller refuses it)."""
    outer = target.value
    base = outer.value
    if not (isinstance(base, gast.Name) and norm.is_local(base) and (base.id in norm.containers
                                                                    or _always_a_list(norm.fn, base.id))):
        return False
    stmt, loops = norm.current, list(norm.loops)

    def check():  # (inside a loop, again from the state later iterations start in)
        later = norm.aliases.read_later(norm.aliases.sharers(base.id, True), stmt, loops)
        if later:
            norm.fail(stmt, f"`{base.id}[...][...] = ...` changes an element of `{base.id}` in place, and `{later[0]}` "
                            f"refers to that element too and is read afterwards; s2s would not see that change.",
                      f"Make `{later[0]}` a copy where it is bound (`{later[0]} = {base.id}[...].copy()`).")

    norm.aliases.check(check)
    v = value if build.is_atom(value) else norm.tmp(value)
    key = norm.index(outer.slice)
    item = norm.tmp(gast.Subscript(value=build.name(base.id), slice=key, ctx=gast.Load()))
    own = norm.namer.fresh("element")
    norm.locals.add(own)
    norm.ns["ext"] = EXT
    if not isinstance(target.slice, (gast.Slice, gast.Tuple)):  # one index: a new array, no store in place
        norm.assign_to(build.name(own, store=True), build.call("ext.s2s_with_item", [item, norm.atom(target.slice), v]))
    else:
        norm.assign_to(build.name(own, store=True), build.call("ext.s2s_own_copy", [item]))
        norm.aliases.forget(own)  # (a new object: a copy, or an immutable number)
        norm.assign_to(gast.Subscript(value=build.name(own), slice=target.slice, ctx=gast.Store()), v)
    norm.aliases.forget(own)
    norm.assign_to(gast.Subscript(value=build.name(base.id), slice=key, ctx=gast.Store()), build.name(own))
    return True
