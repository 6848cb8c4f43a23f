"""vmap's own helpers as primitives, and the batching rules given by a fact rather than one by one.

Every primitive declares its batching rule where it is declared (`batch=SAME`, `BROADCAST`,
`CREATE`, `LOOP`, `along(...)`, `by(...)`); the registry refuses a second one. What is left here:
the core table's elementwise and broadcasting ops without a rule of their own get theirs from
those facts; a few batching helpers carry facts of their own (`helper`); each batching helper is
declared a primitive in turn (`_declare_helpers`), with the rules that let batched code be batched
and differentiated again; and `batch_the_rest` runs every primitive still without a rule once per
example.

A batched value carries the batch as axis 0. Most ops need no code: an elementwise op applies as
it is; a broadcasting op lifts each batched operand's per-example rank to the others' first; a
reduction shifts its `axis` argument by one (None: every axis but the batch). The rest name a
runtime helper (`rt.batched_*`) that takes per-argument batched flags. `loop` ops run once per example
(`rt.map_examples`); `create` ops refuse batched arguments; an op without a rule is an error in vmap.
The vmap helpers themselves are primitives too (with derivative and batching rules), so batched
code can be differentiated and batched again.
"""
from __future__ import annotations

import inspect

from ... import runtime as _rt
from . import rules, rules_batch_derivs, rules_jacobian  # noqa: F401  (every primitive is declared before its batching rule)  # noqa: F401  (the batched Jacobians' helpers, with their batching rules)
from .registry import (
    BATCH,
    BROADCAST,
    CREATE,
    LOOP,
    PRIMS,
    SAME,
    VJP_IN_PLACE,
    BatchRule,
    by,
    defbatch,
    defjvp,
    defvjp,
    linear,
    prim,
)

_DECLARED_BEFORE = set(PRIMS)  # the helpers of batched code are the runtime primitives declared below


def _decl(kind: str, names, **kw) -> None:
    for n in names:
        defbatch(n, BatchRule(kind, **kw))


def elementwise(*names):
    """Ops applied to each element (or to each example as a whole): nothing to do."""
    _decl("same", names)


def broadcasting(*names):
    """Elementwise over broadcast operands: lift batched operands' per-example ranks."""
    _decl("broadcast", names)


_HELPER_FACTS: dict[str, dict] = {}


def helper(name, fn, **facts):
    """An op batched by runtime helper `fn(flags, *args)`; `facts`: the helper's own, for when
    `_declare_helpers` declares it a primitive."""
    defbatch(name, BatchRule("helper", helper=fn))
    if facts:
        _HELPER_FACTS[fn] = facts


def looped(*names):
    """Ops run once per example (no vectorized rule yet)."""
    _decl("loop", names)


# the core table's elementwise and broadcasting ops declared without a rule: by their facts
elementwise(*[n for n, p in PRIMS.items() if p.same_shape and n not in BATCH])
broadcasting(*[n for n, p in PRIMS.items() if p.broadcasting and n not in BATCH])
for _h in ("dot", "matmul", "inner"):  # (the products' helpers also run inside a vectorized loop, passes/loopvec.py)
    _HELPER_FACTS["rt.batched_" + _h] = {"nested_ok": True}
for _h in ("transpose", "transpose_vjp"):  # (the permutation is a setting: no derivative)
    _HELPER_FACTS["rt.batched_" + _h] = {"zero_args": ("flags", "axes")}
helper("rt.seed", "rt.batched_seed", effect=True)  # (grad's scalar check: an effect, as rt.seed)


# the vmap helpers are primitives too, so batched code can be batched again (vmap of vmap) and
# differentiated (grad of vmap); helpers without derivative rules make reverse/forward mode refuse
# (vmap_size and vmap_size_axis0 check that the mapped axes agree: never removed)
prim("rt.vmap_size", "args, in_axes, axis_size, names", nondiff=True, effect=True, unbatched_result=True,
     batch=by("rt.batched_vmap_size"))
prim("rt.vmap_size_axis0", "xs, names", nondiff=True, effect=True, unbatched_result=True,
     batch=by("rt.batched_vmap_size_axis0"))
