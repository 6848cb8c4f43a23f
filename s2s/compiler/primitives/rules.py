"""Derivative rules for every supported primitive, one line each (see registry for the notation)."""
from __future__ import annotations

import numpy as np

from ...backends import array_fill
from .registry import (
    BROADCAST,
    CREATE,
    LOOP,
    PRIMS,
    REST,
    SAME,
    BatchRule,
    along,
    by,
    defjvp,
    defranked,
    defvjp,
    elementwise,
    linear,
    nondiff,
    prim,
)

REDUCE = along("axis", none="all")  # batching: `axis` shifted past the batch axis, None: every per-example axis
# for NumPy's functions that, as ufunc reductions and scans do, take axis 0 or -1 of a number
# (np.sum(np.float64(1), axis=0) is 1.0, np.cumsum's [1.0]; np.mean's and np.sort's is an AxisError)
UFUNC_REDUCE = along("axis", none="all", number=True)
UFUNC_SCAN = along("axis", none="flat", number=True)

# ---- Python operators (generated code keeps them as operators; `symbol`: the operator) ----
for _op, _sym in (("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"), ("pow", "**"), ("maximum", ""),
                  ("minimum", "")):
    prim(_op, "x, y", broadcasting=True, arith=_sym if _sym != "**" else "", symbol=_sym,
         sequence_op=_op in ("add", "mul"),  # (`+` concatenates and `*` repeats lists and tuples)
         ufunc={"add": "add", "sub": "subtract", "mul": "multiply", "div": "true_divide", "pow": "power"}.get(_op, ""),
         operator_fn={"div": "truediv"}.get(_op, _op) if _sym else "")
defvjp("add", x="rt.unbroadcast(g, x)", y="rt.unbroadcast(g, y)")
defjvp("add", x="dx", y="dy")
defvjp("sub", x="rt.unbroadcast(g, x)", y="rt.unbroadcast(-g, y)")
defjvp("sub", x="dx", y="-dy")
defvjp("mul", x="rt.unbroadcast(g * y, x)", y="rt.unbroadcast(x * g, y)")
defjvp("mul", x="dx * y", y="x * dy")
# (y's: the sum over the axes y is broadcast along comes before the division by y, which is constant
# along them: one array operation for a softmax's denominator, where `-g * ans / y` took three)
defvjp("div", x="rt.unbroadcast(g / y, x)", y="-rt.unbroadcast(g * ans, y) / y")
defjvp("div", x="dx / y", y="-dy * ans / y")
# d/dx x ** y is 0 where y == 0 (x ** 0 is constant, even at x = 0); d/dy is 0 at x = 0 (JAX's choices)
defvjp("pow", x="rt.unbroadcast(g * rt.pow_d(x, y, 1), x)", y="rt.unbroadcast(g * ans * rt.log0(x), y)")
defjvp("pow", x="dx * rt.pow_d(x, y, 1)", y="dy * ans * rt.log0(x)")
prim("rt.pow_d", "x, y, k=1", broadcasting=True, zero_args=("k",))
defvjp("rt.pow_d", x="rt.unbroadcast(g * rt.pow_d(x, y, k + 1), x)", y="rt.unbroadcast(g * rt.pow_d_dy(x, y, k), y)")
defjvp("rt.pow_d", x="dx * rt.pow_d(x, y, k + 1)", y="dy * rt.pow_d_dy(x, y, k)")
# `x % y` (operator.mod, np.mod, np.remainder) is x - y * floor(x / y): derivative 1 in x and
# -floor(x / y) in y between the jumps; fmod truncates the quotient instead
for _op in ("mod", "xp.mod", "xp.remainder"):
    prim(_op, "x, y", broadcasting=True, symbol="%" if _op == "mod" else "", operator_fn="mod" if _op == "mod" else "")
    defvjp(_op, x="rt.unbroadcast(g + 0 * y, x)", y="rt.unbroadcast(-g * xp.floor_divide(x, y), y)")
    defjvp(_op, x="dx + 0 * y", y="-dy * xp.floor_divide(x, y)")
prim("xp.fmod", "x, y", broadcasting=True)
defvjp("xp.fmod", x="rt.unbroadcast(g, x)", y="rt.unbroadcast(rt.fmod_dy(x, y, g), y)")
defjvp("xp.fmod", x="dx", y="rt.fmod_dy(x, y, dy)")
linear("rt.mod_dy", "x, y, g_", "g_", "rt.unbroadcast(rt.mod_dy(x, y, g), g_)", batch=BROADCAST)
linear("rt.fmod_dy", "x, y, g_", "g_", "rt.unbroadcast(rt.fmod_dy(x, y, g), g_)", batch=BROADCAST)
# ties split the derivative evenly, as JAX does
defvjp("maximum", x="rt.unbroadcast(g * rt.pick(x, y), x)", y="rt.unbroadcast(g * rt.pick(y, x), y)")
defjvp("maximum", x="dx * rt.pick(x, y)", y="dy * rt.pick(y, x)")
defvjp("minimum", x="rt.unbroadcast(g * rt.pick(y, x), x)", y="rt.unbroadcast(g * rt.pick(x, y), y)")
defjvp("minimum", x="dx * rt.pick(y, x)", y="dy * rt.pick(x, y)")
# float_result: floating whatever the (real) arguments ("always"), or when an argument is ("keep");
# fusable: an elementwise kernel computes it (passes/fusion.py)
prim("xp.add", "x, y", broadcasting=True, float_result="keep", arith="+")
prim("xp.subtract", "x, y", broadcasting=True, float_result="keep", arith="-")
prim("xp.multiply", "x, y", broadcasting=True, float_result="keep", arith="*")
prim("xp.divide", "x, y", broadcasting=True, float_result="always", arith="/")
prim("xp.power", "x, y", broadcasting=True)
# (out_buffer: passes/reuse.py writes the result into an operand's buffer; loop_kernel: a compiled
# loop kernel calls it on scalars)
# (cheap: passes/recompute.py recomputes it inside a fused kernel rather than storing it)
_MINMAX = {"broadcasting": True, "float_result": "keep", "fusable": "binary", "out_buffer": True, "loop_kernel": True,
           "cheap": True}
