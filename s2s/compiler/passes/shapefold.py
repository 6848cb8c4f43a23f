"""Shape folding: with the arguments' shapes known (a jit version for the shapes of its first
call, see `driver.jit_function`), shape arithmetic is constant and the broadcasting helpers that
differentiation emits become what they compute for these shapes.

With `x` of shape 16 x 32, `g` of 16 x 64 and `params` a tuple of a 32 x 64 and a 64-vector,

Before::

    w, b = params
    t0 = x @ w
    t1 = t0 + b
    n = xp.size(t1)
    b_t0 = rt.unbroadcast(g, t0)
    b_b = rt.unbroadcast(g, b)
    b_w = rt.dot_vjp_b(b_t0, x, w)
    return rt.like((b_w, b_b), params)

After::

    w, b = params
    t0 = x @ w
    t1 = t0 + b
    n = 1024
    b_t0 = g
    b_b = xp.sum(g, axis=0)
    b_w = x.T @ b_t0
    return (b_w, b_b)

Shapes are followed through names bound once, by NumPy's rules for elementwise operations,
`@`/`dot`, reductions with constant axes and the helpers whose result has an argument's shape;
any other value has no known shape, and what reads it stays as it was. vmap's batch size
`rt.vmap_size_axis0((x, y), names)` is a number when the mapped arrays' leading sizes agree (it stays a
call, which raises, when not).
"""
from __future__ import annotations

import math

import gast
import numpy as np

from ...base import record
from .. import analysis
from ..ir import build
from ..primitives import registry
from . import batched_products, container_shapes, fill_operands, float64_items, inplace_folds, seed_folds, spread_axis
from . import shape_facts as sfacts
from .base import Pass, bottom_up
from .float64 import float64_names, is_float64, may_be_narrow, tuple_items, witnessed
from .stack import lists_made, local_lists, pop_of, push_of

_SHAPE_QUERIES = {p.shape_query for p in registry.PRIMS.values() if p.shape_query}  # `shape`, `ndim`, `size`


def _prim(call):
    """The declaration of the primitive a call names (`xp.sum`, `rt.dot_vjp_a`), or None."""
    f = analysis.dotted(call.func) if isinstance(call, gast.Call) else None
    return registry.lookup(f) if f is not None else None

_TYPES = {"tuple": gast.Tuple, "list": gast.List}


def _const_axis(node):
    """The value of a constant `axis` argument (an int, a tuple of ints, None), or False."""
    if isinstance(node, gast.Constant) and (node.value is None or type(node.value) is int):
        return node.value
    if isinstance(node, gast.Tuple) and all(isinstance(e, gast.Constant) and type(e.value) is int for e in node.elts):
        return tuple(e.value for e in node.elts)
    return False


def _none(node) -> bool:
    return isinstance(node, gast.Constant) and node.value is None


def _reduced(shape, call):
    """The shape of `xp.sum(a, axis=..., keepdims=...)` (constant keywords only) for `a` of `shape`."""
    kw = {k.arg: k.value for k in call.keywords}
    if len(call.args) != 1 or not set(kw) <= {"axis", "keepdims"}:
        return None
    axis = _const_axis(kw["axis"]) if "axis" in kw else None
    keep = kw.get("keepdims", build.const(False))
    if axis is False or not (isinstance(keep, gast.Constant) and type(keep.value) is bool):
        return None
    nd = len(shape)
    axes = range(nd) if axis is None else (axis,) if type(axis) is int else axis
    if any(not -nd <= a < nd for a in axes):
        return None
    axes = {a % nd for a in axes}
    return tuple(1 if i in axes else n for i, n in enumerate(shape) if keep.value or i not in axes)


def _matmul(a, b):
    """The shape of `a @ b` (and of `dot`) for `b` of rank 1 or 2, or None."""
    if a is None or b is None or not (1 <= len(a) and 1 <= len(b) <= 2) or a[-1] != b[0]:
        return None
    return a[:-1] + b[1:]  # (a stack of matrices times one matrix: a matrix each)


