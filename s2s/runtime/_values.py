"""Small facts about the values the runtime's helpers meet, shared by them (core, reduce, shapes,
jacobian, the batching helpers): a value's shape, size and floating dtype, whether it is a number,
a pytree or a list that meets an array as NumPy's array, whether an index is fancy; and a
read-only strided view of an array (the loops' windows). Generated code never calls these, so this
module has no export list and `rt` does not see them."""
from __future__ import annotations

import numpy as np

from ..base.tree import node_children


def shape_of(x):
    return x.shape if hasattr(x, "shape") else np.shape(x)


NUMBER_TYPES = frozenset({float, int, bool, complex})


def list_meets_array(x, other):
    """Whether list `x` meets `other` in arithmetic as np.array(x) (with a list or number: joined/repeated)."""
    return isinstance(x, (list, tuple)) and not isinstance(other, (list, tuple)) \
        and type(other) not in NUMBER_TYPES and node_children(other) is None


def size_of(x) -> int:
    """The number of elements, from the shape (np.size would compute a lazy Dask array)."""
    n = 1
    for d in shape_of(x):
        n *= int(d)
    return n


def float_dtype(like):
    dt = getattr(like, "dtype", None)
    return dt if dt is not None and dt.kind in "fc" else np.float64


def host_index(index):
    """`index` with its array parts on the host (a lazy Dask index array is computed here)."""
    parts = index if isinstance(index, tuple) else (index,)
    host = tuple(p.compute() if hasattr(p, "compute") else p for p in parts)
    return host if isinstance(index, tuple) else host[0]


def is_fancy(index) -> bool:
    parts = index if isinstance(index, tuple) else (index,)
    return any(hasattr(p, "shape") and np.ndim(p) > 0 or isinstance(p, list) for p in parts)


def is_tree(x) -> bool:
    return isinstance(x, (tuple, list, dict)) or x is None


def read_only_view(x, axis, start, shape, strides):
    """A read-only view of NumPy array `x` with `shape` and `strides`, its first element at
    `start` along `axis`: on x's buffer where x is C-contiguous (`as_strided` costs 3 us of
    Python), else `as_strided` of x from `start` on."""
    if x.flags.c_contiguous and not x.dtype.hasobject:
        out = np.ndarray(shape, x.dtype, x, start * x.strides[axis], strides)
        out.flags.writeable = False
        return out
    base = x[(slice(None),) * axis + (slice(start, None),)]
    return np.lib.stride_tricks.as_strided(base, shape, strides, writeable=False)