prim("xp.maximum", "x, y", **_MINMAX, builtin="max", cuda=">", numba="_maximum")
prim("xp.minimum", "x, y", **_MINMAX, builtin="min", cuda="<", numba="_minimum")
prim("xp.fmax", "x, y", broadcasting=True)
prim("xp.fmin", "x, y", broadcasting=True)
for _np, _op in (("add", "add"), ("subtract", "sub"), ("multiply", "mul"), ("divide", "div"),
                 ("power", "pow"), ("maximum", "maximum"), ("minimum", "minimum"), ("fmax", "maximum"),
                 ("fmin", "minimum")):
    defvjp("xp." + _np, **PRIMS[_op].vjp)
    defjvp("xp." + _np, **PRIMS[_op].jvp)
# product: `a @ b` for vectors and matrices; dot_ranks: vmap knows its result's rank from its operands
# (np.matmul's follows the same rule, but is not declared yet: its batched code would change)
prim("matmul", "a, b", product=True, maybe_scalar=True, dot_ranks=True, dot_like=True, symbol="@", operator_fn="matmul",
     batch=by("rt.batched_matmul"))
# (methods: the array methods that are the primitive, `x.dot(y)`)
defvjp("matmul", a="rt.dot_vjp_a(g, a, b)", b="rt.dot_vjp_b(g, a, b)")
defjvp("matmul", a="da @ b", b="a @ db")
for _op in ("xp.dot", "xp.matmul"):
    prim(_op, "a, b", product=True, maybe_scalar=True, dot_ranks=_op == "xp.dot",
         methods=("dot",) if _op == "xp.dot" else (), dot_like=True, batch=by("rt.batched_" + _op[3:]))
    defvjp(_op, a="rt.dot_vjp_a(g, a, b)", b="rt.dot_vjp_b(g, a, b)")  # (N-d dot: linalg.dot_vjp_a)
    defjvp(_op, a=f"{_op}(da, b)", b=f"{_op}(a, db)")  # dot and matmul differ on stacks
prim("xp.outer", "a, b", batch=by("rt.batched_outer"))
defvjp("xp.outer", a="rt.outer_vjp_a(g, a, b)", b="rt.outer_vjp_b(g, a, b)")
defjvp("xp.outer", a="xp.outer(da, b)", b="xp.outer(a, db)")
prim("xp.linalg.outer", "x1, x2", batch=by("rt.batched_outer"),  # NumPy 2: outer of two 1-D arrays
     composed=array_fill.make_linalg_outer)
defvjp("xp.linalg.outer", x1="rt.outer_vjp_a(g, x1, x2)", x2="rt.outer_vjp_b(g, x1, x2)")
defjvp("xp.linalg.outer", x1="xp.linalg.outer(dx1, x2)", x2="xp.linalg.outer(x1, dx2)")
# (diag="same": the diagonal Jacobian passes through it, transforms/diagonal.py)
linear("neg", "x", "x", "-g", same_shape=True, diag="same", symbol="unary -", operator_fn="neg")
linear("xp.negative", "x", "x", "-g", same_shape=True, fusable="unary", float_result="keep", out_buffer=True,
       loop_kernel=True, diag="same", cheap=True, cuda="-", numba="_negative")
for _op in ("pos", "xp.positive", "xp.copy"):  # the tangent goes through the same conversion
    linear(_op, "x", "x", "rt.array_vjp(g, x)", same_shape=True, diag="same" if _op != "xp.copy" else "",
           methods=("copy",) if _op == "xp.copy" else (), symbol="unary +" if _op == "pos" else "",
           operator_fn="pos" if _op == "pos" else "")
for _op in ("xp.array", "xp.asarray"):  # (of a list of arrays: their stack; ndmin=: frontend/keyword_calls.py)
    linear(_op, "x", "x", "rt.array_vjp(g, x)", stacks=True, methods=("astype",) if _op == "xp.asarray" else (),
           batch=by("rt.batched_array"), rewrites="min_rank" if _op == "xp.array" else "")
linear("float", "x", "x", "rt.array_vjp(g, x)", loop_kernel=True, methods=("item",), builtin="float", number_result="float",
       batch=by("rt.batched_float"))
for _op in ("xp.float64", "xp.float32", "xp.real"):
    linear(_op, "x", "x", "rt.array_vjp(g, x)", batch=SAME,
           neutral=_op != "xp.real")  # (NumPy's dtype classes serve every array library)
defvjp("xp.real", x="rt.array_vjp(rt.real_part(g), x)")  # (a real result's cotangent is real: rules_fft.py)
for _op, _sym, _ufunc in (("lt", "<", "less"), ("le", "<=", "less_equal"), ("gt", ">", "greater"),
                          ("ge", ">=", "greater_equal"), ("eq", "==", ""), ("ne", "!=", "")):
    nondiff(_op, sig="x, y=None", batch=BROADCAST, symbol=_sym, ufunc=_ufunc)
nondiff("not", sig="x, y=None", batch=by("rt.batched_not"), symbol="unary not")
nondiff("invert", sig="x, y=None", batch=SAME, symbol="unary ~")
# (unbatched_result: `x is None` of a batched x is the same for every example, as is a shape)
for _op, _sym in (("is", "is"), ("isnot", "is not")):  # batched, `x is None` of a batched x: never None
    nondiff(_op, sig="x, y=None", unbatched_result=True, batch=by("rt.batched_" + _op), symbol=_sym)
for _op, _sym in (("in", "in"), ("notin", "not in")):
    nondiff(_op, sig="x, y=None", batch=CREATE, symbol=_sym)
for _op, _sym in (("and_", "&"), ("or_", "|")):
    nondiff(_op, sig="x, y=None", batch=BROADCAST, symbol=_sym)
nondiff("xp.less", "xp.less_equal", "xp.greater", "xp.greater_equal", "xp.equal", "xp.not_equal",
        "xp.logical_and", "xp.logical_or", "xp.logical_xor", sig="x, y", batch=BROADCAST)
nondiff("xp.isclose", sig="a, b, rtol=1e-05, atol=1e-08, equal_nan=False", batch=BROADCAST)
for _op in ("allclose", "array_equal"):
    nondiff("xp." + _op, sig="a, b, *args, **kwargs", batch=by("rt.batched_" + _op))
nondiff("floordiv", sig="x, y", batch=BROADCAST, symbol="//", operator_fn="floordiv")
nondiff("xp.floor_divide", sig="x, y", batch=BROADCAST)
nondiff("xp.floor", sig="x, *args, **kwargs", loop_kernel=True, math_name="floor", batch=SAME)
nondiff("xp.ceil", sig="x, *args, **kwargs", loop_kernel=True, math_name="ceil", batch=SAME)
nondiff("len", sig="x, *args, **kwargs", loop_kernel=True, unbatched_result=True, builtin="len", number_result="int",
        batch=by("rt.batched_len"))