def shape_of(v, shapes):
    """The shape of value `v` (core form, or the nested expressions some helpers' rules write),
    given the shapes of names; None when unknown."""
    if isinstance(v, gast.Name):
        return shapes.get(v.id)
    if isinstance(v, gast.Constant):
        return () if type(v.value) in (int, float, bool) else None
    of = lambda e: shape_of(e, shapes)  # noqa: E731
    if isinstance(v, gast.Subscript) and (got := container_shapes.item_shape(v, shapes, of)) is not False:
        return got  # (a dict's item, a tuple's: see container_shapes.py)
    if isinstance(v, gast.Subscript) and isinstance(v.slice, gast.Slice):
        return sfacts.sliced(v, shapes, shape_of)  # (`X[i:i + b]`, its ends known ints)
    if isinstance(v, gast.Subscript) and (isinstance(v.slice, gast.Constant) and type(v.slice.value) is int
                                          or isinstance(v.slice, gast.Name) and v.slice.id in getattr(shapes, "ints", ())):
        return None if not (s := of(v.value)) else s[1:]  # `xs[t]`, `t` a loop's index over a range
    if isinstance(v, gast.BinOp) and isinstance(v.op, gast.MatMult):
        return _matmul(of(v.left), of(v.right))
    if isinstance(v, gast.BinOp) and (p := registry.lookup(analysis.classify(v))) is not None and p.broadcasting:
        return sfacts.broadcast(of(v.left), of(v.right))
    if isinstance(v, gast.Compare) and len(v.ops) == 1:
        return sfacts.broadcast(of(v.left), of(v.comparators[0]))
    if isinstance(v, gast.UnaryOp) and isinstance(v.op, (gast.USub, gast.UAdd)):
        return of(v.operand)
    if isinstance(v, gast.Attribute) and v.attr == "T" and (s := of(v.value)) is not None and len(s) <= 2:
        return s[::-1]
    if isinstance(v, gast.Call) and isinstance(v.func, gast.Name) and v.func.id in getattr(shapes, "stop", ()) \
            and len(v.args) == 1 and not v.keywords:  # stop_gradient(x): x when it runs
        return of(v.args[0])
    if isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.shape_stub" and len(v.args) == 1 \
            and not v.keywords:  # what the tape keeps of an array read for its shape: that shape
        return of(v.args[0])
    if not isinstance(v, gast.Call) or any(isinstance(a, gast.Starred) for a in v.args):
        return None
    f, p = analysis.dotted(v.func), _prim(v)
    if p is not None and p.reduction and v.args and (s := of(v.args[0])) is not None:
        return _reduced(s, v)
    if v.keywords:
        return None
    if p is not None and (p.broadcasting or p.broadcast_result) and v.args:
        return sfacts.broadcast(*map(of, v.args))  # (`xp.where(c, a, b)`, `xp.maximum(a, 0.0)`, ...)
    if p is not None and p.reverses_axes and (len(v.args) == 1 or len(v.args) == 2 and _none(v.args[1])):
        return None if (s := of(v.args[0])) is None else s[::-1]  # (`xp.transpose(a)`: all axes reversed)
    if p is not None and p.reverses_axes and len(v.args) == 2 and (s := of(v.args[0])) is not None \
            and (axes := sfacts.int_tuple(v.args[1], shapes, shape_of)) is not None and sorted(axes) == list(range(len(s))):
        return tuple(s[a] for a in axes)  # (`xp.transpose(a, (1, 0, 2))`: the axes in that order)
    if p is not None and p.product and len(v.args) == 2:
        return _matmul(*map(of, v.args))
    if p is not None and p.cotangent_of is not None and len(v.args) == 3:  # a product's cotangent
        return of(v.args[p.cotangent_of])
    if (like := analysis.shape_like(v)) is not None:
        return of(like)
    if f == "rt.zeros_like_tree" and len(v.args) == 1:
        return of(v.args[0])
    if f == "rt.add_at" and len(v.args) == 3 and (s := of(v.args[0])):  # (an array's cotangent, updated)
        return s
    if (f == "rt.zero_at" and len(v.args) == 2 or f == "rt.fresh" and len(v.args) == 1) and (s := of(v.args[0])):
        return s  # (an array's cotangent, copied or with a slot zeroed)
    if f == "rt.operand_cotangent" and (kids := sfacts.plain_operands(v, shapes, shape_of)) is not None:
        return kids[1]  # (a sum's or product's operand, of arrays or numbers: its cotangent has its shape)
    if f == "rt.array_vjp" and len(v.args) == 2:  # (the cotangent of `np.array(like)`/a copy: `like`'s shape)
        return of(v.args[1])
    if f == "rt.max_vjp" and len(v.args) == 5:  # (a max's cotangent: spread over its operand's positions)
        return of(v.args[1])
    if f == "rt.seed" and len(v.args) == 1:  # (a scalar output's: it raises on any other)
        return ()
    if f == "xp.zeros" and len(v.args) == 1 and (dims := sfacts.int_tuple(v.args[0], shapes, shape_of)) is not None:
        return dims  # (a folded zero, or `(n, 128)` with `n` a known shape's size)
    if f == "rt.tree_add" and len(v.args) == 2:  # (of two arrays or numbers: their sum)
        return sfacts.broadcast(*map(of, v.args))
    if p is not None and p.shape_query in ("size", "ndim"):
        return ()
    p = registry.lookup(analysis.classify(v)) if f is not None else None
    return of(v.args[0]) if p and p.same_shape and (f[:3] == "xp." and len(v.args) == 1 or p.written_out) else None


class Shapes(dict):
    """Name -> shape; `stop`: the global names bound to `s2s.stop_gradient`; `seqs`: parameter ->
    (container type name, item shapes) of the tuples and lists of arrays bound once; `tuples`:
    name -> the tuple display bound to it once (a folded shape, whose items fold too; `fold_shapes`
    fills it); `ints`: the indices of loops over ranges; `counts`: how many statements bind each name;
    `values`: name -> the `rt.sum_vjp(g, like, axis, True)` bound to it once, `g` a name bound once
    (`_spread`); `fills`: name -> (r, c) of a full reduction's cotangent bound to it once (c
    everywhere in r's shape); `reduced`: name -> the array a differentiable reduction bound to it
    once reduces; `numbers`: name -> the number bound to it once (`fold_shapes` fills these three,
    `_filled_cotangent` reads them); `roots`: `analysis.shape_roots`; `f64`: the names holding
    float64 values (`float64.py`); `narrow`: a float32 may arise (helpers cast to it: kept)."""

    stop: frozenset = frozenset()
    ints: frozenset = frozenset()
    f64: frozenset | set = frozenset()
    narrow = False
    seqs: dict
    tuples: dict
    counts: dict
    values: dict
    fills: dict
    reduced: dict
    numbers: dict
    roots: dict = {}


