"""Runtime helpers that derivative rules call and that s2s differentiates from their own source.

A rule's helper is itself differentiated when the rule's output is differentiated again (grad of
grad, jacfwd of grad, vmap of grad): each helper below is written with primitives, so its
reverse, forward and batched forms come from its source (`composite`), at any order. Every other
`rt.` name a rule uses is a primitive with rules of its own, or is refused by name
(`rt.no_derivative`); tests/architecture/test_primitive_declarations.py checks that no rule calls
an undeclared helper.
"""
from __future__ import annotations

from ... import runtime as _rt
from .registry import LOOP, composite, prim, refuse

for _n in ("average_jvp_w", "average_vjp_a", "average_vjp_w", "cholesky_jvp", "cholesky_vjp", "cond_jvp", "cond_vjp",
           "cross_vjp", "eigh_jvp", "eigh_vjp", "eigvalsh_jvp", "eigvalsh_vjp",
           "hstack_axis", "interp_fp_vjp", "lstsq_jvp_a", "lstsq_jvp_b", "lstsq_vjp_a", "lstsq_vjp_b",
           "interp_slope", "matrix_power_jvp", "matrix_power_vjp", "multi_dot_jvp",
           "multi_dot_vjp", "nanvar_jvp", "nanvar_vjp", "norm_jvp_any", "norm_vjp_any", "pinv_jvp", "pinv_vjp",
           "polyder", "polyval_vjp_p", "pow_d_dy", "qr_jvp", "qr_vjp", "repeat_vjp", "roll_vjp", "sinc_deriv",
           "solve_vjp_a", "solve_vjp_b", "solve_jvp_a",
           "split_axis", "svd_jvp", "svd_vjp", "svdvals_jvp", "svdvals_vjp", "tile_vjp", "trace_vjp",
           "var_jvp", "var_vjp", "vector_norm_jvp", "vector_norm_vjp"):
    composite("rt." + _n, getattr(_rt, _n))

# the diagonal forms of a product's cotangents (transforms/diagonal.py puts them in the place of
# rt.dot_vjp_a/b inside its diagonal functions, which are never differentiated again): refused by name
for _n in ("rt.dot_vjp_a_diag", "rt.dot_vjp_b_diag"):
    prim(_n, "v, a, b, x", zero_args=("x",), batch=LOOP)
    refuse(_n, "the diagonal form of a product's cotangent (differentiate the function, not its diagonal)", "v", "a",
           "b")
