"""np.fft's transforms and their transposes (rules_fft): `fft_apply` computes any of NumPy's twelve
transforms by name, `fft_t` its transpose, so each is the other's reverse-mode rule and every order
has rules.

Cotangents of complex values follow JAX's convention: a cotangent `c` of a complex `z` pairs with
a tangent `dz` as `Re(c * dz)` (no conjugate), so a C-linear map's transpose is its plain
transpose, and the cotangent of a real array is real. The DFT matrix is symmetric, so the
transpose of `fft` is `fft` itself (and of `ifft`, `ifft`), followed by the transpose of NumPy's
padding or cropping to `n`; `rfft`'s is the real part of `fft` of the zero-padded cotangent;
`irfft`'s weighs each kept frequency by how often the Hermitian spectrum counts it (1 for the
zero and Nyquist frequencies, 2 otherwise) and conjugates.
"""
from __future__ import annotations

import numpy as np

from ..base.tree import tree_leaves, tree_map
from ..errors import S2STypeError
from ._batch_operands import one_setting
from .core import namespace

__all__ = ["fft_apply", "fft_t", "batched_fft_apply", "batched_fft_t", "batched_fft2", "batched_ifft2", "batched_rfft2",
           "batched_irfft2", "batched_fftn", "batched_ifftn", "batched_rfftn", "batched_irfftn", "batched_fftfreq",
           "batched_rfftfreq", "imag_vjp", "abs_slope",
           "abs_slope_jvp", "abs_slope_vjp", "abs_vjp", "sign_jvp", "sign_vjp", "sign_hvp", "sign_hvp_t",
           "complex_like", "real_like", "real_cotangent", "real_part", "real_primal", "complex_arg", "complex_result",
           "real_result"]

# the one-axis transforms (n, axis) and the n-axis ones (s, axes), by the transform they apply
_ONE = {"fft": "fft", "ifft": "ifft", "rfft": "rfft", "irfft": "irfft"}
_MANY = {"fft2": "fft", "ifft2": "ifft", "rfft2": "rfft", "irfft2": "irfft",
         "fftn": "fft", "ifftn": "ifft", "rfftn": "rfft", "irfftn": "irfft"}
_NORMS = (None, "backward", "ortho", "forward")


def fft_apply(x, kind, s, axes, norm):
    """`np.fft.<kind>(x, s, axes, norm)` (`n` and `axis` for the one-axis transforms)."""
    return getattr(namespace(x).fft, kind)(x, s, axes, norm)


def _plan(kind, s, axes, shape):
    """(base transform, axes as negative numbers, transform length per axis) of `np.fft.<kind>` on
    an input of `shape`, as NumPy resolves its defaults."""
    nd = len(shape)
    if kind in _ONE:
        axes_, s_ = (axes,), (None if s is None else s,)
    else:
        if axes is None:
            axes_ = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
        else:
            axes_ = tuple(axes)
        s_ = (None,) * len(axes_) if s is None else tuple(s)
    if len(s_) != len(axes_):
        raise ValueError(f"np.fft.{kind}: s and axes have different lengths")
    neg = tuple(int(a) % nd - nd for a in axes_)
    base = _ONE.get(kind) or _MANY[kind]
    lens = []
    for k, (a, n) in enumerate(zip(neg, s_)):
        if n is None:
            n = 2 * (shape[a] - 1) if base == "irfft" and k == len(neg) - 1 else shape[a]
        lens.append(int(n))
    return base, neg, tuple(lens)


def _fit(v, length, axis):
    """`v` cropped or zero-padded at the end of `axis` to `length` (the transpose of NumPy's own
    crop-or-pad to a transform's length)."""
    have = v.shape[axis]
    if have == length:
        return v
    if have > length:
        index = [slice(None)] * v.ndim
        index[axis] = slice(0, length)
        return v[tuple(index)]
    pad = [(0, 0)] * v.ndim
    pad[axis] = (0, length - have)
    return namespace(v).pad(v, pad)


def _scale(norm, n, inverse):
    """The factor NumPy's `norm` puts on a transform of length `n` (forward or inverse)."""
    if norm == "ortho":
        return 1.0 / np.sqrt(n)
    if (norm == "forward") != inverse:  # forward transform with norm="forward", inverse with "backward"
        return 1.0 / n
    return 1.0


