"""Attribute stores on objects that outlive the call (`self.Z = Z` in a layer's forward pass,
frontend/attr_stores.py): `ext.s2s_setattr` stores the primal value, an effect that every transform
keeps once, where the plain function stores it; `ext.s2s_getattr` reads what the object holds
when the call starts, for an attribute the function both stores and reads; `ext.s2s_setitem` and
`ext.s2s_dict_of` are the same for an item stored into a dict the object holds;
`ext.s2s_is_integer` is a float's own method."""
from __future__ import annotations

import numpy as np

from ...base import record
from ...errors import S2SError
from .registry import EXT, SAME, nondiff, prim


def s2s_setattr(obj, name, v):
    """`obj.name = v`, as the plain function does it; gives None."""
    setattr(obj, name, v)


def s2s_append(lst, v):
    """`lst.append(v)` of a list that outlives the call; gives None."""
    lst.append(v)


def s2s_getattr(obj, name):
    """`obj.name` read at run time (the attribute changes from call to call)."""
    return getattr(obj, name)


def s2s_setitem(container, key, v):
    """`container[key] = v` of a dict an object holds (`self.ctx["X"] = X`); gives None."""
    container[key] = v


def s2s_dict_of(obj, name, keys):
    """The dict `obj.name` when the call starts, which the function copies item by item (its stores
    go to the copy, and by `s2s_setitem` to the object's dict): it must still hold the keys it held
    when s2s compiled the function, which the copy lists (a key added since, such as the one the
    last call stored, is not copied)."""
    held = getattr(obj, name)
    if not isinstance(held, dict) or any(k not in held for k in keys):
        raise S2SError(f"`.{name}` of a {type(obj).__name__} holds the keys {tuple(held)} now, not all the keys "
                       f"{tuple(keys)} it held when s2s compiled the function that stores into it.\n"
                       "Give the dict its keys before the first call, or transform the function again.")
    return held


def s2s_is_integer(x):
    """`x.is_integer()` of a Python or NumPy float (hipsternet's `h_out.is_integer()` of a shape
    computed with `/`); a bool, no derivative."""
    return float(x).is_integer()


_USER_TYPES: set = set()  # classes whose objects s2s_method has called methods of


def s2s_method(obj, name, args, kw, at="", stored=None):
    """`obj.name(*args, **kw)` of a user object a transformed function is given (a dataset's
    `getRandomContext(C)`), run as Python once, where the plain function runs it: an effect (a
    random draw in it is the one the derivative uses too). No derivative rules: a differentiated
    object or argument reaching it is refused by the transform. Containers and arrays keep s2s's
    own methods: a method s2s does not know of one is refused, and so is one of an object whose
    attributes a transformed function stores into (`stored` says which: the method would read them
    without their derivative)."""
    if type(obj) not in _USER_TYPES:  # (the test below, once per class)
        if isinstance(obj, (np.ndarray, np.generic, list, tuple, dict, set, str, int, float, complex)):
            raise S2SError((at + "\n" if at else "") + f"s2s does not support the method `.{name}()` of a "
                           f"{type(obj).__name__}.")
        if len(_USER_TYPES) > 255:
            _USER_TYPES.clear()
        _USER_TYPES.add(type(obj))
    if stored is not None and stored(obj):
        raise S2SError((at + "\n" if at else "") + f"s2s does not support the method `.{name}()` of a "
                       f"{type(obj).__name__} whose attributes a transformed function stores into: it would "
                       "read them without their derivative.\nCall the method where the object is a global or "
                       "the function's `self`, so that s2s follows it.")
    return getattr(obj, name)(*args, **kw)


nondiff("ext.s2s_setattr", sig="obj, name, v", effect=True, batch=SAME)
nondiff("ext.s2s_append", sig="lst, v", effect=True, batch=SAME)
nondiff("ext.s2s_getattr", sig="obj, name", batch=SAME)
nondiff("ext.s2s_setitem", sig="container, key, v", effect=True, batch=SAME)
nondiff("ext.s2s_dict_of", sig="obj, name, keys", batch=SAME)
nondiff("ext.s2s_is_integer", sig="x", batch=SAME)
# (no rules for obj, args and kw: a derivative reaching them is refused at the user's line)
prim("ext.s2s_method", "obj, name, args, kw, at='', stored=None", zero_args=("name", "at", "stored"), effect=True,
     refused=("obj", "args", "kw"))
for _f in (s2s_setattr, s2s_append, s2s_getattr, s2s_setitem, s2s_dict_of, s2s_is_integer, s2s_method):
    record.attach(_f, prim="ext." + _f.__name__)
    setattr(EXT, _f.__name__, _f)  # (generated code calls it as ext.<name>)