def _range_indices(body, counts, arrays=None) -> frozenset:
    """Names bound only as the index of `for` loops over a `range` (or its `rt.reversed_range`):
    Python ints, so `xs[t]` is one item of `xs`'s first axis. A range reverse mode recorded and
    popped back (`r2 = ctl.pop()`, `_popped_ranges`) counts as a range; and so do, as indices,
    names bound only to an element `y[i]` of an integer parameter `y` of rank 1 (`arrays`: the jit
    signature's `known["arrays"]`), `i` such an index: a NumPy integer selects one item as well."""
    ranges: set[str] = set()
    is_range = lambda e: isinstance(e, gast.Call) and (  # noqa: E731
        isinstance(e.func, gast.Name) and e.func.id == "range" or analysis.dotted(e.func) == "rt.reversed_range"
        and len(e.args) == 1 and isinstance(e.args[0], gast.Name) and e.args[0].id in ranges)
    loops: dict = {}
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and counts.get(s.targets[0].id) == 1 \
                and is_range(s.value):
            ranges.add(s.targets[0].id)
    ranges |= _popped_ranges(body, counts, ranges)
    copies = sfacts.record_unpacks(body, counts, _prim)
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and counts.get(s.targets[0].id) == 1 \
                and is_range(s.value):
            ranges.add(s.targets[0].id)
        elif isinstance(s, gast.For) and isinstance(s.target, gast.Name):
            ok = is_range(s.iter) or isinstance(s.iter, gast.Name) and s.iter.id in ranges
            loops[s.target.id] = loops.get(s.target.id, 0) + (1 if ok else len(body) + 1)
    # (a loop index's `i = None` before its loop, as an inlined call's forward sweep starts, and
    # the backward sweep's copy of it from the record: nothing indexes with them before the loop)
    nones = {s.targets[0].id for s in body if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
             and _none(s.value)}
    extra = {n: (n in nones) + (copies.get(n) in loops) for n in loops}
    ints = {n for n, k in loops.items() if k + extra[n] == counts.get(n)}
    int_params = {p for p, (d, nd) in (arrays or {}).items() if nd == 1 and np.dtype(d).kind in "iu"
                  and counts.get(p) == 1}
    for s in body:  # (a name bound once to one, as an inlined call's parameter is, and its copy)
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name) \
                and s.value.id in int_params and counts.get(s.targets[0].id) == 1:
            int_params.add(s.targets[0].id)
    int_params |= {n for n, x in copies.items() if x in int_params and counts.get(n) == 1}
    elements: dict = {}
    real: set = set()  # (bound to an element at least once: not only the `None` before a loop)
    top = {id(s) for s in body}
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            v, t = s.value, s.targets[0].id
            ok = isinstance(v, gast.Subscript) and isinstance(v.value, gast.Name) and v.value.id in int_params \
                and isinstance(v.slice, gast.Name) and v.slice.id in ints or isinstance(v, gast.Name) and v.id in real
            real |= {t} if ok else set()
            elements[t] = elements.get(t, 0) + (1 if ok or _none(v) and id(s) in top else len(body) + 1)
    found = {n for n, k in elements.items() if k == counts.get(n) and n in real}
    for n, x in copies.items():  # (the backward sweep's copy of an index of the forward sweep's)
        if x in found | ints and elements.get(n, 0) + 1 == counts.get(n) and (n in real or counts.get(n) == 1):
            found.add(n)
    return frozenset(ints | found)


def _popped_ranges(body, counts, ranges) -> set:
    """Names bound once to a pop that `rt.reversed_range` reads (so reverse mode's: a loop's
    range it recorded on its control list), from a list whose pushes are each a `range` (a name
    in `ranges`), a flag (`True`, `False`) or a name popped back into itself there (a saved
    variable's restore, which takes its own push): the pop is a range, or a flag that
    `rt.reversed_range` refuses (a TypeError), so its loop runs over ints."""
    reversed_ = {n.args[0].id for n in analysis.iter_nodes(body) if isinstance(n, gast.Call)
                 and analysis.dotted(n.func) == "rt.reversed_range" and len(n.args) == 1
                 and isinstance(n.args[0], gast.Name)}
    pushes: dict = {}
    pops: dict = {}
    for s in analysis.walk_stmts(body):
        if (p := push_of(s)) is not None:
            pushes.setdefault(p[0], []).append(p[1])
        elif (p := pop_of(s)) is not None:
            pops.setdefault(p[0], []).append(p[1])
    out = set()
    for lst, targets in pops.items():
        restored = set(targets) & {v.id for v in pushes.get(lst, ()) if isinstance(v, gast.Name)}
        if all(isinstance(v, gast.Constant) and type(v.value) is bool or isinstance(v, gast.Name)
               and (v.id in ranges or v.id in restored) for v in pushes.get(lst, ())):
            out.update(t for t in targets if t in reversed_ and t not in restored and counts.get(t) == 1)
    return out


def known_shapes(body, params, known, uniform=None, flow=None) -> Shapes:
    """The shape of every name bound once whose value's shape follows from the arguments' (and
    from `uniform`'s: names of one shape at every binding, see `uniform_shapes`; and from `flow`'s,
    names bound at the top level only, each binding's shape holding until the next, followed in
    program order: `shapes.at` keeps the shape of each value of a name bound more than once, read
    where it is bound)."""
    counts = analysis.assigned_counts(body, params)
    shapes = Shapes((p, s) for p, s in known.get("shapes", {}).items() if counts[p] == 1)
    shapes.update(uniform or {})
    shapes.ints = _range_indices(body, counts, known.get("arrays")) \
        | {p for p in known.get("ints", ()) if counts[p] == 1}  # (and int parameters: a jit version's key)
    shapes.counts, shapes.tuples, shapes.values = counts, {}, {}
    shapes.fills, shapes.reduced, shapes.numbers = {}, {}, {}
    shapes.stop = frozenset(n for n, v in known.get("ns", {}).items()
                            if (r := record.of(v)) is not None and r.prim == "stop_gradient")
    shapes.update({p: () for p in known.get("floats", ()) if counts[p] == 1})
    items = shapes.seqs = {p: s for p, s in known.get("items", {}).items() if counts[p] == 1}
    boxes = shapes.boxes = container_shapes.of_body(body, params, counts, known)
    copies = sfacts.record_unpacks(body, counts, _prim) | boxes.records.copies
    shapes.bound = {s.targets[0].id: s.value for s in analysis.walk_stmts(body) if isinstance(s, gast.Assign)
                    and isinstance(s.targets[0], gast.Name) and counts[s.targets[0].id] == 1}
    flow, shapes.at = flow or {}, {}
    shapes.update({n: s0 for n, s0 in flow.items() if s0 is not None})
    top = {id(s) for s in body} if flow else ()
    for s in analysis.walk_stmts(body):
        if not isinstance(s, gast.Assign):
            continue
        t, v = s.targets[0], s.value
        if flow and isinstance(t, gast.Name) and (t.id in flow and id(s) in top or counts[t.id] > 1):
            shapes.at[id(v)] = shape = shape_of(v, shapes)
            if t.id in flow:  # (this binding's shape and value hold until the next binding)
                shapes.bound[t.id] = v
                shapes.update({t.id: shape}) if shape is not None else shapes.pop(t.id, None)
            continue
        if flow and isinstance(t, gast.Name) and counts[t.id] == 1 and build.names_in(v) & flow.keys():
            shapes.bound[t.id] = sfacts.resolved(v, shapes, shape_of)  # (the flow names' values here)
        if isinstance(t, gast.Name) and counts[t.id] == 1:
            if isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.sum_vjp" and v.args \
                    and isinstance(v.args[0], gast.Name) and counts.get(v.args[0].id) == 1:
                shapes.values[t.id] = v
            shape = shape_of(v, shapes)
            if shape is not None:
                shapes[t.id] = shape
        elif isinstance(t, gast.Tuple) and getattr(_prim(v), "record_copy", False):
            for e in t.elts:
                if isinstance(e, gast.Name) and counts[e.id] == 1 and (x := copies.get(e.id)) in shapes:
                    shapes[e.id] = shapes[x]
        elif isinstance(t, gast.Tuple) and (got := boxes.taken(t, v, shapes, counts)) is not None:
            shapes[got[0]] = got[1]  # (`ct, acc = rt.take_at(acc, k, like)`: `ct` has `like`'s shape)
        elif isinstance(t, gast.Tuple) and isinstance(v, gast.Name) and v.id in items:
            kind, parts = items[v.id]
            if len(parts) == len(t.elts):
                for e, shape in zip(t.elts, parts):
                    if isinstance(e, gast.Name) and counts[e.id] == 1 and shape is not None:
                        shapes[e.id] = shape
    for n in flow:  # (`fold_shapes` follows them again in its own sweep)
        shapes.pop(n, None)
        shapes.bound.pop(n, None)
    return shapes


