"""The key that reads or writes `x[index]` for every example of a batched `x` at once, laid out as
each example's own result with the batch axis first (vmap's gather, its scatter-add transpose and
its stores all index with it, so they agree).

NumPy's rule ("Indexing on ndarrays", combining advanced and basic indexing): a key's advanced
parts (integer and boolean arrays, and integers when an array is among them) broadcast together;
when they sit next to each other in the key their broadcast dimensions replace them in place, and
when a slice, None or Ellipsis (even an empty one) separates them those dimensions come first.
The batched key adds an advanced part in front, the examples' positions `arange(n)`:

- an example's advanced parts at the front of its key, or separated: the examples' positions join
  them and the broadcast dimensions (n, *B) come first, as each example's B does;
- adjacent after basic parts (`x[:, i]`, `x[..., i]`, `x[:, None, i]`): a slice between the
  examples' positions and the block would move B before the basic dimensions, so each leading
  slice becomes an arange on its own broadcast dimension (a None a unit one, an Ellipsis one per
  axis it spans) and the whole key is one block with the example's layout;
- no advanced part per example: the examples' positions and any per-example integers give (n,) first.

An index shared by every example needs no arange (`(slice(None), *index)` keeps the layout) unless
its advanced parts are separated: then the leading slice would itself separate, and (B, n, ...)
would come out; the examples' positions make it (n, B, ...)."""
from __future__ import annotations

import numpy as np

from ._batch_checks import index_part
from ._examples import index_tuple
from .core import asarray

_BASIC = ("slice", "new", "ell")


def _kind(p, batched):
    """(kind, axes the part consumes, broadcast dimensions it adds) of one index part, per example.
    Kinds: slice, new (None), ell (Ellipsis), int, arr (an integer array), bool (a boolean array)."""
    if p is None:
        return "new", 0, 0
    if p is Ellipsis:
        return "ell", 0, 0
    if isinstance(p, slice):
        return "slice", 1, 0
    if batched:
        nd = np.ndim(p) - 1
        return ("int", 1, 0) if nd <= 0 else ("arr", 1, nd)
    if isinstance(p, (bool, np.bool_)):
        return "bool", 0, 1
    if isinstance(p, (int, np.integer)):
        return "int", 1, 0
    dtype = getattr(p, "dtype", None)
    if dtype is None:  # a list, tuple or range of positions (or of flags): NumPy makes it an array
        a = np.asarray(p)
        dtype, nd = a.dtype, a.ndim
    else:
        nd = np.ndim(p)
    if np.dtype(dtype).kind == "b":
        return "bool", nd, 1
    return ("int", 1, 0) if nd == 0 else ("arr", 1, nd)


def parts_and_flags(index, ib):
    """The per-example index as a list of parts and which of them are batched (a slice, None,
    Ellipsis or range is every example's; a batched list is one batched array per entry, stacked)."""
    parts = list(index_tuple(index))
    flags = list(index_tuple(ib)) if isinstance(ib, tuple) else [ib] * len(parts)
    flags = [bool(f) and not (p is None or p is Ellipsis or isinstance(p, (slice, range)))
             for p, f in zip(parts, flags)]
    parts = [np.stack([asarray(e) for e in p], axis=1) if f and isinstance(p, list) and p else p
             for p, f in zip(parts, flags)]
    return parts, flags


def layout(parts, flags):
    """How NumPy lays out one example's `x[parts]`: (case, kinds, nB) with case "basic" (no advanced
    part), "front" (adjacent at the key's start), "inner" (adjacent after basic parts) or "apart"
    (separated), and nB the rank of the advanced parts' broadcast shape."""
    kinds = [_kind(p, f) for p, f in zip(parts, flags)]
    if not any(k in ("arr", "bool") for k, _, _ in kinds):
        return "basic", kinds, 0
    adv = [k not in _BASIC for k, _, _ in kinds]
    first, last = adv.index(True), len(adv) - 1 - adv[::-1].index(True)
    nb = max(b for _, _, b in kinds)
    if not all(adv[first:last + 1]):
        return "apart", kinds, nb
    return ("front" if first == 0 else "inner"), kinds, nb


def batched_key(index, ib, n, shape, clip=True):
    """The key of `x[index]` per example on batched `x` of shape `shape` (batch axis first), index
    parts batched per `ib`: `x[key]` is each example's result stacked, and `x[key] = v` stores each
    example's `v` where its own store would. `clip`: batched integer parts clipped into range, for
    code under a mask, whose finished lanes may hold any index; without a mask an index out of
    range is NumPy's IndexError, as in a loop over examples."""
    if not ib or type(ib) is tuple and not any(ib):
        parts = index if type(index) is tuple else (index,)
        others = 0
        for p in parts:
            if p is not None and p is not Ellipsis and type(p) is not slice:
                others += 1
        if others <= 1:
            return (slice(None),) + parts  # (the common case first: one advanced part at most stays in place)
    parts, flags = parts_and_flags(index, ib)
    case, kinds, nb = layout(parts, flags)
    if not any(flags) and case != "apart":
        return (slice(None),) + tuple(parts)
    rank = len(shape) - 1
    spans = [c for _, c, _ in kinds]
    if "ell" in [k for k, _, _ in kinds]:
        spans[[k for k, _, _ in kinds].index("ell")] = rank - sum(spans)
    lead = kinds.index(next(k for k in kinds if k[0] not in _BASIC)) if case == "inner" else 0
    # each basic part before an inner block: its output dimensions as broadcast ones (an arange each)
    dims = sum(spans[j] if kinds[j][0] == "ell" else 1 for j in range(lead))
    out, axis, d = [], 1, 0
    for j, (p, f, (kind, _, _)) in enumerate(zip(parts, flags, kinds)):
        if j < lead:
            for t in range(spans[j] if kind == "ell" else 1 if kind == "slice" else 0):
                r = np.arange(*(p if kind == "slice" else slice(None)).indices(shape[axis + t]))
                out.append(r.reshape(r.shape + (1,) * (dims - 1 - d - t + nb)))
            d += spans[j] if kind == "ell" else 1
        elif f:
            p = index_part(p)
            if clip and p.dtype.kind in "iu" and axis < len(shape):
                p = np.clip(p, -shape[axis], shape[axis] - 1)
            out.append(p.reshape(p.shape[:1] + (1,) * (dims + nb - p.ndim + 1) + p.shape[1:]))
        else:
            out.append(p)
        axis += spans[j]
    ar = getattr(n, "xp", np).arange(n).reshape((n,) + (1,) * (dims + nb))
    return (ar,) + tuple(out)