def _hermitian_weights(n, ndim, axis, like):
    """How often irfft's Hermitian spectrum of length `n` counts each kept frequency (1, 2, ..., 2,
    and 1 for the Nyquist frequency of an even `n`), shaped to broadcast along `axis`."""
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    shape = [1] * ndim
    shape[axis] = n // 2 + 1
    return namespace(like).asarray(w.reshape(shape))


def fft_t(g_, like, kind, s, axes, norm):
    """The transpose of `np.fft.<kind>(like, s, axes, norm)` applied to its cotangent `g_`, shaped
    (and real or complex) like `like`: the cotangent of the transform's input."""
    if norm not in _NORMS:
        raise ValueError(f"np.fft.{kind}: invalid norm {norm!r}; NumPy accepts 'backward', 'ortho' or 'forward'")
    shape = np.shape(like)
    base, neg, lens = _plan(kind, s, axes, shape)
    xp = namespace(g_)
    v = g_
    if base in ("fft", "ifft"):
        v = getattr(xp.fft, base + "n")(v, None, neg, norm)
        for a in neg:
            v = _fit(v, shape[a], a)
    elif base == "rfft":  # fit, rfft along the last axis, then fit and fft along the others
        if len(neg) > 1:
            v = xp.fft.fftn(v, None, neg[:-1], norm)
            for a in neg[:-1]:
                v = _fit(v, shape[a], a)
        v = xp.real(xp.fft.fft(v, lens[-1], neg[-1], norm))
        v = _fit(v, shape[neg[-1]], neg[-1])
    else:  # irfft: fit and ifft along the others, then fit to n // 2 + 1 and irfft along the last
        if np.iscomplexobj(v):
            raise S2STypeError("np.fft.irfft: a complex cotangent reached its real result; s2s cannot "
                               "differentiate this program soundly")
        n, last = lens[-1], neg[-1]
        v = xp.conj(xp.fft.rfft(v, n, last)) * (_hermitian_weights(n, v.ndim, last, v) * _scale(norm, n, True))
        v = _fit(v, shape[last], last)
        if len(neg) > 1:
            v = xp.fft.ifftn(v, None, neg[:-1], norm)
            for a in neg[:-1]:
                v = _fit(v, shape[a], a)
    if not np.iscomplexobj(like) and np.iscomplexobj(v):
        v = xp.real(v)  # a real input: the pairing Re(c * dz) keeps the real part
    return v


def _shift(axis, batched):
    """A per-example axis as an axis of the batched array (the batch axis in front)."""
    return axis + 1 if batched and axis is not None and axis >= 0 else axis


def batched_fft_apply(flags, x, kind, s, axes, norm):
    """`fft_apply` on a batch of examples (the batch axis in front): the axes shift past it."""
    flags = tuple(flags) + (False,) * 5
    s, axes, norm = (one_setting(v, b, "np.fft." + kind) for v, b in zip((s, axes, norm), flags[2:5]))
    if not flags[0]:
        return fft_apply(x, kind, s, axes, norm)
    if kind in _ONE:
        return fft_apply(x, kind, s, _shift(axes, True), norm)
    if axes is None:  # every axis of an example (the last len(s) with s)
        nd = np.ndim(x)
        return fft_apply(x, kind, s, tuple(range(1, nd)) if s is None else tuple(range(nd - len(s), nd)), norm)
    return fft_apply(x, kind, s, tuple(_shift(a, True) for a in axes), norm)


def batched_fft_t(flags, g_, like, kind, s, axes, norm):
    """`fft_t` on a batch of examples: the axes resolved on one example as negative axes, which the
    batch axis in front does not move."""
    flags = tuple(flags) + (False,) * 6
    s, axes, norm = (one_setting(v, b, "np.fft." + kind) for v, b in zip((s, axes, norm), flags[3:6]))
    _, neg, _ = _plan(kind, s, axes, np.shape(like)[1:] if flags[1] else np.shape(like))
    v = fft_t(g_, like, kind, s, neg[0] if kind in _ONE else neg, norm)
    if flags[1] and not flags[0]:  # every example's cotangent is the same: one per example
        v = namespace(v).broadcast_to(v, np.shape(like)).copy()
    return v


