"""vmap's calls: an operation on per-example values batched by its declared rule (the same op, its
operands lifted to broadcast per example, its axis arguments shifted past the batch axis, a
runtime helper, or one call per example), and a call of a user function by its batched version.

`BatchedCalls` is a mixin of `Batcher` (batching.py), which calls `prim` and `call` for each
statement's value; the rules themselves are declared with each primitive (registry.BATCH).
"""
from __future__ import annotations

import copy

import gast

from ...errors import shown_path
from ..ir import build
from ..primitives import registry
from .base import bind_prim, stores_into, updates_whole_in_place
from .batch_ranks import lowered
from .batch_vars import loaded_names


def const_is(atom, value) -> bool:
    """Whether an argument is absent (its default) or the literal `value`."""
    return atom is None or isinstance(atom, gast.Constant) and atom.value is value


def _operands(value):
    if isinstance(value, gast.BinOp):
        return [value.left, value.right]
    if isinstance(value, gast.UnaryOp):
        return [value.operand]
    if isinstance(value, gast.Compare):
        return [value.left, value.comparators[0]]
    return list(value.args)


def _rebuild(value, p, new, keywords=()):
    """`value` with its operands replaced by `new` (param name -> atom)."""
    value = copy.copy(value)
    if isinstance(value, gast.BinOp):
        value.left, value.right = new[p.params[0]], new[p.params[1]]
    elif isinstance(value, gast.UnaryOp):
        value.operand = new[p.params[0]]
    elif isinstance(value, gast.Compare):
        value.left, value.comparators = new[p.params[0]], [new[p.params[1]]]
    else:
        n = len(value.args)
        value.args = [new[k] for k in p.params[:n]]
        kws = {kw.arg: kw for kw in value.keywords}
        value.keywords = [gast.keyword(arg=kw.arg, value=new.get(kw.arg, kw.value)) for kw in value.keywords]
        for k in keywords:
            if k not in kws and p.params.index(k) >= n and new.get(k) is not None:
                value.keywords.append(gast.keyword(arg=k, value=new[k]))
    return value


