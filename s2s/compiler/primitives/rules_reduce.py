"""Reductions, scans and signal-processing rules: cumprod, diff, ptp, average, the nan* family,
convolve/correlate, interp, polyval, gradient."""
from __future__ import annotations

from ... import runtime as _rt
from .registry import KEYWORD_FORMS, LOOP, REST, SAME, along, by, composite, defjvp, defvjp, linear, nondiff, prim, refuse

_RED = "a, axis=None, dtype=None, out=None, keepdims=False"
_NAN = "xp.isnan(a)"
prim("xp.cumprod", "a, axis=None, dtype=None, out=None", zero_args=REST, methods=("cumprod",),
     batch=along("axis", none="flat", number=True))  # (number: NumPy scans a number along axis 0 or -1)
defvjp("xp.cumprod", a="rt.cumsum_vjp(g * ans, a, axis) / a")  # entries of a must be nonzero
defjvp("xp.cumprod", a="ans * xp.cumsum(da / a, axis)")
prim("xp.diff", "a, n=1, axis=-1, prepend=None, append=None", zero_args=REST, batch=by("rt.batched_diff"),
     rewrites="joined_edges")
defvjp("xp.diff", a="rt.diff_vjp(g, a, n, rt.diff_axis(axis, prepend, append))")
defjvp("xp.diff", a="xp.diff(da, n, rt.diff_axis(axis, prepend, append))")
# np.diff(a, prepend=p, append=q) is the diff of the joined array (frontend/keyword_calls.py)
composite("rt.diff_prepend", _rt.diff_prepend)
composite("rt.diff_append", _rt.diff_append)
linear("rt.diff_vjp", "v, like, n, axis", "v", "xp.diff(g, n, axis)", batch=by("rt.batched_diff_vjp"))
prim("xp.ptp", "a, axis=None, out=None, keepdims=False", zero_args=REST, batch=along("axis", none="all", number=True))
defvjp("xp.ptp", a="rt.max_vjp(g, a, xp.max(a, axis, keepdims=keepdims), axis, keepdims) - "
                   "rt.max_vjp(g, a, xp.min(a, axis, keepdims=keepdims), axis, keepdims)")
defjvp("xp.ptp", a="rt.max_jvp(da, a, xp.max(a, axis, keepdims=keepdims), axis, keepdims) - "
                   "rt.max_jvp(da, a, xp.min(a, axis, keepdims=keepdims), axis, keepdims)")
prim("xp.average", "a, axis=None, weights=None, returned=False, keepdims=False",
     zero_args=("axis", "returned", "keepdims"), batch=by("rt.batched_average"))
defvjp("xp.average", a="rt.average_vjp_a(g, a, weights, axis, keepdims)",
       weights="rt.average_vjp_w(g, a, weights, axis, keepdims, ans)")
defjvp("xp.average", a="xp.average(da, axis, weights, keepdims=keepdims)",
       weights="rt.average_jvp_w(dweights, a, weights, axis, keepdims, ans)")
nondiff("rt.nancount", sig="x, *args")  # (rt.conv_pad, rt.diff_axis, rt.interp_ok: rules_batch.py)

# ---- nan* reductions: NaN entries are left out, and get a zero cotangent ----
prim("xp.nansum", _RED, zero_args=REST, batch=along("axis", none="all", number=True))
defvjp("xp.nansum", a=f"xp.where({_NAN}, 0.0, rt.sum_vjp(g, a, axis, keepdims))")
defjvp("xp.nansum", a=f"xp.sum(xp.where({_NAN}, 0.0, da), axis=axis, keepdims=keepdims)")
prim("xp.nanmean", _RED, zero_args=REST, batch=along("axis", none="all", number=True))
defvjp("xp.nanmean", a=f"xp.where({_NAN}, 0.0, rt.sum_vjp(g / rt.nancount(a, axis, keepdims), a, axis, keepdims))")
defjvp("xp.nanmean", a=f"xp.sum(xp.where({_NAN}, 0.0, da), axis=axis, keepdims=keepdims) / rt.nancount(a, axis, keepdims)")
for _op in ("xp.nanmax", "xp.nanmin"):
    prim(_op, "a, axis=None, out=None, keepdims=False", zero_args=REST, batch=along("axis", none="all", number=True))
    defvjp(_op, a="rt.max_vjp(g, a, ans, axis, keepdims)")  # NaN never equals the extremum
    defjvp(_op, a=f"rt.max_jvp(xp.where({_NAN}, 0.0, da), a, ans, axis, keepdims)")
