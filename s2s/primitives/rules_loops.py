"""Rules of the helpers that vectorized loops use (passes/loopvec.py, runtime/loops.py): the
window gather of a slice with per-example bounds, and the batching rules that let a vectorized
loop (batched over its index) be batched again by vmap (the example axis first)."""
from __future__ import annotations

from . import rules_batch  # noqa: F401  (the batched helpers are declared first)
from .registry import BatchRule, defbatch, defjvp, defvjp, linear, prim
from .rules_batch import helper

linear("rt.lv_window", "x, index, ib, where=None, xb=False", "x", "rt.lv_window_t(g, x, index, ib, where, xb)",
       nested_ok=True)
linear("rt.lv_window_t", "v, x, index, ib, where=None, xb=False", "v", "rt.lv_window(g, index, ib, where, xb)")
helper("rt.lv_window", "rt.lv_window_outer")
defbatch("rt.lv_window_t", BatchRule("loop"))
for _op in ("dot", "matmul", "inner"):
    helper("rt.vbh_" + _op, "rt.lv_dot_" + _op)
helper("rt.vb_getitem", "rt.vb_getitem_outer")

prim("rt.lv_count", "start, stop, step=1", nondiff=True)
prim("rt.lv_index", "i, a, axis=0", nondiff=True, unbatched_result=True)
linear("rt.lv_array", "v, n", "v", "rt.lv_array_t(g, v, n)")
defbatch("rt.lv_count", BatchRule("create"))
helper("rt.lv_array", "rt.lv_array_outer")
linear("rt.lv_array_t", "g_, v, n", "g_", "rt.lv_array(g, n)")
defbatch("rt.lv_array_t", BatchRule("loop"))
helper("rt.lv_index", "rt.lv_index_outer")
linear("rt.lv_slot", "v, a, key", "v", "xp.reshape(g, xp.shape(v))")
helper("rt.lv_slot", "rt.lv_slot_outer")
linear("rt.lv_slot_outer", "f, v, a, key", "v", "xp.reshape(g, xp.shape(v))")
defbatch("rt.lv_slot_outer", BatchRule("loop"))
prim("rt.lv_fits", "n, x0=None, i0=None, b0=None, x1=None, i1=None, b1=None, x2=None, i2=None, b2=None, ints=(), "
     "writes=(), reads=()",
     nondiff=True, unbatched_result=True)
helper("rt.lv_fits", "rt.lv_fits_outer")

# the batching helpers above are primitives too: code that calls vmap can be differentiated
linear("rt.lv_window_outer", "f, x, index, ib, where=None, xb=False", "x",
       "rt.lv_window_outer_t(f, g, x, index, ib, where, xb)")
linear("rt.lv_window_outer_t", "f, v, x, index, ib, where=None, xb=False", "v",
       "rt.lv_window_outer(f, g, index, ib, where, xb)")
linear("rt.vb_getitem_outer", "f, x, index, xb=True, ib=False, clip=True", "x",
       "rt.vb_getitem_outer_t(f, g, x, index, xb, ib)")
linear("rt.vb_getitem_outer_t", "f, v, x, index, xb=True, ib=False", "v", "rt.vb_getitem_outer(f, g, index, xb, ib)")
linear("rt.lv_array_outer", "f, v, n", "v", "rt.lv_array_t(g, v, n)")
for _op in ("dot", "matmul", "inner"):
    prim("rt.lv_dot_" + _op, "gf, f, a, b", zero_args=("gf", "f"))
    defvjp("rt.lv_dot_" + _op, a=f"rt.lv_dot_outer_vjp(gf, f, g, a, b, 0, {_op!r})",
           b=f"rt.lv_dot_outer_vjp(gf, f, g, a, b, 1, {_op!r})")
    defjvp("rt.lv_dot_" + _op, a=f"rt.lv_dot_{_op}(gf, f, da, b)", b=f"rt.lv_dot_{_op}(gf, f, a, db)")
prim("rt.lv_dot_outer_vjp", "gf, f, g_, a, b, which, op", zero_args=("gf", "f", "which", "op"))
for _n in ("rt.lv_fits_outer", "rt.lv_index_outer"):
    prim(_n, "f, *args", nondiff=True)
