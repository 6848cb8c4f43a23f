"""A pretend GPU array library for tests without a GPU: `FakeArray` (a NumPy subclass) and its
module `FAKE`, registered as the s2s backend "fake".

Like CuPy, it refuses to combine its arrays with plain NumPy arrays (a TypeError; NumPy integer
arrays are accepted as sizes and axes of its functions, as CuPy accepts them), so a helper
that allocates with NumPy by name instead of the arguments' module fails loudly; its functions
return FakeArrays. `WAITED` counts `block_until_ready` synchronizations.
"""
import types

import numpy as np

from s2s import arrays

WAITED = []


def _refuse(values, data_only=False):
    """TypeError on a plain NumPy array among `values`; with `data_only`, only on floating ones
    (CuPy's functions accept NumPy integer arrays for sizes and axes, never as operands)."""
    for v in values:
        if isinstance(v, (list, tuple)):
            _refuse(v, data_only)
        elif type(v) is np.ndarray and not (data_only and v.dtype.kind in "biu"):
            raise TypeError(f"fake backend: unsupported type {type(v).__name__} (a NumPy array), as CuPy refuses it")


def _unwrap(v):
    if isinstance(v, FakeArray):
        return v.view(np.ndarray)
    if isinstance(v, (list, tuple)):
        return type(v)(_unwrap(e) for e in v) if type(v) in (list, tuple) else v
    return v


def _wrap(v):
    if type(v) is np.ndarray:
        return v.view(FakeArray)
    if isinstance(v, np.generic):
        return np.asarray(v).view(FakeArray)
    if type(v) in (list, tuple):
        return type(v)(_wrap(e) for e in v)
    if isinstance(v, tuple):  # a named tuple (eigh, svd, qr, slogdet): CuPy returns its arrays
        return type(v)(*(_wrap(e) for e in v))
    return v


class FakeArray(np.ndarray):
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _refuse(inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(_unwrap(o) for o in kwargs["out"])
        out = getattr(ufunc, method)(*_unwrap(inputs), **kwargs)
        return None if method == "at" else _wrap(out)

    def __array_function__(self, func, types_, args, kwargs):
        _refuse(args, data_only=True)
        return _wrap(func(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))

    def __getitem__(self, index):  # x[i] is a 0-d array, as in CuPy (NumPy gives a NumPy scalar)
        return _wrap(super().__getitem__(index))

    def __array_namespace__(self, api_version=None):
        return FAKE

    def __float__(self):
        return float(self.view(np.ndarray))


_MOVE = {"asarray", "array"}


def _function(name, fn):
    def call(*args, **kwargs):
        if name not in _MOVE:
            _refuse(args, data_only=True)
        return _wrap(fn(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))
    call.__name__ = name
    return call


def _module(src):
    ns = {}
    for name, v in vars(src).items():
        if name.startswith("_"):
            continue
        ns[name] = _function(name, v) if callable(v) and not isinstance(v, (type, np.ufunc)) else v
    return types.SimpleNamespace(**ns)


FAKE = _module(np)
FAKE.linalg = _module(np.linalg)


def put(x):
    return np.asarray(x).view(FakeArray)


def _wait(x):
    WAITED.append(x)
    return x


BACKEND = arrays.Backend("fake", lambda: FAKE, array_type=FakeArray, put=put, wait=_wait)
