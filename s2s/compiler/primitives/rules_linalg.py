"""Linear algebra rules: einsum and the products built on it, and np.linalg.

Every cotangent of an einsum is an einsum of the output cotangent with the other operands (plus a
constant factor of ones and identities for axes only that operand has, or repeated indices), so
tensordot and inner reuse it and second derivatives need no extra rules. np.linalg cotangents
are helpers in s2s/runtime/linalg.py written with primitives, so s2s differentiates them again.
"""
from __future__ import annotations

from ...backends import array_fill
from .registry import LOOP, PRIMS, REST, SAME, along, by, defjvp, defvjp, linear, nondiff, prim

_SLOTS = ("a", "b", "c", "d", "e", "f")  # operands; a seventh (`h`) is refused by rt.einsum_n


def _einsum_rules(name: str, spec: str) -> None:
    """Reverse and forward rules for each operand slot of an einsum-like primitive."""
    ops = ", ".join(_SLOTS)
    for k, slot in enumerate(_SLOTS):
        others = ", ".join(s for s in _SLOTS if s != slot)
        inner = f"rt.einsum_n(rt.einsum_spec1({spec}, {k}, {ops}), g, {others}, None, h)"
        defvjp(name, **{slot: f"rt.unbroadcast(rt.einsum_n(rt.einsum_spec2({spec}, {k}, {ops}), {inner}, "
                              f"rt.einsum_const({spec}, {k}, {ops})), {slot})"})
        tangents = ", ".join("d" + s if s == slot else s for s in _SLOTS)
        defjvp(name, **{slot: f"rt.einsum_n({spec}, {tangents}, None, h)"})


prim("xp.einsum", "subscripts, a, b=None, c=None, d=None, e=None, f=None, h=None", zero_args=("subscripts", "h"),
     batch=by("rt.batched_einsum"), dot_like=True, inert=("optimize",))
_einsum_rules("xp.einsum", "subscripts")
prim("rt.einsum_n", "spec, a, b=None, c=None, d=None, e=None, f=None, g_=None, h=None", zero_args=("spec", "g_", "h"),
     batch=by("rt.batched_einsum_n"))
_einsum_rules("rt.einsum_n", "spec")
# the sublist form's subscripts, from sublists read when the call runs (frontend/numpy_forms.einsum_sublists)
prim("rt.einsum_sublist_spec", "subs, out, first", nondiff=True, unbatched_result=True,
     batch=by("rt.batched_einsum_sublist_spec"))
# (the subscripts and shapes helpers its rules call, rt.einsum_spec1, rt.kron_spec, ..., are declared
# with their batching rule in rules_batch.py)


def _contraction(name: str, sig: str, spec: str, jvp_a: str, jvp_b: str, **facts) -> None:
    """A two-operand product with einsum subscripts `spec` (an expression over a, b, ...)."""
    prim(name, sig, zero_args=tuple(a.split("=")[0].strip() for a in sig.split(",")[2:]), **facts)
    defvjp(name, a=f"rt.unbroadcast(rt.einsum_n(rt.einsum_spec1({spec}, 0, a, b), g, b), a)",
           b=f"rt.unbroadcast(rt.einsum_n(rt.einsum_spec1({spec}, 1, a, b), g, a), b)")
    defjvp(name, a=jvp_a, b=jvp_b)


_contraction("xp.tensordot", "a, b, axes=2", "rt.tensordot_spec(a, b, axes)", "xp.tensordot(da, b, axes)",
             "xp.tensordot(a, db, axes)", batch=by("rt.batched_tensordot"), dot_like=True)
_contraction("xp.inner", "a, b", "rt.inner_spec(a, b)", "xp.inner(da, b)", "xp.inner(a, db)", maybe_scalar=True,
             dot_like=True, batch=by("rt.batched_inner"))
prim("xp.vdot", "a, b", maybe_scalar=True, batch=by("rt.batched_vdot"), dot_like=True)
defvjp("xp.vdot", a="rt.reshape_like(xp.conj(g * b), a)", b="rt.reshape_like(g * xp.conj(a), b)")  # (conj(a) . b)
defjvp("xp.vdot", a="xp.vdot(da, b)", b="xp.vdot(a, db)")
prim("xp.kron", "a, b", batch=by("rt.batched_kron"))
defvjp("xp.kron", a="rt.reshape_like(rt.einsum_n(rt.kron_spec(a, b, 0), xp.reshape(g, rt.kron_shape(a, b)), "
                    "rt.kron_pad(b, a)), a)",
       b="rt.reshape_like(rt.einsum_n(rt.kron_spec(a, b, 1), xp.reshape(g, rt.kron_shape(a, b)), "
         "rt.kron_pad(a, b)), b)")
