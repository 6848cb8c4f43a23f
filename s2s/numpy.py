"""`import s2s.numpy as jnp`: the NumPy functions s2s has rules for, under their NumPy names.

Each runs on the backend of its arguments (CuPy arrays on CuPy, Dask arrays on Dask) and, given
no array, on the default backend (`s2s.config.update("backend", ...)`), so `jnp.zeros(3)` makes
a CuPy array when CuPy is the default. Inside a transform s2s recognizes each one exactly as it
recognizes `numpy.<name>` (its record names the same primitive).
"""
from __future__ import annotations

import types as _types

import numpy as _np

from .backends import arrays as _arrays
from .base import record as _record
from .compiler.primitives import registry as _registry
from .compiler.primitives import rules as _rules  # noqa: F401  (fills the registry)


class _Op:
    """NumPy's function `path` (e.g. "linalg.norm"), run with the namespace its arguments select."""

    def __init__(self, path: str, fn):
        self._path, self._np = path, fn
        self.__name__ = path.rpartition(".")[2]
        self.__qualname__ = self.__name__
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__s2s__ = _record.Record(prim=f"xp.{path}")
        self._key = f"xp.{path}"

    def __call__(self, *args, **kwargs):
        if self._key in _registry.PRODUCT_OPERANDS and any(k in kwargs for k in _registry.PRODUCT_KEYWORDS):
            args, kwargs = _product_keywords(self._key, args, kwargs)
        xp = _arrays.namespace_of(args)
        if xp is _np:
            return self._np(*args, **kwargs)
        for part in self._path.split("."):
            xp = getattr(xp, part)
        return xp(*args, **kwargs)

    def __getattr__(self, name):  # a ufunc's methods and attributes: jnp.add.at, jnp.sin.nin
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._np, name)

    def __repr__(self) -> str:
        return f"<s2s.numpy.{self._path}>"


def _product_keywords(key: str, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """JAX's `precision=` dropped (NumPy has one way to multiply) and `preferred_element_type=T`
    applied by casting the operands to T, as inside a transform."""
    kwargs = dict(kwargs)
    kwargs.pop("precision", None)
    dtype = kwargs.pop("preferred_element_type", None)
    if dtype is not None:
        args = list(args)
        for i in _registry.product_operands(key, len(args)):
            args[i] = _arrays.namespace_of([args[i]]).asarray(args[i], dtype=dtype)
    return tuple(args), kwargs


def _resolve(path: str):
    obj = _np
    for part in path.split("."):
        obj = getattr(obj, part, None)
    return obj


_paths = sorted(k[3:] for k in _registry.PRIMS if k.startswith("xp."))
_names = [p for p in _paths if "." not in p]
for _name in _names:
    if _resolve(_name) is not None:
        globals()[_name] = _Op(_name, _resolve(_name))
linalg = _types.SimpleNamespace(**{k: v for k, v in vars(_np.linalg).items() if not k.startswith("_")})
for _path in _paths:
    if _path.startswith("linalg.") and _path.count(".") == 1 and _resolve(_path) is not None:
        setattr(linalg, _path[7:], _Op(_path, _resolve(_path)))
float32, float64, int32, int64, bool_ = _np.float32, _np.float64, _np.int32, _np.int64, _np.bool_
pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, _np.newaxis
ndarray = _np.ndarray
# NumPy's functions that take a function: inside a transform, the stand-ins of s2s/library/numpy_inside.py
vectorize, apply_along_axis, piecewise = _np.vectorize, _np.apply_along_axis, _np.piecewise
__all__ = [n for n in _names if n in globals()] + ["linalg", "float32", "float64", "int32", "int64", "bool_",
                                                   "pi", "e", "inf", "nan", "newaxis", "ndarray", "vectorize",
                                                   "apply_along_axis", "piecewise"]
