"""SciPy's special functions that are primitives (s2s.scipy.special; runtime/special.py computes
them). Each derivative is written with primitives of this family, so every order has rules:
d gammaln = digamma, d digamma = polygamma(1, .), d polygamma(n, .) = polygamma(n + 1, .), the
inverse functions' derivatives through their own output (`ans`)."""
from __future__ import annotations

from .registry import BROADCAST, SAME, defjvp, defvjp, elementwise, nondiff, prim, refuse

_FACTS = {"float_result": "always", "batch": SAME}
elementwise("rt.gammaln", "rt.digamma(x)", **_FACTS)
elementwise("rt.digamma", "rt.polygamma(1, x)", **_FACTS)
elementwise("rt.erf", "1.1283791670955126 * xp.exp(-x * x)", **_FACTS)     # 2 / sqrt(pi) exp(-x^2)
elementwise("rt.erfc", "-1.1283791670955126 * xp.exp(-x * x)", **_FACTS)
elementwise("rt.erfinv", "0.886226925452758 * xp.exp(ans * ans)", **_FACTS)  # sqrt(pi) / 2 exp(erfinv(x)^2)
elementwise("rt.ndtri", "2.5066282746310002 * xp.exp(0.5 * ans * ans)", **_FACTS)  # 1 / normal pdf(ndtri(x))
elementwise("rt.log_ndtr", "0.3989422804014327 * xp.exp(-0.5 * x * x - ans)", **_FACTS)  # pdf(x) / ndtr(x)
elementwise("rt.i0e", "rt.i1e(x) - xp.sign(x) * ans", **_FACTS)
# i1e' = i0e - i1e (sign(x) + 1 / x), whose limit at x = 0 is 1/2
elementwise("rt.i1e", "xp.where(x == 0, 0.5, rt.i0e(x) - ans * (xp.sign(x) + 1.0 / xp.where(x == 0, 1.0, x)))",
            **_FACTS)
prim("rt.polygamma", "n, x", broadcasting=True, zero_args=("n",), float_result="always", batch=BROADCAST)
defvjp("rt.polygamma", x="rt.unbroadcast(g * rt.polygamma(n + 1, x), x)")
defjvp("rt.polygamma", x="dx * rt.polygamma(n + 1, x)")
# the incomplete gamma and beta functions: derivatives in x; in the shape parameters SciPy has no
# formula, so a derivative there is an error when it is needed (never a silent zero)
_NO_SHAPE_DERIVATIVE = "rt.scipy_unsupported('s2s.scipy.special.{f}: no derivative in its shape parameter {p}', g)"
_DGAMMAINC = "xp.exp(-x - rt.gammaln(a)) * x ** (a - 1)"  # x^(a-1) e^-x / Gamma(a)
for _f, _sign in (("gammainc", ""), ("gammaincc", "-")):
    prim(f"rt.{_f}", "a, x", broadcasting=True, float_result="always", batch=BROADCAST)
    defvjp(f"rt.{_f}", x=f"rt.unbroadcast({_sign}g * {_DGAMMAINC}, x)", a=_NO_SHAPE_DERIVATIVE.format(f=_f, p="a"))
    defjvp(f"rt.{_f}", x=f"{_sign}dx * {_DGAMMAINC}", a=_NO_SHAPE_DERIVATIVE.format(f=_f, p="a").replace(", g)", ", da)"))
_DBETAINC = "x ** (a - 1) * (1 - x) ** (b - 1) * xp.exp(rt.gammaln(a + b) - rt.gammaln(a) - rt.gammaln(b))"
prim("rt.betainc", "a, b, x", broadcasting=True, float_result="always", batch=BROADCAST)
defvjp("rt.betainc", x=f"rt.unbroadcast(g * {_DBETAINC}, x)", a=_NO_SHAPE_DERIVATIVE.format(f="betainc", p="a"),
       b=_NO_SHAPE_DERIVATIVE.format(f="betainc", p="b"))
defjvp("rt.betainc", x=f"dx * {_DBETAINC}", a=_NO_SHAPE_DERIVATIVE.format(f="betainc", p="a").replace(", g)", ", da)"),
       b=_NO_SHAPE_DERIVATIVE.format(f="betainc", p="b").replace(", g)", ", db)"))
