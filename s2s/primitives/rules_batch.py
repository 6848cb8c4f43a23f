"""Batching rules (vmap) of the core table (rules.py) not yet given with their primitive, declared
by category into the BATCH table with `defbatch`; rules.py's reductions, axis ops, comparisons,
rounding and creation ops and the NumPy coverage families declare theirs with each primitive
(`batch=SAME`, `BROADCAST`, `CREATE`, `LOOP`, `along(...)`, `by(...)`).

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

from .. import runtime as _rt
from . import (
    rules,  # noqa: F401  (every primitive is declared before its batching rule)
    rules_jacobian,  # noqa: F401  (the batched Jacobians' helpers, with their batching rules)
)
from .registry import (
    BATCH,
    PRIMS,
    VJP_IN_PLACE,
    BatchRule,
    defbatch,
    defjvp,
    defranked,
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


def reduction(*names, axis="axis", none_axis="all"):
    """Ops with an `axis` argument: shifted past the batch axis (None: `none_axis`)."""
    _decl("axis", names, axes=(axis,), none_axis=none_axis)


def axis_op(names, axes, none_axis="keep"):
    _decl("axis", names, axes=tuple(axes), none_axis=none_axis)


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


def unbatched(*names):
    """Creation ops and shape queries of unbatched arguments: batched arguments are an error."""
    _decl("create", names)


elementwise(*[n for n, p in PRIMS.items() if p.same_shape and n not in ("xp.copy",) and n not in BATCH], "xp.copy",
            "xp.round", "xp.zeros_like", "xp.ones_like",
            "xp.empty_like", "xp.real", "xp.float64", "xp.float32", "rt.fresh",
            "rt.zeros_like_tree", "rt.shape_stub", "rt.checkpoint_name", "rt.copy_saved", "rt.private", "xp.triu",
            "xp.tril", "rt.zeros_list", "rt.constant")
broadcasting(*[n for n, p in PRIMS.items() if p.broadcasting and n not in BATCH], "mod", "xp.mod", "xp.remainder",
             "rt.tree_add")
reduction("xp.linalg.norm", none_axis="norm")  # ord None: the flattened example (rank 0, 3, ... too)
axis_op(["xp.expand_dims"], ("axis",))
axis_op(["xp.trapezoid"], ("axis",))
for _n, _h in (("matmul", "matmul"), ("xp.dot", "dot"), ("xp.matmul", "matmul"), ("xp.inner", "inner"),
               ("xp.outer", "outer"), ("xp.linalg.outer", "outer"), ("xp.reshape", "reshape"), ("xp.ravel", "ravel"),
               ("xp.transpose", "transpose"), ("xp.squeeze", "squeeze"), ("xp.array", "array"),
               ("xp.asarray", "array"), ("rt.unbroadcast", "unbroadcast"),
               ("rt.broadcast_to_like", "broadcast_to_like"), ("float", "float"), ("int", "int"),
               ("xp.shape", "shape"), ("not", "not"), ("xp.ndim", "ndim"), ("xp.size", "size"), ("len", "len")):
    # (the products' helpers also run inside a vectorized loop, passes/loopvec.py)
    helper(_n, "rt.batched_" + _h, **({"nested_ok": True} if _h in ("dot", "matmul", "inner") else {}))
defbatch("rt.cast_like", BatchRule("same"))
defbatch("rt.cast_to", BatchRule("same"))
defbatch("rt.cast_to_d", BatchRule("same"))
defbatch("rt.unsupported", BatchRule("same"))
defbatch("rt.no_derivative", BatchRule("same"))
defbatch("rt.on_backend_of", BatchRule("same"))
looped("xp.tile", "xp.hstack", "xp.vstack", "xp.atleast_1d", "xp.atleast_2d",
       "xp.broadcast_to", "xp.where", "rt.sum_vjp", "rt.mean_vjp", "rt.max_vjp", "rt.max_jvp",
       "rt.cumsum_vjp", "rt.reshape_like",
       "rt.transpose_vjp", "rt.unstack",
       "rt.split_like", "rt.vstack_vjp", "rt.array_vjp", "rt.dot_vjp_a", "rt.dot_vjp_b", "rt.dot_vjp_a_t",
       "rt.dot_vjp_b_t", "rt.outer_vjp_a", "rt.outer_vjp_b", "rt.add_at", "rt.take_at", "rt.take_at_t",
       "rt.copy_slot", "rt.zero_at", "rt.jac_from_columns", "rt.jac_from_rows",
       "rt.jac_columns_t", "rt.jac_rows_t", "rt.list_sum", "rt.list_sum_vjp", "rt.seed_aux", "rt.log0",
       "xp.argsort", "xp.searchsorted", "xp.nonzero", "xp.flatnonzero", "xp.allclose",
       "xp.array_equal", "xp.clip", "neg", "pos", "tuple", "list", "rt.basis", "rt.tree_size")
unbatched("slice", "rt.reversed_range", "rt.new_list", "isinstance", "is", "isnot", "rt.check_norm_ord", "rt.seed")
helper("rt.seed", "rt.batched_seed", effect=True)  # (grad's scalar check: an effect, as rt.seed)
# creation ops with per-example values (fill value, endpoints) but one shape for every example
for _n, _fixed in (("xp.full", ("shape", "dtype")), ("xp.full_like", ("dtype",)),
                   ("xp.linspace", ("num", "endpoint", "retstep", "dtype", "axis"))):
    defbatch(_n, BatchRule("helper", helper="rt.batched_" + _n[3:], fixed=_fixed))

for _n in ("neg", "pos", "xp.clip", "xp.where", "rt.log0"):  # elementwise after all
    defbatch(_n, BatchRule("same" if _n in ("neg", "pos", "rt.log0") else "broadcast"))


# the vmap helpers are primitives too, so batched code can be batched again (vmap of vmap) and
# differentiated (grad of vmap); helpers without derivative rules make reverse/forward mode refuse
# (vmap_size and vmap_size_axis0 check that the mapped axes agree: never removed)
prim("rt.vmap_size", "args, in_axes, axis_size, names", nondiff=True, effect=True, unbatched_result=True)
prim("rt.vmap_size_axis0", "xs, names", nondiff=True, effect=True, unbatched_result=True)
prim("rt.num_examples", "x", nondiff=True, unbatched_result=True)
prim("rt.example_axes", "x", nondiff=True, unbatched_result=True)
for _n, _sig in (("rt.mask_any", "m"), ("rt.mask_and", "m, c"),
                 ("rt.mask_and_not", "m, c"), ("rt.full_mask", "n"),
                 ("rt.example_key", "index, ib, a, clip=True")):
    prim(_n, _sig, nondiff=True)
prim("rt.example_axis", "axis, x=None, none='keep'", nondiff=True, unbatched_result=True)  # one axis for every example
linear("rt.vmap_in", "x, spec, n", "x", "rt.vmap_in_t(g, x, spec)", tree_args=(0,))
linear("rt.vmap_in_t", "v, like, spec", "v", "rt.vmap_in(g, spec, rt.num_examples(v))", tree_args=(0, 1))
linear("rt.vmap_out", "x, spec, n", "x", "rt.vmap_out_t(g, spec)", tree_args=(0,))
linear("rt.vmap_out_t", "v, spec", "v", "rt.vmap_out(g, spec, 0)", tree_args=(0,))
linear("rt.replicate_batch", "x, n", "x", "rt.replicate_batch_t(g, x)", tree_args=(0,))
linear("rt.replicate_batch_t", "v, like", "v", "rt.replicate_batch(g, rt.num_examples(v))", tree_args=(0, 1))
linear("rt.lift_rank", "x, other, other_batched", "x", "rt.unlift_rank(g, x)", tree_preserving=True)
linear("rt.unlift_rank", "v, x", "v", "rt.unlift_rank(g, v)")
linear("rt.lift_rank_tree", "x, other, other_batched", "x", "rt.lift_rank_tree_t(g, x)")
prim("rt.lift_rank_tree_t", "g_, x", zero_args=("x",))  # (its own derivative: no_batched_derivative, below)
linear("rt.lift_rank_to_slot", "v, a, key", "v", "xp.reshape(g, xp.shape(v))")
linear("rt.flatten_examples", "x", "x", "xp.reshape(g, xp.shape(x))")
linear("rt.examples_1d", "x", "x", "xp.reshape(g, xp.shape(x))")
linear("rt.example_getitem", "x, index, xb=True, ib=False, clip=True", "x", "rt.example_getitem_t(g, x, index, xb, ib)",
       tree_args=(0,), nested_ok=True)
linear("rt.example_getitem_t", "v, x, index, xb, ib", "v", "rt.example_getitem(g, index, xb, ib)", tree_args=(0, 1))
# reverse mode's in-place form of `b_x + rt.example_getitem_t(g, x, index, xb, ib)` (VJP_IN_PLACE)
prim("rt.example_add_at", "acc, v, index, xb=True, ib=False", zero_args=("index", "xb", "ib"), tree_sum=True,
     mutates=True, tree_args=(0, 1))
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
     zero_args=("fn", "flags", "n"))
for _h in ("vmap_size", "vmap_size_axis0", "vmap_in", "vmap_out", "replicate_batch", "lift_rank", "unlift_rank", "mask_any"):
    helper("rt." + _h, "rt.batched_" + _h)
helper("rt.masked_merge", "rt.batched_masked_merge", zero_args=("flags", "m"))  # (the mask has no derivative)
broadcasting("rt.mask_and", "rt.mask_and_not")
unbatched("rt.full_mask")
for _h in ("example_axes", "num_examples", "flatten_examples",
           "example_axis"):  # example_axis: an axis of batched code batched again (vmap of vmap)
    helper("rt." + _h, "rt.batched_" + _h)
looped("rt.example_getitem", "rt.map_examples")
prim("rt.sum_examples", "v")  # vmap(grad(f)) as grad of the sum of the batched f
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
prim("rt.batched_full_t", "flags, g_, fill_value", zero_args=("flags", "fill_value"))
prim("rt.batched_linspace_t", "flags, g_, start, stop, num, endpoint, axis, which", zero_args=("flags", "start", "stop",
                                                                                               "num",
     "endpoint", "axis", "which"))
prim("rt.batched_linspace_jvp", "flags, d, start, stop, num, endpoint, axis, which", zero_args=("flags", "start", "stop",
                                                                                                "num",
     "endpoint", "axis", "which"))
prim("rt.no_batched_derivative", "x, what", nondiff=True)
linear("rt.batched_array", _sig_of(_rt.batched_array), "x", "rt.example_array_t(g, x)")  # the batched np.array of a list
linear("rt.example_array_t", "v, like", "v", "rt.batched_array((True,), g)")
defbatch("rt.example_array_t", BatchRule("loop"))
for _n in ("tuple", "list"):  # `tuple(x)` of a batched list or array
    linear("rt.batched_" + _n, "flags, x", "x", "rt.batched_tuple_t(flags, g, x)")
linear("rt.batched_tuple_t", "flags, v, x", "v", "rt.batched_tuple(flags, g)")
defbatch("rt.batched_tuple_t", BatchRule("loop"))


def _declare_helpers() -> list[str]:
    """Each batching helper named so far is a primitive too, run once per example when batched
    again, with the signature of its runtime function (its flags argument `flags` has no derivative;
    the helper of an operation without derivative has none either). Returns those new here."""
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
        defbatch(name, BatchRule("loop"))
    return new


_declare_helpers()
# linear in v (the shape of `like` is all it reads of it): vmap(grad(grad(f))) differentiates it
linear("rt.batched_unbroadcast", "flags, v, like", "v", "rt.batched_unbroadcast_t(flags, g, v, like)")
linear("rt.batched_unbroadcast_t", "flags, g_, v, like", "g_", "rt.batched_unbroadcast(flags, g, like)")
defbatch("rt.batched_unbroadcast_t", BatchRule("loop"))
for _op, _kind in (("dot", "dot"), ("matmul", "matmul"), ("inner", "inner")):
    defvjp("rt.batched_" + _op, a=f"rt.batched_product_vjp(flags, g, a, b, 0, {_kind!r})",
           b=f"rt.batched_product_vjp(flags, g, a, b, 1, {_kind!r})")
    defjvp("rt.batched_" + _op, a=f"rt.batched_{_op}(flags, da, b)", b=f"rt.batched_{_op}(flags, a, db)")
for _op in ("reshape", "ravel", "squeeze"):
    defvjp("rt.batched_" + _op, a="xp.reshape(g, xp.shape(a))")
    defjvp("rt.batched_" + _op, a=f"rt.batched_{_op}(flags, da)" if _op == "ravel" else
           ("rt.batched_reshape(flags, da, newshape, order, shape)" if _op == "reshape"
            else "rt.batched_squeeze(flags, da, axis)"))
prim("rt.batched_product_vjp", "flags, g_, a, b, which, op", zero_args=("flags", "which", "op"))
defvjp("rt.batched_product_vjp", g_="rt.no_batched_derivative(g, 'batched_product_vjp')",
       a="rt.no_batched_derivative(g, 'batched_product_vjp')",
       b="rt.no_batched_derivative(g, 'batched_product_vjp')")
defjvp("rt.batched_product_vjp", g_="rt.batched_product_vjp(flags, dg_, a, b, which, op)",
       a="rt.batched_product_vjp(flags, g_, da, b, which, op)",
       b="rt.batched_product_vjp(flags, g_, a, db, which, op)")
defbatch("rt.batched_product_vjp", BatchRule("loop"))
defvjp("rt.batched_outer", a="rt.batched_outer_vjp(flags, g, a, b, 0)", b="rt.batched_outer_vjp(flags, g, a, b, 1)")
defjvp("rt.batched_outer", a="rt.batched_outer(flags, da, b)", b="rt.batched_outer(flags, a, db)")
prim("rt.batched_outer_vjp", "flags, g_, a, b, which", zero_args=("flags", "a", "b", "which"))
defbatch("rt.batched_outer_vjp", BatchRule("loop"))
defbatch("xp.roll", BatchRule("helper", helper="rt.batched_roll", fixed=("shift", "axis")))
linear("rt.batched_roll", "flags, a, shift, axis=None", "a", "rt.batched_roll_t(flags, g, shift, axis)")
linear("rt.batched_roll_t", "flags, g_, shift, axis=None", "g_", "rt.batched_roll(flags, g, shift, axis)")
defbatch("rt.batched_roll_t", BatchRule("loop"))
for _n in ("r_", "c_"):
    helper("rt." + _n, f"rt.batched_{_n}")
    linear(f"rt.batched_{_n}", "flags, items", "items", f"rt.batched_{_n}t(flags, g, items)")
    linear(f"rt.batched_{_n}t", "flags, g_, items", "g_", f"rt.batched_{_n}(flags, g)")
    defbatch(f"rt.batched_{_n}t", BatchRule("loop"))
defbatch("rt.no_batched_derivative", BatchRule("same"))
for _n in [n for n, p in PRIMS.items() if n.startswith("rt.") and n not in _DECLARED_BEFORE and not p.nondiff]:
    _no_derivative(_n)
defbatch("rt.examples_1d", BatchRule("loop"))
for _n in ("rt.vmap_in_t", "rt.vmap_out_t", "rt.replicate_batch_t", "rt.lift_rank_to_slot", "rt.example_getitem_t",
           "rt.example_add_at", "rt.example_key",
           "rt.batched_full_t", "rt.batched_linspace_t", "rt.batched_linspace_jvp"):
    defbatch(_n, BatchRule("loop"))
helper("rt.tree_size", "rt.batched_tree_size")
helper("rt.tree_all_zero", "rt.batched_tree_all_zero")
for _n in ("dot_vjp_a", "dot_vjp_b", "sum_vjp", "mean_vjp", "jac_from_rows", "jac_from_columns"):
    helper("rt." + _n, "rt.batched_" + _n)
helper("rt.basis", "rt.batched_basis")
helper("rt.sum_examples", "rt.batched_sum_examples")

# ---- the core table's ops batched by vectorized helpers in s2s/runtime/batch_shape.py (the NumPy
# coverage families, rules_linalg, rules_math, rules_reduce and rules_shape, declare theirs with
# each primitive) ----
for _n in ("atleast_1d", "atleast_2d", "hstack", "vstack", "broadcast_to", "roll", "tile"):
    helper("xp." + _n, "rt.batched_" + _n)
helper("rt.list_sum", "rt.batched_list_sum")
for _n in ("zeros_like", "ones_like", "empty_like"):  # with shape=: the batch stays in front
    helper("xp." + _n, "rt.batched_" + _n)
# functions without derivative, declared with their real parameters so that each argument's
# batched flag is known
for _n, _sig in (("xp.argsort", "a, axis=-1, kind=None, order=None, stable=None"),
                 ("xp.argpartition", "a, kth, axis=-1, kind='introselect', order=None"),
                 ("xp.nanargmax", "a, axis=None, out=None, keepdims=False"),
                 ("xp.nanargmin", "a, axis=None, out=None, keepdims=False"),
                 ("xp.searchsorted", "a, v, side='left', sorter=None"), ("xp.allclose", "a, b, *args, **kwargs"),
                 ("xp.array_equal", "a, b, *args, **kwargs"), ("xp.array_equiv", "a, b, *args, **kwargs"),
                 ("xp.isin", "element, test_elements, assume_unique=False, invert=False, kind=None"),
                 ("xp.digitize", "x, bins, right=False")):
    prim(_n, _sig, nondiff=True, methods=(_n[3:],) if _n in ("xp.argsort", "xp.searchsorted") else ())
axis_op(["xp.argsort", "xp.nanargmax", "xp.nanargmin"], ("axis",), none_axis="flat")
for _n in ("argpartition", "searchsorted", "allclose", "array_equal", "array_equiv", "isin", "digitize"):
    helper("xp." + _n, "rt.batched_" + _n)
# derivative helpers (vmap of grad), s2s/runtime/batch_*.py
for _n in ("max_vjp", "max_jvp", "prod_others", "prod_others_jvp", "prod_others_2", "prod_others_3", "prod_others_4",
           "prod_others_5", "cumsum_vjp", "reshape_like", "transpose_vjp",
           "add_at"):
    # (batched_add_at(flags, acc, index, v) updates acc in place, as add_at does)
    helper("rt." + _n, "rt.batched_" + _n, **({"mutates": True, "mutated": 1} if _n == "add_at" else {}))
broadcasting("rt.mod_dy", "rt.fmod_dy")
# np.einsum's subscripts when not a literal: a check (never removed), refusing sublists (rules_linalg.py)
prim("rt.einsum_subscripts", "spec", nondiff=True, unbatched_result=True, effect=True)
helper("rt.einsum_subscripts", "rt.batched_einsum_subscripts", effect=True)
helper("tuple", "rt.batched_tuple")
helper("list", "rt.batched_list")
helper("rt.like", "rt.batched_like")  # a sequence's cotangent parts in its container type
for _n in ("is", "isnot"):  # `x is None` of a batched x: never None, as for each example
    helper(_n, "rt.batched_" + _n)
# derivative helpers that read only shapes and settings: one example's answer serves the batch
for _n in ("conv_pad", "diff_axis", "einsum_spec1", "einsum_spec2", "einsum_const", "tensordot_spec", "inner_spec",
           "kron_spec", "kron_shape", "vecdot_spec", "svd_check", "not_deleted", "interp_ok", "plain_reflect",
           "insert_map", "vander_powers", "cov_axes", "cov_ddof"):
    prim("rt." + _n, _sig_of(getattr(_rt, _n)), nondiff=True, unbatched_result=True)
    helper("rt." + _n, "rt.batched_" + _n)
for _n in _declare_helpers():  # the coverage ops' helpers
    if not PRIMS[_n].nondiff:
        _no_derivative(_n)
looped(*[n for n, p in PRIMS.items() if n not in BATCH and not n.startswith("ext.")
         and (p.vjp or p.jvp or p.linear_in)])
looped(*[n for n in PRIMS if n not in BATCH and not n.startswith("ext.")])  # the rest: once per example


# ---- known per-example ranks (vmap specialized on its arguments' ranks): products and their
# cotangents as one NumPy call on the batched operands, instead of a helper that dispatches on ranks
def _matmul_rule(fa, fb, ra, rb):
    """dot/matmul of per-example vectors and matrices (a batched vector `b` is a stack of rows)."""
    if fb and rb == 1:
        return None if fa else "xp.matmul(b, a)" if ra == 1 else "xp.matmul(b, xp.transpose(a))"
    return None if fa and fb and ra == 1 else "xp.matmul(a, b)"


_T = {False: "xp.transpose({})", True: "xp.swapaxes({}, 1, 2)"}  # a matrix transposed, unbatched or batched
_DOT_VJP = {  # (which cotangent, ra, rb) -> {batched flag of the other operand: rule}; `v` batched
    ("a", 1, 1): {False: "v[:, None] * b", True: "v[:, None] * b"},
    ("a", 2, 1): {False: "v[:, :, None] * b", True: "v[:, :, None] * b[:, None, :]"},
    ("a", 1, 2): {False: "xp.matmul(v, xp.transpose(b))"},
    ("a", 2, 2): {f: "xp.matmul(v, " + _T[f].format("b") + ")" for f in (False, True)},
    ("b", 1, 1): {False: "v[:, None] * a", True: "v[:, None] * a"},
    ("b", 2, 1): {False: "xp.matmul(v, a)"},
    ("b", 1, 2): {False: "a[:, None] * v[:, None, :]", True: "a[:, :, None] * v[:, None, :]"},
    ("b", 2, 2): {f: "xp.matmul(" + _T[f].format("a") + ", v)" for f in (False, True)},
}
for _ra in (1, 2):
    for _rb in (1, 2):
        for _fa, _fb in ((False, True), (True, False), (True, True)):
            _rule = _matmul_rule(_fa, _fb, _ra, _rb)
            for _n in ("matmul", "xp.dot", "xp.matmul"):
                if _rule:
                    defranked(_n, (_fa, _fb), (_ra, _rb), _rule)
        _rv = _ra + _rb - 2
        for _fa in (False, True):
            for _fb in (False, True):
                for _which, _other in (("a", _fb), ("b", _fa)):
                    _rule = _DOT_VJP[(_which, _ra, _rb)].get(_other)
                    if _rule:
                        defranked("rt.dot_vjp_" + _which, (True, _fa, _fb), (_rv, _ra, _rb), _rule)
