"""vmap of a selection by a boolean mask that differs per example: LeakyReLU's `x[x < 0] *= a`,
an SVM's `margins[margins < 0] = 0`, `np.sum(x[x > 0])`.

Each example selects a different number of elements, so `x[m]` has no stacked shape; but a
selection that is only computed on elementwise, reduced, or stored back through the same mask
gives results whose shapes do not depend on it. Such a selection is kept at its array's full
shape (`u = np.where(m, x, 1)`, the unselected places filled with a number every elementwise
function takes), and:

- an elementwise operation of selections by the same mask is one on the full arrays (its other
  operands checked to broadcast against the selected elements alone: rt.masked_operand);
- a reduction fills the unselected places with its identity first (`np.sum(np.where(m, u, 0))`),
  its axes mapped onto the full array's (rt.masked_axes), a mean divided by each example's count;
- a store `x[m] = v` is one store through the batched mask, `v` read through it when it is a
  selection or per-example value.

Any other use of a selection (returned, indexed, passed to a function, its length) is refused at
the user's line: its shape differs per example. `MaskedSelections` is a mixin of `Batcher`
(batching.py); it holds `ragged`, the names bound to selections, with each one's mask.
"""
from __future__ import annotations

import copy

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry
from ..primitives.rules_masked import MASKED_REDUCTIONS
from .base import bind_prim, index_value, loc
from .batch_vars import loaded_names

_HINT = ("Keep the shape fixed: reduce the selection (`np.sum(x[mask])`), store into it (`x[mask] = v`), or "
         "select with the mask (`np.where(mask, x, 0)`).")


def _elementwise(p, rule) -> bool:
    """Whether the operation acts on each element alone (so it may run on a full array in place
    of a selection): declared as broadcasting, fused elementwise, or with a diagonal Jacobian."""
    return rule is not None and (rule.kind == "broadcast" or rule.kind == "same" and bool(p.fusable or p.diag))


class _Both:
    """Membership in two sets at once, without building their intersection."""

    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __contains__(self, n) -> bool:
        return n in self.a and n in self.b


