"""Array backends: which array module (NumPy, CuPy, `dask.array`) a call runs on.

Generated code calls one array module, `xp`. The backend of a call is read from its arguments'
types (a cheap, cached type check): CuPy arrays select CuPy, Dask arrays Dask, NumPy arrays and
Python numbers the default backend (`s2s.config.update("backend", ...)` / `S2S_BACKEND`, NumPy
unless set), to which NumPy inputs are then moved. CuPy and Dask are imported only when one of
their arrays is seen or their backend is asked for, so `import s2s` imports neither. Tests
register a fake backend with `register` to exercise this path without a GPU.
"""
from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import config as _config
from ..base.tree import tree_map
from ..errors import S2SError, S2SValueError
from . import array_fill

__all__ = ["Backend", "NUMPY", "backend_of", "by_name", "default", "library_namespace", "namespace_of", "register",
           "select"]

# NumPy's dtypes and constants: the same for every array library (NumPy's functions on dtypes, shapes
# and Python values are too: their declarations' `neutral` fact)
_NEUTRAL_VALUES = ("dtype", "float16", "complex64", "complex128", "int8", "int16", "int32", "int64", "uint8", "uint32",
                   "uint64", "bool_", "pi", "e", "inf", "nan", "newaxis")
_DECLARATIONS: dict[str, Any] = {}  # primitive name -> its declaration (registry.Prim), handed over by `learn`


def learn(declarations: dict[str, Any]) -> None:
    """Take the primitive declarations (s2s.compiler.primitives.registry.PRIMS), whose facts say how array
    libraries other than NumPy provide each function (`neutral`, `dask`, `composed`, `widened`).
    s2s/primitives hands them over once declared, before any namespace is built (this module is
    below the declarations, so it does not import them)."""
    _DECLARATIONS.update(declarations)


def declared(fact: str, sub: str = "") -> dict[str, Any]:
    """NumPy name in namespace `sub` ("" or "linalg") -> the value of declaration fact `fact`, for the
    functions whose declaration sets it."""
    prefix = f"xp.{sub}." if sub else "xp."
    out = {}
    for name, p in _DECLARATIONS.items():
        rest = name[len(prefix):]
        if name.startswith(prefix) and "." not in rest and getattr(p, fact):
            out[rest] = getattr(p, fact)
    return out


class Namespace(types.SimpleNamespace):
    """An array module as generated code sees it: the library's functions, NumPy's spellings of the
    few it names differently (`spelling`: the declaration fact holding the library's names, "dask"),
    NumPy's dtype and shape helpers, and a clear error for the rest."""

    def __init__(self, label: str, module, spelling: str = "", sub: str = ""):
        super().__init__(**{k: v for k, v in vars(module).items() if not k.startswith("__")})
        self.__dict__["_label"], self.__dict__["_sub"] = label, sub
        for name, target in (declared(spelling, sub) if spelling else {}).items():
            if name not in self.__dict__ and hasattr(module, target):
                self.__dict__[name] = getattr(module, target)
        neutral_from = np if not sub else getattr(np, sub)
        for name in (*_NEUTRAL_VALUES, *declared("neutral", sub)):
            if name not in self.__dict__ and hasattr(neutral_from, name):
                self.__dict__[name] = getattr(neutral_from, name)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        full = f"{self._sub}.{name}" if self._sub else name
        return _missing(self._label, full)

    def __repr__(self) -> str:
        return f"<s2s array namespace {self._label}{'.' + self._sub if self._sub else ''}>"


def _missing(label: str, name: str):
    def unsupported(*args, **kwargs):
        raise S2SError(f"s2s: numpy.{name} has no {label} version ({label} lacks `{name}`). Move the data to "
                       f"NumPy first (for Dask: `x.compute()`; for CuPy: `x.get()`), or write the step "
                       "with functions the backend has.")
    unsupported.__name__ = name
    return unsupported


