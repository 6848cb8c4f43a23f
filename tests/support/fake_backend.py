"""A pretend GPU array library for tests without a GPU: `FakeArray` and its module `FAKE`,
registered as the s2s backend "fake"; as strict as CuPy wherever CuPy has tripped s2s up.

`FakeArray` holds a NumPy array but, like `cupy.ndarray`, is no NumPy array: it refuses implicit
conversion (`np.asarray(x)`, a NumPy function on a list of them, `np.float64(x)`), `range(x)`, and
being combined with plain NumPy arrays (NumPy integer arrays are accepted as sizes and axes of its
functions, as CuPy accepts them). A NumPy function called on it runs the fake module's version,
and fails as on CuPy where the module lacks it. The module lacks what CuPy lacks (`CUPY_LACKS`)
and keeps CuPy's narrower signatures (`take` without `mode`, `partition` without `kind`,
`where` wants an array condition, `select` a scalar default, `linalg.solve` a `b` of shape
(M,) or (..., M, K), `linalg.cross` equal shapes). `x.get()` / `x.view(np.ndarray)` is the explicit
way back to NumPy. `WAITED` counts `block_until_ready` synchronizations. `special()` plays
`cupyx.scipy.special` (SciPy's functions, refusing host arrays).
"""
import types

import numpy as np

from s2s.backends import arrays

WAITED = []

# NumPy functions CuPy 14 does not have (found on an H200 run): s2s composes those it can
# (s2s/backends/array_fill.py); the test sweeps expect the others' S2SError (tests/support/backend_variants.py).
CUPY_LACKS = ("vecdot", "matvec", "vecmat", "unstack", "nanquantile", "nanpercentile")
CUPY_LINALG_LACKS = ("vector_norm", "matrix_norm", "vecdot", "trace", "tensordot", "svdvals", "outer",
                     "multi_dot", "diagonal", "matrix_transpose")


def _refuse(values, data_only=False):
    """TypeError on a plain NumPy array among `values`; with `data_only`, only on non-integer ones
    (CuPy's functions accept NumPy integer arrays for sizes and axes, never as operands or masks)."""
    for v in values:
        if isinstance(v, (list, tuple)):
            _refuse(v, data_only)
        elif isinstance(v, dict):
            _refuse(v.values(), data_only)
        elif isinstance(v, np.ndarray) and not (data_only and v.dtype.kind in "iu"):
            raise TypeError(f"Unsupported type {type(v)} (fake backend: a NumPy array, as CuPy refuses it)")


def _unwrap(v):
    if isinstance(v, FakeArray):
        return v._a
    if type(v) in (list, tuple):
        return type(v)(_unwrap(e) for e in v)
    if type(v) is dict:
        return {k: _unwrap(e) for k, e in v.items()}
    return v


def _wrap(v):
    if isinstance(v, np.ndarray):
        return FakeArray(v)
    if isinstance(v, np.generic):  # CuPy's reductions and indexing give 0-d arrays, not scalars
        return FakeArray(np.asarray(v))
    if type(v) in (list, tuple):
        return type(v)(_wrap(e) for e in v)
    if isinstance(v, tuple):  # a named tuple (eigh, svd, qr, slogdet): CuPy returns its arrays
        return type(v)(*(_wrap(e) for e in v))
    return v


def _call(fn, args, kwargs, data_only=True):
    _refuse(args, data_only)
    _refuse(kwargs.values(), data_only)
    return _wrap(fn(*_unwrap(args), **_unwrap(kwargs)))