def _bindings(body, params, counts, flow, notes):
    """Names bound more than once, each binding a plain `name = value` (not flow names), ->
    their values, with the parameters' shapes on entry; and, per local list only pushed and
    popped, the values pushed on it."""
    copies = sfacts.record_unpacks(body, counts, _prim)
    binds: dict = {n: [build.name(x)] for n, x in copies.items()}  # (a record's copy)
    pushes: dict = {}
    made = lists_made(body, params)
    lists = local_lists(body, made, notes)
    recorded = _recorded_lists(body, made, copies)
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            binds.setdefault(s.targets[0].id, []).append(s.value)
        elif (p := push_of(s)) is not None and (p[0] in lists or copies.get(p[0], p[0]) in recorded):
            pushes.setdefault(copies.get(p[0], p[0]), []).append(p[1])
    multi = {n: b for n, b in binds.items() if counts.get(n, 0) >= 2 and n not in flow
             and len(b) + (n in params) == counts[n]}
    return multi, pushes


def _recorded_lists(body, made, copies) -> set:
    """Lists made here that go into a record once (an element of the tuple display a backward
    sweep copies, `shape_facts.record_unpacks`) and are otherwise only pushed and popped, as the copy is: an
    inlined call's tape, pushed by its forward sweep and popped by its backward sweep."""
    sources = {x: n for n, x in copies.items() if x in made}
    if not sources:
        return set()
    loads: dict = {}
    receivers: dict = {}
    for node in analysis.iter_nodes(body):
        if type(node) is gast.Attribute and type(node.value) is gast.Name and node.attr in ("append", "pop"):
            receivers[node.value.id] = receivers.get(node.value.id, 0) + 1
        elif type(node) is gast.Name:
            key = "store" if isinstance(node.ctx, gast.Store) else "load"
            loads[(node.id, key)] = loads.get((node.id, key), 0) + 1
    return {x for x, n in sources.items() if loads.get((x, "store")) == 1 and loads.get((n, "store")) == 1
            and loads.get((x, "load"), 0) == receivers.get(x, 0) + 1 and loads.get((n, "load"), 0) == receivers.get(n, 0)}


def _stub_of(v):
    """`n` for a push's value `n` or `rt.shape_stub(n)`, else None."""
    if isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.shape_stub" and len(v.args) == 1:
        v = v.args[0]
    return v.id if isinstance(v, gast.Name) else None