for _n in ("rt.lv_window_outer", "rt.lv_window_outer_t", "rt.vb_getitem_outer", "rt.vb_getitem_outer_t",
           "rt.lv_array_outer", "rt.lv_dot_dot", "rt.lv_dot_matmul", "rt.lv_dot_inner", "rt.lv_dot_outer_vjp",
           "rt.lv_fits_outer", "rt.lv_index_outer"):
    defbatch(_n, BatchRule("loop"))

# a vectorized loop's operand alignment (vb_lift), batched again by vmap
helper("rt.vb_lift", "rt.lv_lift_outer")
linear("rt.lv_lift_outer", "f, x, other, other_batched", "x", "rt.lv_lift_outer_t(f, g, x)")
# (its transpose is the alignment again, to the cotangent's shape: `x` alone does not know the
# example count, which lv_lift_outer took from `other`)
linear("rt.lv_lift_outer_t", "f, g_, x", "g_", "rt.lv_lift_outer_like(f, g, g_)")
linear("rt.lv_lift_outer_like", "f, h, like", "h", "rt.lv_lift_outer_t(f, g, h)")
for _n in ("rt.lv_lift_outer", "rt.lv_lift_outer_t", "rt.lv_lift_outer_like"):
    defbatch(_n, BatchRule("loop"))

# the batched dot's cotangent is bilinear too: second derivatives through a vectorized dot
defvjp("rt.vb_dot_vjp", **{k: f"rt.vb_dot_vjp_vjp(f, g, g_, a, b, which, op, {i})" for i, k in enumerate(("g_", "a", "b"))})
prim("rt.vb_dot_vjp_vjp", "f, ct, g_, a, b, which, op, wrt", nondiff=True)
defbatch("rt.vb_dot_vjp_vjp", BatchRule("loop"))
defvjp("rt.lv_dot_outer_vjp", **{k: "rt.vb_no_derivative(g, 'lv_dot_outer_vjp')" for k in ("g_", "a", "b")})
# the cotangent of a batched dot is linear in g and in the operand it does not replace; the
# operand it replaces gives only its shape (its tangent contributes nothing)
defjvp("rt.lv_dot_outer_vjp", g_="rt.lv_dot_outer_vjp(gf, f, dg_, a, b, which, op)",
       a="rt.lv_dot_outer_vjp_d(gf, f, g_, a, b, which, op, 1, da)",
       b="rt.lv_dot_outer_vjp_d(gf, f, g_, a, b, which, op, 2, db)")
defjvp("rt.vb_dot_vjp", a="rt.vb_dot_vjp_d(f, g_, a, b, which, op, 1, da)",
       b="rt.vb_dot_vjp_d(f, g_, a, b, which, op, 2, db)")
for _n, _sig in (("rt.vb_dot_vjp_d", "f, g_, a, b, which, op, wrt, d"),
                 ("rt.lv_dot_outer_vjp_d", "gf, f, g_, a, b, which, op, wrt, d")):
    prim(_n, _sig, zero_args=tuple(a for a in ("gf", "f", "which", "op", "wrt") if a in _sig))
    defvjp(_n, **{k: f"rt.vb_no_derivative(g, {_n[3:]!r})" for k in ("g_", "a", "b", "d")})  # third order: refused
    defjvp(_n, **{k: f"rt.vb_no_derivative(d{k}, {_n[3:]!r})" for k in ("g_", "a", "b", "d")})
    defbatch(_n, BatchRule("loop"))

# the masked merges of a vectorized loop, batched again by vmap, are linear in what they merge
defvjp("rt.vbh_vb_select", new="rt.vbh_vb_select_t(f, g, m, 0, new)", old="rt.vbh_vb_select_t(f, g, m, 1, old)")
defjvp("rt.vbh_vb_select", new="rt.vbh_vb_select(f, m, dnew, rt.zeros_like_tree(old))",
       old="rt.vbh_vb_select(f, m, rt.zeros_like_tree(new), dold)")
prim("rt.vbh_vb_select_t", "f, g_, m, which, like", zero_args=("f", "m", "which", "like"))
defvjp("rt.vbh_vb_select_t", g_="rt.vb_no_derivative(g, 'vbh_vb_select_t')")
defjvp("rt.vbh_vb_select_t", g_="rt.vbh_vb_select_t(f, dg_, m, which, like)")
defbatch("rt.vbh_vb_select_t", BatchRule("loop"))
