"""What reverse mode's tape keeps: only what the backward sweep reads.

The forward sweep saves the old value of a variable each time an assignment overwrites it, and
the backward sweep restores it, so every variable holds, in the backward sweep, the value it had
at that point of the forward one. Most of those values are never read again. Once both sweeps
are built, `slim` looks at what the backward sweep reads of each saved variable:

- nothing: the value is not saved (`t4 = t1 + t3`, whose adjoint needs neither operand's value);
- only its shape and dtype (`rt.unbroadcast(g, t1)`): the tape keeps `rt.shape_stub(t1)`, an
  array of that shape whose elements share one zero;
- an argument's slice `v = xs[t]` at the loop index, or its transpose `v = w.T`, of an argument
  the function never changes: the backward sweep recomputes it (a view) at the top of each
  iteration instead of restoring it.

`1 - h * h` of `h = tanh(.)` needs no rule here: the rule reads `ans`, the saved `h` itself.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry

_SHAPE_ATTRS = frozenset({p.shape_query for p in registry.PRIMS.values() if p.shape_query} | {"dtype"})


def reads(stmts, skip=frozenset(), replayed=(frozenset(), frozenset())) -> dict[str, bool]:
    """Every name `stmts` load -> whether some load needs its value (False: only its shape). The
    statements whose ids are in `skip` are passed over with what they hold; in those of
    `replayed[0]` (a checkpointed loop's forward sweep, replayed) the names of `replayed[1]` do
    not count: the replay computes them itself, or takes them from the loop's snapshots."""
    out: dict[str, bool] = {}
    ids, names = replayed

    def visit(block):
        for s in block:
            if id(s) in skip:
                continue
            if id(s) in ids:
                mine: dict[str, bool] = {}
                for node in _own_exprs(s):
                    _reads_of(node, mine)
                for v, value in mine.items():
                    if v not in names:
                        out[v] = out.get(v, False) or value
            else:
                for node in _own_exprs(s):
                    _reads_of(node, out)
            for f in ("body", "orelse"):
                if getattr(s, f, None):
                    visit(getattr(s, f))
    visit(stmts)
    return out


def _own_exprs(s):
    """The expressions of statement `s` itself (not of the statements nested in it)."""
    if isinstance(s, (gast.If, gast.While)):
        return [s.test]
    if isinstance(s, gast.For):
        return [s.iter]
    if isinstance(s, gast.Assign):
        return [s.value] + [t for t in s.targets if not isinstance(t, gast.Name)]
    if isinstance(s, (gast.Expr, gast.Return)):
        return [s.value] if s.value is not None else []
    if isinstance(s, gast.AugAssign):
        return [s.target, s.value]
    return [n for n in gast.iter_child_nodes(s) if isinstance(n, gast.expr)]


def _reads_of(node, out):
    if isinstance(node, gast.Name):
        if isinstance(node.ctx, gast.Load):
            out[node.id] = True
        return
    if isinstance(node, gast.Attribute) and node.attr in _SHAPE_ATTRS and isinstance(node.value, gast.Name):
        out.setdefault(node.value.id, False)
        return
    if isinstance(node, gast.Call):
        p = registry.lookup(analysis.dotted(node.func) or "")
        positions = _shape_only(p, node) if p is not None else ()
        for k, a in enumerate(node.args):
            if k in positions and isinstance(a, gast.Name):
                out.setdefault(a.id, False)
            else:
                _reads_of(a, out)
        for kw in node.keywords:
            _reads_of(kw.value, out)
        _reads_of(node.func, out)
        return
    if node.__class__ is gast.BinOp:  # (core form's usual operation: its operator holds no name)
        _reads_of(node.left, out)
        _reads_of(node.right, out)
        return
    for child in gast.iter_child_nodes(node):
        _reads_of(child, out)


def _shape_only(p, call) -> tuple:
    """The positions of `call`'s arguments read only for their shape and dtype: the primitive's
    `shape_only`, and those its `shape_only_for` adds where a setting is that literal (the other
    addend of `rt.operand_cotangent(g, a, b, 'add', 1)`, read only for its type and shape)."""
    out = p.shape_only
    for param, value, more in p.shape_only_for:
        k = p.params.index(param)
        arg = call.args[k] if k < len(call.args) else None
        if isinstance(arg, gast.Constant) and type(arg.value) is type(value) and arg.value == value:
            out = out + more
    return out


def recomputable(body, params, loops) -> dict:
    """`v = xs[i]` and `v = xp.transpose(xs)` statements whose value the backward sweep can
    recompute where it starts each iteration of the innermost `for` over `i`: `xs` an argument
    the function never assigns nor
    passes anywhere but to subscripts, attributes and primitives; `v` assigned there only and read
    only after it in that loop's body. Returns {statement: the `for` statement}. One walk of the
    body (compile time stays linear in the program)."""
    if not any(isinstance(loop, gast.For) for loop in loops):
        return {}  # (no `for` loop: nothing to recompute, and no walk of the body)
    pos: dict[int, int] = {}
    end: dict[int, int] = {}
    loaders: dict[str, list[int]] = {}
    misused: set[str] = set()
    params = set(params)

    def number(stmts, k):
        for st in stmts:
            pos[id(st)] = k
            found: dict[str, bool] = {}
            for node in _own_exprs(st):
                _reads_of(node, found)
                _misuse(node, params, misused)
            for v in found:
                loaders.setdefault(v, []).append(k)
            for t in analysis.targets(st):
                misused.add(t)  # an assigned argument is not the caller's any more
            k += 1
            for block in (getattr(st, "body", None), getattr(st, "orelse", None)):
                if block:
                    k = number(block, k)
            end[id(st)] = k
        return k
    number(body, 0)
    counts = analysis.assigned_counts(body)
    out = {}
    for loop in loops:
        if not isinstance(loop, gast.For):
            continue
        i = loop.target.id
        for s in loop.body:
            if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)):
                continue
            if isinstance(s.value, gast.Subscript) and isinstance(s.value.value, gast.Name):
                xs, at = s.value.value.id, _index_of(s.value.slice, i)
            else:  # (`w.T` of an argument, written in the loop: an RNN's `h @ w_hh.T`)
                xs, at = _transposed(s.value), True
            v = s.targets[0].id
            if xs is None or counts.get(v, 0) != 1 or v in params or xs not in params or xs in misused or not at:
                continue
            lo, hi = end[id(s)], end[id(loop)]
            if all(lo <= k < hi for k in loaders.get(v, ())):
                out[s] = loop
    return out


