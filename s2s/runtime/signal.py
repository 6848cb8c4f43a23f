"""s2s.scipy.signal's convolution (rules_signal): autograd's generalized `convolve(a, b, axes,
dot_axes, mode)`, which convolves `a` and `b` along the paired `axes`, sums the paired `dot_axes`
(as tensordot), and keeps every other axis: the result's axes are a's others, then b's others,
then the convolved ones. `mode` picks the window of the full convolution: "full" (n + m - 1),
"valid" (|n - m| + 1) or "same" (n, a's size, centred as SciPy's).

Both transposes are computed here too (`signal_convolve_t_a`/`_t_b`), so the three close under
differentiation. Each runs as a loop over the positions of the smaller convolved block, one
tensordot per position. NumPy arrays. Under vmap each runs once per example
(`batched_*`, which read only the two arrays' batched flags: the settings are never per example).
"""
from __future__ import annotations

import numpy as np

from ._examples import example_part

__all__ = ["signal_convolve", "signal_convolve_t_a", "signal_convolve_t_b", "batched_signal_convolve",
           "batched_signal_convolve_t_a", "batched_signal_convolve_t_b"]


def _layout(a_ndim: int, b_ndim: int, axes, dot_axes):
    """(a's axes in (other, dot, conv) order, b's likewise, #other a, #other b, #dot, #conv)."""
    if axes is None:
        if a_ndim != b_ndim:
            raise ValueError(f"convolve: without axes, a and b need the same number of dimensions "
                             f"({a_ndim} and {b_ndim})")
        axes = (range(a_ndim), range(a_ndim))
    ca, cb = tuple(int(i) for i in axes[0]), tuple(int(i) for i in axes[1])
    da, db = tuple(int(i) for i in dot_axes[0]), tuple(int(i) for i in dot_axes[1])
    if len(ca) != len(cb) or len(da) != len(db):
        raise ValueError("convolve: axes and dot_axes pair an axis of a with one of b")
    ia = tuple(i for i in range(a_ndim) if i not in ca and i not in da)
    ib = tuple(i for i in range(b_ndim) if i not in cb and i not in db)
    return ia + da + ca, ib + db + cb, len(ia), len(ib), len(da), len(ca)


