"""Attribute stores on objects that outlive the call (`self.Z = Z` in a layer's forward pass,
frontend/attr_stores.py): `ext.s2s_setattr` stores the primal value, an effect that every transform
keeps once, where the plain function stores it; `ext.s2s_getattr` reads what the object holds
when the call starts, for an attribute the function both stores and reads."""
from __future__ import annotations

from ...base import record
from .registry import EXT, SAME, nondiff


def s2s_setattr(obj, name, v):
    """`obj.name = v`, as the plain function does it; gives None."""
    setattr(obj, name, v)


def s2s_append(lst, v):
    """`lst.append(v)` of a list that outlives the call; gives None."""
    lst.append(v)


def s2s_getattr(obj, name):
    """`obj.name` read at run time (the attribute changes from call to call)."""
    return getattr(obj, name)


nondiff("ext.s2s_setattr", sig="obj, name, v", effect=True, batch=SAME)
nondiff("ext.s2s_append", sig="lst, v", effect=True, batch=SAME)
nondiff("ext.s2s_getattr", sig="obj, name", batch=SAME)
for _f in (s2s_setattr, s2s_append, s2s_getattr):
    record.attach(_f, prim="ext." + _f.__name__)
    setattr(EXT, _f.__name__, _f)  # (generated code calls it as ext.<name>)
