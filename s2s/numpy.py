"""`import s2s.numpy as jnp`: the NumPy functions s2s has rules for, under their NumPy names.

They are NumPy's own functions, so outside a transform they simply compute, and inside one s2s
recognizes them exactly as it recognizes `numpy.<name>`.
"""
from __future__ import annotations

import numpy as _np

from .primitives import registry as _registry
from .primitives import rules as _rules  # noqa: F401  (fills the registry)

_names = sorted({k[3:] for k in _registry.PRIMS if k.startswith("xp.") and "." not in k[3:]})
for _name in _names:
    if hasattr(_np, _name):
        globals()[_name] = getattr(_np, _name)
linalg = _np.linalg
float32, float64, int32, int64, bool_ = _np.float32, _np.float64, _np.int32, _np.int64, _np.bool_
pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, _np.newaxis
ndarray = _np.ndarray
__all__ = [n for n in _names if n in globals()] + ["linalg", "float32", "float64", "int32", "int64", "bool_",
                                                   "pi", "e", "inf", "nan", "newaxis", "ndarray"]
