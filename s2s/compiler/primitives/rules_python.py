"""Python builtins that real code calls on numbers (s2s/compiler/frontend/python_idioms.py).

`round`, `any` and `all` carry no derivative (round's is zero almost everywhere, as np.round's).
`ext.s2s_py_argmax`/`_argmin` is the position of the item Python's `max`/`min` of a list returns:
the first largest (smallest), found with Python's own comparisons, so a list of arrays raises
Python's ambiguous-truth-value error; the call becomes `items[position]`, whose derivative goes to
that item (`ext.s2s_py_pick`, run per example under vmap). `ext.s2s_detached` is an element
read kept across a store into its array, `ext.s2s_own_copy` a list's element stored into
(frontend/elements.py).
"""
from __future__ import annotations

from ...base import record
from ...errors import S2SSyntaxError, error_at
from .registry import EXT, LOOP, SAME, defjvp, defvjp, linear, nondiff, prim


def s2s_py_argmax(items):
    """The index of the item `max(items)` returns (Python's comparisons and errors)."""
    return max(range(len(items)), key=items.__getitem__) if len(items) else max(items)


def s2s_py_argmin(items):
    """The index of the item `min(items)` returns (Python's comparisons and errors)."""
    return min(range(len(items)), key=items.__getitem__) if len(items) else min(items)


def s2s_py_pick(items, pos):
    """`items[pos]`: the item max/min chose (its own primitive so that vmap runs it per example)."""
    return items[pos]


def s2s_py_pick_vjp(g, items, pos):
    """Cotangent of `s2s_py_pick`: `g` for the chosen item, zeros for the others."""
    return [g if i == pos else item * 0.0 for i, item in enumerate(items)]


def s2s_detached(v, file, line, col, name, array):
    """`v` (an element read `name = array[j]`) as its own copy where it is 0-d; a view (a row) is the
    alias check's error at the store's line (frontend/elements.py), as when transforming."""
    if getattr(v, "ndim", 0) == 0:
        return v.copy() if hasattr(v, "copy") else v
    raise error_at((file, line, col), f"`{array}[...] = ...` changes the array that `{name}` also refers to (NumPy "
                   f"updates it in place), and `{name}` is read afterwards; s2s would not see that change.",
                   f"Make `{name}` a copy where it is bound (`{name} = ....copy()`), or write `{array} = {array} + "
                   "...` and update the other name explicitly.", S2SSyntaxError)


def s2s_own_copy(v):
    """A copy of a list's element before a store into it (`xs[t][i] = v`, frontend/elements.py)."""
    return v.copy() if hasattr(v, "copy") else v


def s2s_with_item(arr, index, v):
    """A copy of `arr` with `arr[index] = v` (NumPy's cast to arr's dtype): `xs[t][i] = v` stored
    into a list's element (frontend/elements.py) without an update in place."""
    out = arr.copy()
    out[index] = v
    return out


nondiff("round", sig="x, ndigits=None", builtin="round", batch=LOOP)
nondiff("any", "all", sig="x", batch=LOOP)
nondiff("ext.s2s_py_argmax", "ext.s2s_py_argmin", sig="items", batch=LOOP)
linear("ext.s2s_py_pick", "items, pos", "items", "ext.s2s_py_pick_vjp(g, items, pos)", batch=LOOP)
linear("ext.s2s_py_pick_vjp", "g, items, pos", "g", "ext.s2s_py_pick(g, pos)", batch=LOOP)
prim("ext.s2s_with_item", "arr, index, v", zero_args=("index",), batch=LOOP, result_like=0)  # (a copy of `arr`)
defvjp("ext.s2s_with_item", arr="ext.s2s_with_item(g, index, 0.0)", v="rt.unbroadcast(g[index], v)")
defjvp("ext.s2s_with_item", arr="ext.s2s_with_item(darr, index, 0.0)",
       v="ext.s2s_with_item(xp.zeros_like(arr), index, dv)")
linear("ext.s2s_own_copy", "v", "v", "g", batch=SAME)
linear("ext.s2s_detached", "v, file, line, col, name, array", "v", "g", batch=LOOP)
for _f in (s2s_py_argmax, s2s_py_argmin, s2s_py_pick, s2s_py_pick_vjp, s2s_detached, s2s_own_copy, s2s_with_item):
    record.attach(_f, prim="ext." + _f.__name__)
    setattr(EXT, _f.__name__, _f)  # (generated code calls it as ext.<name>)