def _batched_many(kind, default_axes):
    def batched(flags, a, s=None, axes=default_axes, norm=None, out=None):
        return batched_fft_apply((flags[0], False) + tuple(flags[1:4]), a, kind, s, axes, norm)
    batched.__name__ = batched.__qualname__ = "batched_" + kind
    batched.__doc__ = f"np.fft.{kind} on a batch of examples (batched_fft_apply)."
    return batched


batched_fft2 = _batched_many("fft2", (-2, -1))
batched_ifft2 = _batched_many("ifft2", (-2, -1))
batched_rfft2 = _batched_many("rfft2", (-2, -1))
batched_irfft2 = _batched_many("irfft2", (-2, -1))
batched_fftn = _batched_many("fftn", None)
batched_ifftn = _batched_many("ifftn", None)
batched_rfftn = _batched_many("rfftn", None)
batched_irfftn = _batched_many("irfftn", None)


def _batched_freq(kind):
    def batched(flags, n, d=1.0, device=None):
        if flags[0] or (len(flags) > 2 and flags[2]):
            raise S2STypeError(f"vmap of np.fft.{kind}: its length n must be the same for every example (the "
                               "shape of an array cannot differ per example)")
        if not flags[1]:
            return getattr(np.fft, kind)(n, d)
        freqs = namespace(d).asarray(getattr(np.fft, kind)(n, 1.0))  # (on d's backend)
        return freqs / d.reshape(np.shape(d) + (1,))  # k / (n * d), one row per example
    batched.__name__ = batched.__qualname__ = "batched_" + kind
    batched.__doc__ = f"np.fft.{kind} with a spacing d per example: one row of frequencies per example."
    return batched


batched_fftfreq = _batched_freq("fftfreq")
batched_rfftfreq = _batched_freq("rfftfreq")


def imag_vjp(g, x):
    """Cotangent of `np.imag(x)`: -1j * g at complex `x` (JAX's convention: Re(-1j * g * dz) is
    g * Im(dz)); zeros at real `x`, whose imaginary part is the constant 0."""
    if np.iscomplexobj(x):
        return -1j * real_part(g)
    return x * 0.0 + g * 0.0


def abs_slope(x):
    """The derivative factor of `np.abs(x)`: sign(x) at real `x`, and conj(x) / |x| at complex `x`
    (JAX's convention: d|z| = Re(conj(z) dz) / |z|), 0 at 0. Elementwise: vmap applies it to the
    batch; its own derivative (abs_slope_jvp, abs_slope_vjp) is 0 at real `x`."""
    if np.iscomplexobj(x):
        r = np.abs(x)
        return np.conj(x) / np.where(r == 0.0, 1.0, r)
    return np.sign(x)


def abs_slope_jvp(dx, x):
    """Tangent of `abs_slope(x)`: conj(dx) / r - conj(x) Re(conj(x) dx) / r^3 at complex `x`
    (conj(z) / |z| is not constant, unlike a real sign); 0 at real `x`. Written with primitives."""
    if np.iscomplexobj(x):
        r = np.where(np.abs(x) == 0.0, 1.0, np.abs(x))
        return np.conj(dx) / r - np.conj(x) * (np.real(np.conj(x) * dx) / (r * r * r))
    return dx * 0.0


def abs_slope_vjp(g_, x):
    """Cotangent of `x` from the cotangent `g_` of `abs_slope(x)`: conj(g) / r - Re(g conj(x))
    conj(x) / r^3 at complex `x` (the transpose of abs_slope_jvp under Re(c * dz)); 0 at real `x`."""
    if np.iscomplexobj(x):
        r = np.where(np.abs(x) == 0.0, 1.0, np.abs(x))
        return np.conj(g_) / r - np.conj(x) * (np.real(g_ * np.conj(x)) / (r * r * r))
    return g_ * 0.0


def abs_vjp(g_, x):
    """Cotangent of `x` from the cotangent `g_` of `np.abs(x)`: g * sign(x), or g * conj(x) / |x|
    at complex `x`."""
    return real_part(g_) * abs_slope(x)