class MaskedSelections:
    """The masked-selection methods of `Batcher` (its state: `ragged`, `masks`, `bset`, `rank`)."""

    def live_masks(self) -> _Both:
        """The batched names holding a mask, for `in` (a view: a set built per statement grew
        with every comparison before it, quadratic in a long function, issue 46)."""
        return _Both(self.masks, self.bset)

    def ragged_read(self, node) -> str | None:
        """A selection `node` reads (the first), or None."""
        return next((n for n in loaded_names(node) if n in self.ragged), None)

    def loop_carried(self) -> set:
        """Names a loop body may read before it assigns them (a value of the previous iteration): a
        selection bound to one would be read before this walk knows it is one."""
        carried = getattr(self, "carried_names", None)
        if carried is None:
            carried = self.carried_names = set().union(*(analysis.exposed(s.body) for s in analysis.walk_stmts(self.body)
                                                         if isinstance(s, (gast.For, gast.While))))
        return carried

    def no_ragged(self, s, node) -> None:
        """Refuse a statement that uses a selection in a way whose shape differs per example."""
        name = self.ragged_read(node) if node is not None else None
        if name is not None:
            self.fail(s, "vmap cannot use a selection by a boolean mask that differs per example (`x[mask]`) "
                         "here: its shape differs per example (each example selects a different number of "
                         "elements).", _HINT)

    def masked(self, s, mask):
        """The statements of `s` when it selects, stores or computes through a per-example mask;
        (prelude, statement the normal path batches) when it only needs its operands prepared;
        None when no selection is involved."""
        if id(s) in self.masked_done:
            return None
        t = s.targets[0]
        names = [t.id] if isinstance(t, gast.Name) else [e.id for e in getattr(t, "elts", []) if isinstance(e, gast.Name)]
        for k, m in self.ragged.items():  # a selection whose mask is rebound: any later use is refused
            if m in names:
                self.ragged[k] = ""
        live = self.live_masks()
        if isinstance(t, gast.Subscript):
            idx = index_value(t.slice)
            if isinstance(idx, gast.Name) and idx.id in self.ragged:
                self.no_ragged(s, idx)
            if isinstance(idx, gast.Name) and idx.id in live and isinstance(t.value, gast.Name):
                return self.masked_store(s, t.value.id, idx.id, mask), None
            self.no_ragged(s, s)
            return None
        value = s.value
        kind = analysis.classify(value)
        if kind == "getitem" and isinstance(value.value, gast.Name):
            idx = index_value(value.slice)
            if isinstance(idx, gast.Name) and idx.id in self.ragged:
                self.no_ragged(s, idx)
            if isinstance(idx, gast.Name) and idx.id in live:
                if value.value.id in self.ragged:
                    self.no_ragged(s, value)
                return self.masked_select(s, value.value, idx.id, mask), None
        self.no_mask_index(s, kind, value, live)
        name = self.ragged_read(value)
        for n in names:
            self.ragged.pop(n, None)
        if name is None:
            return None
        if not isinstance(t, gast.Name) or self.keeps_old(t.id, mask) or t.id in self.loop_carried() \
                or any(self.ragged.get(n) == "" for n in loaded_names(value)):
            self.no_ragged(s, value)
        if kind == "copy":
            self.ragged[t.id] = self.ragged[name]
            self.rank.pop(t.id, None)
            return None
        if kind in MASKED_REDUCTIONS:
            return self.masked_reduce(s, kind, mask)
        p, rule = registry.lookup(kind), registry.BATCH.get(kind)
        if p is None or not (_elementwise(p, rule) or p.checks or p.dtype_gate):  # (`x[m] *= a`'s rt.inplace and
            # the gate of its store: elementwise)
            self.no_ragged(s, value)
        return self.masked_elementwise(s, p, t.id)

    def no_mask_index(self, s, kind, value, live) -> None:
        """Refuse a helper that indexes with a per-example mask (a gradient's `rt.add_at(acc, m, v)`):
        vmap(grad(f)) then runs as the gradient of the batched f summed over the examples."""
        p = registry.lookup(kind) if isinstance(value, gast.Call) else None
        if p is None or "index" not in p.params:
            return
        index = bind_prim(p, value).get("index")
        if isinstance(index, gast.Name) and index.id in live:
            self.fail(s, f"vmap cannot batch `{kind}` indexed by a boolean mask that differs per example.", _HINT)

    def masked_select(self, s, base, m, mask) -> list:
        """`u = x[m]`: `u = np.where(m, x, 1)` at x's full shape (1 in the unselected places)."""
        t = s.targets[0]
        if not isinstance(t, gast.Name) or self.keeps_old(t.id, mask) or t.id in self.loop_carried():
            self.fail(s, "vmap cannot select with a boolean mask that differs per example (`x[mask]`) here: under "
                         "a condition that differs per example, or into a name a loop's next iteration reads.", _HINT)
        out: list = []
        lanes = self.tmp(out, build.call("rt.mask_lanes", [build.name(m), base, build.const(self.is_batched(base))]),
                         "lanes")
        out.append(build.assign(t.id, build.call("xp.where", [lanes, base, build.const(1)])))
        self.ragged[t.id] = m
        self.rank.pop(t.id, None)
        return [loc(o, s) for o in out]

    def masked_store(self, s, base, m, mask) -> list:
        """`x[m] = v` through the batched mask (anded with the lanes of a per-example condition):
        `v` read through it where it is a selection (kept at full shape) or a per-example value."""
        if base in self.ragged or base not in self.bset:
            self.no_ragged(s, s)
            self.fail(s, "vmap cannot store through a boolean mask that differs per example into this value.", _HINT)
        out: list = []
        key = build.name(m)
        if mask is not None:
            lanes = self.tmp(out, build.call("rt.mask_lanes", [build.name(mask), key, build.const(True)]), "lanes")
            key = self.tmp(out, build.call("xp.logical_and", [key, lanes]), "key")
        v = s.value
        if isinstance(v, gast.Name) and v.id in self.ragged:
            if not self.ragged[v.id]:
                self.no_ragged(s, v)
            if self.ragged[v.id] != m:  # (the same mask computed twice: checked when it runs)
                self.tmp(out, build.call("rt.same_mask", [build.name(m), build.name(self.ragged[v.id])]), "same")
            v = self.tmp(out, build.subscript(v, copy.deepcopy(key)), "sel")
        elif self.is_batched(v):
            w = self.tmp(out, build.call("rt.masked_operand", [v, build.name(m), build.name(base), build.const(True)]),
                         "operand")
            w = self.tmp(out, build.call("rt.lift_rank", [w, build.name(base), build.const(True)]), "lift")
            w = self.tmp(out, build.call("rt.broadcast_to_like", [w, build.name(base)]), "full")
            v = self.tmp(out, build.subscript(w, copy.deepcopy(key)), "sel")
        else:
            self.no_ragged(s, v)
        out.append(build.assign(build.subscript(build.name(base), copy.deepcopy(key), store_=True), v))
        return [loc(o, s) for o in out]

    def masked_elementwise(self, s, p, target):
        """An elementwise operation with a selection among its operands: selections by one mask, the
        others checked to broadcast against the selected elements (their trailing axes)."""
        args = bind_prim(p, s.value)
        sels = [a.id for a in args.values() if isinstance(a, gast.Name) and a.id in self.ragged]
        m = self.ragged[sels[0]]
        ref = build.name(sels[0])
        out: list = []
        for other in sorted({self.ragged[a] for a in sels} - {m}):  # (one mask computed twice: checked when it runs)
            same = self.namer.fresh("same")
            out.append(loc(build.assign(same, build.call("rt.same_mask", [build.name(m), build.name(other)])), s))
        swap: dict = {}
        for k, a in args.items():
            if not isinstance(a, gast.Name) or a.id in self.ragged or a.id in swap or a.id == m \
                    or p.dtype_gate and k in p.zero_args:  # (a store's array, read for its dtype only)
                continue
            checked = self.namer.fresh("operand")
            out.append(loc(build.assign(checked, build.call("rt.masked_operand", [
                a, build.name(m), ref, build.const(self.is_batched(a))])), s))
            if self.is_batched(a):
                self.bset.add(checked)
            swap[a.id] = checked
        value = copy.deepcopy(s.value)
        for n in gast.walk(value):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in swap:
                n.id = swap[n.id]
        new = loc(build.assign(target, value), s)
        self.masked_done.add(id(new))
        self.ragged[target] = m
        self.rank.pop(target, None)
        return out, new

    def masked_reduce(self, s, kind, mask):
        """A reduction of a selection: its unselected places filled with the reduction's identity,
        its axes mapped onto the full array's; a mean is the sum divided by each example's count."""
        p = registry.lookup(kind)
        args = bind_prim(p, s.value)
        first = p.params[0]
        arr = args.get(first)
        rest = [a for k, a in args.items() if k != first and a is not None]
        if not isinstance(arr, gast.Name) or arr.id not in self.ragged or any(self.ragged_read(a) for a in rest):
            self.no_ragged(s, s.value)
        m = self.ragged[arr.id]
        how = MASKED_REDUCTIONS[kind]
        out: list = []
        fill = self.tmp(out, build.call("rt.masked_fill", [arr, build.const("zero" if how == "mean" else how),
                                                           build.name(m)]), "fill")
        lanes = self.tmp(out, build.call("rt.mask_lanes", [build.name(m), arr, build.const(True)]), "lanes")
        filled = self.tmp(out, build.call("xp.where", [lanes, arr, fill]), "filled")
        self.bset.add(filled.id)
        keep = args.get("keepdims") or build.const(False)
        axis = args.get("axis")
        if axis is not None and not (isinstance(axis, gast.Constant) and axis.value is None):
            axis = self.tmp(out, build.call("rt.masked_axes", [axis, build.name(m), arr, keep]), "axes")
        else:
            axis = build.const(None)
        extra = {k: a for k, a in args.items() if k not in (first, "axis", "keepdims") and a is not None
                 and not (isinstance(a, gast.Constant) and a.value is None)}
        reduced = build.call("xp.sum" if how == "mean" else kind, [filled], {"axis": axis, "keepdims": keep, **extra})
        out = [loc(o, s) for o in out]
        if how != "mean":
            new = loc(build.assign(s.targets[0].id, reduced), s)
            self.masked_done.add(id(new))
            return out, new
        total = self.namer.fresh("total")
        pre, expr, _ = self.prim(s, "xp.sum", reduced)
        out += [loc(o, s) for o in pre] + [loc(build.assign(total, expr), s)]
        count = self.tmp(out, build.call("rt.masked_count", [build.name(m), arr, axis, keep]), "count")
        self.bset.update((total, count.id))
        new = loc(build.assign(s.targets[0].id, gast.BinOp(left=build.name(total), op=gast.Div(), right=count)), s)
        self.masked_done.add(id(new))
        return [loc(o, s) for o in out], new