class Backend:
    """One array library: how to import its module, recognize its arrays, move data to it and wait.

    `accepts_numpy`: NumPy arrays may be mixed into its calls (Dask wraps them; CuPy refuses them).
    `kernels`: loads the module whose `ElementwiseKernel`/`ReductionKernel` run jit's fused
    expressions as compiled kernels (CuPy; s2s/compiler/emit/cupy_kernels.py), None for none.
    `special`: loads the module of SciPy's special functions for its arrays (CuPy:
    `cupyx.scipy.special`), None where there is none (Dask runs SciPy's block by block).
    """

    def __init__(self, name: str, load: Callable[[], Any], type_module: str | None = None,
                 array_type: type | None = None, put: Callable[[Any], Any] | None = None,
                 wait: Callable[[Any], Any] | None = None, accepts_numpy: bool = False,
                 kernels: Callable[[], Any] | None = None, special: Callable[[], Any] | None = None):
        self.name, self._load, self.type_module, self.array_type = name, load, type_module, array_type
        self._put, self._wait, self.accepts_numpy, self._kernels = put, wait, accepts_numpy, kernels
        self.special = special
        self._ns = None

    @property
    def kernels(self):
        """The kernel-building module of this backend (CuPy), or None."""
        return None if self._kernels is None else self._kernels()

    @property
    def xp(self) -> Namespace:
        """The namespace generated code calls as `xp` on this backend (imported on first use)."""
        if self._ns is None:
            self._ns = self._load()
        return self._ns

    def put(self, leaf):
        """`leaf` (an array or number) as an array of this backend."""
        return self._put(leaf) if self._put is not None else self.xp.asarray(leaf)

    def wait(self, leaf):
        """Block until `leaf` is computed; returns the leaf (Dask: its persisted version)."""
        return self._wait(leaf) if self._wait is not None else leaf

    def __repr__(self) -> str:
        return f"<s2s backend {self.name}>"


def _import(module: str, extra: str):
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise S2SError(f"s2s: the {extra} backend needs `{module}`, which is not installed: "
                       f"pip install 's2s[{extra}]' ({exc})") from None


# ---------------------------------------------------------------- CuPy

def library_namespace(label: str, module) -> Namespace:
    """The namespace of a GPU-style array library (CuPy, the tests' fake one): its functions, with
    NumPy's functions it lacks composed of its own where a faithful composition exists
    (s2s/backends/array_fill.py)."""
    ns = Namespace(label, module)
    ns.__dict__["linalg"] = Namespace(label, module.linalg, sub="linalg")
    composed = {**declared("composed"), **{f"linalg.{n}": m for n, m in declared("composed", "linalg").items()}}
    array_fill.fill(ns, composed, declared("widened"))
    return ns


def _cupy_ns():
    return library_namespace("CuPy", _import("cupy", "cupy"))


def _cupy_wait(leaf):
    cp = sys.modules["cupy"]
    cp.cuda.get_current_stream().synchronize()
    return leaf


# ---------------------------------------------------------------- Dask

def _dask_ns():
    da = _import("dask.array", "dask")
    ns = Namespace("Dask", da, spelling="dask")
    d = ns.__dict__
    d["linalg"] = Namespace("Dask", da.linalg, spelling="dask", sub="linalg")
    d["copy"] = lambda a, *args, **kwargs: da.asarray(a).copy()
    d["size"] = lambda a, axis=None: int(np.prod(np.shape(a))) if axis is None else np.shape(a)[axis]
    d["matrix_transpose"] = lambda a: da.swapaxes(a, -1, -2)
    d["ndim"] = lambda a: np.ndim(a)  # (of Python values too; Dask's reads `.ndim`)
    d["shape"] = lambda a: np.shape(a)  # (likewise `.shape`)
    d["reshape"] = lambda a, *args, **kwargs: da.reshape(da.asarray(a), *args, **kwargs)  # (a NumPy `a` too)
    d["roll"] = lambda a, shift, axis=None: da.roll(a, _host_ints(shift), axis)
    d["take"] = _dask_take
    d["column_stack"] = lambda tup: da.concatenate([t if np.ndim(t) > 1 else da.asarray(t)[:, None] for t in tup], 1)
    d["split"] = _dask_split
    d["array_split"] = _dask_split
    d["inner"] = lambda a, b: da.tensordot(a, b, axes=(-1, -1))
    d["vecdot"] = lambda a, b, axis=-1: da.sum(da.conj(a) * b, axis=axis)
    d["gradient"] = _dask_gradient
    d["delete"] = lambda arr, obj, axis=None: da.delete(da.ravel(arr), obj, 0) if axis is None else \
        da.delete(arr, obj, axis)
    lin = d["linalg"].__dict__
    lin["svd"] = _dask_svd
    for name, drop in _DASK_BLOCKWISE_LINALG.items():
        lin[name] = _dask_blockwise_linalg(name, drop)
    return ns