prim("rt.num_examples", "x", nondiff=True, unbatched_result=True, batch=by("rt.batched_num_examples"))
prim("rt.example_axes", "x", nondiff=True, unbatched_result=True, batch=by("rt.batched_example_axes"))
for _n, _sig, _batch in (("rt.mask_any", "m", by("rt.batched_mask_any")), ("rt.mask_and", "m, c", BROADCAST),
                         ("rt.mask_and_not", "m, c", BROADCAST), ("rt.full_mask", "n", CREATE),
                         ("rt.example_key", "index, ib, a, clip=True", LOOP)):
    prim(_n, _sig, nondiff=True, batch=_batch)
# one axis for every example (batched again: an axis of batched code, vmap of vmap)
prim("rt.example_axis", "axis, x=None, none='keep', number=True", nondiff=True, unbatched_result=True,
     batch=by("rt.batched_example_axis"))
linear("rt.vmap_in", "x, spec, n", "x", "rt.vmap_in_t(g, x, spec)", tree_args=(0,), batch=by("rt.batched_vmap_in"))
linear("rt.vmap_in_t", "v, like, spec", "v", "rt.vmap_in(g, spec, rt.num_examples(v))", tree_args=(0, 1), batch=LOOP)
linear("rt.vmap_out", "x, spec, n", "x", "rt.vmap_out_t(g, spec)", tree_args=(0,), batch=by("rt.batched_vmap_out"))
linear("rt.vmap_out_t", "v, spec", "v", "rt.vmap_out(g, spec, 0)", tree_args=(0,), batch=LOOP)
linear("rt.replicate_batch", "x, n", "x", "rt.replicate_batch_t(g, x)", tree_args=(0,),
       batch=by("rt.batched_replicate_batch"))
linear("rt.sequence_batch", "x, other", "x", "rt.sequence_batch_t(g, x, other)", tree_args=(0,), same_shape=True,
       batch=by("rt.batched_sequence_batch"), batched_by="x")  # (x or x's items repeated: batched as x is)
linear("rt.sequence_batch_t", "v, like, other", "v", "rt.sequence_batch(g, other)", tree_args=(0, 1), batch=LOOP)
linear("rt.replicate_batch_t", "v, like", "v", "rt.replicate_batch(g, rt.num_examples(v))", tree_args=(0, 1),
       batch=LOOP)
linear("rt.lift_rank", "x, other, other_batched, op=''", "x", "rt.unlift_rank(g, x)", tree_preserving=True,
       batch=by("rt.batched_lift_rank"))
linear("rt.unlift_rank", "v, x", "v", "rt.unlift_rank(g, v)", batch=by("rt.batched_unlift_rank"))
linear("rt.lift_rank_tree", "x, other, other_batched", "x", "rt.lift_rank_tree_t(g, x)")
prim("rt.lift_rank_tree_t", "g_, x", zero_args=("x",))  # (its own derivative: no_batched_derivative, below)
linear("rt.lift_rank_to_slot", "v, a, key", "v", "xp.reshape(g, xp.shape(v))", batch=LOOP)
linear("rt.flatten_examples", "x", "x", "xp.reshape(g, xp.shape(x))", batch=by("rt.batched_flatten_examples"))
linear("rt.flatten_examples_each", "x", "x", "rt.unflatten_examples_each(g, x)", list_args=("x",), batch=LOOP)
linear("rt.unflatten_examples_each", "v, like", "v", "rt.flatten_examples_each(g)", list_args=("v",), batch=LOOP)
linear("rt.examples_1d", "x", "x", "xp.reshape(g, xp.shape(x))", batch=LOOP)
linear("rt.example_getitem", "x, index, xb=True, ib=False, clip=True", "x", "rt.example_getitem_t(g, x, index, xb, ib)",
       tree_args=(0,), nested_ok=True)
linear("rt.example_getitem_t", "v, x, index, xb, ib", "v", "rt.example_getitem(g, index, xb, ib)", tree_args=(0, 1),
       batch=LOOP)
# reverse mode's in-place form of `b_x + rt.example_getitem_t(g, x, index, xb, ib)` (VJP_IN_PLACE)
prim("rt.example_add_at", "acc, v, index, xb=True, ib=False", zero_args=("index", "xb", "ib"), tree_sum=True,
     mutates=True, tree_args=(0, 1), batch=LOOP)
