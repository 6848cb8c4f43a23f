"""np.fft's rules (s2s/runtime/fft.py computes them): each of NumPy's twelve transforms is linear in
its array, so its tangent is the transform of the tangent and its cotangent is `rt.fft_t`, the
transform's transpose under JAX's convention for complex cotangents (a real input's cotangent is
real). `rt.fft_apply` and `rt.fft_t` are each other's transposes, so every order has rules.
`fftshift`/`ifftshift` are permutations (each the other's transpose); `fftfreq`/`rfftfreq` are
`k / (n * d)`. `out=` is refused (primitives/keywords.py)."""
from __future__ import annotations

from ... import runtime as _rt
from .registry import BROADCAST, PRIMS, SAME, along, by, composite, defjvp, defvjp, linear, prim

for _k in ("fft", "ifft", "rfft", "irfft"):
    linear("xp.fft." + _k, "a, n=None, axis=-1, norm=None, out=None", "a", f"rt.fft_t(g, a, {_k!r}, n, axis, norm)",
           unmodelled=("out",), batch=along("axis"))
for _k in ("fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"):
    _axes = "(-2, -1)" if _k.endswith("2") else "None"
    linear("xp.fft." + _k, f"a, s=None, axes={_axes}, norm=None, out=None", "a",
           f"rt.fft_t(g, a, {_k!r}, s, axes, norm)", unmodelled=("out",), batch=by("rt.batched_" + _k))
linear("rt.fft_apply", "x, kind, s, axes, norm", "x", "rt.fft_t(g, x, kind, s, axes, norm)",
       batch=by("rt.batched_fft_apply"))
linear("rt.fft_t", "g_, like, kind, s, axes, norm", "g_", "rt.fft_apply(g, kind, s, axes, norm)",
       batch=by("rt.batched_fft_t"))
linear("xp.fft.fftshift", "x, axes=None", "x", "xp.fft.ifftshift(g, axes)", same_shape=True, batch=along("axes", none="all"))
linear("xp.fft.ifftshift", "x, axes=None", "x", "xp.fft.fftshift(g, axes)", same_shape=True, batch=along("axes", none="all"))
for _k in ("fftfreq", "rfftfreq"):  # k / (n * d): d's derivative is -ans / d
    prim("xp.fft." + _k, "n, d=1.0, device=None", zero_args=("n", "device"), unmodelled=("device",),
         batch=by("rt.batched_" + _k))
    defvjp("xp.fft." + _k, d="xp.sum(g * ans) / -d")
    defjvp("xp.fft." + _k, d="ans * (dd / -d)")
# np.imag's cotangent at a complex array (rules_math.py): -1j * g, whose transpose is the imaginary part
linear("rt.imag_vjp", "g_, x", "g_", "xp.imag(g)", batch=SAME)
# np.abs's derivative factor (rules.py): sign(x), or conj(x) / |x| at complex x, whose derivative is not 0
prim("rt.abs_slope", "x", same_shape=True, batch=SAME)
defvjp("rt.abs_slope", x="rt.abs_slope_vjp(g, x)")
defjvp("rt.abs_slope", x="rt.abs_slope_jvp(dx, x)")
# np.abs's cotangent g * abs_slope(x) with a real g: its transpose in g is real (reverse over reverse)
prim("rt.abs_vjp", "g_, x", same_shape=True, batch=BROADCAST)
defvjp("rt.abs_vjp", g_="rt.real_like(g * rt.abs_slope(x), g_)", x="rt.abs_slope_vjp(g * g_, x)")
defjvp("rt.abs_vjp", g_="dg_ * rt.abs_slope(x)", x="g_ * rt.abs_slope_jvp(dx, x)")
composite("rt.abs_slope_jvp", _rt.abs_slope_jvp)
composite("rt.abs_slope_vjp", _rt.abs_slope_vjp)
# np.sign: z / |z| at complex z, whose derivative is not 0 (rt.sign_jvp); a step, 0, at real x
prim("xp.sign", "x", same_shape=True, batch=SAME)
defjvp("xp.sign", x="rt.sign_jvp(dx, x)")
defvjp("xp.sign", x="rt.sign_vjp(g, x)")
# its tangent and cotangent: linear in t_ and g_, each the other's transpose (a real t_ or g_ takes
# the real part); rt.sign_hvp is the second derivative (symmetric), rt.sign_hvp_t its transpose in
# its second direction, both written in complex arithmetic, so their directions are made complex
_T, _G, _D, _C = ("rt.complex_like(t_, x)", "rt.complex_like(g_, x)", "rt.complex_like(dx, x)",
                  "rt.complex_like(g, x)")