nondiff("range", sig="x, *args, **kwargs", range_result=True, batch=CREATE, builtin="range")
nondiff("xp.zeros_like", sig="x, *args, **kwargs", diag="zero", shape_only=(0,), batch=by("rt.batched_zeros_like"))
# their whole signatures: vmap shifts `axis` past the batch axis, where it is passed or not
for _m in ("argmax", "argmin"):
    nondiff("xp." + _m, sig="a, axis=None, out=None, keepdims=False", methods=(_m,), batch=UFUNC_SCAN)
for _m in ("any", "all"):
    nondiff("xp." + _m, sig="a, axis=None, out=None, keepdims=False, where=True", methods=(_m,), batch=UFUNC_REDUCE)
nondiff("xp.count_nonzero", sig="a, axis=None, keepdims=False", batch=UFUNC_REDUCE)
nondiff("xp.round", sig="a, decimals=0, out=None", methods=("round",), batch=SAME)
nondiff("xp.around", sig="a, decimals=0, out=None", batch=SAME)
nondiff("xp.argsort", sig="a, axis=-1, kind=None, order=None, stable=None", methods=("argsort",), batch=UFUNC_SCAN)
nondiff("xp.nonzero", "xp.argwhere", sig="a", methods=("nonzero",), batch=LOOP)
nondiff("xp.flatnonzero", sig="a", batch=LOOP)
nondiff("xp.searchsorted", sig="a, v, side='left', sorter=None", methods=("searchsorted",),
        batch=by("rt.batched_searchsorted"))
_X = "x, *args, **kwargs"
nondiff("xp.rint", "xp.trunc", "xp.isnan", "xp.isinf", "xp.isfinite", "xp.logical_not",
        sig=_X, batch=SAME)
nondiff("int", sig=_X, builtin="int", batch=by("rt.batched_int"), number_result="int")
nondiff("bool", sig=_X, batch=CREATE, builtin="bool")
nondiff("xp.zeros", "xp.ones", "xp.empty", "xp.eye", "xp.identity", "xp.arange", sig=_X, batch=CREATE)
for _op in ("ones_like", "empty_like"):  # (batched, with shape=: the batch stays in front)
    nondiff("xp." + _op, sig=_X, batch=by("rt.batched_" + _op))
nondiff("xp.heaviside", sig=_X, batch=BROADCAST)
nondiff("xp.tri", "xp.unravel_index", sig=_X, batch=CREATE)
# neutral: on shapes and dtypes, NumPy's function serves every array library (s2s/backends/arrays.py)
nondiff("xp.triu_indices", "xp.tril_indices", "xp.diag_indices", "xp.broadcast_shapes", "xp.result_type", sig=_X,
        batch=CREATE, neutral=True)
nondiff("stop_gradient", sig=_X, batch=SAME)
nondiff("rt.clip_mask", "rt.clip_low", "rt.clip_high", sig=_X, batch=BROADCAST)
nondiff("attr", "str", sig=_X, batch=CREATE)
nondiff("rt.pick", sig=_X, broadcast_result=True, batch=BROADCAST,
        backward_loop=("vv", -1))  # (shapes fold through it: passes/shapefold.py)
nondiff("print", sig=_X, effect=True, batch=SAME)
# shape_query: the attribute of the same name (its value folds to a constant where shapes are known)
for _q in ("shape", "ndim", "size"):
    nondiff("xp." + _q, sig="x, *args, **kwargs", shape_query=_q, unbatched_result=True, shape_only=(0,),
            batch=by("rt.batched_" + _q), neutral=_q != "size")
nondiff("isinstance", sig="x, *args, **kwargs", unbatched_result=True, batch=by("rt.batched_isinstance"))
nondiff("rt.zeros_like_tree", sig="x, *args, **kwargs", shape_arg=0, tree_preserving=True, diag="zero",
        float_of_first=True, shape_only=(0,), batch=SAME, backward_loop=("v", 0))
nondiff("rt.new_list", sig="x, *args, **kwargs", batch=CREATE)

# ---- elementwise functions of one argument: derivative in terms of x and ans ----
# floating, and computed by the fused kernels, by reuse into a buffer, and by compiled loop kernels
# (`cuda`: the fused CUDA kernel's C function; numba's loop kernel calls `np.<name>` unless `numba`
# names the prelude's own; `numba_slow`: NumPy's SIMD loop beats numba's scalar call)
_KERNEL = {"fusable": "unary", "float_result": "always", "out_buffer": True, "loop_kernel": True}
elementwise("xp.exp", "ans", **_KERNEL, math_name="exp", cuda="exp", numba="_exp")
elementwise("xp.log", "1 / x", **_KERNEL, math_name="log", cuda="log", numba_slow=True)
elementwise("xp.sin", "xp.cos(x)", **_KERNEL, math_name="sin", cuda="sin", numba_slow=True)
elementwise("xp.cos", "-xp.sin(x)", **_KERNEL, math_name="cos", cuda="cos", numba_slow=True)
elementwise("xp.tan", "1 + ans * ans", **_KERNEL, math_name="tan", cuda="tan", numba_slow=True)
elementwise("xp.tanh", "1 - ans * ans", **_KERNEL, math_name="tanh", cuda="tanh", numba_slow=True, array_loop="_tanh_a")
elementwise("xp.sqrt", "0.5 / ans", **_KERNEL, math_name="sqrt", cuda="sqrt")
elementwise("xp.abs", "xp.sign(x)", fusable="unary", float_result="keep", out_buffer=True, loop_kernel=True,
            math_name="fabs", cheap=True, cuda="fabs", numba="_abs", real_of_complex=True)
elementwise("xp.absolute", "xp.sign(x)", float_result="keep", out_buffer=True, real_of_complex=True)
for _op in ("xp.abs", "xp.absolute"):  # at complex x (np.fft's results): JAX's conj(x) / |x|, a real tangent
    defvjp(_op, x="rt.abs_vjp(g, x)")
    defjvp(_op, x="xp.real(dx * rt.abs_slope(x))")
elementwise("xp.fabs", "xp.sign(x)", loop_kernel=True)
elementwise("xp.square", "2 * x", fusable="unary", float_result="keep", out_buffer=True, loop_kernel=True, cuda="*",
            numba="_square")
