"""Which variables of a function vmap batches: the fixed point `batched_vars` over its body, with
the facts it rests on (whether a value's result is batched, which names a masked statement must
merge with their old value, whether a loop has a break under a batched condition).

Static analyses of core form that `Batcher` (batching.py) and the Jacobian diagonal
(diagonal.py) read before they rewrite anything.
"""
from __future__ import annotations

import collections

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry
from .base import bind_prim

# `x.shape`, `x.ndim`, `x.size` of a batched x: the batching helper of the shape query of that name
SHAPE_ATTRS = {p.shape_query: registry.BATCH[n].helper for n, p in registry.PRIMS.items() if p.shape_query}


def loaded_names(node) -> list[str]:
    """The names `node` reads, in order (repeats kept)."""
    return [n.id for n in build.walk(node) if type(n) is gast.Name and type(n.ctx) is gast.Load]


def selectable(body, params) -> set[str]:
    """Names whose value may already exist when a masked statement assigns them (so it must be
    merged with the old value): parameters, names assigned twice, names assigned in a loop."""
    counts: dict[str, int] = {}
    in_loop: set[str] = set()
    everywhere = _load_counts(body)  # once: a count per loop would walk the body once per loop

    def visit(stmts, loop):
        for s in stmts:
            for t in analysis.targets(s):
                counts[t] = counts.get(t, 0) + 1
            if isinstance(s, (gast.For, gast.While)):
                inside, exposed = _load_counts([s]), analysis.exposed(s.body)  # read outside: more reads than inside
                in_loop.update(t for t in _assigned(s.body) if t in exposed or everywhere[t] > inside[t])
                if isinstance(s, gast.For):
                    in_loop.add(s.target.id)
                visit(s.body, True)
            elif isinstance(s, gast.If):
                visit(s.body, loop)
                visit(s.orelse, loop)
    visit(body, False)
    return set(params) | {v for v, c in counts.items() if c > 1} | in_loop


def _assigned(stmts) -> set[str]:
    return {t for s in analysis.walk_stmts(stmts) for t in analysis.targets(s)}


def _load_counts(stmts, out: collections.Counter | None = None) -> collections.Counter:
    """How often each name is read in `stmts` (blocks included), added to `out`. (One counter
    for every block: `out += inner` walks all of `out` per block, quadratic in a long function
    with an `if` every few lines, issue 46.)"""
    out = collections.Counter() if out is None else out
    for s in stmts:
        if isinstance(s, (gast.If, gast.For, gast.While)):
            out.update(loaded_names(s.test if not isinstance(s, gast.For) else s.iter))
            _load_counts(s.body, out)
            _load_counts(s.orelse, out)
        else:
            out.update(loaded_names(s))
    return out


def result_batched(value, bset) -> bool:
    kind = analysis.classify(value)
    if kind == "const":
        return False
    if kind == "attr":
        return value.attr not in SHAPE_ATTRS and value.attr != "dtype" and loaded_names(value.value)[0] in bset
    if (p := registry.lookup(kind)) is not None and p.unbatched_result:  # a shape, a setting
        return False
    if p is not None and p.batched_by and isinstance(value, gast.Call):  # (a backend, a tree's structure)
        arg = bind_prim(p, value).get(p.batched_by)
        return arg is not None and any(n in bset for n in loaded_names(arg))
    if kind == "list.pop":
        return value.func.value.id in bset
    return any(n in bset for n in loaded_names(value) if n not in ("xp", "rt"))


def range_args(s):
    it = s.iter
    return it.args if isinstance(it, gast.Call) and analysis.dotted(it.func) == "range" else [it]


def batched_vars(body, params) -> set[str]:
    """Every variable that holds a batched value somewhere (the fixed point of one pass)."""
    bset = set(params)
    sel = selectable(body, params)

    def visit(stmts, masked):
        for s in stmts:
            if isinstance(s, gast.If):
                m = masked or loaded_names(s.test)[0] in bset if isinstance(s.test, gast.Name) else masked
                visit(s.body, m)
                visit(s.orelse, m)
            elif isinstance(s, gast.While):
                m = masked or isinstance(s.test, gast.Name) and s.test.id in bset or has_batched_jump(s.body, bset)
                visit(s.body, m)
            elif isinstance(s, gast.For):
                m = masked or any(n in bset for a in range_args(s) for n in loaded_names(a)) \
                    or has_batched_jump(s.body, bset)
                visit(s.body, m)
            elif isinstance(s, gast.Assign):
                t = s.targets[0]
                rb = result_batched(s.value, bset)
                if isinstance(t, gast.Subscript):
                    if rb or masked or any(n in bset for n in loaded_names(t.slice)):
                        bset.add(t.value.id)
                    continue
                for v in analysis.targets(s):
                    if rb or masked and v in sel:
                        bset.add(v)
            elif isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
                    and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "append":
                if any(n in bset for n in loaded_names(s.value.args[0])):
                    bset.add(s.value.func.value.id)
    while True:
        before = len(bset)
        visit(body, False)
        if len(bset) == before:
            return bset


def mask_operands(v) -> list | None:
    """The operands a value is a boolean mask of when they are masks (`&`, `|`, `^`, `~`, a copy),
    [] for a comparison (always a mask), None for any other value. (A mask made otherwise,
    np.logical_and's, is refused by the runtime when it indexes, without the user's line.)"""
    if isinstance(v, gast.Compare):
        return []
    if isinstance(v, gast.BinOp) and isinstance(v.op, (gast.BitAnd, gast.BitOr, gast.BitXor)):
        return [v.left, v.right]
    if isinstance(v, gast.UnaryOp) and isinstance(v.op, gast.Invert):
        return [v.operand]
    return [v] if isinstance(v, gast.Name) else None


def has_batched_jump(body, bset) -> bool:
    """Whether a break/continue of this loop sits under a batched condition."""
    def visit(stmts, under):
        for s in stmts:
            if isinstance(s, (gast.Break, gast.Continue)) and under:
                return True
            if isinstance(s, gast.If):
                u = under or isinstance(s.test, gast.Name) and s.test.id in bset
                if visit(s.body, u) or visit(s.orelse, u):
                    return True
        return False
    return visit(body, False)

