"""Rules of the batched-Jacobian helpers (s2s/runtime/jacobian.py): the basis and the tangent of
ones are constants, the assembly of a Jacobian from a batch of columns or rows (or from its
diagonal) is linear; each has a batching helper, so Jacobians compose with vmap and with
further derivatives (hessian = jacfwd(jacrev))."""
from __future__ import annotations

from .registry import LOOP, BatchRule, defbatch, linear, nondiff

# (the same for every example: they depend on shapes only)
nondiff("rt.basis_stack", "rt.ones_tangent", unbatched_result=True)
nondiff("rt.diag_ok", sig="t, x", unbatched_result=True)
nondiff("rt.scalar_output", sig="out", unbatched_result=True)
linear("rt.jac_from_batch_cols", "cols, x", "cols", "rt.jac_batch_cols_t(g, cols, x)")
linear("rt.jac_batch_cols_t", "g_, cols, x", "g_", "rt.jac_from_batch_cols(g, x)")
linear("rt.jac_from_batch_rows", "rows, out, x", "rows", "rt.jac_batch_rows_t(g, rows, out, x)")
linear("rt.jac_batch_rows_t", "g_, rows, out, x", "g_", "rt.jac_from_batch_rows(g, out, x)")
# JAX's nesting of a Jacobian wrt several arguments (output, then argument): a restructuring
linear("rt.jac_nest", "jacs, xs", "jacs", "rt.jac_unnest(g, xs)", tree_args=(0,), batch=LOOP)
linear("rt.jac_unnest", "g_, xs", "g_", "rt.jac_nest(g, xs)", tree_args=(0,), batch=LOOP)
linear("rt.jac_diag", "t", "t", "rt.jac_diag_t(g, t)")
linear("rt.jac_diag_t", "g_, t", "g_", "rt.jac_diag(g)")

for _n in ("basis_stack", "ones_tangent", "diag_ok", "scalar_output", "jac_from_batch_cols", "jac_batch_cols_t",
           "jac_from_batch_rows", "jac_batch_rows_t", "jac_diag", "jac_diag_t"):
    defbatch("rt." + _n, BatchRule("helper", helper="rt.batched_" + _n))