def _transposed(value) -> str | None:
    """The name `value` transposes, `xp.transpose(w)` (a view with its axes reversed), else None."""
    if isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords \
            and isinstance(value.args[0], gast.Name):
        p = registry.lookup(analysis.classify(value))
        if p is not None and p.reverses_axes:
            return value.args[0].id
    return None


def _index_of(sl, i) -> bool:
    """Whether index `sl` is loop index `i`, alone or with literals and literal slices."""
    if isinstance(sl, gast.Name):
        return sl.id == i
    if isinstance(sl, gast.Tuple):
        return any(isinstance(e, gast.Name) and e.id == i for e in sl.elts) and all(
            isinstance(e, gast.Constant) or isinstance(e, gast.Name) and e.id == i
            or isinstance(e, gast.Slice) and all(p is None or isinstance(p, gast.Constant)
                                                 for p in (e.lower, e.upper, e.step)) for e in sl.elts)
    return False


def _misuse(node, params, out):
    """Add to `out` the names of `params` that `node` reads other than as the array of a subscript
    or attribute or as an argument of a primitive: copied to another name, passed to a user
    function or a method, written through `out=`."""
    if isinstance(node, gast.Name):
        if node.id in params:
            out.add(node.id)
        return
    if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Compare)):
        for operand in (node.left, node.right) if isinstance(node, gast.BinOp) else \
                (node.operand,) if isinstance(node, gast.UnaryOp) else (node.left, *node.comparators):
            _arg_misuse(operand, params, out)
        return
    if isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(node.value, gast.Name):
        if isinstance(node, gast.Subscript):
            _misuse(node.slice, params, out)
            if not isinstance(node.ctx, gast.Load) and node.value.id in params:
                out.add(node.value.id)
        return
    if isinstance(node, gast.Call):
        kind = analysis.classify(node)
        if kind in ("call", "list.pop") or isinstance(node.func, gast.Attribute) and analysis.dotted(node.func) is None \
                or any(k.arg == "out" for k in node.keywords):
            out.update(n for n in analysis.loads(node) if n in params)
            return
        for a in node.args:
            _arg_misuse(a, params, out)
        for k in node.keywords:
            _arg_misuse(k.value, params, out)
        return
    for child in gast.iter_child_nodes(node):
        _misuse(child, params, out)


def _arg_misuse(a, params, out):
    """A primitive's argument: a name is read, not copied; anything else as `_misuse`."""
    if not isinstance(a, gast.Name):
        _misuse(a, params, out)