defjvp("xp.kron", a="xp.kron(da, b)", b="xp.kron(a, db)")
linear("rt.kron_pad", "x, other", "x", "rt.reshape_like(g, x)")
prim("xp.cross", "a, b, axisa=-1, axisb=-1, axisc=-1, axis=None",  # 3-vectors along the last axis
     zero_args=("axisa", "axisb", "axisc", "axis"), batch=by("rt.batched_cross"))
defvjp("xp.cross", a="rt.cross_vjp(g, b, a, axisb, axisa, axisc, axis, 1.0)",
       b="rt.cross_vjp(g, a, b, axisa, axisb, axisc, axis, -1.0)")
defjvp("xp.cross", a="xp.cross(da, b, axisa, axisb, axisc, axis)", b="xp.cross(a, db, axisa, axisb, axisc, axis)")

# ---- np.linalg ----
linear("rt.mT", "x", "x", "rt.mT(g)", batch=SAME)
linear("rt.expand2", "x", "x", "xp.squeeze(xp.squeeze(g, -1), -1)", batch=SAME)
prim("xp.linalg.inv", "a", batch=SAME)
defvjp("xp.linalg.inv", a="-(rt.mT(ans) @ (g @ rt.mT(ans)))")
defjvp("xp.linalg.inv", a="-(ans @ (da @ ans))")
prim("xp.linalg.det", "a", batch=SAME)
defvjp("xp.linalg.det", a="rt.expand2(g * ans) * rt.mT(xp.linalg.inv(a))")
defjvp("xp.linalg.det", a="ans * xp.trace(xp.linalg.solve(a, da), 0, -2, -1)")
prim("xp.linalg.slogdet", "a", tree_sum=True, batch=SAME)
defvjp("xp.linalg.slogdet", a="rt.expand2(g[1]) * rt.mT(xp.linalg.inv(a))")
defjvp("xp.linalg.slogdet", a="(xp.zeros_like(ans[0]), xp.trace(xp.linalg.solve(a, da), 0, -2, -1))")
prim("xp.linalg.solve", "a, b", batch=by("rt.batched_linalg_solve"))
defvjp("xp.linalg.solve", a="rt.solve_vjp_a(g, a, ans)", b="rt.solve_vjp_b(g, a, b)")
defjvp("xp.linalg.solve", a="rt.solve_jvp_a(da, a, ans)", b="xp.linalg.solve(a, db)")
prim("xp.linalg.cholesky", "a, upper=False", zero_args=("upper",), batch=SAME, unmodelled=("upper",),
     rewrites="upper_factor")  # (upper=True: the transpose of aᵀ's lower factor, frontend/keyword_calls.py)
# NumPy reads the lower triangle: the function is of rt.uplo_sym(a, 'L') (a non-symmetric `a`'s
# derivative is NumPy's, as eigh's; JAX's symmetrizes its input instead)
defvjp("xp.linalg.cholesky", a="rt.uplo_fold(rt.cholesky_vjp(g, ans), 'L')")
defjvp("xp.linalg.cholesky", a="rt.cholesky_jvp(rt.uplo_sym(da, 'L'), ans)")
prim("xp.linalg.eigh", "a, UPLO='L'", tree_sum=True, zero_args=REST, batch=SAME)
# NumPy reads one triangle (UPLO): the function is of rt.uplo_sym(a), whose transpose is rt.uplo_fold
defvjp("xp.linalg.eigh", a="rt.uplo_fold(rt.eigh_vjp(g, a, ans), UPLO)")
defjvp("xp.linalg.eigh", a="rt.eigh_jvp(rt.uplo_sym(da, UPLO), a, ans)")
prim("xp.linalg.eigvalsh", "a, UPLO='L'", zero_args=REST, batch=SAME)
defvjp("xp.linalg.eigvalsh", a="rt.uplo_fold(rt.eigvalsh_vjp(g, rt.uplo_sym(a, UPLO)), UPLO)")
defjvp("xp.linalg.eigvalsh", a="rt.eigvalsh_jvp(rt.uplo_sym(da, UPLO), rt.uplo_sym(a, UPLO))")
linear("rt.uplo_sym", "x, uplo", "x", "rt.uplo_fold(g, uplo)", batch=SAME)
linear("rt.uplo_fold", "x, uplo", "x", "rt.uplo_sym(g, uplo)", batch=SAME)
prim("xp.linalg.svd", "a, full_matrices=True, compute_uv=True, hermitian=False", tree_sum=True, zero_args=REST, batch=SAME)
defvjp("xp.linalg.svd", a="rt.svd_vjp(g, a, ans, rt.svd_check(a, full_matrices, compute_uv), compute_uv)")
defjvp("xp.linalg.svd", a="rt.svd_jvp(da, a, ans, rt.svd_check(a, full_matrices, compute_uv), compute_uv)")
prim("xp.linalg.svdvals", "a", batch=SAME, composed=array_fill.make_svdvals)
defvjp("xp.linalg.svdvals", a="rt.svdvals_vjp(g, a)")
defjvp("xp.linalg.svdvals", a="rt.svdvals_jvp(da, a)")
prim("xp.linalg.qr", "a, mode='reduced'", tree_sum=True, zero_args=REST, batch=SAME,
     unmodelled=("mode",), rewrites="r_only")  # (mode="r": the reduced R, frontend/keyword_calls.py)