def _windows(na: tuple, nb: tuple, mode: str) -> tuple:
    """Per convolved axis, the slice of the full convolution that `mode` keeps."""
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"convolve: mode must be 'full', 'valid' or 'same', not {mode!r}")
    if mode == "valid" and not (all(n >= m for n, m in zip(na, nb)) or all(n <= m for n, m in zip(na, nb))):
        raise ValueError("convolve: in 'valid' mode one array must be at least as large as the other along "
                         "every convolved axis")
    out = []
    for n, m in zip(na, nb):
        start, size = {"full": (0, n + m - 1), "valid": (min(n, m) - 1, abs(n - m) + 1),
                       "same": ((m - 1) // 2, n)}[mode]
        out.append(slice(start, start + size))
    return tuple(out)


def _full(x, y, nx: int, ny: int, nd: int, k: int):
    """The full convolution of x (other_x, dot, conv) and y (other_y, dot, conv): (other_x, other_y,
    conv) with each convolved axis n + m - 1 long."""
    cx, cy = x.shape[x.ndim - k:], y.shape[y.ndim - k:]
    out = np.zeros(x.shape[:nx] + y.shape[:ny] + tuple(n + m - 1 for n, m in zip(cx, cy)),
                   dtype=np.result_type(x, y))
    lead = (slice(None),) * (nx + ny)
    dots_x, dots_y = list(range(nx, nx + nd)), list(range(ny, ny + nd))
    if np.prod(cy) <= np.prod(cx):
        for q in np.ndindex(*cy):  # y's position q shifts all of x by q
            term = np.tensordot(x, y[(Ellipsis, *q)], (dots_x, dots_y))  # (other_x, conv_x, other_y)
            term = np.moveaxis(term, list(range(term.ndim - ny, term.ndim)), list(range(nx, nx + ny)))
            out[lead + tuple(slice(s, s + n) for s, n in zip(q, cx))] += term
    else:
        for p in np.ndindex(*cx):
            term = np.tensordot(x[(Ellipsis, *p)], y, (dots_x, dots_y))  # (other_x, other_y, conv_y)
            out[lead + tuple(slice(s, s + n) for s, n in zip(p, cy))] += term
    return out


def _full_t(ct, y, x_conv: tuple, nx: int, ny: int, nd: int, k: int):
    """The transpose of `_full` in x: x's cotangent (other_x, dot, conv) from the full
    convolution's cotangent `ct` (other_x, other_y, conv)."""
    cy = y.shape[y.ndim - k:]
    others = list(range(nx, nx + ny))
    if np.prod(cy) <= np.prod(x_conv):
        out = 0.0
        for q in np.ndindex(*cy):
            part = ct[(slice(None),) * (nx + ny) + tuple(slice(s, s + n) for s, n in zip(q, x_conv))]
            term = np.tensordot(part, y[(Ellipsis, *q)], (others, list(range(ny))))  # (other_x, conv_x, dot)
            out = out + np.moveaxis(term, list(range(term.ndim - nd, term.ndim)), list(range(nx, nx + nd)))
        return out
    out = np.zeros(ct.shape[:nx] + y.shape[ny:ny + nd] + tuple(x_conv), dtype=np.result_type(ct, y))
    conv_ct, conv_y = list(range(nx + ny, nx + ny + k)), list(range(ny + nd, ny + nd + k))
    for p in np.ndindex(*x_conv):
        part = ct[(slice(None),) * (nx + ny) + tuple(slice(s, s + n) for s, n in zip(p, cy))]
        out[(Ellipsis, *p)] = np.tensordot(part, y, (others + conv_ct, list(range(ny)) + conv_y))
    return out


def signal_convolve(a, b, axes=None, dot_axes=((), ()), mode="full"):
    """autograd's `convolve(a, b, axes, dot_axes, mode)` (see the module's docstring)."""
    a, b = np.asarray(a), np.asarray(b)
    pa, pb, na, nb, nd, k = _layout(a.ndim, b.ndim, axes, dot_axes)
    x, y = np.transpose(a, pa), np.transpose(b, pb)
    win = _windows(x.shape[a.ndim - k:], y.shape[b.ndim - k:], mode)
    return _full(x, y, na, nb, nd, k)[(slice(None),) * (na + nb) + win]


def _full_cotangent(ct, na_shape: tuple, nb_shape: tuple, lead: int, mode: str):
    """The output's cotangent placed in the full convolution (zeros outside `mode`'s window)."""
    ct = np.asarray(ct)
    full = np.zeros(ct.shape[:lead] + tuple(n + m - 1 for n, m in zip(na_shape, nb_shape)), dtype=ct.dtype)
    full[(slice(None),) * lead + _windows(na_shape, nb_shape, mode)] = ct
    return full


def signal_convolve_t_a(ct, b, a_shape, axes=None, dot_axes=((), ()), mode="full"):
    """a's cotangent of `signal_convolve(a, b, ...)` given the output's cotangent `ct`."""
    b = np.asarray(b)
    pa, pb, na, nb, nd, k = _layout(len(a_shape), b.ndim, axes, dot_axes)
    y = np.transpose(b, pb)
    a_conv = tuple(a_shape[i] for i in pa[len(pa) - k:])
    full = _full_cotangent(ct, a_conv, y.shape[b.ndim - k:], na + nb, mode)
    x_ct = _full_t(full, y, a_conv, na, nb, nd, k) * np.ones(1, dtype=full.dtype)  # (a 0.0 start: an array)
    return np.transpose(np.broadcast_to(x_ct, tuple(a_shape[i] for i in pa)), np.argsort(pa))


def signal_convolve_t_b(ct, a, b_shape, axes=None, dot_axes=((), ()), mode="full"):
    """b's cotangent of `signal_convolve(a, b, ...)` given the output's cotangent `ct`."""
    a = np.asarray(a)
    pa, pb, na, nb, nd, k = _layout(a.ndim, len(b_shape), axes, dot_axes)
    x = np.transpose(a, pa)
    b_conv = tuple(b_shape[i] for i in pb[len(pb) - k:])
    full = _full_cotangent(ct, x.shape[a.ndim - k:], b_conv, na + nb, mode)
    full = np.moveaxis(full, list(range(na)), list(range(nb, nb + na)))  # (other_b, other_a, conv)
    y_ct = _full_t(full, x, b_conv, nb, na, nd, k) * np.ones(1, dtype=full.dtype)
    return np.transpose(np.broadcast_to(y_ct, tuple(b_shape[i] for i in pb)), np.argsort(pb))


def _per_example(fn, flags, args):
    """`fn` once per example of its two arrays (`flags`: which arguments are batched), stacked. A
    setting flagged batched (unpacked from a residual that also holds a batched array) is
    replicated per example: `example_part` takes example k's copy."""
    sizes = [len(a) for a, f in zip(args[:2], flags) if f]
    if not sizes:
        raise ValueError("convolve: the axes, dot_axes and mode cannot differ per example")
    return np.stack([fn(*[example_part(a, k) if f else a for a, f in zip(args, flags)]) for k in range(sizes[0])])


def batched_signal_convolve(flags, a, b, axes, dot_axes, mode):
    return _per_example(signal_convolve, flags, (a, b, axes, dot_axes, mode))


def batched_signal_convolve_t_a(flags, ct, b, a_shape, axes, dot_axes, mode):
    return _per_example(signal_convolve_t_a, flags, (ct, b, a_shape, axes, dot_axes, mode))


def batched_signal_convolve_t_b(flags, ct, a, b_shape, axes, dot_axes, mode):
    return _per_example(signal_convolve_t_b, flags, (ct, a, b_shape, axes, dot_axes, mode))