def record_lists(pushes: dict) -> dict:
    """Reverse mode's record lists among the local lists -> the names saved on each. A list with a
    `rt.shape_stub` push was made by the reverse transform (no user code names `rt`), and on such
    a list a pop into a name `n` that is pushed there (`L.append(n)`, `L.append(rt.shape_stub(n))`)
    restores an earlier value of `n` (`transforms/tape.py`: the transform saves a variable before
    each overwrite and pops it back into the same variable; its control records, a branch's flag
    and a loop's range, are popped into other, fresh names)."""
    return {lst: {n for v in vs if (n := _stub_of(v)) is not None} for lst, vs in pushes.items()
            if any(isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.shape_stub" for v in vs)}


def uniform_shapes(body, params, known, flow, notes) -> tuple[dict, Shapes]:
    """Names bound more than once whose every value has one shape S: each binding's value has
    shape S given the others' (an optimistic fixed point: a recurrence `h = tanh(h @ w + b)`
    keeps `h`'s shape), is `None` at the top level (a temporary before its loop's first
    iteration: nothing reads it as an array before it holds one), or a pop of a local list every
    push of which has shape S (a tape's restores); a parameter's own shape is S. -> (name: S,
    `known_shapes` with them). The reverse sweep's loop temporaries, rebound every iteration,
    keep their shapes this way (only bodies with a loop at the top level are searched)."""
    if not any(isinstance(s, (gast.For, gast.While)) for s in body):
        return {}, known_shapes(body, params, known)
    counts = analysis.assigned_counts(body, params)
    multi, pushes = _bindings(body, params, counts, flow, notes)
    multi.update(container_shapes.of_body(body, params, counts, known).stores)  # (a dict's items: `a[]`)
    top = {id(s.value) for s in body if isinstance(s, gast.Assign)}
    entry = known.get("shapes", {})
    multi = {n: vs for n, vs in multi.items() if (n not in params or entry.get(n) is not None)
             and all(not _none(v) or id(v) in top for v in vs)}
    cand: dict = {}

    records = record_lists(pushes)
    copies = sfacts.record_unpacks(body, counts, _prim)

    def popped(v):
        lst = v.func.value.id if isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) \
            and v.func.attr == "pop" and not v.args and isinstance(v.func.value, gast.Name) else None
        return copies.get(lst, lst)

    def of(v, shapes):
        lst = popped(v)
        if lst in pushes:  # (the pushes' shapes, None aside: see the docstring)
            got = {shape_of(e, shapes) for e in pushes[lst] if not _none(e)}
            return got.pop() if len(got) == 1 else None
        return shapes.at[id(v)] if id(v) in shapes.at else shape_of(v, shapes)

    def restore(n, v) -> bool:  # `n = L.pop()` restoring one of `n`'s other values
        return copies.get(n, n) in records.get(popped(v), ())

    for _ in range(min(32, 2 * len(multi) + 2)):  # grow, then check: a name whose bindings disagree
        # (or with one of unknown shape) is dropped
        shapes = known_shapes(body, params, known, cand, flow)
        if not multi:
            return cand, shapes
        found = {n: {of(v, shapes) for v in vs if not _none(v) and not restore(n, v)}
                 | ({entry[n]} if n in params else set()) for n, vs in multi.items()}
        grown = {n: k.pop() for n, f in found.items() if n not in cand and len(k := f - {None}) == 1}
        if grown:
            cand.update(grown)
            continue
        bad = {n for n in cand if found[n] != {cand[n]}}
        if not bad:
            return cand, shapes
        for n in bad:
            del cand[n], multi[n]
        multi = {n: vs for n, vs in multi.items() if n in cand}  # (the rest were never grown: they stay out)
    return {}, known_shapes(body, params, known)


def _float64(body, params, counts, flow, known, notes, ints_of=frozenset()) -> set:
    """The names that hold float64 values (`float64.float64_names`): those bound more than once too
    (`b = b + c` in a backward sweep), where every binding is a plain assignment."""
    if not known.get("arrays") and not known.get("item_dtypes"):
        return set()
    copies = sfacts.record_unpacks(body, counts, _prim)
    binds: dict = {n: [build.name(x)] for n, x in copies.items()}  # (a record's copy: the value it copies)
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            binds.setdefault(s.targets[0].id, []).append(s.value)
    binds = {n: vs for n, vs in binds.items() if n not in params and len(vs) == counts.get(n)}
    binds.update(float64_items.item_binds(container_shapes.of_body(body, params, counts, known)))  # (`d[]`)
    records = record_lists(_bindings(body, params, counts, flow, notes)[1])
    top = {id(s.value) for s in body if isinstance(s, gast.Assign)}

    def skip(n, v):
        return _none(v) and id(v) in top or isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) \
            and v.func.attr == "pop" and isinstance(v.func.value, gast.Name) \
            and copies.get(n, n) in records.get(copies.get(v.func.value.id, v.func.value.id), ())

    ints = {n for n, vs in binds.items() if all(isinstance(v, gast.Constant) and type(v.value) is int for v in vs)}
    return float64_names(binds, known, counts, skip, ints | set(ints_of), tuple_items(body, known, counts))


def _spread(v, shapes):
    """`a + rt.sum_vjp(g, like, axis, True)` (or `-`, `*`) with `a` of `like`'s shape: `a + g`,
    NumPy's broadcasting instead of a materialized copy of `g` spread over `like`; or None."""
    if not (isinstance(v, gast.BinOp) and isinstance(v.op, (gast.Add, gast.Sub, gast.Mult))):
        return None
    for side, other in (("right", v.left), ("left", v.right)):
        c = getattr(v, side)
        if isinstance(c, gast.Name) and c.id in shapes.values:  # (bound once to a spread whose operand is)
            c = shapes.values[c.id]
        if isinstance(c, gast.Call) and analysis.dotted(c.func) == "rt.sum_vjp" and len(c.args) == 4 \
                and not c.keywords and isinstance(c.args[3], gast.Constant) and c.args[3].value is True:
            like, g = shape_of(c.args[1], shapes), shape_of(c.args[0], shapes)
            if like is not None and g is not None and len(g) == len(like) and shape_of(other, shapes) == like \
                    and sfacts.broadcast(g, like) == like:
                out = build.binop(v.left, v.op, v.right)
                setattr(out, side, c.args[0])
                return out
    return None