elementwise("xp.log1p", "1 / (1 + x)", **_KERNEL, math_name="log1p", cuda="log1p", numba_slow=True)
elementwise("xp.expm1", "ans + 1", **_KERNEL, math_name="expm1", cuda="expm1", numba_slow=True)
elementwise("xp.log2", "1 / (x * 0.6931471805599453)", float_result="always", out_buffer=True, math_name="log2")
elementwise("xp.log10", "1 / (x * 2.302585092994046)", float_result="always", out_buffer=True, math_name="log10")
elementwise("xp.exp2", "ans * 0.6931471805599453", out_buffer=True)
elementwise("xp.sinh", "xp.cosh(x)", **_KERNEL, math_name="sinh", cuda="sinh", numba_slow=True)
elementwise("xp.cosh", "xp.sinh(x)", **_KERNEL, math_name="cosh", cuda="cosh", numba_slow=True)
elementwise("xp.arcsin", "1 / xp.sqrt(1 - x * x)", float_result="always", out_buffer=True, loop_kernel=True,
            math_name="asin")
elementwise("xp.arccos", "-1 / xp.sqrt(1 - x * x)", float_result="always", out_buffer=True, loop_kernel=True,
            math_name="acos")
elementwise("xp.arctan", "1 / (1 + x * x)", **_KERNEL, math_name="atan", cuda="atan", numba_slow=True)
elementwise("xp.arcsinh", "1 / xp.sqrt(x * x + 1)", float_result="always", out_buffer=True)
elementwise("xp.arccosh", "1 / xp.sqrt(x * x - 1)", float_result="always")
elementwise("xp.arctanh", "1 / (1 - x * x)", float_result="always")
elementwise("xp.reciprocal", "-ans * ans", float_result="always")
elementwise("xp.cbrt", "1 / (3 * ans * ans)", float_result="always")
elementwise("xp.sinc", "rt.sinc_deriv(x)")
elementwise("abs", "xp.sign(x)", loop_kernel=True, builtin="abs", number_result="keep", real_of_complex=True)
elementwise("rt.log0", "rt.inv0(x) * (x > 0)")
elementwise("rt.inv0", "-ans * ans")
# tanh as authors write it with exp (transforms/tanh_idioms.py): the value as written, tanh's derivative
elementwise("rt.tanh_by_exp", "1 - ans * ans", float_result="always", written_out="(exp(2x) - 1) / (exp(2x) + 1)")
elementwise("rt.tanh_by_exps", "1 - ans * ans", float_result="always",
            written_out="(exp(x) - exp(-x)) / (exp(x) + exp(-x))")
# softmax as authors write it with exp (transforms/softmax_idioms.py): the value as written, softmax's derivative
prim("rt.softmax_by_exp", "x, max_axis=None, sum_axis=None", same_shape=True, float_result="always",
     zero_args=("max_axis", "sum_axis"), written_out="exp(x - max(x)) / sum(exp(x - max(x)))",
     batch=along("max_axis", "sum_axis", none="all"))
defvjp("rt.softmax_by_exp", x="ans * (g - xp.sum(g * ans, axis=sum_axis, keepdims=True))")
defjvp("rt.softmax_by_exp", x="ans * (dx - xp.sum(dx * ans, axis=sum_axis, keepdims=True))")
prim("xp.arctan2", "x, y", broadcasting=True, math_name="atan2")
defvjp("xp.arctan2", x="rt.unbroadcast(g * y / (x * x + y * y), x)",
       y="rt.unbroadcast(-g * x / (x * x + y * y), y)")
defjvp("xp.arctan2", x="dx * y / (x * x + y * y)", y="-dy * x / (x * x + y * y)")
prim("xp.logaddexp", "x, y", broadcasting=True)
defvjp("xp.logaddexp", x="rt.unbroadcast(g * xp.exp(x - ans), x)", y="rt.unbroadcast(g * xp.exp(y - ans), y)")
defjvp("xp.logaddexp", x="dx * xp.exp(x - ans)", y="dy * xp.exp(y - ans)")
prim("xp.where", "condition, x, y", broadcasting=True, zero_args=("condition",), fusable="binary",
     float_result="keep", cheap=True, widened=array_fill.make_where)  # (CuPy's needs an array condition)
defvjp("xp.where", x="rt.unbroadcast(xp.where(condition, g, 0.0), x)",
       y="rt.unbroadcast(xp.where(condition, 0.0, g), y)")
defjvp("xp.where", x="xp.where(condition, dx, 0.0)", y="xp.where(condition, 0.0, dy)")
prim("xp.clip", "a, a_min=None, a_max=None", broadcasting=True, methods=("clip",))
# crossed bounds (a_min > a_max): NumPy's value is a_max everywhere (clip_mask is then all False)
defvjp("xp.clip", a="rt.unbroadcast(g * rt.clip_mask(a, a_min, a_max), a)",
       a_min="rt.unbroadcast(g * rt.clip_low(a, a_min, a_max), a_min)",
       a_max="rt.unbroadcast(g * rt.clip_high(a, a_min, a_max), a_max)")
defjvp("xp.clip", a="da * rt.clip_mask(a, a_min, a_max)", a_min="da_min * rt.clip_low(a, a_min, a_max)",
       a_max="da_max * rt.clip_high(a, a_min, a_max)")

# ---- reductions ----
# reduction: `a.<name>(axis)` computes it too, and shapes fold through it (passes/shapefold.py)
linear("xp.sum", "a, axis=None, dtype=None, out=None, keepdims=False", "a", "rt.sum_vjp(g, a, axis, keepdims)",
       full_reduction=True, reduction=True, float_result="keep", methods=("sum",), batch=UFUNC_REDUCE,
       array_loop="_sum1")
linear("xp.mean", "a, axis=None, dtype=None, out=None, keepdims=False", "a", "rt.mean_vjp(g, a, axis, keepdims)",
       full_reduction=True, reduction=True, float_result="always", methods=("mean",), batch=REDUCE)
for _op in ("xp.max", "xp.amax", "xp.min", "xp.amin"):
    prim(_op, "a, axis=None, out=None, keepdims=False", zero_args=REST, full_reduction=True, reduction=True,
         methods=() if _op.startswith("xp.a") else (_op[3:],), batch=UFUNC_REDUCE,
         dask=_op[4:] if _op.startswith("xp.a") else "",  # (Dask's amax is `max`)
         array_loop="_max1" if "max" in _op else "_min1")
    defvjp(_op, a="rt.max_vjp(g, a, ans, axis, keepdims)")
    defjvp(_op, a="rt.max_jvp(da, a, ans, axis, keepdims)")
