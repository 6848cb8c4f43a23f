"""Derivatives of vmap's helpers batched again (a vmap inside a vmapped function, as in
`grad(lambda p: mean(vmap(f)(xs, p)))` where f itself calls vmap): rules_batch declares the
batched helpers without derivative; these two are linear, their transposes in
runtime/batch_nested.py."""
from __future__ import annotations

from . import rules_batch  # noqa: F401  (the batched helpers are declared first)
from .registry import BatchRule, defbatch, defjvp, defvjp, linear

defvjp("rt.batched_vmap_in", x="rt.batched_vmap_in_t(flags, g, x, spec)")
defjvp("rt.batched_vmap_in", x="rt.batched_vmap_in(flags, dx, spec, n)")
defvjp("rt.batched_vmap_out", x="rt.batched_vmap_out_t(flags, g, spec)")
defjvp("rt.batched_vmap_out", x="rt.batched_vmap_out(flags, dx, spec, n)")
# (their own transposes, a third order, are refused when they run: never a silent zero)
linear("rt.batched_vmap_in_t", "flags, v, like, spec", "v", "rt.no_batched_derivative(g, 'batched_vmap_in_t')",
       zero_args=("flags", "like", "spec"), tree_args=(1, 2))
linear("rt.batched_vmap_out_t", "flags, v, spec", "v", "rt.no_batched_derivative(g, 'batched_vmap_out_t')",
       zero_args=("flags", "spec"), tree_args=(1,))
for _n in ("rt.batched_vmap_in_t", "rt.batched_vmap_out_t"):
    defbatch(_n, BatchRule("loop"))