# NumPy's linalg functions on Dask run NumPy's own block by block, each block holding whole
# matrices (the leading axes, a batch, stay chunked): Dask lacks det/slogdet/eigh, and its own
# inv/solve/cholesky need square chunks of one 2-D matrix. Value: how many trailing axes each
# result drops (a pair for functions returning two arrays).
_DASK_BLOCKWISE_LINALG = {"inv": 0, "cholesky": 0, "det": 2, "slogdet": (2, 2), "eigh": (1, 0), "eigvalsh": 1,
                          "solve": None}


def _whole_matrices(da, a, core: int):
    """`a` as a Dask array whose chunks hold its last `core` axes whole."""
    a = da.asarray(a)
    return a.rechunk({i: -1 for i in range(a.ndim - core, a.ndim)})


def _dask_blockwise_linalg(name: str, drop):
    def run(a, *args, **kwargs):
        da = sys.modules["dask.array"]
        fn = getattr(np.linalg, name)
        if name == "solve":
            return _dask_solve(da, a, args[0])
        a = _whole_matrices(da, a, 2)
        parts = drop if isinstance(drop, tuple) else (drop,)
        outs = []
        for k, d in enumerate(parts):
            def block(m, k=k):
                out = fn(m, *args, **kwargs)
                return out[k] if isinstance(drop, tuple) else out
            axes = list(range(a.ndim - d, a.ndim))
            outs.append(da.map_blocks(block, a, drop_axis=axes, dtype=a.dtype) if axes else
                        da.map_blocks(block, a, dtype=a.dtype))
        return tuple(outs) if isinstance(drop, tuple) else outs[0]
    run.__name__ = name
    return run


def _dask_solve(da, a, b):
    """NumPy's `linalg.solve` on Dask: a 1-D `b` is one vector (NumPy 2), else `b` is (..., M, K);
    the batch axes are broadcast and chunked alike, the matrices whole in each block."""
    a, b = da.asarray(a), da.asarray(b)
    if b.ndim == 1:
        return _dask_solve(da, a, b[:, None])[..., 0]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = _whole_matrices(da, da.broadcast_to(a, batch + a.shape[-2:]), 2)
    b = da.broadcast_to(b, batch + b.shape[-2:]).rechunk(a.chunks[:-2] + b.shape[-2:])
    return da.map_blocks(np.linalg.solve, a, b, chunks=b.chunks, dtype=np.result_type(a.dtype, b.dtype))


def _host_ints(v):
    """A shift or count given as an array (a Dask one computed) as Python ints, as Dask's `roll` takes."""
    if not hasattr(v, "ndim"):
        return v
    v = np.asarray(v)
    return int(v) if v.ndim == 0 else tuple(int(e) for e in v)


def _dask_take(a, indices, axis=None, out=None, mode="raise"):
    """NumPy's `take` on Dask: `axis` None reads the flattened array (Dask's default is 0), and the
    index may have any rank (Dask's takes one of rank 0 or 1): it is raveled, on the host (a lazy
    index is computed, as `rt.scatter_add` does), and the result reshaped. `mode` "clip" and "wrap"
    as NumPy's."""
    da = sys.modules["dask.array"]
    a = da.asarray(a)
    if axis is None:
        a, axis = a.ravel(), 0
    axis = axis % a.ndim
    idx = np.asarray(indices.compute() if hasattr(indices, "compute") else indices)
    n = a.shape[axis]
    idx = np.clip(idx, 0, n - 1) if mode == "clip" else np.mod(idx, n) if mode == "wrap" else idx
    return da.take(a, idx.ravel(), axis=axis).reshape(a.shape[:axis] + idx.shape + a.shape[axis + 1:])