# Gamma and its sign, the inverse erfc; Bessel functions (d/dx of order 0 is minus order 1, of order 1
# order 0 minus order 1 over x, whose limit at 0 is 1/2)
elementwise("rt.gamma", "ans * rt.digamma(x)", **_FACTS)
elementwise("rt.rgamma", "-ans * rt.digamma(x)", **_FACTS)
nondiff("rt.gammasgn", float_result="always", same_shape=True, batch=SAME)  # piecewise constant
elementwise("rt.erfcinv", "-0.886226925452758 * xp.exp(ans * ans)", **_FACTS)  # -sqrt(pi) / 2 exp(erfcinv(x)^2)
elementwise("rt.i0", "rt.i1(x)", **_FACTS)
elementwise("xp.i0", "rt.i1(x)", **_FACTS)  # np.i0: NumPy computes the value, its derivative is I1
elementwise("rt.i1", "xp.where(x == 0, 0.5, rt.i0(x) - ans / xp.where(x == 0, 1.0, x))", **_FACTS)
elementwise("rt.j0", "-rt.j1(x)", **_FACTS)
elementwise("rt.j1", "xp.where(x == 0, 0.5, rt.j0(x) - ans / xp.where(x == 0, 1.0, x))", **_FACTS)
elementwise("rt.y0", "-rt.y1(x)", **_FACTS)
elementwise("rt.y1", "rt.y0(x) - ans / x", **_FACTS)
# Bessel functions of order v: d/dx by the recurrences in v (order v - 1 at v = 0 is the reflected
# order, which SciPy computes); as in JAX and autograd the order is not differentiated: a
# derivative reaching it is an error, never a silent zero
_ORDER_DX = {"jn": "(rt.jn(n - 1, x) - rt.jn(n + 1, x)) / 2", "yn": "(rt.yn(n - 1, x) - rt.yn(n + 1, x)) / 2",
             "iv": "(rt.iv(n - 1, x) + rt.iv(n + 1, x)) / 2",
             "ive": "(rt.ive(n - 1, x) + rt.ive(n + 1, x)) / 2 - xp.sign(x) * ans"}
nondiff("rt.order_of", batch=SAME)  # (the order in those rules: no derivative of a rule reaches it)
for _f, _dx in _ORDER_DX.items():
    _dx = _dx.replace("(n ", "(rt.order_of(v) ")
    prim(f"rt.{_f}", "v, x", broadcasting=True, float_result="always", batch=BROADCAST)
    defvjp(f"rt.{_f}", x=f"rt.unbroadcast(g * ({_dx}), x)")
    defjvp(f"rt.{_f}", x=f"dx * ({_dx})")
    refuse(f"rt.{_f}", f"scipy.special.{_f} in its order (the first argument)", "v")
# Student's t CDF: d/dt is the t density; no derivative in the degrees of freedom
_T_PDF = "xp.exp(rt.gammaln(0.5 * (df + 1)) - rt.gammaln(0.5 * df) - 0.5 * xp.log(3.141592653589793 * df) " \
         "- 0.5 * (df + 1) * xp.log1p(t * t / df))"
prim("rt.stdtr", "df, t", broadcasting=True, float_result="always", batch=BROADCAST)
defvjp("rt.stdtr", t=f"rt.unbroadcast(g * {_T_PDF}, t)")
defjvp("rt.stdtr", t=f"dt * {_T_PDF}")
refuse("rt.stdtr", "Student's t CDF in its degrees of freedom df", "df")
# scipy.linalg's sqrtm and solve_sylvester, by implicit differentiation: X = sqrtm(a) solves
# X dX + dX X = da, and X = solve_sylvester(a, b, q) solves a dX + dX b = dq - da X - X db; each
# cotangent solves the transposed Sylvester equation (so every order has rules: they are written
# with solve_sylvester itself)
prim("rt.sqrtm", "a", same_shape=True, batch=SAME)
defvjp("rt.sqrtm", a="rt.solve_sylvester(rt.mT(ans), rt.mT(ans), g)")
defjvp("rt.sqrtm", a="rt.solve_sylvester(ans, ans, da)")
prim("rt.solve_sylvester", "a, b, q", batch=SAME)
_GQ = "rt.solve_sylvester(rt.mT(a), rt.mT(b), g)"
defvjp("rt.solve_sylvester", q=f"rt.unbroadcast({_GQ}, q)", a=f"rt.unbroadcast(-({_GQ} @ rt.mT(ans)), a)",
       b=f"rt.unbroadcast(-(rt.mT(ans) @ {_GQ}), b)")
defjvp("rt.solve_sylvester", q="rt.solve_sylvester(a, b, dq)", a="rt.solve_sylvester(a, b, -(da @ ans))",
       b="rt.solve_sylvester(a, b, -(ans @ db))")
# reached, an error (a form s2s.scipy does not compute): never removed, moved or merged
prim("rt.scipy_unsupported", "what, value=None", nondiff=True, effect=True, batch=SAME)
# the row order of an LU factorization from its pivots (along the last axis: batched as it is)
prim("rt.lu_perm", "piv", nondiff=True, batch=SAME)
