"""jit's object: one compiled version per argument signature, and the dispatch to it.

A version depends on the argument types, the dtypes and ranks of NumPy arrays (`kinds`), whether
the arrays are large enough for fused kernels, the values of static arguments, and for the first
shapes of a signature the shapes (`shapes`). A call whose signature was seen goes straight to its
version; while one signature has been seen, the fast path generated for it (dispatch.py) also
tests the sizes inline.
"""
from __future__ import annotations

import operator
import os
import types

import numpy as np

from ..backends import arrays
from ..base import heap, record
from ..compiler import driver
from ..compiler.emit.kernels import THRESHOLD as FUSE_THRESHOLD
from ..compiler.emit.loader import call
from ..compiler.frontend import idioms
from ..config import config
from ..errors import S2STypeError, S2SValueError
from . import dispatch
from .calls import Transformed


def _sig(a):
    """The part of an argument a jit version depends on: its type, for arrays dtype, rank and
    whether it is large enough for fused kernels; for a small tuple or list of arrays and numbers
    (parameters: `w1, b1, w2, b2 = params`), its type and each item's; for a small dict of them
    under str keys, each key and its value's."""
    t = type(a)
    if t is np.ndarray:
        return (a.dtype.char, a.ndim, a.size >= FUSE_THRESHOLD)
    if (t is tuple or t is list) and _leaves(a):
        return (t, tuple([(e.dtype.char, e.ndim) if type(e) is np.ndarray else type(e) for e in a]))
    if t is dict and dispatch.mapping(a):  # (in key order: a version does not depend on the dict's order)
        return (t, tuple(sorted((k, (e.dtype.char, e.ndim) if type(e) is np.ndarray else type(e)) for k, e in a.items())))
    return t


def _leaves(a) -> bool:
    """Whether sequence `a` is one whose items key a version: at most 8 NumPy arrays and numbers
    (dispatch.py's fast path tests each)."""
    return len(a) <= 8 and all(type(e) in dispatch.ARGUMENTS for e in a)


def kinds(args) -> tuple:
    """What a jit version is specialized on, but the sizes: the argument types, and for NumPy
    arrays their dtype and rank (a version may lower `dot` by rank or reuse buffers by dtype),
    those of the arrays in a small tuple or list too (their dtypes decide its float64 facts:
    passes/float64.py)."""
    nd = np.ndarray
    return tuple([(a.dtype.char, a.ndim) if type(a) is nd else
                  _sig(a) if type(a) is tuple or type(a) is list or type(a) is dict else type(a) for a in args])


_SIZE = operator.attrgetter("size")


def _shapes(args) -> tuple:
    """What a version specializes on besides types, dtypes and ranks (driver.jit_function's
    `shapes`): the shapes of the NumPy arrays among `args` and in their tuples and lists of
    arrays and numbers (with those items' dtypes, which the version's key does not name: a float32
    item's cotangent is cast, passes/float64.may_be_narrow); () when there are none or
    S2S_NO_SHAPES is set. Only the first shapes of
    a signature get a version of their own (others run its any-shape version): a loop over many
    shapes compiles twice, not once per shape."""
    if os.environ.get("S2S_NO_SHAPES"):
        return ()
    nd, out = np.ndarray, []
    for k, a in enumerate(args):
        if type(a) is nd:
            out.append((k, a.shape))
        elif type(a) in (tuple, list) and 0 < len(a) <= 8 and all(type(e) is nd or type(e) in (float, int) for e in a) \
                and any(type(e) is nd for e in a):
            out.append((k, type(a).__name__, tuple(e.shape if type(e) is nd else None for e in a),
                        tuple(e.dtype.char if type(e) is nd else None for e in a)))  # (and their dtypes)
    return tuple(out)


INLINE = not os.environ.get("S2S_NO_MERGED_ENTRY")  # the fast path runs its version's statements itself

BOUND_KEPT = 16  # jits of a method bound to an instance kept per jitted method (Jitted.__get__)