prim("xp.nanprod", _RED, zero_args=REST, batch=along("axis", none="all", number=True))
defvjp("xp.nanprod", a=f"xp.where({_NAN}, 0.0, rt.sum_vjp(g * ans, a, axis, keepdims) / xp.where({_NAN}, 1.0, a))")
defjvp("xp.nanprod", a="xp.nansum(da / a, axis=axis, keepdims=keepdims) * ans")
prim("xp.nanvar", "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", zero_args=REST,
     batch=along("axis", none="all", number=True), rewrites="ddof_alias")
defvjp("xp.nanvar", a="rt.nanvar_vjp(g, a, axis, ddof, keepdims)")
defjvp("xp.nanvar", a="rt.nanvar_jvp(da, a, axis, ddof, keepdims)")
prim("xp.nanstd", "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", zero_args=REST,
     batch=along("axis", none="all", number=True), rewrites="ddof_alias")
defvjp("xp.nanstd", a="rt.nanvar_vjp(g * 0.5 / ans, a, axis, ddof, keepdims)")
defjvp("xp.nanstd", a="rt.nanvar_jvp(da, a, axis, ddof, keepdims) * 0.5 / ans")
prim("xp.nancumsum", "a, axis=None, dtype=None, out=None", zero_args=REST, batch=along("axis", none="flat", number=True))
defvjp("xp.nancumsum", a=f"xp.where({_NAN}, 0.0, rt.cumsum_vjp(g, a, axis))")
defjvp("xp.nancumsum", a=f"xp.cumsum(xp.where({_NAN}, 0.0, da), axis)")
prim("xp.nancumprod", "a, axis=None, dtype=None, out=None", zero_args=REST, batch=along("axis", none="flat", number=True))
defvjp("xp.nancumprod", a=f"xp.where({_NAN}, 0.0, rt.cumsum_vjp(g * ans, a, axis) / xp.where({_NAN}, 1.0, a))")
defjvp("xp.nancumprod", a="ans * xp.nancumsum(da / a, axis)")

# ---- signals and interpolation ----
_FULL = "xp.pad(g, rt.conv_pad(a, v, mode))"
prim("xp.convolve", "a, v, mode='full'", zero_args=("mode",), batch=by("rt.batched_convolve"))
defvjp("xp.convolve", a=f"xp.correlate({_FULL}, v, 'valid')", v=f"xp.correlate({_FULL}, a, 'valid')")
defjvp("xp.convolve", a="xp.convolve(da, v, mode)", v="xp.convolve(a, dv, mode)")
prim("xp.correlate", "a, v, mode='valid'", zero_args=("mode",),
     batch=by("rt.batched_correlate"))  # correlate(a, v) == convolve(a, v[::-1])
_FULL_C = "xp.pad(g, rt.conv_pad(a, v, mode, True))"
defvjp("xp.correlate", a=f"xp.correlate({_FULL_C}, xp.flip(v, 0), 'valid')",
       v=f"xp.flip(xp.correlate({_FULL_C}, a, 'valid'), 0)")