defvjp("rt.example_add_at", acc="g", v="rt.example_getitem(g, index, xb, ib)")
defjvp("rt.example_add_at", acc="rt.fresh(dacc)", v="rt.example_getitem_t(dv, acc, index, xb, ib)")
VJP_IN_PLACE["rt.example_getitem"] = ("x", "rt.example_add_at")
prim("rt.masked_merge", "m, new, old", zero_args=("m",), tree_args=(1, 2))
defvjp("rt.masked_merge", new="rt.masked_merge(m, g, rt.zeros_like_tree(g))",
       old="rt.masked_merge(m, rt.zeros_like_tree(g), g)")
# the old value of a first assignment is None (and so is its tangent, when the branch that would
# have assigned it first was skipped): its term is then zeros shaped like the new value
defjvp("rt.masked_merge", new="rt.masked_merge(m, dnew, rt.zeros_like_tree(dnew))",
       old="rt.masked_merge(m, rt.zeros_like_tree(new), dold)")
prim("rt.map_examples", "fn, flags, n, a0=None, a1=None, a2=None, a3=None, a4=None, a5=None, a6=None",
     zero_args=("fn", "flags", "n"), batch=LOOP)
helper("rt.masked_merge", "rt.batched_masked_merge", zero_args=("flags", "m"))  # (the mask has no derivative)
prim("rt.sum_examples", "v", batch=by("rt.batched_sum_examples"))  # vmap(grad(f)) as grad of the sum of the batched f
defvjp("rt.sum_examples", v="g * xp.ones_like(v)")
defjvp("rt.sum_examples", v="xp.sum(dv)")


def _sig_of(fn) -> str:
    return ", ".join(p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
                     for p in inspect.signature(fn).parameters.values())


def _no_derivative(name: str) -> None:
    """A batched helper without derivative rules yet: its derivative raises an S2SError when it
    runs (never a silent zero)."""
    p = PRIMS[name]
    for a in p.params:
        if a not in p.zero_args and a not in p.vjp:
            defvjp(name, **{a: f"rt.no_batched_derivative(g, {name[3:]!r})"})
            defjvp(name, **{a: f"rt.no_batched_derivative(d{a}, {name[3:]!r})"})


for _n in ("full", "full_like"):
    linear("rt.batched_" + _n, _sig_of(getattr(_rt, "batched_" + _n)), "fill_value",
           "rt.batched_full_t(flags, g, fill_value)")
prim("rt.batched_linspace", _sig_of(_rt.batched_linspace), zero_args=("flags", "num", "endpoint", "retstep", "dtype",
                                                                      "axis"))
for _k, _end in enumerate(("start", "stop")):
    defvjp("rt.batched_linspace", **{_end: f"rt.batched_linspace_t(flags, g, start, stop, num, endpoint, axis, {_k})"})
    defjvp("rt.batched_linspace",
           **{_end: f"rt.batched_linspace_jvp(flags, d{_end}, start, stop, num, endpoint, axis, {_k})"})
prim("rt.batched_full_t", "flags, g_, fill_value", zero_args=("flags", "fill_value"), batch=LOOP)
prim("rt.batched_linspace_t", "flags, g_, start, stop, num, endpoint, axis, which", zero_args=("flags", "start", "stop",
                                                                                               "num",
     "endpoint", "axis", "which"), batch=LOOP)
prim("rt.batched_linspace_jvp", "flags, d, start, stop, num, endpoint, axis, which", zero_args=("flags", "start", "stop",
                                                                                                "num",
     "endpoint", "axis", "which"), batch=LOOP)
prim("rt.no_batched_derivative", "x, what", nondiff=True, batch=SAME)
linear("rt.batched_array", _sig_of(_rt.batched_array), "x", "rt.example_array_t(g, x)")  # the batched np.array of a list
linear("rt.example_array_t", "v, like", "v", "rt.batched_array((True,), g)", batch=LOOP)
for _n in ("tuple", "list"):  # `tuple(x)` of a batched list or array
    linear("rt.batched_" + _n, "flags, x", "x", "rt.batched_tuple_t(flags, g, x)")