def _folded(v, shapes):
    """A simpler value equal to call `v` (or `a.shape`, `(4, 3)[0]`) for these shapes, or None."""
    if isinstance(v, gast.BinOp):  # (a full array's one number: fill_operands.py)
        return _spread(v, shapes) or spread_axis.spread(v, shapes, shape_of) or fill_operands.scalar_operand(
            v, shapes, shape_of, lambda c: _filled_cotangent(analysis.dotted(c.func), c.args, shapes))
    if isinstance(v, gast.Attribute) and v.attr in _SHAPE_QUERIES:
        shape = shape_of(v.value, shapes)  # (rank 0 could be a Python float, which has no .shape)
        if shape:
            return build.tuple_([build.const(n) for n in shape]) if v.attr == "shape" else \
                build.const(len(shape) if v.attr == "ndim" else math.prod(shape))
        return None
    if isinstance(v, gast.Subscript) and isinstance(v.slice, gast.Constant) and type(v.slice.value) is int:
        elts = v.value.elts if isinstance(v.value, gast.Tuple) else \
            shapes.tuples[v.value.id].elts if isinstance(v.value, gast.Name) and v.value.id in shapes.tuples else ()
        if elts and all(isinstance(e, gast.Constant) for e in elts) and -len(elts) <= v.slice.value < len(elts):
            return build.const(elts[v.slice.value].value)  # an item of a shape (core form writes -1 as a literal)
        return None
    if not isinstance(v, gast.Call) or v.keywords:
        return None
    f, args = analysis.dotted(v.func), v.args
    shape = shape_of(args[0], shapes) if args else None
    p = _prim(v)
    if p is not None and p.shape_query in ("size", "ndim") and len(args) == 1 and shape is not None:
        return build.const(math.prod(shape) if p.shape_query == "size" else len(shape))
    if f == "rt.vmap_size_axis0" and len(args) == 2 and isinstance(args[0], gast.Tuple):  # vmap's batch size
        lead = {(shape_of(e, shapes) or (None,))[0] for e in args[0].elts}
        if len(lead) == 1 and None not in lead:
            return build.const(lead.pop())  # (sizes that differ stay a call, which raises)
    if p is not None and p.shape_query == "shape" and len(args) == 1 and shape is not None:
        return build.tuple_([build.const(n) for n in shape])
    if (p is not None and p.fill) and (filled := _filled_cotangent(f, args, shapes)) is not None:
        return filled
    if f == "rt.unbroadcast" and len(args) == 2 and shape is not None and isinstance(args[1], gast.Name) \
            and args[1].id in shapes and (not shapes.narrow or args[1].id in shapes.f64):  # (float32: a cast)
        return sfacts.unbroadcast(args[0], shape, args[1], shapes[args[1].id])
    if p is not None and p.cotangent_of is not None and len(args) == 3 and all(
            len(shape_of(a, shapes) or ()) == 2 for a in args[1:]) and (not shapes.narrow or isinstance(
            args[p.cotangent_of], gast.Name) and args[p.cotangent_of].id in shapes.f64):  # a matmul (float32: a cast)
        g, a, b = args
        return build.binop(g, gast.MatMult(), build.attr(b, "T")) if p.cotangent_of == 1 else \
            build.binop(build.attr(a, "T"), gast.MatMult(), g)
    if p is not None and p.cotangent_of is not None and len(args) == 3 and all(
            isinstance(a, gast.Name) and a.id in shapes.f64 for a in args) and [
            len(shape_of(a, shapes) or "xyz") for a in args] == [1, 1, 2]:  # (a vector times a matrix, float64)
        g, a, b = args  # `_dot_vjp_b`'s `a[:, None] * v` and `_dot_vjp_a`'s `b @ v`, without their dispatch
        return build.call("xp.outer", [a, g]) if p.cotangent_of == 2 else build.call("xp.dot", [b, g])
    if f == "rt.real_cotangent" and len(args) == 2 and isinstance(args[1], gast.Name) and args[1].id in shapes.f64 \
            and is_float64(args[0], shapes.f64, shapes.ints):
        return args[0]  # (a float64 cotangent of a float64 value: real already)
    if (seed := seed_folds.folded(f, v, shapes, shape_of)) is not None:  # (a float64 output's: one name)
        return seed
    if f == "rt.real_result" and len(args) == 2 and is_float64(args[0], shapes.f64, shapes.ints):
        return args[0]  # (a float64 output is real: JAX's check passes)
    if inplace_folds.handles(f):  # (`a op= v`'s check, where it passes)
        return inplace_folds.folded(f, args, shapes, lambda e: shape_of(e, shapes))
    if f == "rt.tree_add" and len(args) == 2 and all(shape_of(a, shapes) is not None for a in args):
        return build.binop(args[0], gast.Add(), args[1])  # two arrays (or numbers): no tree, no None
    if f == "rt.operand_cotangent" and (kids := sfacts.plain_operands(v, shapes, shape_of)) is not None \
            and (not shapes.narrow or isinstance(args[1], gast.Name) and args[1].id in shapes.f64):  # (float32: a cast)
        (gs, os_, xs), (g, operand, other, op) = kids, args[:4]
        if op.value != "add":  # ("mul": `unbroadcast(ct * other, operand)`, the helper's own expression)
            g = build.binop(g, gast.Mult(), other)
            gs = sfacts.broadcast(gs, xs)
        return None if gs is None else sfacts.unbroadcast(g, gs, operand, os_)
    if f == "rt.zeros_like_tree" and len(args) == 1 and isinstance(args[0], gast.Name) and args[0].id in shapes.f64 \
            and shape is not None and all(type(d) is int for d in shape):  # (float64: `float64.py`)
        return build.const(0.0) if shape == () else build.call("xp.zeros", [build.tuple_([build.const(d) for d in shape])])
    if f == "rt.like" and len(args) == 2 and isinstance(args[0], (gast.Tuple, gast.List)) \
            and isinstance(args[1], gast.Name) and args[1].id in shapes.seqs:
        kind, parts = shapes.seqs[args[1].id]
        if kind in _TYPES and len(parts) == len(args[0].elts):
            return _TYPES[kind](elts=args[0].elts, ctx=gast.Load())
    return None


def _filled_cotangent(f, args, shapes):
    """`xp.full_like(like, c)` for `rt.sum_vjp(g, like, axis, keepdims)` where `g` is a full mean
    or sum's cotangent seeded with a number (`fills`: `rt.mean_vjp(-1.0, r, None, False)`) and `r`
    reduces `like` along exactly these axes (`reduced`), so that it has `like`'s dtype; or None.
    The helpers cost a few microseconds each in the Python of the call, more where a large
    product ran before them, and the reduction read for its shape goes too. (A seed spread over
    an array that is not reduced again stays a helper: `shape_sources` gives it the earliest
    array of its shape, so the forward values it was computed from may go.)"""
    if f != "rt.sum_vjp" or len(args) != 4 or not isinstance(args[0], gast.Name) \
            or not isinstance(args[1], gast.Name):
        return None
    g, like, axis, keep = args
    fill = shapes.fills.get(g.id)
    shape = shape_of(like, shapes)
    if fill is None or not shape or shapes.reduced.get(fill[0]) != like.id or like.id in shapes.roots:
        return None  # (an array with an earlier one of its shape: the helper reads that one, and `like` may go)
    reduced = _reduced(shape, build.call("xp.sum", [like], {"axis": axis, "keepdims": keep}))
    if reduced is None or reduced != shape_of(build.name(fill[0]), shapes):
        return None  # (shapes that do not match raise in the helper: left to it)
    return build.call("xp.full_like", [like, build.const(fill[1])])


