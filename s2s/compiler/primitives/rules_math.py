"""Elementwise rules beyond the core table: the remaining differentiable ufuncs, and the
recognized functions with no derivative (rounding, predicates, integer results)."""
from __future__ import annotations

from .registry import BROADCAST, PRIMS, SAME, along, by, defbatch, defjvp, defvjp, elementwise, linear, nondiff, prim

_DEG = "0.017453292519943295"  # pi / 180
_RAD = "57.29577951308232"     # 180 / pi
for _n, _c in (("deg2rad", _DEG), ("radians", _DEG), ("rad2deg", _RAD), ("degrees", _RAD)):
    linear("xp." + _n, "x", "x", f"g * {_c}", same_shape=True)
for _n in ("conjugate", "conj"):  # (`x.conj()`, `x.conjugate()`; conj(g): JAX's convention)
    linear("xp." + _n, "x", "x", "xp.conj(g)", same_shape=True, methods=("conjugate",) if _n == "conjugate" else ("conj",),
           dask="conj" if _n == "conjugate" else "")
prim("xp.nan_to_num", "x, copy=True, nan=0.0, posinf=None, neginf=None", same_shape=True,
     zero_args=("copy", "nan", "posinf", "neginf"))
defvjp("xp.nan_to_num", x="g * xp.isfinite(x)")  # 0 where x is replaced
defjvp("xp.nan_to_num", x="dx * xp.isfinite(x)")

# ---- two arguments, broadcasting: the transformer sums cotangents back to each shape ----
prim("xp.hypot", "x, y", broadcasting=True)
defvjp("xp.hypot", x="rt.unbroadcast(g * x / ans, x)", y="rt.unbroadcast(g * y / ans, y)")
defjvp("xp.hypot", x="dx * x / ans", y="dy * y / ans")
prim("xp.logaddexp2", "x, y", broadcasting=True)
defvjp("xp.logaddexp2", x="rt.unbroadcast(g * xp.exp2(x - ans), x)", y="rt.unbroadcast(g * xp.exp2(y - ans), y)")
defjvp("xp.logaddexp2", x="dx * xp.exp2(x - ans)", y="dy * xp.exp2(y - ans)")
prim("xp.copysign", "x, y", broadcasting=True, zero_args=("y",))  # sign(x) * sign-bit of y; none in y
defvjp("xp.copysign", x="rt.unbroadcast(g * xp.sign(x) * xp.copysign(1.0, y), x)")
defjvp("xp.copysign", x="dx * xp.sign(x) * xp.copysign(1.0, y)")
for _op, _base in (("xp.float_power", "pow"), ("xp.true_divide", "div")):
    prim(_op, "x, y", broadcasting=True, float_result="always" if _op == "xp.true_divide" else "")
    defvjp(_op, **PRIMS[_base].vjp)  # the same rows as the operator, so its fixes carry over
    defjvp(_op, **PRIMS[_base].jvp)
prim("xp.ldexp", "x, y", broadcasting=True, zero_args=("y",))  # x * 2**y with integer y
defvjp("xp.ldexp", x="rt.unbroadcast(xp.ldexp(g, y), x)")
defjvp("xp.ldexp", x="xp.ldexp(dx, y)")

# ---- recognized, no derivative: integer, boolean or piecewise-constant results ----
nondiff("xp.fix", "xp.signbit", "xp.spacing", "xp.isposinf", "xp.isneginf", "xp.isreal", "xp.iscomplex",
        "xp.bitwise_not", "xp.isnat", sig="x, *args, **kwargs", batch=SAME)
# constant on real numbers (0, and 0 or pi): no derivative, but of a complex value one s2s has no rule for
elementwise("xp.imag", "rt.zero_of_real(x)", batch=SAME, real_of_complex=True)
defvjp("xp.imag", x="rt.imag_vjp(g, x)")  # at complex x (np.fft's results): -1j * g, JAX's convention
defjvp("xp.imag", x="xp.imag(dx)")
elementwise("xp.angle", "rt.zero_of_real(x)", sig="x, deg=False", zero_args=("deg",), batch=SAME,
            real_of_complex=True)
nondiff("rt.zero_of_real", batch=SAME)
nondiff("xp.bitwise_and", "xp.bitwise_or", "xp.bitwise_xor", "xp.left_shift", "xp.right_shift", "xp.gcd", "xp.lcm",
        sig="x, *args, **kwargs", batch=BROADCAST)
nondiff("xp.lexsort",  # (np.unique and the set operations: rules_sets.py)
        "xp.indices", "xp.diag_indices_from",
        "xp.tril_indices_from", "xp.triu_indices_from",
        "xp.may_share_memory", "xp.shares_memory",
        "xp.ravel_multi_index",
        sig="x, *args, **kwargs")
# neutral: on dtypes, shapes and Python values, NumPy's function serves every array library (s2s/backends/arrays.py)
nondiff("xp.isrealobj", "xp.iscomplexobj", "xp.isscalar", "xp.ix_", "xp.can_cast", "xp.promote_types", "xp.iinfo",
        "xp.finfo", "xp.mask_indices", sig="x, *args, **kwargs", neutral=True)
# with their real parameters, so that vmap knows each argument's batched flag
nondiff("xp.isin", sig="element, test_elements, assume_unique=False, invert=False, kind=None",
        batch=by("rt.batched_isin"))
nondiff("xp.digitize", sig="x, bins, right=False", batch=by("rt.batched_digitize"))
nondiff("xp.argpartition", sig="a, kth, axis=-1, kind='introselect', order=None", batch=by("rt.batched_argpartition"))
nondiff("xp.nanargmax", "xp.nanargmin", sig="a, axis=None, out=None, keepdims=False",
        batch=along("axis", none="flat", number=True))
nondiff("xp.array_equiv", sig="a, b, *args, **kwargs", batch=by("rt.batched_array_equiv"))

# ---- NumPy 2 spellings of the same functions: the same rows under the new names ----


def _alias(new: str, old: str) -> None:
    """`new`, NumPy 2's name of `old`, with its rows (Dask knows it by the old name only)."""
    src = PRIMS[old]
    sig = ", ".join(f"{a}={src.defaults[a]!r}" if a in src.defaults else a for a in src.params)
    prim(new, sig, broadcasting=src.broadcasting, nondiff=src.nondiff, same_shape=src.same_shape,
         linear_in=src.linear_in, list_args=src.list_args, full_reduction=src.full_reduction, zero_args=src.zero_args,
         dask=old[3:])
    defvjp(new, **src.vjp)
    defjvp(new, **src.jvp)


for _new, _old in (("acos", "arccos"), ("asin", "arcsin"), ("atan", "arctan"), ("acosh", "arccosh"),
                   ("asinh", "arcsinh"), ("atanh", "arctanh"), ("atan2", "arctan2"), ("pow", "power"),
                   ("concat", "concatenate")):
    _alias("xp." + _new, "xp." + _old)
defbatch("xp.concat", along("axis"))

# ---- functions with a tuple result: (differentiable part, integer part) ----
prim("xp.modf", "x", tree_sum=True, batch=SAME)  # (fractional part, integral part): d frac = dx
defvjp("xp.modf", x="g[0]")
defjvp("xp.modf", x="(dx, 0.0 * dx)")
prim("xp.frexp", "x", tree_sum=True, batch=SAME)  # x = mantissa * 2**exponent with an integer exponent
defvjp("xp.frexp", x="rt.cast_like(xp.ldexp(g[0], -ans[1]), x)")
defjvp("xp.frexp", x="(xp.ldexp(dx, -ans[1]), xp.zeros_like(ans[1]))")