prim("xp.prod", "a, axis=None, dtype=None, out=None, keepdims=False", zero_args=REST, full_reduction=True,
     reduction=True, methods=("prod",), batch=UFUNC_REDUCE)
defvjp("xp.prod", a="rt.sum_vjp(g, a, axis, keepdims) * rt.prod_others(a, axis)")  # exact at zeros
defjvp("xp.prod", a="xp.sum(da * rt.prod_others(a, axis), axis=axis, keepdims=keepdims)")
# prod's derivatives to order 6: element i of rt.prod_others(a, axis) is the product of the other
# entries, the k-direction helpers (rt.prod_others_jvp, rt.prod_others_<k>) its derivatives along d1..dk;
# each one's derivative is the next (their Jacobians are symmetric); the last one's is refused
_PROD_OTHERS = ["rt.prod_others", "rt.prod_others_jvp"] + [f"rt.prod_others_{_k}" for _k in range(2, 6)]


def _prod_call(name, dirs):
    return f"{name}({', '.join(dirs + ['a', 'axis'])})"


for _k, _name in enumerate(_PROD_OTHERS):
    _ds = ["d"] if _k == 1 else [f"d{_j}" for _j in range(1, _k + 1)]
    prim(_name, ", ".join(_ds + ["a", "axis=None"]), zero_args=("axis",), batch=by("rt.batched_" + _name[3:]))
    if _k + 1 < len(_PROD_OTHERS):
        defvjp(_name, a=_prod_call(_PROD_OTHERS[_k + 1], _ds + ["g"]))
        defjvp(_name, a=_prod_call(_PROD_OTHERS[_k + 1], _ds + ["da"]))
    else:
        defvjp(_name, a="rt.no_derivative(g, 'np.prod beyond its sixth derivative')")
        defjvp(_name, a="rt.no_derivative(da, 'np.prod beyond its sixth derivative')")
    for _d in _ds:
        defvjp(_name, **{_d: _prod_call(_name, [o for o in _ds if o != _d] + ["g"])})
        defjvp(_name, **{_d: _prod_call(_name, [("d" + o if o == _d else o) for o in _ds])})
prim("xp.var", "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", zero_args=REST, full_reduction=True,
     methods=("var",), batch=REDUCE, rewrites="ddof_alias")
defvjp("xp.var", a="rt.var_vjp(g, a, axis, ddof, keepdims)")
defjvp("xp.var", a="rt.var_jvp(da, a, axis, ddof, keepdims)")
prim("xp.std", "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", zero_args=REST, full_reduction=True,
     methods=("std",), batch=REDUCE, rewrites="ddof_alias")
# at zero variance std's derivative is taken as 0 (not NaN), and so where the entries are equal up
# to roundoff (std within a few ulps of the largest entry: NumPy's std of three equal numbers is
# 1e-17 where their mean rounds, and (a - mean) / std would be roundoff's O(1))
_STD_INV = "rt.inv0(ans * (ans > 1e-15 * xp.max(xp.abs(a), axis=axis, keepdims=keepdims)))"
defvjp("xp.std", a=f"rt.var_vjp(g * 0.5 * {_STD_INV}, a, axis, ddof, keepdims)")
defjvp("xp.std", a=f"rt.var_jvp(da, a, axis, ddof, keepdims) * 0.5 * {_STD_INV}")
linear("xp.cumsum", "a, axis=None, dtype=None, out=None", "a", "rt.cumsum_vjp(g, a, axis)", methods=("cumsum",),
       batch=UFUNC_SCAN)
linear("xp.trace", "a, offset=0, axis1=0, axis2=1", "a", "rt.trace_vjp(g, a, offset, axis1, axis2)", methods=("trace",),
       batch=along("axis1", "axis2"))
# a host number moved to the backend of `like` (in helpers s2s differentiates): the identity on v
linear("rt.on_backend_of", "v, like", "v", "rt.on_backend_of(g, like)", batch=SAME, batched_by="v")

# ---- shape manipulation: linear in the array ----
linear("xp.reshape", "a, newshape=None, order='C', shape=None", "a", "xp.reshape(g, xp.shape(a))", methods=("reshape",),
       batch=by("rt.batched_reshape"), unmodelled=("order",), rewrites="shape_order")  # (order="F": keyword_calls.py)
for _op in ("xp.ravel", "xp.squeeze", "xp.expand_dims", "xp.atleast_1d", "xp.atleast_2d",
            "xp.broadcast_to"):
    linear(_op, "a, axis=None, shape=None", "a", "rt.unbroadcast(xp.reshape(g, xp.shape(g)), a)"
           if _op == "xp.broadcast_to" else "xp.reshape(g, xp.shape(a))",
           methods={"xp.ravel": ("ravel", "flatten"), "xp.squeeze": ("squeeze",)}.get(_op, ()),
           # (order="F", several arrays: frontend/keyword_calls.py)
           rewrites={"xp.ravel": "flat_order", "xp.atleast_1d": "each_array", "xp.atleast_2d": "each_array"}.get(_op, ""),
           batch=along("axis", number=True) if _op == "xp.expand_dims" else by("rt.batched_" + _op[3:]))
linear("xp.transpose", "a, axes=None", "a", "rt.transpose_vjp(g, axes)", methods=("transpose",), reverses_axes=True,
       batch=by("rt.batched_transpose"))
linear("xp.swapaxes", "a, axis1, axis2", "a", "xp.swapaxes(g, axis1, axis2)", methods=("swapaxes",),
       batch=along("axis1", "axis2"))
linear("xp.moveaxis", "a, source, destination", "a", "xp.moveaxis(g, destination, source)",
       batch=along("source", "destination"))