class FakeArray:
    """A device array: the NumPy data stays inside; every operation goes through the fake module."""

    __slots__ = ("_a", "_base")
    __hash__ = None
    __array_priority__ = 100

    def __init__(self, a, base=None):
        self._a, self._base = a, base

    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed (fake backend, as CuPy). "
                        "Please use `.get()` to construct a NumPy array explicitly.")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if getattr(FAKE, ufunc.__name__, None) is not ufunc:
            return NotImplemented
        _refuse(inputs)
        _refuse(kwargs.values())
        if "out" in kwargs:
            kwargs["out"] = tuple(_unwrap(o) for o in kwargs["out"])
        out = getattr(ufunc, method)(*_unwrap(inputs), **_unwrap(kwargs))
        return None if method == "at" else _wrap(out)

    def __array_function__(self, func, types_, args, kwargs):
        module = FAKE
        for part in func.__module__.split(".")[1:]:  # numpy.linalg, numpy.lib.stride_tricks: those of FAKE
            module = getattr(module, part, None) if part != "_core" else module
        mine = getattr(module, func.__name__, None)
        if mine is None:  # as CuPy: "no implementation found for 'numpy.x' on types that implement ..."
            return NotImplemented
        return mine(*args, **kwargs)

    def __array_namespace__(self, api_version=None):
        return FAKE

    def get(self):
        return self._a.copy()

    def view(self, cls=None):
        if cls is np.ndarray:  # tests' explicit way back to the host (CuPy: .get())
            return self._a
        return FakeArray(self._a.view() if cls is None else self._a.view(cls))

    # ---- attributes and methods: those of the data, with arrays in and out wrapped
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: FakeArray(self._a.T))
    mT = property(lambda self: FakeArray(self._a.mT))
    real = property(lambda self: FakeArray(self._a.real))
    base = property(lambda self: self._base)  # as CuPy's: the array a view (x[1:3]) looks into
    data = property(lambda self: types.SimpleNamespace(ptr=self._a.__array_interface__["data"][0]))
    imag = property(lambda self: FakeArray(self._a.imag))

    def __getattr__(self, name):
        if name.startswith("__"):  # not the data's __array_interface__ & co: NumPy would read the data
            raise AttributeError(name)
        attr = getattr(self._a, name)
        if not callable(attr):
            return _wrap(attr)

        def method(*args, **kwargs):
            return _call(attr, args, kwargs)
        return method

    def __getitem__(self, index):  # NumPy index arrays are accepted, as CuPy moves them
        index = _unwrap(index)
        out = self._a[index]
        if isinstance(out, np.generic):  # CuPy's x[i] is a 0-d view into x, not a copied scalar
            out = self._a[(index if isinstance(index, tuple) else (index,)) + (Ellipsis,)]
        view = out.base is not None and np.may_share_memory(out, self._a)
        return FakeArray(out, (self._base if self._base is not None else self) if view else None)

    def __setitem__(self, index, value):
        self._a[_unwrap(index)] = _unwrap(value)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (FakeArray(np.asarray(e)) for e in self._a)

    def __bool__(self):
        return bool(self._a)

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __complex__(self):
        return complex(self._a)

    def __repr__(self):
        return f"fake_array({self._a!r})"


def _binary(ufunc, reflected=False):
    if reflected:
        return lambda self, other: ufunc(other, self)
    return lambda self, other: ufunc(self, other)


def _inplace(ufunc):
    def op(self, other):
        ufunc(self, other, out=(self,))
        return self
    return op


for _name, _uf in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("truediv", np.true_divide),
                   ("floordiv", np.floor_divide), ("mod", np.remainder), ("pow", np.power), ("matmul", np.matmul),
                   ("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor),
                   ("lshift", np.left_shift), ("rshift", np.right_shift), ("divmod", np.divmod)):
    setattr(FakeArray, f"__{_name}__", _binary(_uf))
    setattr(FakeArray, f"__r{_name}__", _binary(_uf, reflected=True))
    if _name != "divmod":
        setattr(FakeArray, f"__i{_name}__", _inplace(_uf))
for _name, _uf in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal),
                   ("eq", np.equal), ("ne", np.not_equal)):
    setattr(FakeArray, f"__{_name}__", _binary(_uf))
for _name, _uf in (("neg", np.negative), ("pos", np.positive), ("abs", np.absolute), ("invert", np.invert)):
    setattr(FakeArray, f"__{_name}__", lambda self, _uf=_uf: _uf(self))


