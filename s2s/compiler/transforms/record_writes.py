"""Which parts of a forward sweep's record its backward sweep writes into: the backward sweep copies
only those (`rt.private(saved, positions)`), and shares the rest, read-only, with the record it was
given, so a 12 MB input the sweep only reads is not copied on every call.

A part is written into when the backward sweep stores into it in place (`a[i] = ...`, `a += ...`,
`out=a`, an array method that sorts or fills it, a helper declared `mutates`), or when a name it
stores into may be bound from it (`a = tape.pop()`, `a = x[2:]`): the names bound from a written
name's value are followed back to the names they read, flow-insensitively, until none is added;
arithmetic and elementwise functions (`fusable`) make new arrays, so their operands are not
followed."""
from __future__ import annotations

import gast

from .. import analysis
from ..primitives import registry

# array methods that write into their array
MUTATING_METHODS = frozenset({"fill", "sort", "partition", "put", "itemset", "resize", "setfield", "setflags"})


def written_positions(backward: list, record: list[str]) -> tuple[int, ...]:
    """The positions in `record` (the names the record holds, in order) of the names whose values
    the statements `backward` may write into."""
    written = _written(backward)
    return tuple(k for k, v in enumerate(record) if v in written)


def _root_name(node) -> str | None:
    """`a` for `a`, `a[i]`, `a.b[i]`; None for anything else."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _fresh(value) -> bool:
    """Whether `value` is certainly a new array or a number, never one of its operands or a view of
    one: arithmetic, comparisons, a constant, an elementwise function."""
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Constant)):
        return True
    if isinstance(value, gast.Call):
        p = registry.lookup(analysis.dotted(value.func) or "")
        return p is not None and bool(p.fusable) and not p.aliasing
    return False


def _aliased_reads(value) -> list[str]:
    """The names whose values (or a part of them) `value` may be: a name itself; of an item or
    attribute, the container's; of a primitive's call, those of its arguments not read only for
    their shape or as an index (`rt.unbroadcast(v, like)`: `v`'s); none of arithmetic; of anything
    else every name it reads."""
    if isinstance(value, gast.Name):
        return [value.id]
    if _fresh(value):
        return []
    if isinstance(value, (gast.Subscript, gast.Attribute)):
        return _aliased_reads(value.value)
    p = registry.lookup(analysis.dotted(value.func) or "") if isinstance(value, gast.Call) else None
    if p is None:
        return analysis.loads(value)
    skip = set() if any(isinstance(a, gast.Starred) for a in value.args) else \
        {p.shape_arg, *p.shape_only} | {k for k, n in enumerate(p.params) if n in p.zero_args}
    return [n for k, a in enumerate(value.args) if k not in skip for n in _aliased_reads(a)] + \
        [n for kw in value.keywords if kw.arg not in p.zero_args for n in _aliased_reads(kw.value)]


def _bound(target) -> list[str]:
    """The names an assignment's target binds (`a`, `(a, b)`, `*a`), not those it stores into."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, (gast.Tuple, gast.List)):
        return [n for e in target.elts for n in _bound(e)]
    if isinstance(target, gast.Starred):
        return _bound(target.value)
    return []


def _written(backward: list) -> set[str]:
    stores: set[str] = set()
    readers: dict[str, list[list[str]]] = {}  # name -> the names read by each value bound to it
    for node in analysis.iter_nodes(backward):
        if isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(node.ctx, gast.Store):
            stores.add(_root_name(node))
        elif isinstance(node, gast.AugAssign):
            stores.add(_root_name(node.target))
        elif isinstance(node, gast.Call):
            p = registry.lookup(analysis.dotted(node.func) or "")
            if p is not None and p.mutates and len(node.args) > p.mutated:
                stores.add(_root_name(node.args[p.mutated]))
            elif isinstance(node.func, gast.Attribute) and node.func.attr in MUTATING_METHODS:
                stores.add(_root_name(node.func.value))
            stores.update(_root_name(k.value) for k in node.keywords if k.arg == "out")
        if isinstance(node, (gast.Assign, gast.AnnAssign, gast.AugAssign, gast.NamedExpr)) and node.value is not None:
            pairs = [(t, node.value) for t in (node.targets if isinstance(node, gast.Assign) else [node.target])]
        elif isinstance(node, gast.For):
            pairs = [(node.target, node.iter)]
        elif isinstance(node, gast.withitem) and node.optional_vars is not None:
            pairs = [(node.optional_vars, node.context_expr)]
        else:
            continue
        for target, value in pairs:
            read = _aliased_reads(value)
            if not read:
                continue
            for b in _bound(target):
                readers.setdefault(b, []).append(read)
    stores.discard(None)
    todo = list(stores)
    while todo:  # (each name once: linear in the sweep's size)
        for read in readers.get(todo.pop(), ()):
            for r in read:
                if r not in stores:
                    stores.add(r)
                    todo.append(r)
    return stores