linear("rt.batched_tuple_t", "flags, v, x", "v", "rt.batched_tuple(flags, g)", batch=LOOP)


def _declare_helpers() -> list[str]:
    """Each batching helper named so far is a primitive too, with the signature of its runtime
    function (its flags argument `flags` has no derivative; the helper of an operation without
    derivative has none either), run once per example when batched again unless a rule says
    otherwise (`batch_the_rest`). Returns those new here."""
    ops_of: dict[str, list[str]] = {}
    for op, rule in BATCH.items():
        if rule.kind == "helper":
            ops_of.setdefault(rule.helper, []).append(op)
    new = []
    for name in sorted(ops_of):
        if name not in PRIMS:
            facts = {"zero_args": ("flags",), **_HELPER_FACTS.get(name, {})}
            prim(name, _sig_of(getattr(_rt, name[3:])), nondiff=any(PRIMS[op].nondiff for op in ops_of[name]),
                 **facts)
            new.append(name)
    return new


# helpers declared with facts of their own (the rest: `_declare_helpers`, next)
# linear in v (the shape of `like` is all it reads of it): vmap(grad(grad(f))) differentiates it
linear("rt.batched_unbroadcast", "flags, v, like", "v", "rt.batched_unbroadcast_t(flags, g, v, like)")
linear("rt.batched_unbroadcast_t", "flags, g_, v, like", "g_", "rt.batched_unbroadcast(flags, g, like)", batch=LOOP)
linear("rt.batched_roll", "flags, a, shift, axis=None", "a", "rt.batched_roll_t(flags, g, shift, axis)")
linear("rt.batched_roll_t", "flags, g_, shift, axis=None", "g_", "rt.batched_roll(flags, g, shift, axis)", batch=LOOP)
for _n in ("r_", "c_"):
    linear(f"rt.batched_{_n}", "flags, items", "items", f"rt.batched_{_n}t(flags, g, items)")
    linear(f"rt.batched_{_n}t", "flags, g_, items", "g_", f"rt.batched_{_n}(flags, g)")
    defbatch(f"rt.batched_{_n}t", BatchRule("loop"))
# a vectorized loop's operand alignment (lift_rank, batched by rt.batched_lift_rank), batched again by vmap
linear("rt.batched_lift_rank", "flags, x, other, other_batched", "x", "rt.batched_lift_rank_t(flags, g, x)",
       batch=LOOP)
# (its forward mode stays refused, and `other`'s derivatives too, as when it was declared twice)
defvjp("rt.batched_lift_rank", **{a: "rt.no_batched_derivative(g, 'batched_lift_rank')" for a in ("other", "other_batched")})
defjvp("rt.batched_lift_rank", **{a: f"rt.no_batched_derivative(d{a}, 'batched_lift_rank')"
                                  for a in ("x", "other", "other_batched")})
# (its transpose is the alignment again, to the cotangent's shape: `x` alone does not know the
# example count, which batched_lift_rank took from `other`)
linear("rt.batched_lift_rank_t", "flags, g_, x", "g_", "rt.batched_lift_rank_like(flags, g, g_)", batch=LOOP)
linear("rt.batched_lift_rank_like", "flags, h, like", "h", "rt.batched_lift_rank_t(flags, g, h)", batch=LOOP)
_declare_helpers()
for _op, _kind in (("dot", "dot"), ("matmul", "matmul"), ("inner", "inner")):
    defvjp("rt.batched_" + _op, a=f"rt.batched_product_vjp(flags, g, a, b, 0, {_kind!r})",
           b=f"rt.batched_product_vjp(flags, g, a, b, 1, {_kind!r})")
    defjvp("rt.batched_" + _op, a=f"rt.batched_{_op}(flags, da, b)", b=f"rt.batched_{_op}(flags, a, db)")
for _op in ("reshape", "ravel", "squeeze"):
    defvjp("rt.batched_" + _op, a="xp.reshape(g, xp.shape(a))")
    defjvp("rt.batched_" + _op, a=f"rt.batched_{_op}(flags, da)" if _op == "ravel" else
           ("rt.batched_reshape(flags, da, newshape, order, shape)" if _op == "reshape"
            else "rt.batched_squeeze(flags, da, axis)"))