def sign_jvp(t_, x):
    """Tangent of `np.sign(x)` from the tangent `t_` of `x`: sign(z) = z / |z| at complex `z`, so
    (t - z Re(conj(z) t) / |z|^2) / |z|, and 0 at z == 0; 0 at real `x` (a step function)."""
    if np.iscomplexobj(x):
        r = np.abs(x)
        nz = r != 0.0
        r = np.where(nz, r, 1.0)
        return (t_ - x * (np.real(np.conj(x) * t_) / (r * r))) / r * nz
    return real_part(t_) * 0.0


def sign_vjp(g_, x):
    """Cotangent of `x` from the cotangent `g_` of `np.sign(x)`, under JAX's pairing Re(c * dz):
    g / |z| - conj(z) Re(g z) / |z|^3 at complex `z`, 0 at z == 0; 0 at real `x`. It is
    conj(sign_jvp(conj(g), x)), and sign_jvp is its transpose in `g_`."""
    if np.iscomplexobj(x):
        r = np.abs(x)
        nz = r != 0.0
        r = np.where(nz, r, 1.0)
        return (g_ - np.conj(x) * (np.real(g_ * x) / (r * r))) / r * nz
    return real_part(g_) * 0.0


def sign_hvp(t_, u, x):
    """Second derivative of `np.sign` at complex `x` in the directions `t_` and `u` (symmetric):
    -(t Re(z'u) + u Re(z't) + z Re(u't)) / r^3 + 3 z Re(z't) Re(z'u) / r^5 (z' = conj(z)); 0 at
    z == 0 and at real `x`. Written with primitives, its own derivatives come from this source; in
    complex arithmetic only (Re(a) as (a + conj(a)) / 2), so no real value takes a complex
    cotangent, which reverse mode refuses."""
    if np.iscomplexobj(x):
        xc = np.conj(x)
        nz = np.abs(x) != 0.0
        r = np.sqrt(np.where(nz, x * xc, 1.0))
        zt = 0.5 * (xc * t_ + x * np.conj(t_))
        zu = 0.5 * (xc * u + x * np.conj(u))
        ut = 0.5 * (np.conj(u) * t_ + u * np.conj(t_))
        r3 = r * r * r
        return (3.0 * x * zt * zu / (r3 * r * r) - (t_ * zu + u * zt + x * ut) / r3) * nz
    return np.real(t_) * 0.0


def sign_hvp_t(g_, t_, x):
    """Cotangent of `x` from the cotangent `g_` of sign_hvp(t_, u, x) as a function of `u` (the
    transpose of u -> sign_hvp(t_, u, x) under Re(c * du)); 0 at real `x`. Written with
    primitives, in complex arithmetic only (as sign_hvp)."""
    if np.iscomplexobj(x):
        xc = np.conj(x)
        nz = np.abs(x) != 0.0
        r = np.sqrt(np.where(nz, x * xc, 1.0))
        zt = 0.5 * (xc * t_ + x * np.conj(t_))
        gz = 0.5 * (g_ * x + np.conj(g_) * xc)
        gt = 0.5 * (g_ * t_ + np.conj(g_) * np.conj(t_))
        r3 = r * r * r
        return (3.0 * gz * zt * xc / (r3 * r * r) - (gt * xc + zt * g_ + gz * np.conj(t_)) / r3) * nz
    return np.real(g_) * 0.0


def complex_like(v_, x):
    """`v_` as a complex array where `x` is complex (a real cotangent of a complex value, as
    np.real's is), so that the complex-arithmetic helpers (sign_hvp) meet no real operand: the
    transpose (rt.real_like) hands a real `v_` the real part of its cotangent."""
    if np.iscomplexobj(x) and not np.iscomplexobj(v_):
        return v_ + 0j
    return v_


def real_like(g_, like):
    """`g_`, the cotangent of a real value `like`, as a real array: its real part when it is
    complex (JAX's convention: a real value's cotangent pairs with its tangent through Re)."""
    if not np.iscomplexobj(like) and np.iscomplexobj(g_):
        return namespace(g_).real(g_)
    return g_