class Jitted(Transformed):
    """`jit(fun)`: one compiled version per argument signature (types; dtypes and ranks of arrays;
    the values of static arguments). A call whose signature was seen goes straight to its version."""

    def __init__(self, fun, static_argnums=(), static_argnames=()):
        super().__init__("jit", fun, lambda: driver.jit_function(fun), None, "jit")
        nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
        names = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
        if (nums or names) and not isinstance(fun, types.FunctionType):
            raise S2STypeError("jit: static_argnums/static_argnames need a plain Python function, "
                               f"not {type(fun).__name__}; apply jit with static arguments innermost.")
        if names:
            params = list(record.signature_of(fun).parameters)
            nums += tuple(params.index(n) for n in names if n in params)
        self._static = frozenset(nums)
        self._versions: dict = {}
        self._by_kind: dict = {}  # without static arguments, the same versions keyed by `kinds`

    def _forget(self) -> None:
        self._versions.clear()
        self._by_kind.clear()
        self._uninstall()

    def __get__(self, obj, objtype=None):
        """`@jit` on a method: read through an instance, the jit of the method bound to it, as a
        Python method binds a function (JAX's jit object does the same); read through the class,
        this object. The last BOUND_KEPT instances' jits are kept (each holds its instance), so a
        loop of calls compiles once."""
        if obj is None:
            return self
        if self._static:  # (static positions count `self`, as JAX's: the instance is the first argument)
            return types.MethodType(self, obj)
        bound = self.__dict__.setdefault("_bound", {})  # id(instance) -> (instance, its jit), newest last
        hit = bound.pop(id(obj), None)
        if hit is None or hit[0] is not obj:
            hit = (obj, Jitted(types.MethodType(self.fun, obj)))
            while len(bound) >= BOUND_KEPT:
                del bound[next(iter(bound))]  # (the least recently read: its jit is built again if read)
        bound[id(obj)] = hit
        return hit[1]

    def _call(self, args, kwargs):
        """The general call: the watch, then the version for the arguments' types and sizes."""
        unchanged = self._unchanged
        if unchanged is None or not unchanged():
            self._check_key()
        if not kwargs and not self._static:
            entry = self._by_kind.get(kinds(args))
            if entry is not None:  # [small version, large version, array positions, all host types]
                if len(self._by_kind) == 1 and self._entry_watch is not self._unchanged:
                    self._dispatcher(args, entry)
                positions = entry[2]
                if positions is None:  # every argument an array: the sizes read in C
                    fn = entry[1] if max(map(_SIZE, args)) >= FUSE_THRESHOLD else entry[0]
                else:
                    fn = entry[0]
                    for i in positions:
                        if args[i].size >= FUSE_THRESHOLD:
                            fn = entry[1]
                            break
                if fn is not None:
                    if entry[3] and arrays.SETTINGS["backend"] == "numpy":
                        return fn(*args)
                    return call(fn, args)
        elif not kwargs:
            static = self._static
            hit = self._versions.get(tuple(a if i in static else _sig(a) for i, a in enumerate(args)))
            if hit is not None:
                return call(hit, args)
        return self._first_call(args, kwargs)

    def _dispatcher(self, args, entry) -> None:
        """While one signature has been seen, calls skip the general lookup: the fast path
        (Transformed._install) tests the argument types, ranks and dtypes (a version may be
        specialized on them) and the watch, and calls the version for the arrays' sizes."""
        params = ", ".join(f"a{i}" for i in range(len(args)))
        small = " and ".join(f"a{i}.size < threshold" for i, a in enumerate(args) if type(a) is np.ndarray) or "True"
        fn = entry[1] if entry[0] is None or any(type(a) is np.ndarray and a.size >= FUSE_THRESHOLD for a in args) \
            else entry[0]
        rec = record.of(fn)
        if rec is not None and rec.shapes and rec.shapes == _shapes(args):  # its shapes, tested here
            self._install(args, {"version": fn}, [f"return version({params}, shapes_tested=True)"], ranks=True,
                          shapes=True, inline=fn if INLINE else None)
            return
        if entry[0] is entry[1]:  # one version for every size: no size to test
            self._install(args, {"small": entry[0]}, [f"return small({params})"], ranks=True,
                          inline=entry[0] if INLINE else None)
            return
        elif entry[0] is None:
            lines = [f"if not ({small}):", f"    return large({params})"]
        else:  # (after the small version's test, the large one needs no second test)
            lines = [f"if {small}:", f"    return small({params})"] + \
                ([f"return large({params})"] if entry[1] is not None else [])
        self._install(args, {"small": entry[0], "large": entry[1], "threshold": FUSE_THRESHOLD}, lines, ranks=True)

    def _remember(self, args, given, big, run, every_size=False, any_size=False):
        """File `run` under the types of the `given` arguments, as the version for small or for
        large arrays (whether a call's arrays are large is checked per call, at `positions`), or
        for both (`every_size`: a backend whose fused kernels pay at every size, CuPy; `any_size`:
        a small-array version with nothing to fuse, which large arrays would get too)."""
        types_ = tuple(map(type, args[:given]))
        positions = tuple(i for i, t in enumerate(types_) if t is np.ndarray)
        if positions and len(positions) == len(types_):
            positions = None  # every argument: `__call__` takes the largest size
        entry = self._by_kind.setdefault(kinds(args[:given]),
                                         [None, None, positions, all(t in arrays.HOST for t in types_)])
        extra_big = any(type(a) is np.ndarray and a.size >= FUSE_THRESHOLD for a in args[given:])
        for slot in ((0, 1) if extra_big or every_size else (1,) if big else (0,)):
            entry[slot] = run
        if any_size and entry[1] is None:
            entry[1] = run
        self._uninstall()  # the next call makes the fast path anew

    @staticmethod
    def _build_for(fun, dyn: list):
        """(version, compiles kernels, large) of `fun` for the dynamic arguments `dyn`."""
        floats = tuple(k for k, a in enumerate(dyn) if type(a) is float)
        ints = tuple(k for k, a in enumerate(dyn) if type(a) is int)
        kernels = arrays.compiles_kernels(tuple(dyn))  # CuPy: fuse at every size
        big = kernels or any(type(a) is np.ndarray and a.size >= FUSE_THRESHOLD for a in dyn)
        array_sigs = tuple((k, a.dtype.char, a.ndim) for k, a in enumerate(dyn) if type(a) is np.ndarray)
        shapes = () if kernels else _shapes(dyn)
        return driver.jit_function(fun, floats, fuse="every" if kernels else big, arrays=array_sigs,
                              shapes=shapes, ints=ints), kernels, big

    def version_for(self, args: tuple):
        """The version a positional call with `args` runs (what `s2s.source(jit(f), *args)` shows)."""
        if idioms.has_varargs(self._root) or self._static or len(args) != self._nparams:
            return self.compiled
        return self._note(self._build_for(self.fun, list(args))[0])

    def _first_call(self, args, kwargs):
        """Bind the arguments, build the version for their signature, and remember it."""
        if idioms.has_varargs(self._root):
            return super()._call(args, kwargs)
        given = len(args)
        if kwargs or self._defaults and len(args) < self._nparams:
            args = tuple(self._bind(args, kwargs))
        static = {i: args[i] for i in self._static if i < len(args)}
        try:
            hash(tuple(static.values()))
        except TypeError as e:
            raise S2SValueError("jit: static arguments must be hashable (they key the compiled versions)") from e
        dyn = [i for i in range(len(args)) if i not in static]
        fun = self.fun
        adapt = getattr(type(fun), "for_call", None)  # jit(vmap(f)): in_axes for the arguments passed
        if adapt is not None:
            fun = adapt(fun, given, set(kwargs))
        if static:
            names = list(record.signature_of(fun).parameters)
            fun = idioms.specialize(fun, {names[i]: v for i, v in static.items()})
        heap.keep_freed(config.read("heap_top_pad"))  # (once per process: a record's pages reused)
        fn, kernels, big = self._build_for(fun, [args[i] for i in dyn])
        self._note(fn)
        if not kwargs:
            extra = args[given:]
            pick = operator.itemgetter(*dyn) if static and len(dyn) > 1 else None
            if not static and not extra:
                run = fn
            elif not static:
                def run(*a, _fn=fn, _extra=extra):
                    return call(_fn, a + _extra)
            else:
                def run(*a, _fn=fn, _extra=extra, _pick=pick, _dyn=tuple(dyn)):
                    a = a + _extra
                    return call(_fn, tuple(_pick(a)) if _pick else tuple(a[i] for i in _dyn))
            key = tuple(map(_sig, args[:given])) if not self._static else \
                tuple(a if i in self._static else _sig(a) for i, a in enumerate(args[:given]))
            self._versions[key] = run
            if not self._static:
                self._remember(args, given, big, run, kernels, record.of(fn).any_size)
        return call(fn, tuple(args[i] for i in dyn))