linear("xp.flip", "m, axis=None", "m", "xp.flip(g, axis)", batch=along("axis", none="all"))
linear("xp.roll", "a, shift, axis=None", "a", "rt.roll_vjp(g, shift, axis)", batch=by("rt.batched_roll"))
# a cotangent in its primal's dtype
linear("rt.cast_like", "v, like", "v", "rt.cast_like(g, v)", diag="same", shape_only=(1,), batch=SAME)
prim("rt.cast_to", "v, like", zero_args=("like",), batch=SAME)  # values stored into an array take its dtype
defvjp("rt.cast_to", v="rt.cast_to_d(g, like)")
defjvp("rt.cast_to", v="rt.cast_to_d(dv, like)")
linear("rt.cast_to_d", "t, like", "t", "rt.cast_to_d(g, like)", aliasing=True, batch=SAME)
linear("rt.diag_vjp", "v, like, k", "v", "xp.diag(g, k)")  # extract <-> place on the diagonal
linear("xp.tile", "A, reps", "A", "rt.tile_vjp(g, A, reps)", batch=by("rt.batched_tile"))
linear("xp.repeat", "a, repeats, axis=None", "a", "rt.repeat_vjp(g, a, repeats, axis)", methods=("repeat",),
       batch=UFUNC_SCAN)
# (a 1-D m is a row broadcast to a square: its cotangent is summed back over the rows)
linear("xp.triu", "m, k=0", "m", "rt.unbroadcast(xp.triu(g, k), m)", batch=by("rt.batched_triu"))
linear("xp.tril", "m, k=0", "m", "rt.unbroadcast(xp.tril(g, k), m)", batch=by("rt.batched_tril"))
linear("xp.stack", "arrays, axis=0", "arrays", "rt.unstack(g, arrays, axis)", list_args=("arrays",),
       batch=along("axis", number=True))
linear("xp.concatenate", "arrays, axis=0", "arrays", "rt.split_like(g, arrays, axis)", list_args=("arrays",),
       batch=along("axis", none="flat"))
linear("xp.hstack", "tup", "tup", "rt.split_like(g, tup, rt.hstack_axis(tup))", list_args=("tup",),
       batch=by("rt.batched_hstack"), dtype_by_cast=True)
linear("xp.vstack", "tup", "tup", "rt.vstack_vjp(g, tup)", list_args=("tup",), batch=by("rt.batched_vstack"),
       dtype_by_cast=True)
linear("rt.vstack_vjp", "v, tup", "v", "xp.vstack(g)", batch=LOOP)
# np.r_[...] and np.c_[...]
linear("rt.r_", "items", "items", "rt.r_vjp(g, items)", list_args=("items",), batch=by("rt.batched_r_"),
       index_trick=np.r_)
linear("rt.r_vjp", "g_, items", "g_", "rt.r_(g)")
linear("rt.c_", "items", "items", "rt.c_vjp(g, items)", list_args=("items",), batch=by("rt.batched_c_"),
       index_trick=np.c_)
linear("rt.c_vjp", "g_, items", "g_", "rt.c_(g)")
linear("xp.full", "shape, fill_value, dtype=None", "fill_value", "rt.unbroadcast(g, fill_value)",
       batch=by("rt.batched_full", fixed=("shape", "dtype")))
prim("xp.linspace", "start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0",
     zero_args=("num", "endpoint", "retstep", "dtype", "axis"), unmodelled=("retstep",), rewrites="with_step",
                batch=by("rt.batched_linspace", fixed=("num", "endpoint", "retstep", "dtype", "axis")))
defvjp("xp.linspace", start="rt.linspace_vjp(g, start, stop, num, endpoint, axis, 0)",
       stop="rt.linspace_vjp(g, start, stop, num, endpoint, axis, 1)")
defjvp("xp.linspace", start="rt.linspace_jvp(dstart, start, stop, num, endpoint, axis, 0)",
       stop="rt.linspace_jvp(dstop, start, stop, num, endpoint, axis, 1)")
prim("rt.linspace_vjp", "g_, start, stop, num, endpoint, axis, which", zero_args=REST)
prim("rt.linspace_jvp", "d, start, stop, num, endpoint, axis, which", zero_args=REST)
defvjp("rt.linspace_vjp", g_="rt.linspace_jvp(g, start, stop, num, endpoint, axis, which)")
defjvp("rt.linspace_vjp", g_="rt.linspace_vjp(dg_, start, stop, num, endpoint, axis, which)")
defvjp("rt.linspace_jvp", d="rt.linspace_vjp(g, start, stop, num, endpoint, axis, which)")
defjvp("rt.linspace_jvp", d="rt.linspace_jvp(dd, start, stop, num, endpoint, axis, which)")
prim("xp.full_like", "a, fill_value, dtype=None", zero_args=("a", "dtype"), result_like=0,
     batch=by("rt.batched_full_like", fixed=("dtype",)))
defvjp("xp.full_like", fill_value="rt.unbroadcast(g, fill_value)")
defjvp("xp.full_like", fill_value="rt.broadcast_to_like(dfill_value, ans)")

# ---- runtime helpers that appear in derivative code: their own rules make higher orders work ----
# (shape_arg: an argument used only for its shape; result_like: the result is an array of that
# argument's shape; aliasing: may hand back an input itself; fill: (g, like, axis, keepdims) -> g
# broadcast to like's shape)
linear("rt.unbroadcast", "v, like", "v", "rt.broadcast_to_like(g, v)", shape_arg=1, result_like=1, aliasing=True,
       float_of_first=True, shape_only=(1,), batch=by("rt.batched_unbroadcast"), backward_loop=("vv", 0))
linear("rt.broadcast_to_like", "v, like", "v", "rt.unbroadcast(g, v)", shape_arg=1, result_like=1, aliasing=True,
       diag="same", shape_only=(1,), batch=by("rt.batched_broadcast_to_like"))
linear("rt.sum_vjp", "v, like, axis, keepdims", "v", "xp.sum(g, axis=axis, keepdims=keepdims)", shape_arg=1,
       result_like=1, fill=True, shape_only=(1,), batch=by("rt.batched_sum_vjp"), backward_loop=("vvnf", 1))
linear("rt.mean_vjp", "v, like, axis, keepdims", "v", "xp.mean(g, axis=axis, keepdims=keepdims)", shape_arg=1,
       result_like=1, fill=True, shape_only=(1,), batch=by("rt.batched_mean_vjp"))
linear("rt.array_vjp", "v, like", "v", "rt.reshape_like(rt.real_like(xp.array(g), v), v)", aliasing=True,
       batch=LOOP)  # (real_like: np.real's cotangent g at complex x is real; so is the cotangent of g)