def real_cotangent(g_, like):
    """`g_`, a cotangent leaving reverse mode for the value `like` (a pytree of the same structure,
    as a gradient is of its argument), with the real part of each complex leaf whose primal is real:
    a real value reached by a complex cotangent (`np.real(np.exp(1j * x))`), where JAX's convention
    pairs only its real part with the real tangent. Fast for the common real cotangents."""
    t = type(g_)
    if t is np.ndarray and g_.dtype.kind != "c" or t is float or t is np.float64:
        lt = type(like)
        if lt is np.ndarray and like.dtype.kind != "c" or lt is float or not np.iscomplexobj(like):
            return g_
        return complex_like(g_, like)  # (a complex argument's gradient is complex, as JAX's)
    if t is tuple:  # (a tuple of real arrays, a parameter tuple's gradient: quickly)
        for e in g_:
            if type(e) is not np.ndarray or e.dtype.kind == "c":
                break
        else:
            return g_
    if isinstance(g_, (tuple, list, dict)):
        if not any(np.iscomplexobj(leaf) for leaf in tree_leaves(g_)):
            return g_
        try:
            return tree_map(real_like, g_, like)  # (a real leaf of a complex argument's: kept)
        except (TypeError, ValueError):  # (structures that differ: a None cotangent, a space value)
            return g_
    return real_like(g_, like)


def real_part(g_):
    """The cotangent `g_` of a real result (np.real, np.imag, np.abs of a complex array) as a real
    array: a complex one arrives where a simplification dropped the real part a real operand's
    cotangent takes (`unbroadcast` of a same-shape product), and only its real part pairs with
    the real result's tangent."""
    return namespace(g_).real(g_) if np.iscomplexobj(g_) else g_


def real_primal(v, x):
    """`v`, a derivative rule's value, refused when the primal `x` is complex: the rules of
    norms, variances and matrix factorizations are written for real arrays (JAX's convention
    needs conjugates they do not take), and np.fft's transposes would otherwise hand a real input
    the real part of their wrong cotangent."""
    if np.iscomplexobj(x):
        raise S2STypeError("a complex value reached the derivative of a norm, variance or matrix "
                           "factorization, whose rules s2s writes for real arrays only: compute it from "
                           "real and imaginary parts (np.abs(z) ** 2 is differentiated at complex z)")
    return v


def complex_arg(x, what):
    """`x` itself, a differentiated argument of a `holomorphic=True` derivative (`what`, e.g.
    "grad with holomorphic=True"): JAX's error unless every leaf of it is complex."""
    for leaf in tree_leaves(x):
        dt = np.result_type(leaf)
        if dt.kind != "c":
            raise S2STypeError(f"{what} requires inputs with complex dtype, but got {dt}.")
    return x


def complex_result(y, what, aux=False):
    """`y` itself, the output of a function a `holomorphic=True` derivative (`what`) takes: JAX's
    error unless every leaf of it (of its first item with `aux`, an (output, auxiliary) pair) is
    complex."""
    if aux and (not isinstance(y, (tuple, list)) or len(y) != 2):
        raise S2STypeError("has_aux=True: the function must return a pair (output, auxiliary data), "
                           f"but it returned {type(y).__name__}")
    for leaf in tree_leaves(y[0] if aux else y):
        dt = np.result_type(leaf)
        if dt.kind != "c":
            raise S2STypeError(f"{what} requires outputs with complex dtype, but got {dt}.")
    return y



def real_result(y, what):
    """`y` itself, the output of a function that `what` (jacrev without holomorphic=True)
    differentiates: JAX's error when a leaf of it is complex."""
    t = type(y)
    if t is float or t is np.float64 or t is np.ndarray and y.dtype.kind != "c":  # (the common cases, quickly)
        return y
    for leaf in tree_leaves(y):
        if np.iscomplexobj(leaf):
            raise S2STypeError(f"{what} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
                               f"but got {np.result_type(leaf)}. For holomorphic differentiation, pass holomorphic=True. "
                               "For differentiating non-holomorphic functions involving complex outputs, use s2s.vjp "
                               "directly.")
    return y