defjvp("xp.correlate", a="xp.correlate(da, v, mode)", v="xp.correlate(a, dv, mode)")
# the knots keep NumPy's parameter name `xp` (so `np.interp(x, xp=..., fp=...)` binds); these rules
# therefore reach NumPy only through rt helpers
for _op in ("xp.interp", "rt.interp_apply"):
    prim(_op, "x, xp, fp, left=None, right=None, period=None", zero_args=("left", "right", "period"),
         batch=by("rt.batched_" + _op[3:]))
    _ok = "rt.interp_ok(left, right, period)"  # 1.0, or an error for the arguments not differentiated
    defvjp(_op, x=f"rt.cast_like(g * {_ok} * rt.interp_slope(x, xp, fp), x)",
           fp=f"rt.cast_like(rt.interp_fp_vjp(g * {_ok}, x, xp, fp), fp)",
           xp=f"rt.cast_like(-rt.interp_fp_vjp(g * {_ok} * rt.interp_slope(x, xp, fp), x, xp, fp), xp)")
    defjvp(_op, x=f"dx * {_ok} * rt.interp_slope(x, xp, fp)", fp=f"rt.interp_apply(x, xp, dfp * {_ok})",
           xp=f"-rt.interp_slope(x, xp, fp) * rt.interp_apply(x, xp, dxp * {_ok})")
prim("xp.polyval", "p, x", batch=by("rt.batched_polyval"))
defvjp("xp.polyval", p="rt.polyval_vjp_p(g, p, x)", x="rt.unbroadcast(g * xp.polyval(rt.polyder(p), x), x)")
defjvp("xp.polyval", p="xp.polyval(dp, x)", x="dx * xp.polyval(rt.polyder(p), x)")
# differentiating with respect to the spacing is an S2SError (never a silent zero)
prim("rt.no_derivative", "x, what", nondiff=True, batch=SAME)
_SPACING = "np.gradient with respect to its spacing"
prim("xp.gradient", "f, spacing=1.0, axis=None, edge_order=1", zero_args=("axis", "edge_order"),
     batch=by("rt.batched_gradient"), rewrites="spacings")  # (a spacing per axis: frontend/keyword_calls.py)
linear("rt.gradient_rank", "f, n", "f", "rt.gradient_rank(g, n)", batch=by("rt.batched_gradient_rank"))
defvjp("xp.gradient", f="rt.gradient_vjp(g, f, spacing, axis, edge_order)")
defjvp("xp.gradient", f="xp.gradient(df, spacing, axis=axis, edge_order=edge_order)")
prim("xp.trapezoid", "y, x=None, dx=1.0, axis=-1", zero_args=("axis",),
     batch=by("rt.batched_trapezoid"))  # linear in y; the sample points are refused
defvjp("xp.trapezoid", y="rt.trapezoid_vjp(g, y, x, dx, axis)")
defjvp("xp.trapezoid", y="xp.trapezoid(dy, x, dx, axis)")
# (their cotangent helpers depend on the spacing too: refused there as well, at every order)
linear("rt.trapezoid_vjp", "v, y, x, dx, axis", "v", "xp.trapezoid(g, x, dx, axis)", zero_args=("y", "axis"))
linear("rt.gradient_vjp", "v, f, spacing, axis, edge_order", "v", "rt.gradient_vjp_t(g, f, spacing, axis, edge_order)",
       zero_args=("f", "axis", "edge_order"))
linear("rt.gradient_vjp_t", "v, f, spacing, axis, edge_order", "v", "rt.gradient_vjp(g, f, spacing, axis, edge_order)",
       zero_args=("f", "axis", "edge_order"))
for _op in ("xp.trapezoid", "rt.trapezoid_vjp"):
    refuse(_op, "np.trapezoid with respect to its sample points x or spacing dx", "x", "dx")
for _op in ("xp.gradient", "rt.gradient_vjp", "rt.gradient_vjp_t"):
    refuse(_op, _SPACING, "spacing")
linear("xp.cumulative_sum", "x, axis=None, dtype=None, include_initial=False", "x",
       "rt.cumulative_vjp(g, x, axis, include_initial)", batch=by("rt.batched_cumulative_sum"))