linear("rt.transpose_vjp", "v, axes", "v", "xp.transpose(g, axes)", reverses_axes=True, batch=by("rt.batched_transpose_vjp"))
linear("rt.unstack", "v, like, axis", "v", "xp.stack(g, axis)", batch=LOOP)
linear("rt.split_like", "v, like, axis", "v", "rt.join_like(g, axis)", batch=LOOP)
linear("rt.join_like", "parts, axis", "parts", "rt.split_like(g, parts, axis)", list_args=("parts",), batch=LOOP)
linear("rt.cumsum_vjp", "v, like, axis", "v", "rt.reshape_like(xp.cumsum(g, axis), v)", batch=by("rt.batched_cumsum_vjp"))
linear("rt.reshape_like", "v, like", "v", "rt.reshape_like(g, v)", shape_only=(1,), batch=by("rt.batched_reshape_like"))
# cotangent_of: the cotangent of the product's argument at this position (shaped like it)
prim("rt.dot_vjp_a", "v, a, b", zero_args=("a",), cotangent_of=1, diag_form="rt.dot_vjp_a_diag",
     batch=by("rt.batched_dot_vjp_a"))
defvjp("rt.dot_vjp_a", v="rt.dot_vjp_a_t(g, v, a, b)", b="rt.dot_vjp_b(v, g, b)")
defjvp("rt.dot_vjp_a", v="rt.dot_vjp_a(dv, a, b)", b="rt.dot_vjp_a(v, a, db)")
prim("rt.dot_vjp_b", "v, a, b", zero_args=("b",), cotangent_of=2, diag_form="rt.dot_vjp_b_diag",
     batch=by("rt.batched_dot_vjp_b"))
defvjp("rt.dot_vjp_b", v="rt.dot_vjp_b_t(g, v, a, b)", a="rt.dot_vjp_a(v, a, g)")
defjvp("rt.dot_vjp_b", v="rt.dot_vjp_b(dv, a, b)", a="rt.dot_vjp_b(v, da, b)")
# dot_vjp_a_t(v, like, a, b) is the product with v in a's place, dot_vjp_b_t(v, like, a, b) with v in b's
# place: bilinear, so their other factor carries a derivative too (third and higher orders)
prim("rt.dot_vjp_a_t", "v, like, a, b", zero_args=("like", "a"), batch=LOOP)
defvjp("rt.dot_vjp_a_t", v="rt.dot_vjp_a(g, a, b)", b="rt.dot_vjp_b(g, v, b)")
defjvp("rt.dot_vjp_a_t", v="rt.dot_vjp_a_t(dv, like, a, b)", b="rt.dot_vjp_a_t(v, like, a, db)")
prim("rt.dot_vjp_b_t", "v, like, a, b", zero_args=("like", "b"), batch=LOOP)
defvjp("rt.dot_vjp_b_t", v="rt.dot_vjp_b(g, a, b)", a="rt.dot_vjp_a(g, a, v)")
defjvp("rt.dot_vjp_b_t", v="rt.dot_vjp_b_t(dv, like, a, b)", a="rt.dot_vjp_b_t(v, like, da, b)")


# known per-example ranks (vmap specialized on its arguments' ranks): products and their
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


prim("rt.outer_vjp_a", "v, a, b", zero_args=("a",), batch=LOOP)
defvjp("rt.outer_vjp_a", v="xp.outer(g, b)", b="rt.outer_vjp_b(v, g, b)")
defjvp("rt.outer_vjp_a", v="rt.outer_vjp_a(dv, a, b)", b="rt.outer_vjp_a(v, a, db)")
prim("rt.outer_vjp_b", "v, a, b", zero_args=("b",), batch=LOOP)
defvjp("rt.outer_vjp_b", v="xp.outer(a, g)", a="rt.outer_vjp_a(v, a, g)")
defjvp("rt.outer_vjp_b", v="rt.outer_vjp_b(dv, a, b)", a="rt.outer_vjp_b(v, da, b)")
prim("rt.max_vjp", "v, a, ans_, axis, keepdims", zero_args=REST, batch=by("rt.batched_max_vjp"),
     backward_loop=("vvvnf", 1))
defvjp("rt.max_vjp", v="rt.max_jvp(g, a, ans_, axis, keepdims)")
defjvp("rt.max_vjp", v="rt.max_vjp(dv, a, ans_, axis, keepdims)")
linear("rt.max_jvp", "v, a, ans_, axis, keepdims", "v", "rt.max_vjp(g, a, ans_, axis, keepdims)",
       batch=by("rt.batched_max_jvp"))
for _op in ("rt.basis", "rt.tree_size"):
    nondiff(_op, sig="x, *args", unbatched_result=True, batch=by("rt.batched_" + _op[3:]))
nondiff("rt.check_norm_ord", sig="x, *args", batch=CREATE)
# grad's check that the output is a scalar (a pair with has_aux): an effect, kept when a further
# transform needs nothing of its value (grad of grad of a tuple-valued function raises as grad does)
nondiff("rt.seed", sig="x, *args", float_of_first=True, effect=True)
nondiff("rt.seed_aux", sig="x, *args", effect=True, batch=LOOP)
nondiff("rt.zeros_list", sig="x, *args", batch=SAME)
nondiff("slice", sig="x, *args", batch=CREATE)
nondiff("rt.constant", diag="same", batch=SAME)  # a saved value computed from no argument (reverse.constants_refused)
# (a range read back from a batched record is still one range: the batched helper checks it is one)
nondiff("rt.reversed_range", sig="x, *args", range_result=True, unbatched_result=True,
        batch=by("rt.batched_reversed_range"))
nondiff("rt.tree_all_zero", sig="x, *args", unbatched_result=True, batch=by("rt.batched_tree_all_zero"))
linear("rt.jac_from_columns", "cols, out, x", "cols", "rt.jac_columns_t(g, cols, out, x)",
       batch=by("rt.batched_jac_from_columns"))
linear("rt.jac_from_rows", "rows, out, x", "rows", "rt.jac_rows_t(g, rows, out, x)", batch=by("rt.batched_jac_from_rows"))
linear("rt.jac_columns_t", "g_, cols, out, x", "g_", "rt.jac_from_columns(g, out, x)", batch=LOOP)
linear("rt.jac_rows_t", "g_, rows, out, x", "g_", "rt.jac_from_rows(g, out, x)", batch=LOOP)
# (tree_args: positions of arguments that may be whole pytrees, whose adjoints add leaf by leaf;
# tree_preserving: a pytree when its first argument is one)
linear("rt.copy_saved", "saved", "saved", "g", tree_preserving=True, batch=SAME, record_copy=True)
linear("rt.private", "record, arrays", "record", "g", tree_preserving=True, batch=SAME, record_copy=True)
linear("rt.fresh", "x", "x", "g", aliasing=True, tree_preserving=True, diag="same", batch=SAME, backward_loop=("v", 0))
# a sequence's cotangent parts in its container type
linear("rt.like", "parts, src", "parts", "rt.like(g, parts)", aliasing=True, tree_args=(0, 1), tree_preserving=True,
       batch=by("rt.batched_like"))
