"""`lax.conv_general_dilated` and `lax.reduce_window`'s windows, in NumPy (primitives/rules_conv.py
declares them): each output position's window is gathered from the input by a table of flat
indices that already accounts for strides, padding and both dilations (a padding or dilation
hole reads a fill slot); a convolution is that gather contracted with the kernel, and the
transposes scatter back through the same table. Every shape and setting is static: the tables
are computed once per configuration.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..errors import S2SValueError
from ._examples import example_part
from .core import asarray, namespace, scatter_add, to_host

# (the settings' helpers are s2s.library.lax_conv's shape helpers too)
__all__ = ("same_pads", "pads_of", "dilate_dim", "lax_windows", "lax_windows_t", "conv_perms", "lax_conv",
           "lax_conv_t_lhs", "lax_conv_t_rhs", "batched_lax_conv", "batched_lax_conv_t_lhs", "batched_lax_conv_t_rhs",
           "conv_example_shape", "conv_unbatch")


# ---------------------------------------------------------------- settings

def _setting(v):
    """A setting (strides, a window, pads) as Python ints. Batched code may hand one replicated per
    example (unpacked from a residual tuple that also holds batched arrays): its examples must agree."""
    if isinstance(v, (tuple, list)):
        return tuple(_setting(e) for e in v)
    v = to_host(v)  # (replicated on a device backend: read on the host)
    if isinstance(v, np.ndarray) and not v.ndim:
        v = v[()]
    if isinstance(v, np.ndarray) and v.ndim:
        if not np.all(v == v.flat[0]):
            raise S2SValueError("s2s.lax: a convolution's or window's settings cannot differ per example")
        v = v.flat[0]
    return int(v) if isinstance(v, (int, np.integer)) else v


def same_pads(in_shape, window, strides, lower: bool = False) -> list[tuple[int, int]]:
    """JAX's 'SAME' padding: the output has ceil(in / stride) positions, the padding split with
    the odd one at the end ('SAME_LOWER': at the start)."""
    pads = []
    for n, w, s in zip(in_shape, window, strides):
        total = max((-(-n // s) - 1) * s + w - n, 0)
        lo, hi = total // 2, total - total // 2
        pads.append((hi, lo) if lower else (lo, hi))
    return pads


def pads_of(padding, in_shape, window, strides) -> tuple[tuple[int, int], ...]:
    """`padding` ('SAME', 'SAME_LOWER', 'VALID' or (lo, hi) pairs) as pairs."""
    if isinstance(padding, str):
        kind = padding.upper()
        if kind == "VALID":
            return ((0, 0),) * len(in_shape)
        if kind in ("SAME", "SAME_LOWER"):
            return tuple(same_pads(in_shape, window, strides, kind == "SAME_LOWER"))
        raise S2SValueError(f"Unknown padding type: {padding!r} (JAX's are 'SAME', 'SAME_LOWER' and 'VALID')")
    pairs = tuple((int(lo), int(hi)) for lo, hi in padding)  # (numbers, or NumPy integers)
    if len(pairs) != len(in_shape):
        raise S2SValueError(f"padding {padding!r} has {len(pairs)} pairs for {len(in_shape)} spatial dimensions")
    return pairs


def _ones(v, n: int) -> tuple[int, ...]:
    return (1,) * n if v is None else tuple(int(e) for e in v)


def dilate_dim(n: int, d: int) -> int:
    return 0 if n == 0 else (n - 1) * d + 1


@functools.lru_cache(maxsize=256)
def _table(in_shape: tuple, window: tuple, strides: tuple, pads: tuple, base: tuple, wdil: tuple):
    """(flat indices (P, K) into the input's spatial positions, the fill slot being S = their
    number; the output's spatial shape)."""
    out_shape, axes = [], []
    for n, w, s, (lo, hi), b, r in zip(in_shape, window, strides, pads, base, wdil):
        size = dilate_dim(n, b) + lo + hi
        span = dilate_dim(w, r)
        m = max(0, (size - span) // s + 1) if size >= span else 0
        out_shape.append(m)
        pos = np.arange(m)[:, None] * s + np.arange(w)[None, :] * r - lo  # (m, w) in the dilated input
        ok = (pos >= 0) & (pos < dilate_dim(n, b)) & (pos % b == 0)
        axes.append((np.where(ok, pos // b, 0), ok))
    total = math.prod(in_shape)
    flat = np.zeros((1, 1), dtype=np.intp)
    valid = np.ones((1, 1), dtype=bool)
    for k, ((src, ok), n) in enumerate(zip(axes, in_shape)):
        stride = math.prod(in_shape[k + 1:])
        flat = (flat[:, None, :, None] + src[None, :, None, :] * stride).reshape(flat.shape[0] * src.shape[0], -1)
        valid = (valid[:, None, :, None] & ok[None, :, None, :]).reshape(flat.shape)
    idx = np.where(valid, flat, total)
    idx.setflags(write=False)
    return idx, tuple(out_shape)


def _gather(x, idx, fill, k: int):
    """Windows of the last `k` axes of `x`: (*lead, P, K), holes read `fill`."""
    lead = x.shape[:x.ndim - k]
    flat = np.reshape(x, lead + (-1,))
    dtype = x.dtype if np.issubdtype(x.dtype, np.inexact) else np.result_type(x.dtype, asarray(fill).dtype)
    pad = namespace(x).full(lead + (1,), fill, dtype=dtype)
    got = np.concatenate([flat, pad], axis=-1)[..., idx.ravel()]  # (one index array per axis: Dask's limit)
    return got.reshape(lead + idx.shape)


def _scatter(v, idx, in_shape):
    """Transpose of `_gather`: (*lead, P, K) summed back into (*lead, *in_shape); holes dropped."""
    lead = v.shape[:-2]
    total = math.prod(in_shape)
    acc = namespace(v).zeros(lead + (total + 1,), dtype=v.dtype)
    if type(acc).__module__.startswith("dask"):  # immutable arrays: add.at's Dask form
        return scatter_add(acc, (Ellipsis, idx), v)[..., :total].reshape(lead + tuple(in_shape))
    for j in range(idx.shape[1]):  # for one window offset, distinct positions read distinct inputs
        acc[..., idx[:, j]] += v[..., j]
    return acc[..., :total].reshape(lead + tuple(in_shape))


# ---------------------------------------------------------------- reduce_window's windows

def _window_setup(spatial, window, strides, padding, base_dilation, window_dilation):
    window, strides, padding = _setting(window), _setting(strides), _setting(padding)
    base_dilation, window_dilation = _setting(base_dilation), _setting(window_dilation)
    k = len(window)
    window = tuple(int(w) for w in window)
    strides = _ones(strides, k)
    pads = pads_of(padding, spatial, window, strides)
    return _table(tuple(spatial), window, strides, pads, _ones(base_dilation, k), _ones(window_dilation, k))


def lax_windows(x, window, strides, padding, base_dilation=None, window_dilation=None, fill=0.0):
    """The windows of reduce_window over the last len(window) axes of `x` (leading axes beyond
    them, a batch, are kept): (*lead, *out_shape, K), holes holding `fill` (the init value)."""
    if np.ndim(fill) != 0:
        raise S2SValueError("lax.reduce_window: init_value must be a scalar (one per call, not per example)")
    x = asarray(x)
    k = len(window)
    if x.ndim < k:
        raise S2SValueError(f"lax.reduce_window: window {tuple(window)} has more dimensions than the operand "
                            f"(rank {x.ndim})")
    idx, out_shape = _window_setup(x.shape[x.ndim - k:], window, strides, padding, base_dilation, window_dilation)
    got = _gather(x, idx, fill, k)
    return got.reshape(got.shape[:-2] + out_shape + (idx.shape[1],))


def lax_windows_t(v, shape, window, strides, padding, base_dilation=None, window_dilation=None):
    """Transpose of lax_windows (in x) for an input of per-example `shape`: each window entry
    added back where it was read."""
    k = len(window)
    spatial = tuple(shape[len(shape) - k:])
    idx, out_shape = _window_setup(spatial, window, strides, padding, base_dilation, window_dilation)
    v = asarray(v)
    lead = v.shape[:v.ndim - k - 1]
    return _scatter(v.reshape(lead + idx.shape), idx, spatial)


# ---------------------------------------------------------------- conv_general_dilated

def conv_perms(ndim: int, dn):
    """(lhs, rhs, out) permutations to (N, C, spatial...), (O, I, spatial...), (N, C, spatial...)
    from JAX's dimension_numbers: None, three spec strings ('NHWC', 'HWIO', 'NHWC'), or three
    index tuples (a ConvDimensionNumbers). Spatial axes follow the rhs spec's order of its letters."""
    if dn is None:
        same = tuple(range(ndim))
        return same, same, same
    lhs_spec, rhs_spec, out_spec = dn
    if not isinstance(lhs_spec, str):
        return tuple(lhs_spec), tuple(rhs_spec), tuple(out_spec)
    if not len(lhs_spec) == len(rhs_spec) == len(out_spec) == ndim:
        raise S2SValueError(f"conv_general_dilated: dimension_numbers {dn!r} do not match operands of rank {ndim}")
    # the kernel's spatial axes in its own order, the operands' sorted to pair with them letter by letter
    # (JAX's conv_general_permutations: sorting the kernel's by letter paired 'WHIO' with 'NHWC' crosswise)
    rhs_perm = (rhs_spec.index("O"), rhs_spec.index("I")) + tuple(i for i, c in enumerate(rhs_spec) if c not in "OI")

    def perm(spec):
        spatial = sorted((i for i, c in enumerate(spec) if c not in "NC"), key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index("N"), spec.index("C")) + tuple(spatial)
    return perm(lhs_spec), rhs_perm, perm(out_spec)


def _conv_setup(lhs_shape, rhs_shape, strides, padding, lhs_dilation, rhs_dilation, dn, groups, batch_groups):
    strides, padding, lhs_dilation, rhs_dilation = _setting(strides), _setting(padding), _setting(lhs_dilation), \
        _setting(rhs_dilation)
    dn, groups, batch_groups = _setting(dn), _setting(groups), _setting(batch_groups)
    if batch_groups != 1:
        raise S2SValueError("s2s.lax.conv_general_dilated: batch_group_count other than 1 is not supported")
    lp, rp, op = conv_perms(len(lhs_shape), dn)
    x_shape = tuple(lhs_shape[i] for i in lp)
    w_shape = tuple(rhs_shape[i] for i in rp)
    k = len(x_shape) - 2
    strides = _ones(strides, k)
    rd = _ones(rhs_dilation, k)
    window = w_shape[2:]
    if isinstance(padding, str) and lhs_dilation is not None and any(d != 1 for d in lhs_dilation):
        raise S2SValueError("String padding is not implemented for transposed convolution using this op. Please "
                            "either exactly specify the required padding or use conv_transpose.")
    pads = pads_of(padding, x_shape[2:], tuple(dilate_dim(w, r) for w, r in zip(window, rd)), strides)
    idx, out_shape = _table(x_shape[2:], window, strides, pads, _ones(lhs_dilation, k), rd)
    n, c = x_shape[:2]
    o, i = w_shape[:2]
    if c != i * groups or o % groups:
        raise S2SValueError(f"conv_general_dilated: {c} input features and feature_group_count={groups} do not "
                            f"match a kernel of {i} input and {o} output features")
    return lp, rp, op, idx, out_shape, x_shape, w_shape


def _patches(lhs, lp, idx, groups, i):
    x = np.transpose(lhs, lp)
    p = _gather(x, idx, 0, x.ndim - 2)  # (N, C, P, K)
    return p.reshape((p.shape[0], groups, i) + p.shape[2:])


def lax_conv(lhs, rhs, strides, padding, lhs_dilation=None, rhs_dilation=None, dn=None, groups=1, batch_groups=1):
    """conv_general_dilated: each output position's window of lhs contracted with the kernel."""
    lhs, rhs = asarray(lhs), asarray(rhs)
    groups = _setting(groups)  # (a replicated setting: read on the host)
    lp, rp, op, idx, out_shape, x_shape, w_shape = _conv_setup(lhs.shape, rhs.shape, strides, padding, lhs_dilation,
                                                               rhs_dilation, dn, groups, batch_groups)
    o, i = w_shape[:2]
    p = _patches(lhs, lp, idx, groups, i)  # (N, G, I, P, K)
    w = np.transpose(rhs, rp).reshape((groups, o // groups, i, -1))
    out = np.einsum("ngipk,goik->ngop", p, w, optimize=True).reshape((x_shape[0], o) + out_shape)
    return np.transpose(out, _inverse(op))


def _inverse(perm) -> tuple[int, ...]:
    """The permutation that undoes `perm`, as Python ints (Dask's transpose takes no array of axes)."""
    return tuple(int(i) for i in np.argsort(perm))


def _ct(ct, op, groups):
    c = np.transpose(asarray(ct), op)
    return c.reshape((c.shape[0], groups, c.shape[1] // groups, -1))  # (N, G, O/G, P)


def lax_conv_t_lhs(ct, rhs, lhs_shape, strides, padding, lhs_dilation=None, rhs_dilation=None, dn=None, groups=1,
                   batch_groups=1):
    """Transpose of lax_conv in lhs (of shape `lhs_shape`): the output cotangent `ct` through the
    kernel, scattered back to the positions each window read."""
    rhs = asarray(rhs)
    groups = _setting(groups)  # (a replicated setting: read on the host)
    lp, rp, op, idx, out_shape, x_shape, w_shape = _conv_setup(_setting(tuple(lhs_shape)), rhs.shape, strides, padding,
                                                               lhs_dilation, rhs_dilation, dn, groups, batch_groups)
    o, i = w_shape[:2]
    w = np.transpose(rhs, rp).reshape((groups, o // groups, i, -1))
    gp = np.einsum("ngop,goik->ngipk", _ct(ct, op, groups), w, optimize=True)
    gp = gp.reshape((x_shape[0], x_shape[1]) + gp.shape[3:])
    return np.transpose(_scatter(gp, idx, x_shape[2:]), _inverse(lp))


def lax_conv_t_rhs(ct, lhs, rhs_shape, strides, padding, lhs_dilation=None, rhs_dilation=None, dn=None, groups=1,
                   batch_groups=1):
    """Transpose of lax_conv in rhs (of shape `rhs_shape`): the windows of lhs contracted with
    the output cotangent `ct`."""
    lhs = asarray(lhs)
    groups = _setting(groups)  # (a replicated setting: read on the host)
    lp, rp, op, idx, out_shape, x_shape, w_shape = _conv_setup(lhs.shape, _setting(tuple(rhs_shape)), strides, padding,
                                                               lhs_dilation, rhs_dilation, dn, groups, batch_groups)
    o, i = w_shape[:2]
    p = _patches(lhs, lp, idx, groups, i)
    gw = np.einsum("ngipk,ngop->goik", p, _ct(ct, op, groups), optimize=True).reshape(w_shape)
    return np.transpose(gw, _inverse(rp))


# ---------------------------------------------------------------- batching (vmap)


def _per_example(fn, flags, args):
    """`fn` once per example, stacked (`flags`: which of `args` are batched)."""
    sizes = [len(a) for a, f in zip(args[:2], flags) if f and getattr(a, "ndim", 0)]
    if not sizes:
        raise S2SValueError("s2s.lax: a convolution's settings (strides, padding, ...) cannot differ per example")
    return np.stack([fn(*[example_part(a, k) if f else a for a, f in zip(args, flags)]) for k in range(sizes[0])])


def batched_lax_conv(flags, lhs, rhs, strides, padding, lhs_dilation=None, rhs_dilation=None, dn=None, groups=1,
                     batch_groups=1):
    return _per_example(lax_conv, flags, (lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, dn, groups,
                                          batch_groups))


def batched_lax_conv_t_lhs(flags, ct, rhs, lhs_shape, strides, padding, lhs_dilation=None, rhs_dilation=None,
                           dn=None, groups=1, batch_groups=1):
    return _per_example(lax_conv_t_lhs, flags, (ct, rhs, lhs_shape, strides, padding, lhs_dilation, rhs_dilation,
                                                dn, groups, batch_groups))


def batched_lax_conv_t_rhs(flags, ct, lhs, rhs_shape, strides, padding, lhs_dilation=None, rhs_dilation=None,
                           dn=None, groups=1, batch_groups=1):
    return _per_example(lax_conv_t_rhs, flags, (ct, lhs, rhs_shape, strides, padding, lhs_dilation, rhs_dilation,
                                                dn, groups, batch_groups))


def conv_example_shape(batched, x) -> tuple:
    """The shape of one example of `x` (batched: its leading axis is the batch)."""
    return tuple(np.shape(x)[1:] if batched else np.shape(x))


def conv_unbatch(batched, v):
    """A per-example cotangent `v` for an argument that is batched (kept) or shared (summed)."""
    return v if batched else np.sum(v, axis=0)