_MOVE = {"asarray", "array", "asanyarray", "ascontiguousarray"}


def _function(name, fn):
    def call(*args, **kwargs):
        return _call(fn, args, kwargs, data_only=True) if name not in _MOVE else \
            _wrap(fn(*_unwrap(args), **_unwrap(kwargs)))
    call.__name__ = name
    return call


def _module(src, lacks):
    ns = {}
    for name, v in vars(src).items():
        if name.startswith("_") or name in lacks:
            continue
        ns[name] = _function(name, v) if callable(v) and not isinstance(v, (type, np.ufunc)) else v
    return types.SimpleNamespace(**ns)


FAKE = _module(np, CUPY_LACKS)
FAKE.linalg = _module(np.linalg, CUPY_LINALG_LACKS)
FAKE.lib = types.SimpleNamespace(stride_tricks=_module(np.lib.stride_tricks, ()))
FAKE.fft = _module(np.fft, ())  # (cupy.fft has NumPy's transforms)


# ---- CuPy's narrower signatures

def _take(a, indices, axis=None, out=None):
    return _call(np.take, (a, indices), {"axis": axis, "out": out})


def _partition(a, kth, axis=-1):
    return _call(np.partition, (a, kth), {"axis": axis})


def _where(condition, *xy):
    if not hasattr(condition, "astype"):  # cupy.where calls condition.astype
        raise AttributeError(f"'{type(condition).__name__}' object has no attribute 'astype'")
    return _call(np.where, (condition, *xy), {})


def _select(condlist, choicelist, default=0):
    if not np.isscalar(default):
        raise TypeError("default only accepts scalar values")
    return _call(np.select, (condlist, choicelist), {"default": default})


def _solve(a, b):
    ok = (b.ndim == 1 and a.ndim == 2) or (b.ndim == a.ndim and a.shape[:-1] == b.shape[:-1])
    if not ok or a.shape[-1] != a.shape[-2]:
        raise ValueError("a must have (..., M, M) shape and b must have (..., M, K) for multidimensional b")
    return _call(np.linalg.solve, (a, b), {})


def _cross(x1, x2, /, *, axis=-1):
    if x1.shape != x2.shape:
        raise ValueError("x1 and x2 must have the same shape")
    return _call(np.linalg.cross, (x1, x2), {"axis": axis})


FAKE.take, FAKE.partition, FAKE.where, FAKE.select = _take, _partition, _where, _select
FAKE.linalg.solve, FAKE.linalg.cross = _solve, _cross


def put(x):
    return x if isinstance(x, FakeArray) else FakeArray(np.array(x))


def _wait(x):
    WAITED.append(x)
    return x


def namespace():
    """The fake module as generated code sees it: s2s's namespace over it (as over CuPy), with
    s2s's compositions for what it lacks."""
    return arrays.library_namespace("Fake", FAKE)


def special():
    """SciPy's special functions as `cupyx.scipy.special` offers them: on device arrays only."""
    import scipy.special
    return types.SimpleNamespace(**{name: _function(name, getattr(scipy.special, name)) for name in CUPYX_SPECIAL})


# the special functions s2s.scipy's primitives call, all in cupyx.scipy.special (CuPy 14)
CUPYX_SPECIAL = ("gammaln", "digamma", "polygamma", "erf", "erfc", "erfinv", "ndtri", "log_ndtr", "i0e", "i1e",
                 "gammainc", "gammaincc", "betainc", "gamma", "rgamma", "gammasgn", "erfcinv", "i0", "i1", "j0", "j1",
                 "y0", "y1", "yn")

BACKEND = arrays.Backend("fake", namespace, array_type=FakeArray, put=put, wait=_wait, special=special)


def host(a):
    """A fake device array's values as a NumPy array (anything else through np.asarray)."""
    return np.asarray(a.view(np.ndarray) if isinstance(a, FakeArray) else a)


def is_fake(a) -> bool:
    return isinstance(a, FakeArray)