def _flow_names(body, params, counts, known) -> dict:
    """Names every binding of which is a top-level `name = value` (and parameters rebound only
    so), bound more than once: straight-line code, where each binding's shape holds from it to the
    next, so a sweep in program order knows it at every read. -> name: its shape on entry."""
    top = {}
    for s in body:
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            top[s.targets[0].id] = top.get(s.targets[0].id, 0) + 1
    entry = known.get("shapes", {})
    return {n: entry.get(n) for n, c in top.items() if counts.get(n, 0) == c + (n in params) and counts[n] >= 2}


def _note_fill(t, v, shapes):
    """Note `t = c` (a number) in `shapes.numbers`, `t = rt.mean_vjp(c, r, None, False)` (or
    `rt.sum_vjp`: a full reduction's cotangent, one number c / size everywhere) in `shapes.fills`
    and `t = xp.sum(a, ...)` (a differentiable reduction of a name) in `shapes.reduced`."""
    sign = -1 if isinstance(v, gast.UnaryOp) and isinstance(v.op, gast.USub) else 1
    c = v.operand if sign == -1 else v
    if isinstance(c, gast.Constant) and type(c.value) in (int, float):
        shapes.numbers[t] = sign * c.value  # (`-1.0` is a negated literal)
    if not isinstance(v, gast.Call) or not v.args:
        return
    p, f, args = _prim(v), analysis.dotted(v.func), v.args
    n = shapes.numbers.get(args[0].id) if isinstance(args[0], gast.Name) else \
        args[0].value if isinstance(args[0], gast.Constant) and type(args[0].value) in (int, float) else None
    if p is not None and p.fill and len(args) == 4 and not v.keywords and n is not None and _none(args[2]) \
            and isinstance(args[3], gast.Constant) and args[3].value is False and isinstance(args[1], gast.Name):
        shape = shape_of(args[1], shapes)
        if shape and all(type(d) is int for d in shape):
            shapes.fills[t] = (args[1].id, n / max(math.prod(shape), 1) if f == "rt.mean_vjp" else n)
    elif p is not None and p.reduction and not p.nondiff and isinstance(args[0], gast.Name):
        shapes.reduced[t] = args[0].id


def fold_shapes(body: list, params, facts) -> tuple[list, set[str]]:
    known, notes = facts["known"], facts["notes"]
    if not known.get("shapes") and not known.get("items"):
        return body, set()
    counts = analysis.assigned_counts(body, params)
    known.pop("container_shapes", None)  # (found again for this run's body: other passes changed it)
    flow = _flow_names(body, params, counts, known)
    with sfacts.remembered(body):  # (until the sweep below rewrites it)
        shapes = uniform_shapes(body, params, known, flow, notes)[1]
        shapes.f64 = _float64(body, params, counts, flow, known, notes, shapes.ints)
    shapes.roots, shapes.narrow = facts["shape_roots"], may_be_narrow(known)
    shapes.scalars = inplace_folds.scalar_names(body, params, lambda e: shape_of(e, shapes))
    known["name_shapes"] = shapes  # (the last run's: array_methods reads them)
    shapes.update({n: s for n, s in flow.items() if s is not None})
    top = {id(s) for s in body}
    touched: set[str] = set()
    read: list = []  # (the names the body reads, found at the first check: `float64.witnessed`)
    for s in analysis.walk_stmts(body):  # (in program order: a shape folded here, its items fold below)
        if isinstance(s, (gast.Assign, gast.Return)) and s.value is not None:
            names = notes.names(s)
            if isinstance(s, gast.Assign) and witnessed(s, body, read, counts):
                notes.forget(s)
                touched.update(names)
            s.value, c = bottom_up(s.value, lambda e: _folded(e, shapes))
            if c:
                notes.forget(s)
                touched.update(names, notes.names(s))
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and counts[s.targets[0].id] == 1 \
                    and isinstance(s.value, gast.Tuple):
                shapes.tuples[s.targets[0].id] = s.value
        t = s.targets[0].id if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) else None
        if t is not None and counts[t] == 1:
            _note_fill(t, s.value, shapes)
        if t in flow and id(s) in top or t is not None and counts[t] == 1 and t not in shapes:
            shape = shape_of(s.value, shapes)  # (a name bound once whose value reads a flow name's)
            if shape is not None:
                shapes[t] = shape
            else:
                shapes.pop(t, None)
    for n in flow:  # (only its last binding's: array_methods must not read it)
        shapes.pop(n, None)
    same = [s for s in body if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
            and isinstance(s.value, gast.Name) and s.value.id == s.targets[0].id]
    if same:  # `b = rt.unbroadcast(b, like)` folded to `b = b`
        body = [s for s in body if not any(s is x for x in same)]
        touched.update(x.targets[0].id for x in same)
    known.pop("container_shapes", None)
    return body, touched


