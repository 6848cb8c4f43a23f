"""Helpers of JAX's index updates `x.at[index].<op>(v)` (frontend/at_updates.py lowers them to
NumPy's stores, rules_updates declares these): the out-of-bound modes of an integer index, and which
value wins at each position of `.min`/`.max`. None carries a derivative: the stores around them do."""
from __future__ import annotations

import numpy as np

from ..errors import S2SError
from .core import asarray, unbroadcast

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("at_clip", "at_in_bounds", "at_keep", "at_pick", "at_set", "at_set_vjp_v", "at_update")


def at_clip(i, n):
    """JAX's mode='clip' for an integer index `i` of an axis of length `n`: a negative index counts
    from the end, then every index is clamped into [0, n - 1]."""
    if isinstance(i, (slice, type(None), type(Ellipsis))) or np.asarray(i).dtype == bool:
        return i
    i = np.asarray(i)
    return np.clip(np.where(i < 0, i + n, i), 0, max(n - 1, 0))


def at_in_bounds(i, n, mode, at=""):
    """An integer index `i` of an axis of length `n`, checked to lie in [-n, n): JAX's mode='drop'
    and mode='fill' change only what an out-of-bound index does, which s2s does not model."""
    if isinstance(i, (slice, type(None), type(Ellipsis))) or np.asarray(i).dtype == bool:
        return i
    a = np.asarray(i)
    if a.size and (np.min(a) < -n or np.max(a) >= n):
        raise S2SError((at + "\n" if at else "") + f"`.at[...]` with mode={mode!r}: an index is out of bounds "
                            f"for an axis of length {n}, where JAX would {'drop the update' if mode == 'drop' else 'fill'}"
                            "; s2s does not model out-of-bound indices.\nKeep the indices in bounds (mask the "
                            "update with np.where), or use mode='clip'.")
    return i


def _winners(x, index, v, largest):
    """(whether `x` keeps each position, which update wins each updated position) of
    `x.at[index].max(v)` (`largest`) or `.min(v)`: at each position the first of `x` and the
    updates there, in order, equal to the extreme (so ties go to `x`, then to the earlier update)."""
    x = asarray(x)
    pos = np.arange(x.size).reshape(x.shape)[index]
    shape = pos.shape
    pos = pos.ravel()
    vals = np.broadcast_to(asarray(v), shape).ravel()
    best = x.ravel().copy()
    (np.maximum if largest else np.minimum).at(best, pos, vals)
    keep = x.ravel() == best
    cand = np.flatnonzero((vals == best[pos]) & ~keep[pos])  # in order: the first such update wins
    first = np.unique(pos[cand], return_index=True)[1]
    pick = np.zeros(pos.shape, dtype=bool)
    pick[cand[first]] = True
    return keep.reshape(x.shape), pick.reshape(shape)


def at_keep(x, index, v, largest):
    """Where `x.at[index].max(v)` (or `.min`) keeps `x`'s own value (a bool array shaped like `x`)."""
    return _winners(x, index, v, largest)[0]


def at_pick(x, index, v, largest):
    """Which update is the result at its position (a bool array shaped like `x[index]`)."""
    return _winners(x, index, v, largest)[1]


def at_set(x, index, v):
    """`x.at[index].set(v)`: a copy of `x` with `v` stored at `index` (NumPy's store: at a repeated
    index the last update wins)."""
    out = asarray(x).copy()
    out[index] = v
    return out


def at_set_vjp_v(g_, x, index, v):
    """The cotangent of `v` in at_set: the output's cotangent at each update's position, for the
    update that wins there (the last one; the earlier ones were overwritten), summed to `v`'s shape."""
    x = asarray(x)
    pos = np.arange(x.size).reshape(x.shape)[index]
    flat = pos.ravel()
    last = np.zeros(flat.shape, dtype=bool)
    last[flat.size - 1 - np.unique(flat[::-1], return_index=True)[1]] = True
    per = np.where(last, np.ravel(asarray(g_))[flat], 0).reshape(pos.shape)
    return unbroadcast(per, v)


def at_update(x, index, kind, *args, mode=None, indices_are_sorted=False, unique_indices=False,
              fill_value=None, at=""):
    """`x.at[index].<method>(*args)` run as plain NumPy (what frontend/at_updates.py lowers for the
    transforms), for the copy of a function that runs untransformed (a nested def called as it is
    written): a new array, `x` unchanged. `kind`: how the method updates (primitives/rules_updates.py's
    AT_METHODS)."""
    x = asarray(x)
    if mode in ("clip", "drop", "fill"):
        parts = index if isinstance(index, tuple) else (index,)
        if any(p is Ellipsis for p in parts):
            raise S2SError((at + "\n" if at else "") + f"s2s does not support `.at[...]` with `...` in the index and "
                           f"mode={mode!r}.\nWrite the index's axes out (`x.at[:, :, i]`).")
        axis, out = 0, []
        for p in parts:
            if p is not None:
                n = x.shape[axis]
                p = at_clip(p, n) if mode == "clip" else at_in_bounds(p, n, mode, at)
                axis += 1
            out.append(p)
        index = tuple(out) if isinstance(index, tuple) else out[0]
    if kind == "gather":
        return x[index]
    (v,) = args
    v = asarray(v)
    if kind == "store":
        return at_set(x, index, v)
    out = x.copy()
    if kind.startswith("scatter_"):
        if kind == "scatter_multiply":
            np.multiply.at(out, index, v)
        else:
            np.add.at(out, index, -v if kind == "scatter_subtract" else v)
        return out
    if kind.endswith("_of_product") or kind.endswith("_by_product"):
        by = np.ones_like(x)
        np.multiply.at(by, index, v)
        return x / by if kind == "divide_by_product" else x ** by
    (np.maximum if kind == "largest" else np.minimum).at(out, index, v)
    return out