defvjp("xp.linalg.qr", a="rt.qr_vjp(g, a, ans)")
defjvp("xp.linalg.qr", a="rt.qr_jvp(da, a, ans)")
# rcond= and rtol=: NumPy's cutoff; a derivative where it drops a singular value is refused (rt.pinv_kept)
prim("xp.linalg.pinv", "a, rcond=None, hermitian=False, rtol=None", zero_args=REST, batch=SAME)
defvjp("xp.linalg.pinv", a="rt.pinv_vjp(g, rt.pinv_kept(a, rcond, rtol, hermitian), ans)")
defjvp("xp.linalg.pinv", a="rt.pinv_jvp(da, rt.pinv_kept(a, rcond, rtol, hermitian), ans)")
prim("rt.pinv_kept", "a, rcond, rtol, hermitian", same_shape=True, zero_args=REST, batch=SAME)
defvjp("rt.pinv_kept", a="g")
defjvp("rt.pinv_kept", a="da")
prim("xp.linalg.matrix_power", "a, n", zero_args=REST, batch=SAME)
defvjp("xp.linalg.matrix_power", a="rt.matrix_power_vjp(g, a, n)")
defjvp("xp.linalg.matrix_power", a="rt.matrix_power_jvp(da, a, n)")
# every `ord` NumPy accepts (replaces the 2-norm/Frobenius-only row of the core table)
prim("xp.linalg.norm", "x, ord=None, axis=None, keepdims=False", zero_args=REST, batch=along("axis", none="norm"))
defvjp("xp.linalg.norm", x="rt.norm_vjp_any(g, x, ans, ord, axis, keepdims)")
defjvp("xp.linalg.norm", x="rt.norm_jvp_any(dx, x, ans, ord, axis, keepdims)")
nondiff("xp.linalg.matrix_rank", sig="x, *args, **kwargs", batch=SAME)
# (x, residuals, rank, s): at full rank x = pinv(a) @ b (s2s/runtime/least_squares.py); NumPy's lstsq takes one
# matrix, so once per example under vmap
prim("xp.linalg.lstsq", "a, b, rcond=None", tree_sum=True, zero_args=("rcond",), batch=LOOP)
defvjp("xp.linalg.lstsq", a="rt.lstsq_vjp_a(g, a, b, ans)", b="rt.lstsq_vjp_b(g, a, b, ans)")
defjvp("xp.linalg.lstsq", a="rt.lstsq_jvp_a(da, a, b, ans)", b="rt.lstsq_jvp_b(db, a, b, ans)")
linear("rt.lstsq_full_rank", "a, rank", "a", "g", batch=LOOP)  # a itself, refused at a deficient rank

# ---- NumPy 2 products and the np.linalg spellings of array functions ----
# (composed: a library lacking the function (CuPy) gets s2s's composition of it, s2s/backends/array_fill.py)
_contraction("xp.vecdot", "a, b, axis=-1", "rt.vecdot_spec(a, b, axis)", "xp.vecdot(da, b, axis=axis)",
             "xp.vecdot(a, db, axis=axis)", batch=by("rt.batched_vecdot"), composed=array_fill.make_vecdot)