def array_methods(body: list, params, facts) -> tuple[list, bool]:
    """(Final stage.) A reduction of an array of known shape is written as its method,
    `g.sum(axis=0)` (NumPy's `np.sum` costs half a microsecond more per call, its Python
    wrapper), and a product of vectors and matrices (`@`, `xp.matmul`, `xp.dot`) of at most
    `DOT_MAX` elements each as `xp.dot`: NumPy's `@` is a generalized ufunc whose dispatch costs
    about 0.35 µs more per call than `dot`'s, which small arrays feel, and for floating arrays of
    these ranks both call the same BLAS routine (see `_BLAS_DTYPES`); larger ones as `@`, and a
    product of matrices of `SPLIT_MIN` multiply-adds and more as a call of a product whose rows
    threads share (`known["products"]`, when the driver offers them: `matmul_0(a, b)`). The
    shapes are those `fold_shapes` found last (a name bound once keeps its value, so its shape,
    whatever the passes moved around it)."""
    known = facts["known"]
    shapes = known.get("name_shapes")
    if not shapes:
        return body, False
    dots = bool(known.get("arrays")) and all(d in _BLAS_DTYPES for d, _ in known["arrays"].values())
    products = known.get("products") if dots else None  # (a list where the driver offers them)
    changed = False
    for s in analysis.walk_stmts(body):
        if isinstance(s, (gast.Assign, gast.Return, gast.Expr)) and s.value is not None:
            s.value, c = bottom_up(s.value, lambda e: _method(e, shapes, dots, products))
            changed |= c
        if isinstance(s, gast.Assign) and _item_update(s, shapes):
            acc, index, v = s.value.args  # `acc = rt.add_at(acc, i, v)`: `acc[i] = acc[i] + v`, no helper
            s.targets[0] = build.subscript(build.name(acc.id), build.clone(index), store_=True)
            s.value = build.binop(build.subscript(build.name(acc.id), build.clone(index)), gast.Add(), v)
            changed = True
    return body, changed


def _item_update(s, shapes) -> bool:
    """Whether `s` is `acc = rt.add_at(acc, i, v)` adding a float64 number `v` into one item of a
    float64 array `acc` at an int `i` (a loop's index, an integer parameter's element, a literal):
    what `rt.add_at` does then is `acc[i] += v`, in place."""
    v = s.value
    if not (isinstance(s.targets[0], gast.Name) and isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.add_at"
            and len(v.args) == 3 and not v.keywords and isinstance(v.args[0], gast.Name)
            and v.args[0].id == s.targets[0].id):
        return False
    acc, index, item = v.args
    f64 = getattr(shapes, "f64", ())
    return acc.id in f64 and len(shapes.get(acc.id) or ()) >= 1 and shape_of(item, shapes) == () \
        and (isinstance(item, gast.Name) and item.id in f64
             or isinstance(item, gast.Constant) and type(item.value) is float) \
        and (isinstance(index, gast.Name) and index.id in getattr(shapes, "ints", ())
             or isinstance(index, gast.Constant) and type(index.value) is int)


# Array parameters of these dtypes (float32/64, complex64/128) make a version's products `xp.dot`:
# NumPy's `dot` and `matmul` of vectors and matrices of them call the same BLAS routine (gemv,
# gemm, syrk for `a @ a.T`, dot), so bitwise the same results (docs/jit.md "What is bitwise"),
# but for float16 or a view strided along both axes, which `matmul` multiplies in its own loop.
_BLAS_DTYPES = frozenset("fdFD")


def _product_operands(e, shapes):
    """(a, b) of a product of two vectors or matrices of known shapes (`a @ b`, `xp.dot(a, b)`,
    `xp.matmul(a, b)`), or None."""
    if isinstance(e, gast.BinOp) and isinstance(e.op, gast.MatMult):
        args = [e.left, e.right]
    elif (p := _prim(e)) is not None and p.product and len(e.args) == 2 and not e.keywords:
        args = e.args
    else:
        return None
    return args if all(1 <= len(shape_of(a, shapes) or ()) <= 2 for a in args) else None


# the largest operand (elements) of a product written `xp.dot`: `dot` saves `@`'s 0.35 µs of
# dispatch, but on larger operands NumPy's `matmul` is the faster (measured on one BLAS thread:
# dot 0.65x @'s time at 8x32 by 32x32, 1.09x at 65536x3 by 3, 1.3x at 65536x3 by 3x3)
DOT_MAX = 1 << 13


def _small(args, shapes) -> bool:
    """Whether every operand's shape is known and none has more than DOT_MAX elements."""
    dims = [shape_of(a, shapes) for a in args]
    return all(d is not None and all(type(n) is int for n in d) and math.prod(d) <= DOT_MAX for d in dims)


# the fewest multiply-adds of a product of matrices whose rows are shared among threads (a
# `Product` of s2s.compiler.emit.products, listed in `known["products"]`: it measures whether they help)
SPLIT_MIN = 1 << 21


def _large(args, shapes) -> bool:
    """Whether `args` are two matrices of known shapes whose product takes SPLIT_MIN multiply-adds."""
    dims = [shape_of(a, shapes) for a in args]
    if any(len(d) != 2 for d in dims):
        return False
    (m, k), (_, n) = dims
    return all(type(d) is int for d in (m, k, n)) and m * k * n >= SPLIT_MIN


def _method(e, shapes, dots: bool = False, products=None):
    if products is not None and (split := batched_products.rewrite(e, shape_of, shapes, products)) is not None:
        return split
    args = _product_operands(e, shapes)
    if args is not None:
        if products is not None and _large(args, shapes):
            products.append(f"matmul_{len(products)}")
            return build.call(products[-1], args)
        if dots and _small(args, shapes):
            return None if isinstance(e, gast.Call) and analysis.dotted(e.func) == "xp.dot" else \
                build.call("xp.dot", args)
        return None if isinstance(e, gast.BinOp) or analysis.dotted(e.func) == "xp.dot" else \
            build.binop(args[0], gast.MatMult(), args[1])
    p = _prim(e)
    if not (p is not None and p.reduction and len(e.args) == 1
            and not isinstance(e.args[0], gast.Starred) and len(shape_of(e.args[0], shapes) or ()) >= 1
            and {k.arg for k in e.keywords} <= {"axis", "keepdims"}):
        return None  # (rank 0 could be a Python number, which has no methods)
    name = analysis.dotted(e.func)[3:].removeprefix("a")
    return gast.Call(func=build.attr(e.args[0], name), args=[], keywords=e.keywords)


PASS = Pass("fold_shapes", fold_shapes, idempotent=True, needs=("shape_roots",))
METHODS = Pass("array_methods", array_methods)
