"""The backward sweep's own copies of what the forward sweep recorded: `private` copies a record's
containers (and arrays) keeping shared objects shared and views views, `shape_stub` keeps only an
array's shape and dtype, `TapeRows` is what an array loop kernel pushed, as rows."""
from itertools import chain

import numpy as np

from .core import namespace

__all__ = ("private", "shape_stub", "TapeRows", "expand_rows")


def private(record, arrays=False):
    """The backward sweep's own copy of a record: every list, tuple and dict in it is new (so it
    may pop and restore them), and with `arrays` every array too (so it may restore in-place
    updates into them); objects shared in `record` stay shared in the copy, and a view stays a
    view of its base's copy. Nothing the caller holds changes.

    `arrays` may also be a tuple of positions of the record (a tuple): only the arrays under those
    (the ones the sweep restores into, and the tapes they are popped from) are copied, and an
    array elsewhere only when it shares its memory with one of them (a view of it, its base);
    the others (a 12 MB input the sweep only reads) stay shared."""
    if type(arrays) is not tuple or type(record) is not tuple:  # (positions: of a record's tuple)
        return _private(record, bool(arrays), {})
    memo: dict = {}  # (id of an array copied, or of the base a copied view's copy views -> its copy)
    copied = {k: _private(record[k], True, memo) for k in arrays}
    return tuple(copied[k] if k in copied else _shared(v, memo) for k, v in enumerate(record))


def _root(x):
    """The object whose memory array `x` views (following `.base`), `x` itself if it owns it."""
    while (base := getattr(x, "base", None)) is not None:
        x = base
    return x


def _shared(x, memo):
    """`_private` without copying arrays, except one already copied (the same copy) or one whose
    memory is that of a copied array (its base, or the base of a copied view, is in `memo`),
    copied so that restoring the other restores it too."""
    kind = type(x)
    if kind is TapeRows:
        return x.with_firsts(tuple([_shared(v, memo) for v in x.firsts]))
    if kind in _CONTAINERS:
        key = id(x)
        if key in memo:
            return memo[key]
        if kind is tuple:
            new = tuple([_shared(v, memo) for v in x])
        elif kind is list:
            new = memo[key] = []
            new.extend([_shared(v, memo) for v in x])
        else:
            new = memo[key] = {}
            new.update({k: _shared(v, memo) for k, v in x.items()})
        memo[key] = new
        return new
    if not hasattr(x, "shape") or isinstance(x, np.generic):
        return x
    if id(x) in memo:
        return memo[id(x)]
    if id(_root(x)) in memo:
        new = memo[id(x)] = _private_array(x, memo)
        return new
    return x


_CONTAINERS = (list, tuple, dict)


def _private(x, arrays, memo):
    kind = type(x)
    if kind is TapeRows:  # (its rows are never written: shared; its first items copied as the rest are)
        return x.with_firsts(tuple([_private(v, arrays, memo) for v in x.firsts]))
    if kind not in _CONTAINERS and not (arrays and hasattr(x, "shape") and not isinstance(x, np.generic)):
        return x  # numbers, None, scalars: immutable
    key = id(x)
    if key in memo:
        return memo[key]
    if kind is list:  # (without `arrays`, what is no container is itself: kept without a call)
        new = []
        memo[key] = new
        new.extend([_private(v, arrays, memo) if arrays or type(v) in _CONTAINERS else v for v in x])
    elif kind is tuple:
        new = tuple([_private(v, arrays, memo) if arrays or type(v) in _CONTAINERS else v for v in x])
    elif kind is dict:
        new = {}
        memo[key] = new
        new.update({k: _private(v, arrays, memo) if arrays or type(v) in _CONTAINERS else v for k, v in x.items()})
    else:
        new = _private_array(x, memo)
    memo[key] = new
    return new


def _private_array(x, memo):
    """A copy of array `x` in its own memory layout; a view of another array becomes the same view
    of that array's copy, so restoring the base restores the view, as it does in the forward
    sweep's arrays. The view is rebuilt only where the base's copy has the base's strides (a copy of
    a Fortran-ordered base taken in C order would be read with the wrong strides)."""
    base = getattr(x, "base", None)
    if not isinstance(x, np.ndarray) and base is not None:
        return _private_device_view(x, base, memo)
    if not isinstance(x, np.ndarray):
        return x.copy()  # (another library's array: its own copy, which may take no `order`)
    if not isinstance(base, np.ndarray) or not (base.flags.c_contiguous or base.flags.f_contiguous):
        return x.copy(order="K")
    new_base = memo.get(id(base))
    if new_base is None:
        new_base = base.copy(order="K")
        memo[id(base)] = new_base
    if new_base.strides != base.strides:  # the view's strides would read another layout's memory
        return x.copy(order="K")
    offset = x.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    try:
        view = np.ndarray(x.shape, x.dtype, buffer=new_base, offset=offset, strides=x.strides)
        return view if type(x) is np.ndarray else view.view(type(x))  # an ndarray subclass stays one
    except (TypeError, ValueError):
        return x.copy()