def slim(forward: list, backward: list, saved: set[str], recompute: dict, bwd_loops: dict, records: set[int],
         replayed=(frozenset(), frozenset())) -> set[str]:
    """Drop from both sweeps the saves of the variables in `saved` the backward sweep does not read,
    keep shape stubs of those it reads only for their shape, and recompute the statements of
    `recompute` (see `recomputable`) at the top of their loop's backward body (`bwd_loops`).
    `replayed`: the forward sweeps of checkpointed loops that the backward sweep runs (see `reads`).
    `records`: the ids of the value saves' pushes and pops, the only statements edited: a loop's
    range or index pushed on the same lists for control flow stays, whatever its name (at a higher
    order, the name of a range is also a variable whose old value is saved).
    Changes the sweeps in place; returns the variables still saved."""
    read = reads(backward, replayed=replayed)
    redo = {s.targets[0].id: (s, loop) for s, loop in recompute.items()}
    drop = {v for v in saved if v not in read or v in redo}
    stub = {v for v in saved if v in read and not read[v] and v not in drop}
    _edit(forward, lambda s: id(s) in records and _push_of(s), drop, stub)
    _edit(backward, lambda s: id(s) in records and (_pop_of(s) or _push_of(s)), drop, stub)
    for v, (s, loop) in sorted(redo.items()):
        if v in read and loop in bwd_loops:
            bwd_loops[loop].body[:0] = [build.comment(f"{v} recomputed, not saved"), build.assign(v, build.clone(s.value))]
    return set(saved) - drop


def _push_of(s):
    """The variable record statement `lst.append(v)` pushes, or None."""
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Attribute) \
            and s.value.func.attr == "append" and len(s.value.args) == 1 and isinstance(s.value.args[0], gast.Name):
        return s.value.args[0].id
    return None


def _pop_of(s):
    """The variable record statement `v = lst.pop()` restores, or None."""
    if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call) \
            and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "pop":
        return s.targets[0].id
    return None


def _edit(stmts, which, drop, stub):
    """Remove the record statements of `drop` from `stmts` (at every depth); push stubs of `stub`."""
    keep = []
    for s in stmts:
        for f in ("body", "orelse"):
            block = getattr(s, f, None)
            if block:
                _edit(block, which, drop, stub)
                if not block and f == "body":
                    block.append(gast.Pass())
        v = which(s)
        if v in drop:
            continue
        if v in stub and isinstance(s, gast.Expr):  # a push (a pop restores the stub)
            s.value.args[0] = build.call("rt.shape_stub", [build.name(v)])
        keep.append(s)
    stmts[:] = keep


def slim_slots(body: list, forward: list, backward: list, records: dict[int, str], keep=frozenset()) -> bool:
    """Drop from both sweeps the saves (`tape.append(rt.copy_slot(d, k))`) and restores (`d[k] =
    tape.pop()`) of the items of a dict or list `d` that the backward sweep does not read once it
    starts restoring them: the restores put back items nobody looks at (the char RNN's `a[t]`,
    `x[t]`, kept in dicts by time step), and they made the sweep's copy of the record copy `d`.
    Only for a container the function makes (every binding a dict or list display, not a name
    of `keep`) and reads or stores only by item (`d[k]`), so no other name, record or callee
    holds it; an item read is the item's own object, which a later `d[k] = v` does not change (an
    array's `x[i]` may be a view, so arrays keep theirs). `records`: the ids of the saves and
    restores -> their container. Changes the sweeps in place; returns whether an item restore is
    left."""
    if not records:
        return False
    drop = set()
    for c in _item_only(body, set(records.values()) - keep):
        ids = {k for k, v in records.items() if v == c}
        first = next((i for i, s in enumerate(backward) if any(id(n) in ids for n in analysis.iter_nodes(s))), None)
        if first is None or c not in reads(backward[first:], skip=frozenset(records)):
            drop.add(c)
    if drop:
        which = lambda s: records.get(id(s))  # noqa: E731
        _edit(forward, which, drop, set())
        _edit(backward, which, drop, set())
    return any(id(s) in records for s in analysis.walk_stmts(backward))


def _item_only(body, names) -> set[str]:
    """The names of `names` bound only to dict or list displays in `body` and otherwise used only as
    the container of an item read or store (`d[k]`), or in a display bound to a name nobody
    reads (`cache = (y_hat, a, x)` of a returned item the caller drops)."""
    uses = {n: 0 for n in names}
    fine = dict(uses)
    loaded = {node.id for node in analysis.iter_nodes(body) if isinstance(node, gast.Name)
              and isinstance(node.ctx, gast.Load)}
    for node in analysis.iter_nodes(body):
        if isinstance(node, gast.Name) and node.id in uses:
            uses[node.id] += 1
        elif isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and node.value.id in fine:
            fine[node.value.id] += 1
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            t, v = node.targets[0].id, node.value
            if isinstance(v, (gast.Dict, gast.List)) and t in fine:
                fine[t] += 1
            elif isinstance(v, (gast.Tuple, gast.List)) and t not in loaded:
                for e in v.elts:
                    if isinstance(e, gast.Name) and e.id in fine:
                        fine[e.id] += 1
    return {n for n in names if uses[n] == fine[n]}