linear("rt.cumulative_vjp", "v, x, axis, include_initial", "v",
       "xp.cumulative_sum(g, axis=axis, include_initial=include_initial)", batch=by("rt.batched_cumulative_vjp"))
prim("xp.cumulative_prod", "x, axis=None, dtype=None, include_initial=False",
     zero_args=("axis", "dtype", "include_initial"), batch=by("rt.batched_cumulative_prod"))
defvjp("xp.cumulative_prod", x="rt.cumulative_vjp(g * ans, x, axis, include_initial) / x")
defjvp("xp.cumulative_prod", x="ans * xp.cumulative_sum(dx / x, axis=axis, include_initial=include_initial)")
linear("xp.ediff1d", "ary", "ary", "rt.reshape_like(rt.diff_vjp(g, xp.ravel(ary), 1, -1), ary)",
       batch=by("rt.batched_ediff1d"))
# order statistics (linear interpolation between the two nearest ranks, NumPy's default method, or
# the nearest ranks picked or averaged: lower, higher, nearest, midpoint);
# overwrite_input=True lets NumPy partition `a` in place, so the rules, which read `a`, would see it
# reordered (a wrong derivative, found by tools/fuzz.py --keywords): refused, with the other
# parameters no rule reads
for _op in ("xp.quantile", "xp.percentile", "xp.nanquantile", "xp.nanpercentile"):
    prim(_op, "a, q, axis=None, out=None, overwrite_input=False, method='linear', keepdims=False",
         zero_args=("axis", "out", "overwrite_input", "method", "keepdims"), batch=by("rt.batched_" + _op[3:]),
         unmodelled=("overwrite_input",))
    refuse(_op, f"np.{_op[3:]} with respect to q", "q")
    _q = "0.01 * rt.linear_method(q, method)" if "percentile" in _op else "rt.linear_method(q, method)"  # (q: a list too)
    defvjp(_op, a=f"rt.quantile_vjp(g, a, {_q}, axis, keepdims, method)")
    defjvp(_op, a=f"rt.quantile_jvp(da, a, {_q}, axis, keepdims, method)")
for _op in ("xp.median", "xp.nanmedian"):
    prim(_op, "a, axis=None, out=None, overwrite_input=False, keepdims=False", zero_args=REST,
         batch=along("axis", none="all"), unmodelled=("overwrite_input",))
    defvjp(_op, a="rt.quantile_vjp(g, a, 0.5, axis, keepdims)")
    defjvp(_op, a="rt.quantile_jvp(da, a, 0.5, axis, keepdims)")
linear("rt.quantile_vjp", "v, a, q, axis, keepdims, method='linear'", "v",
       "rt.quantile_jvp(g, a, q, axis, keepdims, method)", zero_args=("a", "axis", "keepdims", "method"))
linear("rt.quantile_jvp", "v, a, q, axis, keepdims, method='linear'", "v",
       "rt.quantile_vjp(g, a, q, axis, keepdims, method)", zero_args=("a", "axis", "keepdims", "method"))
prim("rt.linear_method", "q, method", zero_args=("method",))  # q itself, once the method is checked
for _op in ("rt.quantile_vjp", "rt.quantile_jvp", "rt.linear_method"):
    refuse(_op, "a quantile with respect to q", "q")

# ---- where= and initial=: NumPy's definitions in s2s/runtime/composite.py, transformed from source ----
for _op in ("sum", "prod", "mean", "var", "std", "max", "min", "nansum", "nanprod", "nanmean", "nanmax", "nanmin"):
    KEYWORD_FORMS["xp." + _op] = getattr(_rt, _op + "_where")
for _op in ("amax", "amin"):
    KEYWORD_FORMS["xp." + _op] = getattr(_rt, _op[1:] + "_where")
KEYWORD_FORMS["xp.average"] = _rt.average_returned  # (returned=: the average and the weights' sum)

