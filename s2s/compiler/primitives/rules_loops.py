"""Rules of the helpers that vectorized loops use (passes/loopvec.py, runtime/loops.py): the
window gather of a slice with per-example bounds, and the batching rules that let a vectorized
loop (batched over its index) be batched again by vmap (the example axis first)."""
from __future__ import annotations

from . import rules_batch  # noqa: F401  (the batched helpers are declared first)
from .registry import BatchRule, defbatch, defjvp, defvjp, linear, prim
from .rules_batch import helper

linear("rt.loop_windows", "x, index, ib, where=None, xb=False", "x", "rt.loop_windows_t(g, x, index, ib, where, xb)",
       nested_ok=True)
linear("rt.loop_windows_t", "v, x, index, ib, where=None, xb=False", "v", "rt.loop_windows(g, index, ib, where, xb)")
helper("rt.loop_windows", "rt.batched_loop_windows")
defbatch("rt.loop_windows_t", BatchRule("loop"))
for _op in ("dot", "matmul", "inner"):
    helper("rt.batched_" + _op, "rt.batched_batched_" + _op)
helper("rt.example_getitem", "rt.batched_example_getitem")

prim("rt.loop_trip_count", "start, stop, step=1", nondiff=True)
prim("rt.loop_index_positions", "i, a, axis=0", nondiff=True, unbatched_result=True)
linear("rt.loop_list_array", "v, n", "v", "rt.loop_list_array_t(g, v, n)")
defbatch("rt.loop_trip_count", BatchRule("create"))
helper("rt.loop_list_array", "rt.batched_loop_list_array")
linear("rt.loop_list_array_t", "g_, v, n", "g_", "rt.loop_list_array(g, n)")
defbatch("rt.loop_list_array_t", BatchRule("loop"))
helper("rt.loop_index_positions", "rt.batched_loop_index_positions")
linear("rt.loop_slot_rows", "v, a, key", "v", "xp.reshape(g, xp.shape(v))")
helper("rt.loop_slot_rows", "rt.batched_loop_slot_rows")
linear("rt.batched_loop_slot_rows", "flags, v, a, key", "v", "xp.reshape(g, xp.shape(v))")
defbatch("rt.batched_loop_slot_rows", BatchRule("loop"))
prim("rt.loop_vectorizes", "n, x0=None, i0=None, b0=None, x1=None, i1=None, b1=None, x2=None, i2=None, b2=None, ints=(), "
     "writes=(), reads=()",
     nondiff=True, unbatched_result=True)
helper("rt.loop_vectorizes", "rt.batched_loop_vectorizes")

# the batching helpers above are primitives too: code that calls vmap can be differentiated
linear("rt.batched_loop_windows", "flags, x, index, ib, where=None, xb=False", "x",
       "rt.batched_loop_windows_t(flags, g, x, index, ib, where, xb)")
linear("rt.batched_loop_windows_t", "flags, v, x, index, ib, where=None, xb=False", "v",
       "rt.batched_loop_windows(flags, g, index, ib, where, xb)")
linear("rt.batched_example_getitem", "flags, x, index, xb=True, ib=False, clip=True", "x",
       "rt.batched_example_getitem_t(flags, g, x, index, xb, ib)")
linear("rt.batched_example_getitem_t", "flags, v, x, index, xb=True, ib=False", "v",
       "rt.batched_example_getitem(flags, g, index, xb, ib)")
linear("rt.batched_loop_list_array", "flags, v, n", "v", "rt.loop_list_array_t(g, v, n)")
for _op in ("dot", "matmul", "inner"):
    prim("rt.batched_batched_" + _op, "flags, inner_flags, a, b", zero_args=("flags", "inner_flags"))
    defvjp("rt.batched_batched_" + _op, a=f"rt.batched_batched_product_vjp(flags, inner_flags, g, a, b, 0, {_op!r})",
           b=f"rt.batched_batched_product_vjp(flags, inner_flags, g, a, b, 1, {_op!r})")
    defjvp("rt.batched_batched_" + _op, a=f"rt.batched_batched_{_op}(flags, inner_flags, da, b)",
           b=f"rt.batched_batched_{_op}(flags, inner_flags, a, db)")
prim("rt.batched_batched_product_vjp", "flags, inner_flags, g_, a, b, which, op", zero_args=("flags", "inner_flags",
                                                                                             "which", "op"))
for _n in ("rt.batched_loop_vectorizes", "rt.batched_loop_index_positions"):
    prim(_n, "f, *args", nondiff=True)