prim("rt.tree_add", "a, b", tree_sum=True, aliasing=True, tree_preserving=True, batch=BROADCAST)
defvjp("rt.tree_add", a="g", b="g")
defjvp("rt.tree_add", a="da", b="db")
prim("rt.add_at", "acc, index, v", zero_args=("index",), tree_sum=True, mutates=True, tree_args=(0, 2),
     backward_loop=("viv", 0))
defvjp("rt.add_at", acc="g", v="g[index]")
defjvp("rt.add_at", acc="rt.fresh(dacc)", v="rt.add_at(rt.zeros_like_tree(acc), index, dv)")
linear("rt.copy_slot", "x, index", "x", "rt.add_at(rt.zeros_like_tree(x), index, g)", batch=LOOP)
prim("rt.restore_slot", "x, index, v", nondiff=True, effect=True, mutates=True, batch=LOOP)  # (a dict's item)
# a 0-d element read copied before a tuple assignment writes its array (frontend/normalize.py)
linear("rt.element_copy", "x", "x", "g", same_shape=True, diag="same", batch=SAME)
# what the tape keeps of a value read only for its shape (transforms/tape.py)
nondiff("rt.shape_stub", float_of_first=True, batch=SAME)
linear("rt.checkpoint_name", "x, name", "x", "g", batch=SAME)  # s2s.checkpoint_name: x, named for a checkpoint policy
defjvp("rt.checkpoint_name", x="dx")
prim("rt.next_residual", "residuals")  # a value an s2s.checkpoint policy saved, replayed
defvjp("rt.next_residual", residuals="rt.residual_derivative(g)")
defjvp("rt.next_residual", residuals="rt.residual_derivative(dresiduals)")
prim("rt.residual_derivative", "g", nondiff=True)
# the schedule of a checkpointed loop (runtime/checkpoints.py): bookkeeping, no derivative
prim("rt.checkpoint_schedule", "trips, budget", nondiff=True)
# (vmap refuses to batch the snapshots, "create": vmap(grad(f, checkpoint=...)) runs as grad of the batched f)
prim("rt.checkpoint_save", "ck, *state", nondiff=True, effect=True, batch=BatchRule("create"))
prim("rt.checkpoint_store", "act, *state", nondiff=True, effect=True, batch=BatchRule("create"))
nondiff("rt.checkpoint_plan", "rt.checkpoint_advance", "rt.checkpoint_range", sig="ck, *args")
nondiff("rt.checkpoint_restore", sig="ck, *args", restores=True)
linear("rt.zero_at", "acc, index", "acc", "rt.zero_at(rt.fresh(g), index)", mutates=True, batch=LOOP,
       backward_loop=("vi", 0))
prim("rt.take_at", "acc, index, like", zero_args=("index", "like"), tree_sum=True, mutates=True, batch=LOOP)
defjvp("rt.take_at", acc="rt.take_at(rt.fresh(dacc), index, like)")
defvjp("rt.take_at", acc="rt.take_at_t(g, index, acc)")
linear("rt.take_at_t", "g_, index, acc", "g_", "rt.take_at(rt.fresh(g), index, g_[0])", batch=LOOP)
# `x + y` and `x * n` where an operand may be a list or tuple (concatenation, repetition): the reverse
# transform's cotangent of operand `me`, decided at run time; bilinear in (v, other) for arrays
prim("rt.operand_cotangent", "ct, operand, other, op, operand_first, wrt_other=0", zero_args=("operand", "op",
    "operand_first", "wrt_other"), tree_sum=True,
     aliasing=True, tree_args=(0, 2), shape_only=(1,), shape_only_for=(("op", "add", (2,)),))
defvjp("rt.operand_cotangent", ct="rt.operand_cotangent_t(g, ct, operand, other, op, operand_first, wrt_other)",
       other="rt.operand_cotangent(ct, other, g, op, operand_first, 1)")
defjvp("rt.operand_cotangent", ct="rt.operand_cotangent(dct, operand, other, op, operand_first, wrt_other)",
       other="rt.operand_cotangent(ct, operand, dother, op, operand_first, 1)")
prim("rt.operand_cotangent_t", "g_, ct, operand, other, op, operand_first, wrt_other=0", zero_args=("ct", "operand", "op",
    "operand_first", "wrt_other"), tree_sum=True,
     aliasing=True, tree_args=(0, 3))
defvjp("rt.operand_cotangent_t", g_="rt.operand_cotangent(g, operand, other, op, operand_first, wrt_other)",
       other="rt.operand_cotangent(g, other, g_, op, operand_first, 1)")
defjvp("rt.operand_cotangent_t", g_="rt.operand_cotangent_t(dg_, ct, operand, other, op, operand_first, wrt_other)",
       other="rt.operand_cotangent_t(g_, ct, operand, dother, op, operand_first, 1)")
linear("tuple", "x", "x", "rt.like(g, x)", tree_args=(0,), batch=by("rt.batched_tuple"))
linear("list", "x", "x", "rt.like(g, x)", tree_args=(0,), batch=by("rt.batched_list"))
linear("rt.list_sum", "items", "items", "rt.list_sum_vjp(g, items)", builtin="sum", batch=by("rt.batched_list_sum"))
linear("rt.list_sum_vjp", "g_, items", "g_", "rt.list_sum(g)", batch=LOOP)

# ---- NumPy coverage tables (one file per family) ----
from . import (  # noqa: E402,F401
    rules_conv,
    rules_dtypes,
    rules_fft,
    rules_guards,
    rules_handlers,
    rules_linalg,
    rules_masked,
    rules_math,
    rules_objects,
    rules_python,
    rules_reduce,
    rules_sets,
    rules_shape,
    rules_signal,
    rules_spaces,
    rules_special,
    rules_trees,
    rules_updates,
    rules_views,
)

rules_fft.real_primals_only()  # (rules written for real arrays refuse a complex one: every family is declared now)