# ---- operations computed by NumPy's definition written with primitives (s2s/runtime/composite.py) ----
# (dtype by keyword: the result cast to it, as NumPy computes in it)
composite("xp.cov", _rt.cov, {1: _rt.cov_1, 2: _rt.cov_2}, positional=7).dtype_by_cast = True
composite("xp.corrcoef", _rt.corrcoef, {1: _rt.corrcoef_1, 2: _rt.corrcoef_2}, positional=3).dtype_by_cast = True
composite("xp.vander", _rt.vander)
composite("xp.insert", _rt.insert)
composite("xp.broadcast_arrays", _rt.broadcast_arrays,
          {k: getattr(_rt, f"broadcast_arrays_{k}") for k in (1, 2, 3, 4, 5, 6)}).inert = ("subok",)  # (ndarrays only)
prim("rt.unsupported", "value, what", nondiff=True, batch=SAME)
prim("rt.needs_initial", "where, what", nondiff=True, effect=True, batch=SAME)  # (max_where: NumPy's error)

# ufunc methods (primitives/ufunc_methods.py): the running maximum and minimum, whose derivative
# flows to the entry each running extreme is (its record position: take_along_axis and its
# transpose); np.multiply.at on a copy, linear in y and multilinear in the updates v.
for _k in ("max", "min"):
    prim(f"rt.cum{_k}", "x, axis=0", zero_args=("axis",), batch=along("axis"))
    defvjp(f"rt.cum{_k}", x=f"rt.take_along_vjp(g, x, rt.cum{_k}_index(x, axis), axis)")
    defjvp(f"rt.cum{_k}", x=f"xp.take_along_axis(dx, rt.cum{_k}_index(x, axis), axis)")
    nondiff(f"rt.cum{_k}_index", sig="x, axis=0", batch=along("axis"))
prim("rt.multiply_at", "y, index, v", zero_args=("index",), batch=by("rt.batched_multiply_at"))
defvjp("rt.multiply_at", y="g * rt.multiply_at(xp.ones_like(y), index, v)", v="rt.multiply_at_vjp_v(g, y, index, v)")
defjvp("rt.multiply_at", y="rt.multiply_at(dy, index, v)", v="rt.multiply_at_jvp_v(dv, y, index, v)")
linear("rt.multiply_at_vjp_v", "g_, y, index, v", "g_", "rt.multiply_at_jvp_v(g, y, index, v)", zero_args=("index",),
       batch=LOOP)
refuse("rt.multiply_at_vjp_v", "the second derivative of np.multiply.at in its updates", "y", "v")
linear("rt.multiply_at_jvp_v", "dv, y, index, v", "dv", "rt.multiply_at_vjp_v(g, y, index, v)", zero_args=("index",),
       batch=LOOP)
refuse("rt.multiply_at_jvp_v", "the second derivative of np.multiply.at in its updates", "y", "v")
# batched (an index shared by the examples; one that differs per example runs once per example)
prim("rt.batched_multiply_at", "flags, y, index, v", zero_args=("flags", "index"), batch=LOOP)
defvjp("rt.batched_multiply_at", y="rt.batched_multiply_at_vjp(flags, g, y, index, v, 0)",
       v="rt.batched_multiply_at_vjp(flags, g, y, index, v, 1)")
defjvp("rt.batched_multiply_at", y="rt.batched_multiply_at(flags, dy, index, v)",
       v="rt.batched_multiply_at_jvp_v(flags, dv, y, index, v)")
for _n in ("rt.batched_multiply_at_vjp", "rt.batched_multiply_at_jvp_v"):
    prim(_n, "flags, g_, y, index, v, which" if _n.endswith("vjp") else "flags, dv, y, index, v",
         zero_args=("flags", "index", "which") if _n.endswith("vjp") else ("flags", "index"), batch=LOOP)
    refuse(_n, "the second derivative of np.multiply.at under vmap", *(("g_", "y", "v") if _n.endswith("vjp")
                                                                       else ("dv", "y", "v")))