for _n in ("rt.batched_loop_windows", "rt.batched_loop_windows_t", "rt.batched_example_getitem",
           "rt.batched_example_getitem_t",
           "rt.batched_loop_list_array", "rt.batched_batched_dot", "rt.batched_batched_matmul", "rt.batched_batched_inner",
               "rt.batched_batched_product_vjp",
           "rt.batched_loop_vectorizes", "rt.batched_loop_index_positions"):
    defbatch(_n, BatchRule("loop"))

# (a vectorized loop's operand alignment batched again, rt.batched_lift_rank: rules_batch.py)

# the batched dot's cotangent is bilinear too: second derivatives through a vectorized dot
defvjp("rt.batched_product_vjp", **{k: f"rt.batched_product_vjp_vjp(flags, g, g_, a, b, which, op, {i})" for i,
                                    k in enumerate(("g_", "a", "b"))})
prim("rt.batched_product_vjp_vjp", "flags, ct, g_, a, b, which, op, wrt", nondiff=True)
defbatch("rt.batched_product_vjp_vjp", BatchRule("loop"))
defvjp("rt.batched_batched_product_vjp", **{k: "rt.no_batched_derivative(g, 'batched_batched_product_vjp')" for k in ("g_",
    "a", "b")})
# the cotangent of a batched dot is linear in g and in the operand it does not replace; the
# operand it replaces gives only its shape (its tangent contributes nothing)
defjvp("rt.batched_batched_product_vjp", g_="rt.batched_batched_product_vjp(flags, inner_flags, dg_, a, b, which, op)",
       a="rt.batched_batched_product_vjp_jvp(flags, inner_flags, g_, a, b, which, op, 1, da)",
       b="rt.batched_batched_product_vjp_jvp(flags, inner_flags, g_, a, b, which, op, 2, db)")
defjvp("rt.batched_product_vjp", a="rt.batched_product_vjp_jvp(flags, g_, a, b, which, op, 1, da)",
       b="rt.batched_product_vjp_jvp(flags, g_, a, b, which, op, 2, db)")
for _n, _sig in (("rt.batched_product_vjp_jvp", "flags, g_, a, b, which, op, wrt, d"),
                 ("rt.batched_batched_product_vjp_jvp", "flags, inner_flags, g_, a, b, which, op, wrt, d")):
    prim(_n, _sig, zero_args=tuple(a for a in ("flags", "inner_flags", "which", "op", "wrt") if a in _sig))
    defvjp(_n, **{k: f"rt.no_batched_derivative(g, {_n[3:]!r})" for k in ("g_", "a", "b", "d")})  # third order: refused
    defjvp(_n, **{k: f"rt.no_batched_derivative(d{k}, {_n[3:]!r})" for k in ("g_", "a", "b", "d")})
    defbatch(_n, BatchRule("loop"))

# the masked merges of a vectorized loop, batched again by vmap, are linear in what they merge
defvjp("rt.batched_masked_merge", new="rt.batched_masked_merge_t(flags, g, m, 0, new)",
       old="rt.batched_masked_merge_t(flags, g, m, 1, old)")
defjvp("rt.batched_masked_merge", new="rt.batched_masked_merge(flags, m, dnew, rt.zeros_like_tree(old))",
       old="rt.batched_masked_merge(flags, m, rt.zeros_like_tree(new), dold)")
prim("rt.batched_masked_merge_t", "flags, g_, m, which, like", zero_args=("flags", "m", "which", "like"))
defvjp("rt.batched_masked_merge_t", g_="rt.no_batched_derivative(g, 'batched_masked_merge_t')")
defjvp("rt.batched_masked_merge_t", g_="rt.batched_masked_merge_t(flags, dg_, m, which, like)")
defbatch("rt.batched_masked_merge_t", BatchRule("loop"))

# what a jit version that decided a vectorized loop when compiled calls (passes/loopfold.py)
linear("rt.windows_at", "x, axis, start, step, count, length, lead=0", "x",
       "rt.windows_at_t(g, x, axis, start, step, count, length, lead)")
linear("rt.windows_at_t", "v, x, axis, start, step, count, length, lead=0", "v",
       "rt.windows_at(g, axis, start, step, count, length, lead)")
prim("rt.windows_vecdot", "a, b")
defvjp("rt.windows_vecdot", a="rt.batched_batched_product_vjp((False, True, True), (True, False), g, a, b, 0, 'dot')",
       b="rt.batched_batched_product_vjp((False, True, True), (True, False), g, a, b, 1, 'dot')")
defjvp("rt.windows_vecdot", a="rt.windows_vecdot(da, b)", b="rt.windows_vecdot(a, db)")
for _n in ("rt.windows_at", "rt.windows_at_t", "rt.windows_vecdot"):
    defbatch(_n, BatchRule("loop"))