class BatchedCalls:
    """The call and operation methods of `Batcher` (it holds the state: batched names, ranks, namer)."""

    def call(self, s, value):
        fn = self.core.ns[value.func.id]
        args = self.bind_call(fn, value)
        mask = tuple(self.is_batched(a) for a in args)
        if not any(mask):
            return [], value, False
        self.check_unbatched_arguments_kept(s, fn, mask, args)
        pre: list = []
        if self.calls.has_rules(fn):  # the user's rules see every argument batched
            args = [a if self.is_batched(a) else self.tmp(pre, build.call("rt.replicate_batch", [a,
                build.name(self.n)])) for a in args]
            mask = (True,) * len(args)
        name = self.bind(f"vmap_{self.callee_label(fn)}", self.calls.batch(fn, mask))
        return pre, build.call(build.name(name), list(args)), True

    def check_unbatched_arguments_kept(self, s, fn, mask, args=()):
        """A callee that updates an unbatched argument in place while another is batched may store
        per-example values in it; its batched version works on a batched copy, so the caller's
        value would not change: reject it at the call. So is an item stored into a list or dict
        the caller built (its batched version indexes its parameter as a batched array)."""
        if self.calls.has_rules(fn):
            return
        callee = self.calls.core(fn)
        for base, line in callee.inplace_params.items():
            k = callee.params.index(base)
            arg = args[k] if k < len(args) else None
            if mask[k] and isinstance(arg, gast.Name) and arg.id in self.containers \
                    and stores_into(callee.node, base, items_only=True):  # (an append works: the list's own)
                self.fail(s, f"`{callee.name}` stores an item into its parameter `{base}` "
                             f"({shown_path(callee.filename)}:{line}), the list or dict `{arg.id}` "
                             "this function built: vmap batches it as an array there, not as a container.",
                          f"Store the item where `{arg.id}` is built, or return the new value from `{callee.name}`.")
            elif mask[k] and updates_whole_in_place(callee.node, base):  # (its batched version rebinds the name:
                self.fail(s, f"`{callee.name}` updates its parameter `{base}` in place "  # the caller's value stays)
                             f"({shown_path(callee.filename)}:{line}), which changes the caller's value; vmap cannot "
                             "batch that update of a value passed to it (a view, an item or an argument).",
                          f"Copy it inside `{callee.name}` first (`{base} = {base}.copy()`), or return the new value "
                          "instead of updating the argument.")
            if not mask[k] and stores_into(callee.node, base):
                self.fail(s, f"`{callee.name}` updates its parameter `{base}` in place "
                             f"({shown_path(callee.filename)}:{line}) while vmap batches its other arguments: "
                             "the per-example values would not reach the caller's value.",
                          f"Return the new value from `{callee.name}` instead of updating `{base}`.")

    def prim(self, s, kind, value):
        rule = registry.BATCH.get(kind)
        p = registry.lookup(kind)
        args = bind_prim(p, value) if p is not None else {}
        if not any(self.is_batched(a) for a in args.values() if a is not None):
            if not any(n in self.bset for n in loaded_names(value)):
                return [], value, False
        if rule is None or p is None:
            self.fail(s, f"vmap has no batching rule for `{kind}` on a per-example value.",
                      "Declare one (`batch=`) where s2s/compiler/primitives/ declares it, or move the call out of the "
                      "batched function.")
        fixed = [k for k in rule.fixed if self.is_batched(args.get(k))]
        if rule.kind == "create" or fixed:
            what = f"`{fixed[0]}` of `{kind}`" if fixed else f"`{kind}` with per-example arguments"
            self.fail(s, f"vmap cannot batch {what} (the shape of an array cannot differ per example).")
        pre: list = []
        if rule.kind in ("same", "broadcast", "axis") and p.name.startswith("xp.") or p.name.startswith("rt.") \
                and ("keepdims" in p.params or p.shape_arg is not None and p.result_like == p.shape_arg) \
                and not (p.tree_args or p.list_args):
            value, args = self.stacked_lists(value, p, args, pre)
        if rule.kind == "same":
            if p.batched_by and not self.is_batched(args.get(p.batched_by)):
                return pre, value, False  # a constant moved to a batched value's backend, leaves in a batched tree's shape
            return pre, value, True
        if rule.kind == "broadcast":
            return pre, self.lift(value, p, args, pre), True
        if rule.kind == "axis":
            return self.axes(value, p, args, rule, pre)
        real = [k for k in p.params if not k.startswith("*")]
        flags = build.tuple_([build.const(self.is_batched(args[k])) for k in real])
        if rule.kind == "helper":
            plain = lowered(kind, [self.is_batched(args[k]) for k in real], {k: args[k] for k in real}, self.rank,
                            lambda e: self.tmp(pre, e)) if None not in (args.get(k) for k in real) else None
            if plain is not None:
                return pre, plain, True
            vals = [args[k] if args[k] is not None else build.const(None) for k in real]
            if isinstance(value, gast.Call) and len(value.args) > len(real):
                vals += value.args[len(real):]
            extra = {k.arg: k.value for k in value.keywords if k.arg not in real} if isinstance(value, gast.Call) else {}
            batched = not p.unbatched_result and not (p.batched_by and not self.is_batched(args.get(p.batched_by)))
            return pre, build.call(rule.helper, [flags] + vals, extra), batched
        # looped: one call per example of the op itself
        pos = list(value.args) if isinstance(value, gast.Call) else list(args.values())[:len(_operands(value))]
        kws = {k.arg: k.value for k in value.keywords} if isinstance(value, gast.Call) else {}
        fl = build.tuple_([build.const(self.is_batched(a)) for a in pos + list(kws.values())])  # keywords too, in order
        fn = build.const(kind)
        return pre, build.call("rt.map_examples", [fn, fl, build.name(self.n)] + pos, kws), True

    def stacked_lists(self, value, p, args, pre):
        """(value, args) with each list display of batched values among a NumPy function's array
        operands stacked with the batch axis first (`np.max([a, b], axis=0)`, `np.exp([a, b])`: NumPy
        makes the list an array, whose first axis would otherwise be the list's); likewise for the
        derivative helpers of reductions (`rt.max_vjp(g, [a, b], ans, axis, keepdims)`) and of
        broadcasting (`rt.unbroadcast(g, [a, b])`), which take arrays."""
        arrays = [k for k in p.params if k not in p.list_args and (p.name.startswith("xp.") or k not in ("axis",
                                                                                                   "keepdims"))]
        lists = [k for k, a in args.items() if isinstance(a, gast.Name) and a.id in self.containers
                 and self.is_batched(a) and k in arrays]
        if not lists:
            return value, args
        new = dict(args)
        for k in lists:
            new[k] = self.tmp(pre, build.call("xp.stack", [args[k]], {"axis": build.const(1)}), "stacked")
            self.bset.add(new[k].id)
        return _rebuild(value, p, new), new

    def lift(self, value, p, args, pre):
        """Each batched operand reshaped to broadcast per example against the other operands."""
        ops = [k for k in p.params if isinstance(args.get(k), gast.Name) and k not in ("dtype",)]
        new = dict(args)
        for k in ops:
            if not self.is_batched(args[k]):
                continue
            cur = args[k]
            for o in ops:
                rk, ro = self.rank.get(args[k].id), self.rank.get(args[o].id)
                if rk is not None and ro is not None and rk >= ro:
                    continue  # known per-example ranks: already broadcasts as the examples would
                if o != k and args[o].id != args[k].id:
                    how = "rt.lift_rank_tree" if p.name == "rt.tree_add" else "rt.lift_rank"  # cotangent trees
                    # (`*` of an unbatched list: NumPy refuses a number example's product with it, lift_rank's `op`)
                    op = [build.const(p.symbol)] if p.sequence_op and p.symbol == "*" and how == "rt.lift_rank" \
                        and not self.is_batched(args[o]) else []
                    cur = self.tmp(pre, build.call(how, [cur, args[o], build.const(self.is_batched(args[o]))] + op),
                                   "lift")
            new[k] = cur
        if p.sequence_op and p.symbol == "+" and any(self.is_batched(args[k]) for k in ops) \
                and any(args[k].id in self.sequences for k in ops):  # (a display: a join, not NumPy's sum)
            for o in ops:  # (an unbatched list joining a batched one: its items hold the batch too)
                if not self.is_batched(args[o]) and self.rank.get(args[o].id) is None:  # (a rank: an array)
                    other = next(new[k] for k in ops if k != o)
                    new[o] = self.tmp(pre, build.call("rt.sequence_batch", [args[o], other]), "joined")
        return _rebuild(value, p, new)

    def axes(self, value, p, args, rule, pre):
        arr = next(args[k] for k in p.params if self.is_batched(args.get(k)))
        new = dict(args)
        if rule.none_axis == "norm" and const_is(args.get("axis"), None) and const_is(args.get("ord"), None) \
                and not const_is(args.get("keepdims"), False):
            # the 2-norm of all entries kept as dims: vector_norm over every per-example axis, which
            # also takes none (a 0-d example) or more than two (norm's tuple axes take one or two)
            axes = self.tmp(pre, build.call("rt.example_axes", [arr]), "axes")
            keep = args.get("keepdims") or build.const(False)
            return pre, build.call("xp.linalg.vector_norm", [args[p.params[0]]], {"axis": axes, "keepdims": keep}), True
        for k in rule.axes:
            ax = args.get(k)
            if ax is None or isinstance(ax, gast.Constant) and ax.value is None:
                none_axis = rule.none_axis
                if none_axis == "norm":  # ord None: the 2-norm of all entries, any per-example rank
                    plain = all(const_is(args.get(a), v) for a, v in (("ord", None), ("keepdims", False)))
                    none_axis = "flat" if plain else "all"
                if none_axis == "all":
                    new[k] = self.tmp(pre, build.call("rt.example_axes", [arr]), "axes")
                elif none_axis == "flat":
                    first = p.params[0]
                    how = "rt.flatten_examples_each" if p.list_args else "rt.flatten_examples"  # (concatenate)
                    new[first] = self.tmp(pre, build.call(how, [args[first]]), "flat")
                    new[k] = build.const(1)
            else:
                rank = self.rank.get(getattr(arr, "id", None))
                if not rule.number and not p.list_args and rank in (None, 0):
                    # a 0-d example has no axis (np.mean, np.sort): NumPy's AxisError when it runs
                    new[k] = self.tmp(pre, build.call("rt.example_axis", [ax, arr, build.const(rule.none_axis),
                                                                          build.const(False)]), "axis")
                    continue
                if rule.none_axis == "flat" and self.rank.get(getattr(args[p.params[0]], "id", None)) in (None, 0) \
                        and self.is_batched(args[p.params[0]]) and not p.list_args:  # (a 0-d example: scanned flat)
                    first = p.params[0]
                    new[first] = self.tmp(pre, build.call("rt.examples_1d", [args[first]]), "ex1d")
                if rule.none_axis == "all" and isinstance(ax, gast.Constant) and ax.value in (0, -1) and rank is None:
                    new[k] = self.tmp(pre, build.call("rt.example_axis", [ax, arr, build.const("all")]), "axis")
                elif rule.none_axis == "all" and isinstance(ax, gast.Constant) and ax.value in (0, -1) and rank == 0:
                    new[k] = build.tuple_([])  # a reduction of a number along 0 or -1 is the number (NumPy)
                elif isinstance(ax, gast.Constant):
                    new[k] = build.const(ax.value + 1 if ax.value >= 0 else ax.value)
                else:
                    new[k] = self.tmp(pre, build.call("rt.example_axis", [ax, arr, build.const(rule.none_axis)]), "axis")
        if p.list_args:
            lst = args[p.list_args[0]]
            if not self.is_batched(lst):
                new[p.list_args[0]] = self.tmp(pre, build.call("rt.replicate_batch", [lst, build.name(self.n)]))
        return pre, _rebuild(value, p, new, keywords=rule.axes), True