def _dask_gradient(f, *varargs, axis=None, edge_order=1):
    """NumPy's `gradient` on Dask: one array when one axis is differentiated (Dask returns a
    list even then), else a tuple."""
    da = sys.modules["dask.array"]
    out = da.gradient(f, *varargs, axis=axis, edge_order=edge_order)
    if isinstance(out, list):
        return out[0] if len(out) == 1 and (axis is None or isinstance(axis, int)) else tuple(out)
    return out


def _dask_svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """NumPy's `linalg.svd` on Dask (a 2-D array; Dask computes the reduced factors only)."""
    da = sys.modules["dask.array"]
    if full_matrices and np.ndim(a) == 2 and a.shape[0] != a.shape[1] and compute_uv:
        raise S2SError("s2s: numpy.linalg.svd with full_matrices=True of a non-square matrix has no Dask "
                       "version (Dask computes the reduced factors): pass full_matrices=False")
    u, s, vh = da.linalg.svd(a)
    return (u, s, vh) if compute_uv else s


def _dask_split(a, sections, axis=0):
    n = np.shape(a)[axis]
    if isinstance(sections, int):
        step, extra = divmod(n, sections)
        sizes = [step + (i < extra) for i in range(sections)]
        cuts = np.cumsum(sizes)[:-1].tolist()
    else:
        cuts = list(sections)
    bounds = [0] + cuts + [n]
    index = [slice(None)] * np.ndim(a)
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        index[axis] = slice(lo, hi)
        out.append(a[tuple(index)])
    return out


def _dask_put(leaf):
    da = _import("dask.array", "dask")
    if isinstance(leaf, da.Array):
        return leaf
    a = np.asarray(leaf)
    chunks = {0: "auto", **{i: -1 for i in range(1, a.ndim)}} if a.ndim else ()
    return da.from_array(a, chunks=chunks)


def _dask_wait(leaf):
    return leaf.persist() if hasattr(leaf, "persist") else leaf


# ---------------------------------------------------------------- the registry

NUMPY = Backend("numpy", lambda: np, type_module="numpy", array_type=np.ndarray, put=np.asarray)
_BACKENDS: dict[str, Backend] = {
    "numpy": NUMPY,
    "cupy": Backend("cupy", _cupy_ns, type_module="cupy", wait=_cupy_wait, kernels=lambda: _import("cupy", "cupy"),
                    special=lambda: _import("cupyx.scipy.special", "cupy")),
    "dask": Backend("dask", _dask_ns, type_module="dask", put=_dask_put, wait=_dask_wait, accepts_numpy=True),
}
_NEUTRAL_TYPES = (bool, int, float, complex, str, type(None), slice, range, np.generic)
_CONTAINERS = (tuple, list, dict)
_TYPES: dict[type, Backend | None] = {t: None for t in (bool, int, float, complex, str, type(None))}
_TYPES[np.ndarray] = NUMPY
HOST = frozenset({np.ndarray, float, int, bool, complex, np.float64, np.float32, type(None)})
BUILTIN = ("numpy", "cupy", "dask")
SETTINGS = _config.config._values  # read on every call: the cheapest way to see the setting


def register(backend: Backend) -> Backend:
    """Add (or replace) a backend; arrays of `backend.array_type` then select it."""
    if backend.name in BUILTIN and _BACKENDS.get(backend.name) is not backend:
        raise S2SValueError(f"s2s: backend {backend.name!r} is built in")
    _BACKENDS[backend.name] = backend
    _TYPES.clear()
    _TYPES.update({t: None for t in (bool, int, float, complex, str, type(None))})
    _TYPES[np.ndarray] = NUMPY
    return backend