def _private_device_view(x, base, memo):
    """`_private_array` of a view on a device (CuPy): the same strides over the base's copy, from
    the same offset (`as_strided` of the copy's flat view), else a plain copy."""
    if base.dtype != x.dtype or not base.flags.c_contiguous:
        return x.copy()
    new_base = memo.get(id(base))
    if new_base is None:
        new_base = memo[id(base)] = base.copy()
    if new_base.strides != base.strides:
        return x.copy()
    offset = x.data.ptr - base.data.ptr
    if offset % x.itemsize:
        return x.copy()
    try:
        start = new_base.reshape(-1)[offset // x.itemsize:]
        return namespace(x).lib.stride_tricks.as_strided(start, x.shape, x.strides)
    except (AttributeError, TypeError, ValueError):  # a library without as_strided: no shared view
        return x.copy()


STUB_BASES: dict = {}


def shape_stub(x):
    """What the tape keeps of an array the backward sweep reads only for its shape and dtype
    (`rt.unbroadcast(g, x)`, `rt.zeros_like_tree(x)`): an array of `x`'s shape and dtype whose
    elements all share one read-only zero (strides 0), so it holds no copy of `x`'s data. Anything
    else (numbers, lists, other array libraries' arrays) is kept as it is."""
    if type(x) is not np.ndarray or x.size <= 1:
        return x
    base = STUB_BASES.get(x.dtype)
    if base is None:
        base = np.zeros(1, dtype=x.dtype)
        base.flags.writeable = False
        base = STUB_BASES.setdefault(x.dtype, base)
    return np.ndarray(x.shape, x.dtype, buffer=base, strides=(0,) * x.ndim)


class TapeRows:
    """One tape item standing for the `n * len(sites)` items an array loop kernel's `n` iterations
    pushed (`s2s.compiler.emit.numba_arrayloops`, where the backward sweep's loop is a kernel
    too), as one array of rows per push site, so neither the record's copy nor the backward
    kernel touches the items one by one. `sites`, in push order: (rows, kind, stub, rank, maker)
    as the forward loop's sites (`rows`: the site's array; a shape stub of a row where `stub`);
    `firsts`: a saved variable's value before the loop (its first item), else None. Nothing
    writes into it once made (a copy of a record shares it); `items` gives the Python loop's
    items as new objects, for a loop that pops them one by one (`expand_rows`)."""

    __slots__ = ("n", "sites", "firsts")

    def __init__(self, n: int, sites: tuple, firsts: tuple):
        self.n, self.sites, self.firsts = n, sites, firsts

    def with_firsts(self, firsts: tuple):
        """This block with other first items (a record's copy of them, made as it copies the
        record's other objects), itself where they are the same objects."""
        same = all(a is b for a, b in zip(firsts, self.firsts))
        return self if same else TapeRows(self.n, self.sites, firsts)

    def items(self, made=None) -> list:
        """The Python loop's items, in its order: a copy of a site's row (a NumPy scalar where the
        rows are numbers), one object where sites push the object one statement made (the site's
        maker; `made`: maker -> those objects, shared by the blocks of one loop), the stub where
        the loop pushes one, and a saved variable's first item before its rows 1 to n - 1."""
        made = {} if made is None else made
        n, columns = self.n, []
        for (rows, kind, stub, rank, maker), first in zip(self.sites, self.firsts):
            if stub and rank:
                items = [rows] * n
            elif not rank:
                items = list(rows)
            else:
                objects = made.get(maker) if maker is not None else None
                if objects is None:
                    objects = [r.copy() for r in rows] if kind != "saved" else [r.copy() for r in rows[1:]] + [None]
                    if maker is not None:
                        made[maker] = objects
                items = objects if kind != "saved" else [None] + objects[:n - 1]
            if kind == "saved":
                items[0] = first
            columns.append(items)
        return list(chain.from_iterable(zip(*columns)))


def expand_rows(tape: list) -> list:
    """`tape` (in place) with each `TapeRows` on it replaced by its items."""
    if any(type(x) is TapeRows for x in tape):
        tape[:] = list(chain.from_iterable(x.items() if type(x) is TapeRows else (x,) for x in tape))
    return tape