# a transpose is linear, and its transpose is the inverse permutation (vmap inside grad, any order)
defvjp("rt.batched_transpose", a="rt.batched_transpose_vjp(flags, g, axes)")
defjvp("rt.batched_transpose", a="rt.batched_transpose(flags, da, axes)")
prim("rt.batched_product_vjp", "flags, g_, a, b, which, op", zero_args=("flags", "which", "op"), batch=LOOP)
defvjp("rt.batched_product_vjp", g_="rt.no_batched_derivative(g, 'batched_product_vjp')",
       a="rt.no_batched_derivative(g, 'batched_product_vjp')",
       b="rt.no_batched_derivative(g, 'batched_product_vjp')")
defjvp("rt.batched_product_vjp", g_="rt.batched_product_vjp(flags, dg_, a, b, which, op)",
       a="rt.batched_product_vjp(flags, g_, da, b, which, op)",
       b="rt.batched_product_vjp(flags, g_, a, db, which, op)")
defvjp("rt.batched_outer", a="rt.batched_outer_vjp(flags, g, a, b, 0)", b="rt.batched_outer_vjp(flags, g, a, b, 1)")
defjvp("rt.batched_outer", a="rt.batched_outer(flags, da, b)", b="rt.batched_outer(flags, a, db)")
prim("rt.batched_outer_vjp", "flags, g_, a, b, which", zero_args=("flags", "a", "b", "which"), batch=LOOP)
for _n in [n for n, p in PRIMS.items() if n.startswith("rt.") and n not in _DECLARED_BEFORE and not p.nondiff]:
    _no_derivative(_n)

# ---- the core table's ops batched by vectorized helpers in s2s/runtime/batch_shape.py (the NumPy
# coverage families, rules_linalg, rules_math, rules_reduce and rules_shape, declare theirs with
# each primitive) ----
# derivative helpers (vmap of grad), s2s/runtime/batch_*.py
# (batched_add_at(flags, acc, index, v) updates acc in place, as add_at does)
helper("rt.add_at", "rt.batched_add_at", mutates=True, mutated=1)
# np.einsum's subscripts when not a literal: a check (never removed), refusing sublists (rules_linalg.py)
prim("rt.einsum_subscripts", "spec", nondiff=True, unbatched_result=True, effect=True)
helper("rt.einsum_subscripts", "rt.batched_einsum_subscripts", effect=True)
# derivative helpers that read only shapes and settings: one example's answer serves the batch
for _n in ("conv_pad", "diff_axis", "einsum_spec1", "einsum_spec2", "einsum_const", "tensordot_spec", "inner_spec",
           "kron_spec", "kron_shape", "vecdot_spec", "not_deleted", "interp_ok", "plain_reflect",
           "insert_map", "pad_fill_map", "plain_operands", "vander_powers", "cov_axes", "cov_ddof"):
    prim("rt." + _n, _sig_of(getattr(_rt, _n)), nondiff=True, unbatched_result=True, batch=by("rt.batched_" + _n))
# the SVDs the rules cover: a check (never removed, though the inlined rule may leave its result unread)
prim("rt.svd_check", _sig_of(_rt.svd_check), nondiff=True, unbatched_result=True, effect=True)
helper("rt.svd_check", "rt.batched_svd_check", effect=True)
_COVERAGE_HELPERS = _declare_helpers()  # the coverage ops' helpers
# (rt.transpose_vjp's helper: the inverse permutation, linear; its transpose is batched_transpose)
defvjp("rt.batched_transpose_vjp", v="rt.batched_transpose(flags, g, axes)")
defjvp("rt.batched_transpose_vjp", v="rt.batched_transpose_vjp(flags, dv, axes)")
for _n in _COVERAGE_HELPERS:
    if not PRIMS[_n].nondiff:
        _no_derivative(_n)
rules_batch_derivs.derive_helpers()  # (each op's own rules, example by example, where it has them)


def batch_the_rest() -> None:
    """Every primitive declared without a batching rule (once every rule module has given its
    own, s2s/compiler/primitives/__init__.py) runs once per example."""
    looped(*[n for n in PRIMS if n not in BATCH and not n.startswith("ext.")])