def unregister(name: str) -> None:
    """Remove a backend added with `register` (tests)."""
    if name not in BUILTIN:
        _BACKENDS.pop(name, None)
        register(NUMPY)



def by_name(name: str) -> Backend:
    """The backend called `name` ("numpy", "cupy", "dask" or a registered one)."""
    try:
        return _BACKENDS[name]
    except KeyError:
        raise S2SValueError(f"s2s: unknown backend {name!r}; known: {', '.join(sorted(_BACKENDS))}") from None


def default() -> Backend:
    """The backend of the `backend` setting, where new arrays are made and NumPy inputs moved."""
    return _BACKENDS[SETTINGS["backend"]]


def _classify(t: type):
    """The backend arrays of type `t` belong to; None for numbers and other non-arrays."""
    for b in _BACKENDS.values():
        if b.array_type is not None and b is not NUMPY and issubclass(t, b.array_type):
            return b
    if issubclass(t, np.ndarray):
        return NUMPY
    if issubclass(t, _NEUTRAL_TYPES):
        return None
    top = t.__module__.partition(".")[0]
    for b in _BACKENDS.values():
        if b.type_module == top and b is not NUMPY:
            return b
    return None


def backend_of(x) -> Backend | None:
    """The backend of array `x` (None for numbers and non-arrays); containers are not looked into."""
    t = type(x)
    try:
        return _TYPES[t]
    except KeyError:
        b = _TYPES[t] = _classify(t)
        return b


def _scan(values, found: Backend | None) -> Backend | None:
    for a in values:
        if isinstance(a, _CONTAINERS):
            found = _scan(a.values() if isinstance(a, dict) else a, found)
            continue
        b = backend_of(a)
        if b is None or b is found:
            continue
        if found is None or found is NUMPY and b.accepts_numpy:
            found = b
        elif not (b is NUMPY and found.accepts_numpy):
            raise S2SValueError(f"s2s: a call mixes {found.name} and {b.name} arrays ({type(a).__name__}); "
                                f"move them to one backend first, e.g. with s2s.device_put (the default "
                                f"backend) or `.get()` / `.compute()` (back to NumPy)")
    return found


def select(args) -> tuple[Backend | None, bool]:
    """(backend, move): the backend a call with `args` runs on, None for plain NumPy (the fast
    path), and whether NumPy inputs must first be moved to it (the default backend is not NumPy,
    or NumPy arrays join Dask ones). Mixing two other backends' arrays is an error."""
    for a in args:
        if type(a) not in HOST:
            break
    else:
        if SETTINGS["backend"] == "numpy":
            return None, False
    found = _scan(args, None)
    if found is None or found is NUMPY:
        d = default()
        return (None, False) if d is NUMPY else (d, True)
    return found, found.accepts_numpy and _holds_numpy(args)


def _holds_numpy(values) -> bool:
    """Whether a NumPy array is among `values` (containers looked into): a backend that accepts
    them beside its own (Dask) gets them moved, since its functions take only its own arrays."""
    for a in values:
        if isinstance(a, np.ndarray) or isinstance(a, _CONTAINERS) and _holds_numpy(
                a.values() if isinstance(a, dict) else a):
            return True
    return False


def compiles_kernels(args) -> bool:
    """Whether a call on `args` runs on a backend that compiles jit's fused expressions into
    kernels (CuPy): there fusing pays at every size (one kernel launch instead of one per op)."""
    backend, _ = select(args)
    return backend is not None and backend._kernels is not None


def move(args, backend: Backend):
    """`args` with every NumPy array leaf put on `backend` (numbers stay numbers)."""
    return tree_map(lambda v: backend.put(v) if isinstance(v, np.ndarray) else v, args)


def namespace_of(args) -> Namespace:
    """The array module a call of a NumPy-style function on `args` should use (s2s.numpy)."""
    backend, _ = select(args)
    return np if backend is None else backend.xp