prim("rt.sign_jvp", "t_, x", same_shape=True, batch=BROADCAST)
defjvp("rt.sign_jvp", t_="rt.sign_jvp(dt_, x)", x=f"rt.sign_hvp({_T}, {_D}, x)")
defvjp("rt.sign_jvp", t_="rt.real_like(rt.sign_vjp(g, x), t_)", x=f"rt.sign_hvp_t({_C}, {_T}, x)")
prim("rt.sign_vjp", "g_, x", same_shape=True, batch=BROADCAST)  # conj(sign_jvp(conj(g_), x))
defjvp("rt.sign_vjp", g_="rt.sign_vjp(dg_, x)", x=f"xp.conj(rt.sign_hvp(xp.conj({_G}), {_D}, x))")
defvjp("rt.sign_vjp", g_="rt.real_like(rt.sign_jvp(g, x), g_)", x=f"rt.sign_hvp_t(xp.conj({_C}), xp.conj({_G}), x)")
composite("rt.sign_hvp", _rt.sign_hvp)
composite("rt.sign_hvp_t", _rt.sign_hvp_t)
linear("rt.complex_like", "v_, x", "v_", "rt.real_like(g, v_)", same_shape=True, batch=SAME, batched_by="v_")
# a real value's cotangent: the real part of a complex one (rules.py's rt.array_vjp); its transpose is itself
linear("rt.real_like", "g_, like", "g_", "rt.real_like(g, g_)", same_shape=True, batch=SAME, batched_by="g_",
       real_of_complex=True)
# a cotangent leaving reverse mode: real_like of each leaf (of a list argument's gradient too; no
# tree_args: that would make every argument it meets a possible list, transforms/base.containers)
linear("rt.real_cotangent", "g_, like", "g_", "rt.real_cotangent(g, g_)", tree_preserving=True, diag="same",
       real_identity=True, batch=SAME, batched_by="g_")
# np.real's cotangent (rules.py): the real part of a complex one
linear("rt.real_part", "g_", "g_", "rt.real_part(g)", same_shape=True, batch=SAME, real_of_complex=True)
# the checks of a `holomorphic=True` derivative (s2s/api/holomorphic.py): the value itself, whose
# derivative is the identity (a real basis vector may be its tangent or cotangent); JAX's error
# unless the argument or output is complex
# (and rt.real_result: jacrev's, unless holomorphic, that the output is real)
for _name, _sig in (("rt.complex_arg", "x, what"), ("rt.complex_result", "x, what, aux=False"),
                    ("rt.real_result", "x, what")):
    prim(_name, _sig, zero_args=tuple(p.split("=")[0] for p in _sig.split(", ")[1:]), tree_preserving=True,
         effect=True, diag="same", real_identity=_name == "rt.real_result", batch=SAME, batched_by="x")
    defvjp(_name, x="g")
    defjvp(_name, x="dx")
# a rule written for real arrays only, refused at a complex primal (real_primals_only, below)
linear("rt.real_primal", "v, x", "v", "rt.real_primal(g, x)", tree_args=(0,), batch=SAME, batched_by="v")

# operations whose rules are right for real arrays only (they would need conjugates at complex ones)
_REAL_ONLY = {"xp.linalg.norm": ("x",), "xp.linalg.vector_norm": ("x",), "xp.linalg.matrix_norm": ("x",),
              "xp.linalg.cond": ("x",), "xp.var": ("a",), "xp.std": ("a",), "xp.nanvar": ("a",), "xp.nanstd": ("a",),
              "xp.linalg.svd": ("a",), "xp.linalg.svdvals": ("a",), "xp.linalg.eigh": ("a",),
              "xp.linalg.eigvalsh": ("a",), "xp.linalg.qr": ("a",), "xp.linalg.cholesky": ("a",),
              "xp.linalg.pinv": ("a",), "xp.linalg.lstsq": ("a", "b"), "xp.correlate": ("a", "v")}


def real_primals_only() -> None:
    """Wrap the rules of `_REAL_ONLY`'s operations in rt.real_primal: called once every family's
    rules are declared (end of rules.py)."""
    for name, args in _REAL_ONLY.items():
        p = PRIMS[name]
        for arg in list(p.vjp):
            if not p.vjp[arg].startswith("rt.real_primal("):
                defvjp(name, **{arg: _guarded(p.vjp[arg], args)})
                defjvp(name, **{arg: _guarded(p.jvp[arg], args)})


def _guarded(rule: str, args: tuple) -> str:
    for a in args:
        rule = f"rt.real_primal({rule}, {a})"
    return rule