_contraction("xp.linalg.vecdot", "a, b, axis=-1", "rt.vecdot_spec(a, b, axis)",
             "xp.linalg.vecdot(da, b, axis=axis)", "xp.linalg.vecdot(a, db, axis=axis)",
             batch=by("rt.batched_linalg_vecdot"), composed=array_fill.make_vecdot)
_contraction("xp.matvec", "a, b", "'...ij,...j->...i'", "xp.matvec(da, b)", "xp.matvec(a, db)",
             batch=by("rt.batched_matvec"), composed=array_fill.make_matvec)
_contraction("xp.vecmat", "a, b", "'...j,...jk->...k'", "xp.vecmat(da, b)", "xp.vecmat(a, db)",
             batch=by("rt.batched_vecmat"), composed=array_fill.make_vecmat)
_contraction("xp.linalg.tensordot", "a, b, axes=2", "rt.tensordot_spec(a, b, axes)",
             "xp.linalg.tensordot(da, b, axes=axes)", "xp.linalg.tensordot(a, db, axes=axes)",
             batch=by("rt.batched_linalg_tensordot"), composed=array_fill.make_linalg_tensordot)
prim("xp.linalg.matmul", "a, b", batch=by("rt.batched_matmul"))
defvjp("xp.linalg.matmul", **PRIMS["xp.matmul"].vjp)
defjvp("xp.linalg.matmul", a="xp.linalg.matmul(da, b)", b="xp.linalg.matmul(a, db)")
prim("xp.linalg.cross", "a, b, axis=-1", zero_args=("axis",), positional=2, batch=by("rt.batched_linalg_cross"))
defvjp("xp.linalg.cross", a="rt.unbroadcast(xp.cross(b, g, axis=axis), a)", b="rt.unbroadcast(xp.cross(g, a, axis=axis), b)")
defjvp("xp.linalg.cross", a="xp.linalg.cross(da, b, axis=axis)", b="xp.linalg.cross(a, db, axis=axis)")
linear("xp.linalg.diagonal", "x, offset=0", "x", "rt.diagonal_vjp(g, x, offset, -2, -1)", batch=SAME,
       composed=array_fill.make_linalg_diagonal)
linear("xp.linalg.trace", "x, offset=0, dtype=None", "x", "rt.trace_vjp(g, x, offset, -2, -1)", batch=SAME,
       composed=array_fill.make_linalg_trace)
linear("xp.linalg.matrix_transpose", "x", "x", "rt.mT(g)", batch=SAME, composed=array_fill.make_matrix_transpose)
prim("xp.linalg.vector_norm", "x, axis=None, keepdims=False, ord=2", zero_args=REST, batch=along("axis", none="all"),
     composed=array_fill.make_vector_norm)
defvjp("xp.linalg.vector_norm", x="rt.vector_norm_vjp(g, x, ans, ord, axis, keepdims)")
defjvp("xp.linalg.vector_norm", x="rt.vector_norm_jvp(dx, x, ans, ord, axis, keepdims)")
prim("xp.linalg.matrix_norm", "x, keepdims=False, ord='fro'", zero_args=REST, batch=SAME,
     composed=array_fill.make_matrix_norm)
defvjp("xp.linalg.matrix_norm", x="rt.norm_vjp_any(g, x, ans, ord, (-2, -1), keepdims)")
defjvp("xp.linalg.matrix_norm", x="rt.norm_jvp_any(dx, x, ans, ord, (-2, -1), keepdims)")
prim("xp.linalg.cond", "x, p=None", zero_args=("p",), batch=SAME)
defvjp("xp.linalg.cond", x="rt.cond_vjp(g, x, ans, p)")
defjvp("xp.linalg.cond", x="rt.cond_jvp(dx, x, ans, p)")

# a chain of products (NumPy picks the cheapest order); the cotangent of each operand is
# left.T @ g @ right.T, written with primitives in s2s/runtime/linalg.py (s2s differentiates it again)
prim("xp.linalg.multi_dot", "arrays, out=None", list_args=("arrays",), zero_args=("out",), batch=by("rt.batched_multi_dot"),
     composed=array_fill.make_multi_dot)
defvjp("xp.linalg.multi_dot", arrays="rt.multi_dot_vjp(g, arrays)")
defjvp("xp.linalg.multi_dot", arrays="rt.multi_dot_jvp(darrays, arrays)")
