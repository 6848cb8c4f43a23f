"""What reverse mode keeps: `tape_record` counts the record a forward sweep leaves for its backward
sweep (arrays, bytes, views, shape stubs, a checkpointed loop's snapshots), on the record itself,
so the counts are the same on every machine (docs/memory.md)."""
from __future__ import annotations

import collections
import dataclasses

from ..compiler import driver
from ..runtime import tape_copies
from ..runtime.checkpoints import Checkpoints


@dataclasses.dataclass
class TapeRecord:
    """What reverse mode's forward sweep of a function kept for its backward sweep, counted on the
    record itself (so the same on every machine): `arrays` is the number of buffers that the arrays
    on its record lists hold (each once: not a view of an argument, not a shape stub), `nbytes`
    their bytes, `views` the pushed views of
    the arguments, `stubs` the shape stubs (transforms/tape.py), `pushes` every entry of the lists,
    and `items` one `(shape, dtype name, kind)` per pushed array, kind "array", "view" or "stub"."""

    arrays: int
    nbytes: int
    views: int
    stubs: int
    pushes: int
    items: list


def tape_record(fun, *args, argnums=0, checkpoint=None) -> TapeRecord:
    """Run reverse mode's forward sweep of `fun` at `args` (differentiating the arguments at
    `argnums`, with grad's `checkpoint` option) and count what it recorded for the backward sweep
    (see `TapeRecord`; a checkpointed loop's snapshots count as pushed)."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    mask = tuple(i in nums for i in range(len(args)))
    fwd, _ = driver.split_vjp(fun, mask, checkpoint)
    _, saved = fwd(*args)
    given = {id(_root(a)) for a in _leaves(args)}
    stub_bases = {id(b) for b in tape_copies.STUB_BASES.values()}
    counts = collections.Counter()
    buffers: dict[int, int] = {}
    items: list = []

    def visit(x, pushed):
        if isinstance(x, Checkpoints):
            visit(list(x.snaps.values()), True)
        elif isinstance(x, (list, tuple)):
            for e in x:
                visit(e, pushed or type(x) is list)
        elif isinstance(x, dict):
            for e in x.values():
                visit(e, pushed)
        elif pushed:
            counts["pushes"] += 1
            if hasattr(x, "shape") and hasattr(x, "dtype") and getattr(x, "ndim", 0) > 0:
                root = _root(x)
                kind = "stub" if id(root) in stub_bases else "view" if id(root) in given else "array"
                counts[kind] += 1
                if kind == "array":
                    buffers[id(root)] = int(getattr(root, "nbytes", 0))
                items.append((tuple(x.shape), str(x.dtype), kind))

    visit(saved, False)
    return TapeRecord(len(buffers), sum(buffers.values()), counts["view"], counts["stub"], counts["pushes"], items)


def _root(a):
    """The array that owns `a`'s memory (`a` itself unless it is a view)."""
    while getattr(a, "base", None) is not None and hasattr(a.base, "shape"):
        a = a.base
    return a


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        return [x for e in tree for x in _leaves(e)]
    if isinstance(tree, dict):
        return [x for e in tree.values() for x in _leaves(e)]
    return [tree]
