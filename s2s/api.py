"""The transforms users call. Each builds a spec, looks up the cache, and compiles on a miss."""
from __future__ import annotations

import functools
import inspect
import operator
import os
import types

import numpy as np

from . import arrays, dispatch, record, runtime
from . import driver as D
from .backend.dump import module_source
from .backend.kernels import THRESHOLD as FUSE_THRESHOLD
from .backend.loader import call, version
from .custom import _exec_function
from .errors import S2SError, S2STypeError, S2SValueError, shown_path
from .frontend import idioms
from .frontend.idioms import with_arity
from .runtime import zeros_like_tree
from .tree import tree_flatten, tree_map, tree_structure


def _api(fn):
    record.attach(fn, transform=True)
    return fn


# ---------------------------------------------------------------- public API

def _check_diff_args(args, nums, what):
    """JAX's rule: differentiate only with respect to floating (or complex) inputs."""
    for i in nums:  # the common case first: float arrays and floats, alone or in a tuple
        try:
            a = args[i]
        except IndexError:
            a = None
        t = type(a)
        if t is tuple or t is list:
            for e in a:
                t = type(e)
                if not (t is float or t is np.ndarray and e.dtype.kind in "fc"):
                    _check_diff_arg(args, i, what)
                    break
        elif not (t is float or t is np.ndarray and a.dtype.kind in "fc"):
            _check_diff_arg(args, i, what)


def _check_diff_arg(args, i, what):
    """Argument `i` of the call: an error unless it is floating (or complex) throughout."""
    if not -len(args) <= i < len(args):
        raise S2SValueError(f"{what}: argnums {i} is out of range for a call with {len(args)} arguments")
    bad = _non_float_leaf(args[i])
    if bad is not None:
        raise S2STypeError(f"{what} requires real- or complex-valued inputs (input dtype that is a "
                           f"sub-dtype of np.inexact), but got {bad} for argument {i}. Pass floats "
                           "(e.g. 1.0 or x.astype(float)), or differentiate with respect to another argument.")


def _argnums(argnums, what):
    """JAX's argnums: an int, or a sequence of ints (given back as a tuple, so it can key a cache)."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        return argnums
    if isinstance(argnums, (tuple, list)) and all(isinstance(a, int) and not isinstance(a, bool) for a in argnums):
        return tuple(argnums)
    raise S2STypeError(f"{what}: argnums must be an int or a sequence of ints, got {argnums!r}")


def _check_shapes(what, expected, given):
    """A tangent or cotangent must have the structure and the shapes of the value it goes with."""
    (exp_leaves, exp_def), (leaves, tdef) = tree_flatten(expected), tree_flatten(given)
    if exp_def != tdef:
        raise S2SValueError(f"{what}: expected the tree structure {exp_def}, got {tdef}")
    for e, g in zip(exp_leaves, leaves):
        if np.shape(e) != np.shape(g):
            raise S2SValueError(f"{what}: expected shape {np.shape(e)}, got shape {np.shape(g)}. Pass an "
                                "array of the same shape (no broadcasting: s2s follows JAX here).")


def _non_float_leaf(x):
    """The type name of the first leaf of pytree `x` that is not floating, or None."""
    dt = getattr(x, "dtype", None)
    if dt is not None:
        return None if dt.kind in "fc" else str(dt)
    if isinstance(x, float):
        return None
    if isinstance(x, (tuple, list)):
        return next((b for b in map(_non_float_leaf, x) if b is not None), None)
    if isinstance(x, dict):
        return next((b for b in map(_non_float_leaf, x.values()) if b is not None), None)
    if x is None:
        return None
    return type(x).__name__ if isinstance(x, (bool, int)) or not isinstance(x, complex) else None


class Transformed:
    """A transformed function: calls the compiled code, and carries it for further transforms."""

    def __init__(self, kind, fun, compile_, nums, label):
        self.kind, self.fun, self._compile, self.nums = kind, fun, compile_, nums
        self._fn = None
        self._fast = None  # the compiled function, once a call showed plain positional calls reach it
        functools.update_wrapper(self, fun, updated=())
        self.__name__ = f"{label}_{getattr(fun, '__name__', 'f')}"
        self.__s2s__ = record.Record(target=lambda: self.compiled)

    _unchanged = None  # the key's watch: True while nothing the key read was rebound

    def _check_key(self) -> None:
        """Forget every compiled version when a global, module attribute or closure value that the
        function reads has changed since they were built (checked on every call: identity tests
        of what the key read, a few hundred ns; the key itself is recomputed only when one fails)."""
        unchanged = self._unchanged
        if unchanged is not None and unchanged():
            return
        key, self._unchanged = self._current_key()
        if key != self.__dict__.get("_key"):
            self._key, self._fn, self._fast = key, None, None
            self._uninstall()
            self.__dict__.pop("_compiled_by_arity", None)
            self.__dict__.pop("_signature", None)  # the defaults it binds may be new
            self._forget()

    def _forget(self) -> None:
        """Drop versions a subclass keeps besides `_fn`."""

    @property
    def compiled(self):
        self._check_key()
        arity = idioms.current_arity(self._root)
        if arity is not None:  # a transform of a transform of a `*args` function: one per arity
            by_arity = self.__dict__.setdefault("_compiled_by_arity", {})
            if arity not in by_arity:
                by_arity[arity] = self._compile()
            return by_arity[arity]
        if self._fn is None:
            self._fn = self._compile()
        return self._fn

    # A call of the object calls `self._entry`: the general `_call` below or, once calls have
    # shown one signature, the fast path generated for it (dispatch.py). The property's getter
    # is C code, so a call pays no Python frame of s2s's own besides the fast path.
    __call__ = property(operator.attrgetter("_entry"))

    def _entry(self, *args, **kwargs):
        return self._call(args, kwargs)

    _entry_watch = None  # the watch the fast path was generated with
    _entry_builds = 0

    def _install(self, args, ns: dict, calls: list[str] | None = None, ranks: bool = False,
                 fallback: tuple = (), shapes: bool = False) -> None:
        """Generate the fast path for calls like `args` (dispatch.entry; `calls` default to
        `return version(a0, ...)`), once per watch of the key and at most 8 times per object (a
        watch that fails on every call, a global rebound to an equal value each time, never pays
        an exec per call)."""
        if self._entry_watch is self._unchanged or self._entry_builds >= 8:
            return
        self._entry_builds += 1
        self._entry_watch = self._unchanged
        calls = calls or [f"return version({', '.join(f'a{i}' for i in range(len(args)))})"]
        fn = dispatch.entry(f"dispatch_{self.__name__}", args, self._unchanged, self._call, calls, ns, ranks, fallback,
                            shapes)
        if fn is None:
            self.__dict__.pop("_entry", None)
        else:
            self._entry = fn

    def _uninstall(self) -> None:
        self.__dict__.pop("_entry", None)
        self._entry_watch = None

    def _call(self, args, kwargs):
        """The general call: the key's watch, then the compiled version (and the fast path for
        these arguments, once a call shows they reach it positionally)."""
        unchanged = self._unchanged
        if unchanged is None or not unchanged():
            self._check_key()
        fast = self._fast
        if fast is not None and not kwargs:
            if self.nums is not None:
                _check_diff_args(args, self.nums, self.kind)
            if self._entry_watch is not self._unchanged:  # (tested here: this path may run per call)
                self._install(args, {"version": fast}, fallback=self._fallback)
            return call(fast, args)
        if idioms.has_varargs(self._root):  # one compiled version per number of arguments
            fn = idioms.varargs_call(self._root, len(args), lambda: self.compiled)
            return call(fn, args) if not kwargs else fn(*args, **kwargs)
        if kwargs or self._defaults and len(args) < self._nparams:
            args = self._bind(args, kwargs)
        elif not self._defaults:
            self._fast = self.compiled
        if self.nums is not None:
            _check_diff_args(args, self.nums, self.kind)
        return call(self.compiled, args)

    _fallback: tuple = ()  # (errors after which a fast-path call runs the general one, errors it raises)

    def _current_key(self):
        """The cache key of the user's function now (the compiled code is reused while it holds),
        and the cheap test that it still holds (None: recompute it on every call)."""
        try:
            return D.watched_key(self._root)
        except S2STypeError:
            return None, None

    @property
    def _root(self):
        """The user's function under this chain of transforms."""
        fun = self.fun
        while isinstance(fun, Transformed):
            fun = fun.fun
        return fun

    @functools.cached_property
    def _signature(self):
        return record.signature_of(self.fun)

    @property
    def _defaults(self):
        return getattr(self.fun, "__defaults__", None)

    @property
    def _nparams(self):
        return len(self._signature.parameters)

    def _bind(self, args, kwargs):
        """Keyword and default arguments become positional, as the generated code takes them."""
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.args

    def __repr__(self):
        return f"<s2s.{self.kind} of {getattr(self.fun, '__name__', self.fun)!r}>"


@_api
def grad(fun, argnums=0, has_aux: bool = False):
    """Gradient of scalar-valued `fun` with respect to the arguments at `argnums` (reverse mode)."""
    return _grad_like(fun, argnums, has_aux, False)


@_api
def value_and_grad(fun, argnums=0, has_aux: bool = False):
    """Like grad, but returns `(value, gradient)` computed in one pass."""
    return _grad_like(fun, argnums, has_aux, True)


def _grad_like(fun, argnums, has_aux, with_value):
    argnums = _argnums(argnums, "value_and_grad" if with_value else "grad")
    kind = "value_and_grad" if with_value else "grad"
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    t = Transformed(kind, fun, lambda: D.grad_function(fun, argnums, has_aux, with_value), None, kind)
    t.nums = nums
    t.grad_options = (argnums, has_aux, with_value)  # vmap of it may run as grad of the batched fun
    return t


@_api
def vjp(fun, *primals, has_aux: bool = False):
    """(fun(*primals), vjp_fn): vjp_fn(cotangent) returns one cotangent per primal, as a tuple."""
    fun = with_arity(idioms.adapt(fun) if idioms.is_library_function(fun) else fun, len(primals))
    args, mask = _with_defaults(fun, primals)
    fwd, bwd = D.split_vjp(fun, mask)
    backend, move = arrays.select(args)
    if move:
        args = arrays.move(args, backend)
    fwd, bwd = version(fwd, backend), version(bwd, backend)
    out, saved = fwd(*args)
    aux = None
    if has_aux:
        out, aux = out

    def vjp_fn(ct):
        _check_shapes("vjp_fn: the cotangent", out, ct)
        if move:  # NumPy cotangents join the default backend the primals were moved to
            ct = arrays.move(ct, backend)
        seed = (ct, zeros_like_tree(aux)) if has_aux else ct
        return tuple(bwd(saved, seed))[:len(primals)]  # bwd works on its own copy of the record
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


@_api
def stop_gradient(x):
    """The value of `x`, through which no derivative flows."""
    return x


record.attach(stop_gradient, prim="stop_gradient")


def source(fn, *args) -> str:
    """The generated Python source of a transformed function (what `python -m s2s dump` prints).
    With example arguments: the version a call with them runs, where the transform specializes
    on them (`jit`; `vmap` on ranks; `jacfwd` and `hessian` of float NumPy arrays)."""
    special = getattr(fn, "for_arguments", None) if args else None
    if args and isinstance(fn, Jitted):
        fn = fn.version_for(args)
    elif special is not None:
        at = {i: a for i, a in enumerate(args) if type(a) is np.ndarray}
        kinds = {i: a.ndim for i, a in at.items()} | {i: "float" for i, a in enumerate(args) if type(a) is float}
        fn = special(kinds, {i: a.dtype.char for i, a in at.items()})
    gen = record.generated(fn)
    if gen is not None:
        return record.of(gen).source
    raise S2STypeError(f"{fn!r} is not a function produced by an s2s transform (grad, vjp, jvp, ...)")


# ---------------------------------------------------------------- forward mode

@_api
def jvp(fun, primals, tangents):
    """(fun(*primals), J @ tangents): forward-mode Jacobian-vector product, with JAX's conventions."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise S2STypeError("jvp expects primals and tangents as tuples or lists, e.g. jvp(f, (x,), (v,))")
    if len(primals) != len(tangents):
        raise S2SValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    for k, (p, t) in enumerate(zip(primals, tangents)):
        if tree_structure(p) != tree_structure(t):
            raise S2SValueError("jvp: primal and tangent arguments must have the same tree structure")
        _check_shapes(f"jvp: the tangent of argument {k}", p, t)
    fun = with_arity(idioms.adapt(fun) if idioms.is_library_function(fun) else fun, len(primals))
    args, mask = _with_defaults(fun, primals)
    return call(D.jvp_function(fun, mask), (*args, *tangents))


def _with_defaults(fun, primals):
    """All positional arguments of `fun` (defaults filled in) and which of them were given."""
    try:
        params = [p for p in record.signature_of(fun).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]  # a partial's bound keywords are not
    except (TypeError, ValueError):
        return tuple(primals), (True,) * len(primals)
    if len(primals) >= len(params):
        return tuple(primals), (True,) * len(primals)
    missing = params[len(primals):]
    if any(p.default is inspect.Parameter.empty for p in missing):
        raise S2STypeError(f"{getattr(fun, '__name__', fun)}() takes {len(params)} arguments, "
                           f"but {len(primals)} primals were given")
    return tuple(primals) + tuple(p.default for p in missing), (True,) * len(primals) + (False,) * len(missing)


# ---------------------------------------------------------------- Jacobians and Hessians

@_api
def jacfwd(fun, argnums=0, has_aux: bool = False):
    """Jacobian by forward mode: the jvp batched over every input basis vector at once (the
    diagonal from one jvp along ones when the function is elementwise): out.shape + in.shape."""
    return _jacobian("jacfwd", fun, argnums, has_aux)


@_api
def jacrev(fun, argnums=0, has_aux: bool = False):
    """Jacobian by reverse mode: one forward sweep, its backward sweep batched over every output
    basis vector at once (the gradient for a certainly scalar output): out.shape + in.shape."""
    return _jacobian("jacrev", fun, argnums, has_aux)


def _jacobian(kind, fun, argnums, has_aux):
    argnums = _argnums(argnums, kind)
    t = _Jacobian(kind, fun, argnums, has_aux)
    if kind == "jacrev" and not has_aux:
        t.jacrev_options = argnums  # vmap of it may run as jacrev of the summed batched fun
    return t


class _Jacobian(Transformed):
    """jacfwd/jacrev: calls run the form batched over the basis; further transforms (hessian =
    jacfwd(jacrev), grad or vmap of a Jacobian) start from the looped form, since not every
    batched helper has derivative rules yet. A call whose batched run fails (a batching rule
    that cannot handle these arguments) runs the looped form, from then on."""

    def __init__(self, kind, fun, argnums, has_aux):
        super().__init__(kind, fun, lambda: D.jacobian_function(kind, fun, argnums, has_aux), None, kind)
        self.composable = lambda: D.jacobian_function(kind, fun, argnums, has_aux, batched=False)
        self.looped = Transformed(kind, fun, self.composable, None, kind)
        self._use_loop = False
        self._options = (argnums, has_aux)
        self._ranked: dict = {}  # jacfwd: versions specialized on the ranks of float array arguments
        self.nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)  # JAX: floating inputs only

    def _forget(self) -> None:
        self._ranked.clear()

    def for_arguments(self, kinds: dict, dtypes: dict | None = None):
        """The version a call with these arguments runs (`kinds`: position -> ndim of a NumPy
        array; `dtypes`: position -> its dtype char), so that `jit(jacfwd(f))` starts from it."""
        dtypes = dtypes or {}
        return self._version(tuple((i, nd) for i, nd in sorted(kinds.items())
                                   if type(nd) is int and np.dtype(dtypes.get(i, "O")).kind == "f"))

    def _version(self, ranks: tuple):
        """jacfwd's version for float NumPy arrays of these ranks at these positions (its diagonal's
        run-time tests decided when it is built; transforms/diagonal.py); the general one else."""
        if not ranks or self.kind != "jacfwd" or idioms.has_varargs(self._root):
            return self.compiled
        fn = self._ranked.get(ranks)
        if fn is None:
            fn = self._ranked[ranks] = D.jacobian_function(self.kind, self.fun, *self._options, ranks=ranks)
        return fn

    def _ranked_call(self, args):
        """A positional call of jacfwd with float NumPy arrays (NumPy the backend) runs the version
        specialized on their ranks, and makes the fast path for calls like it; None otherwise."""
        if self.kind != "jacfwd" or idioms.has_varargs(self._root) or len(args) != self._nparams \
                or arrays.SETTINGS["backend"] != "numpy" or not all(type(a) in dispatch.ARGUMENTS for a in args):
            return None
        ranks = tuple((i, a.ndim) for i, a in enumerate(args) if type(a) is np.ndarray and a.dtype.kind == "f")
        if not ranks:
            return None
        _check_diff_args(args, self.nums, self.kind)
        unchanged = self._unchanged
        if unchanged is None or not unchanged():
            self._check_key()
        fn = self._version(ranks)
        if self._entry_watch is not self._unchanged:
            self._install(args, {"version": fn}, ranks=True, fallback=self._fallback)
        return fn

    # a batched run that fails runs the looped form (the general call decides); these are raised
    _fallback = ((Exception,), (S2STypeError, RecursionError))

    def _call(self, args, kwargs):
        if self._use_loop:
            if not kwargs:
                _check_diff_args(args, self.nums, self.kind)
            return self.looped(*args, **kwargs)
        try:
            fn = None if kwargs else self._ranked_call(args)
            if fn is not None:
                return fn(*args)
            return super()._call(args, kwargs)
        except (S2STypeError, RecursionError):
            raise
        except Exception:  # noqa: BLE001  (the looped form raises the user's own errors again)
            out = self.looped(*args, **kwargs)
            self._use_loop = True
            self._uninstall()
            return out


@_api
def hessian(fun, argnums=0):
    """Hessian as forward-over-reverse, jacfwd(jacrev(fun)), one batched pass over the basis:
    shape out.shape + in.shape + in.shape."""
    return jacfwd(jacrev(fun, argnums), argnums)


# ---------------------------------------------------------------- jit

def _sig(a):
    """The part of an argument a jit version depends on: its type, for arrays dtype, rank and
    whether it is large enough for fused kernels."""
    t = type(a)
    return (a.dtype.char, a.ndim, a.size >= FUSE_THRESHOLD) if t is np.ndarray else t


def _kinds(args) -> tuple:
    """What a jit version is specialized on, but the sizes: the argument types, and for NumPy
    arrays their dtype and rank (a version may lower `dot` by rank or reuse buffers by dtype)."""
    nd = np.ndarray
    return tuple([(a.dtype.char, a.ndim) if type(a) is nd else type(a) for a in args])


_SIZE = operator.attrgetter("size")


def _shapes(args) -> tuple:
    """What a version specializes on besides types, dtypes and ranks (driver.jit_function's
    `shapes`): the shapes of the NumPy arrays among `args` and in their tuples and lists of
    arrays and numbers; () when there are none or S2S_NO_SHAPES is set. Only the first shapes of
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
            out.append((k, type(a).__name__, tuple(e.shape if type(e) is nd else None for e in a)))
    return tuple(out)


class Jitted(Transformed):
    """`jit(fun)`: one compiled version per argument signature (types; dtypes and ranks of arrays;
    the values of static arguments). A call whose signature was seen goes straight to its version."""

    def __init__(self, fun, static_argnums=(), static_argnames=()):
        super().__init__("jit", fun, lambda: D.jit_function(fun), None, "jit")
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
        self._by_kind: dict = {}  # without static arguments, the same versions keyed by `_kinds`

    def _forget(self) -> None:
        self._versions.clear()
        self._by_kind.clear()
        self._uninstall()

    def _call(self, args, kwargs):
        """The general call: the watch, then the version for the arguments' types and sizes."""
        unchanged = self._unchanged
        if unchanged is None or not unchanged():
            self._check_key()
        if not kwargs and not self._static:
            entry = self._by_kind.get(_kinds(args))
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
                          shapes=True)
            return
        if entry[0] is entry[1]:  # one version for every size: no size to test
            lines = [f"return small({params})"]
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
        entry = self._by_kind.setdefault(_kinds(args[:given]),
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
        kernels = arrays.compiles_kernels(tuple(dyn))  # CuPy: fuse at every size
        big = kernels or any(type(a) is np.ndarray and a.size >= FUSE_THRESHOLD for a in dyn)
        array_sigs = tuple((k, a.dtype.char, a.ndim) for k, a in enumerate(dyn) if type(a) is np.ndarray)
        shapes = () if kernels else _shapes(dyn)
        return D.jit_function(fun, floats, fuse="every" if kernels else big, arrays=array_sigs,
                              shapes=shapes), kernels, big

    def version_for(self, args: tuple):
        """The version a positional call with `args` runs (what `s2s.source(jit(f), *args)` shows)."""
        if idioms.has_varargs(self._root) or self._static or len(args) != self._nparams:
            return self.compiled
        return self._build_for(self.fun, list(args))[0]

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
        if static:
            names = list(record.signature_of(fun).parameters)
            fun = idioms.specialize(fun, {names[i]: v for i, v in static.items()})
        fn, kernels, big = self._build_for(fun, [args[i] for i in dyn])
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


def jit(fun=None, *, static_argnums=(), static_argnames=()):
    """Compile `fun` through the s2s pipeline into optimized, cached Python that composes with
    every transform: one version per argument signature (static arguments by value), optimized
    by the passes of `s2s.passes` (see the README's jit section). Usable as `@jit` or
    `@jit(static_argnums=...)`."""
    if fun is None:
        return lambda f: Jitted(f, static_argnums, static_argnames)
    return Jitted(fun, static_argnums, static_argnames)


_api(jit)


def linear_map(kind: str, fun, nargs: int, direction):
    """A generated function of the primals: `a -> jvp(fun, a, direction)[1]` (kind "jvp") or
    `a -> vjp(fun, *a)[1](direction)` (kind "vjp"); it composes with further transforms."""
    fun = with_arity(fun, nargs)
    full, _ = _with_defaults(fun, (None,) * nargs)  # parameters left to their defaults
    return D.linear_map(kind, fun, nargs, direction, full[nargs:])


def transformed_source(fun, transform: str, argnums=None) -> str:
    """The generated source for `transform` of `fun` (what `python -m s2s dump` prints).

    `vjp` shows the forward and the backward sweep, `jvp` the function of primals and tangents;
    `argnums` picks the differentiated arguments (all of them for vjp and jvp when omitted).
    """
    return "\n\n".join(record.of(f).source for f in _generated_closure(_roots(fun, transform, argnums)))


def _roots(fun, transform: str, argnums) -> list:
    """The generated functions `transformed_source` starts from."""
    n = len(record.signature_of(fun).parameters)
    if transform in ("vjp", "jvp"):
        nums = range(n) if argnums is None else D.argnums_tuple(argnums, n, transform)
        mask = tuple(i in nums for i in range(n))
        roots = [D.jvp_function(fun, mask)] if transform == "jvp" else list(D.split_vjp(fun, mask))
    else:
        kwargs = {} if argnums is None else {"argnums": argnums}
        roots = [globals()[transform](fun, **kwargs).compiled]
    return roots


def dump_source(fun, transform: str, argnums=None) -> str:
    """`python -m s2s dump`'s text: `transformed_source` as a module that runs on its own (imports,
    the constants and globals the code reads, then the functions)."""
    roots = _roots(fun, transform, argnums)
    title = f"s2s {transform} of {getattr(fun, '__name__', 'f')} ({shown_path(fun.__code__.co_filename)})"
    return module_source(_generated_closure(roots), title)


def stacked_source(fun, transforms, argnums=None, in_axes=0, out_axes=0) -> str:
    """The generated source of `transforms` applied in order, each to the result of the one before
    (["grad", "vmap"] is vmap(grad(fun))); `in_axes`/`out_axes` are vmap's."""
    for t in transforms:
        if t == "vmap":
            fun = vmap(fun, in_axes=in_axes, out_axes=out_axes)
        elif t == "jit" or argnums is None:
            fun = globals()[t](fun)
        else:
            fun = globals()[t](fun, argnums=argnums)
    return "\n\n".join(record.of(f).source for f in _generated_closure([fun.compiled]))


def _generated_closure(roots) -> list:
    """`roots` and every generated function they call, each once, in the order first reached."""
    seen, order, queue = set(), [], list(roots)
    while queue:
        f = queue.pop(0)
        rec = record.of(f)
        f = rec.target() if rec is not None and rec.lazy else f
        rec = record.of(f)
        if id(f) in seen or rec is None or rec.source is None:
            continue
        seen.add(id(f))
        order.append(f)
        ns = rec.core[1]
        queue.extend(ns[name] for name in sorted(ns) if _in_closure(ns[name]))
    return order


def _in_closure(obj) -> bool:
    rec = record.of(obj)
    return rec is not None and (rec.source is not None or rec.lazy)


# ---------------------------------------------------------------- vmap

def _check_axes_spec(spec, what):
    """JAX's checks made when vmap is called: axes are ints or None, in containers."""
    if spec is None or isinstance(spec, int) and not isinstance(spec, bool):
        return
    if isinstance(spec, (tuple, list, dict)):
        for s in (spec.values() if isinstance(spec, dict) else spec):
            _check_axes_spec(s, what)
        return
    raise S2SValueError(f"vmap {what} must be an int, None, or (nested) container with those types as leaves, "
                        f"but got {spec!r}.")


@_api
def vmap(fun=None, in_axes=0, out_axes=0, axis_size=None):
    """Vectorizing map, as JAX's: `fun` mapped over axis `in_axes` of its arguments, results stacked
    along `out_axes`. The generated function is batched code (no loop over examples); `if` and
    `while` on per-example values run masked. Usable as a decorator."""
    if fun is None:
        return lambda f: vmap(f, in_axes, out_axes, axis_size)
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    _check_axes_spec(in_axes, "in_axes")
    _check_axes_spec(out_axes, "out_axes")
    if not callable(fun):
        raise S2STypeError(f"vmap expects a function, got {type(fun).__name__}")
    return _Vmapped(fun, in_axes, out_axes, axis_size)


def _per_example_rank(a, spec):
    """The per-example rank of an argument (None for pytrees, unusual mappings, and arrays of
    other backends, even NumPy subclasses: code specialized on ranks may assume NumPy's sizes)."""
    if (type(a) is np.ndarray or isinstance(a, np.generic)) and (spec is None or isinstance(spec, int)):
        return a.ndim - (0 if spec is None else 1)
    if isinstance(a, (float, int)) and not isinstance(a, bool) and spec is None:
        return 0
    return None


def _rank_of_kind(kind, spec):
    """`_per_example_rank` from what a jit signature says of an argument (ndim, "float", None)."""
    if kind is None or not (spec is None or isinstance(spec, int)):
        return None
    if kind == "float":
        return 0 if spec is None else None
    return kind - (0 if spec is None else 1)


class _Vmapped(Transformed):
    """A vmap'd function. Calls run a version specialized on each argument's per-example rank (so
    that operands whose ranks are known need no run-time alignment); composition uses the
    generic one. A recursion whose depth differs per example never ends when batched: an error."""

    def __init__(self, fun, in_axes, out_axes, axis_size):
        super().__init__("vmap", fun, lambda: self._build(None), None, "vmap")
        self.axes = (in_axes, out_axes, axis_size)
        self._specialized: dict = {}
        self._by_ndims: dict = {}  # the same versions for calls with NumPy arrays only, by their ndims

    def _build(self, ranks):
        """The batched function; vmap(grad(f)) whose gradient code cannot be batched (its tape
        under per-example control flow) runs as grad of the sum of the batched f instead."""
        try:
            return D.vmap_function(self.fun, *self.axes, ranks)
        except S2SError:
            options = getattr(self.fun, "grad_options", None)
            jac_options = getattr(self.fun, "jacrev_options", None)
            if options is None and jac_options is None:
                raise
        if options is None:
            return _jacrev_of_batched(self.fun.fun, jac_options, *self.axes)
        return _grad_of_batched(self.fun.fun, options, *self.axes)

    def _forget(self) -> None:
        self._specialized.clear()
        self._by_ndims.clear()
        self._uninstall()

    def for_arguments(self, kinds: dict, dtypes: dict | None = None):
        """The version a call with these arguments runs (`kinds`: position -> ndim of a NumPy
        array, or "float"), so that `jit(vmap(f))` starts from the code specialized on ranks."""
        in_axes = self.axes[0]
        n = self._nparams
        specs = in_axes if isinstance(in_axes, tuple) and len(in_axes) == n else (in_axes,) * n
        ranks = tuple(_rank_of_kind(kinds.get(i), s) for i, s in enumerate(specs))
        if all(r is None for r in ranks):
            return self.compiled
        fn = self._specialized.get(ranks)
        if fn is None:
            fn = self._specialized[ranks] = self._build(ranks)
        return fn

    def _call(self, args, kwargs):
        unchanged = self._unchanged
        if unchanged is None or not unchanged():
            self._check_key()
        if not kwargs:  # the common case: NumPy arrays only, a version per tuple of their ranks
            nd = np.ndarray
            key = tuple([a.ndim for a in args if type(a) is nd])
            if len(key) == len(args):
                fn = self._by_ndims.get(key)
                if fn is not None and arrays.SETTINGS["backend"] == "numpy":
                    if len(self._by_ndims) == 1 and self._entry_watch is not self._unchanged:
                        # one signature seen: calls like it skip this lookup
                        self._install(args, {"version": fn}, ranks=True, fallback=((RecursionError,), ()))
                    try:  # (as `_run` does, without its frame: this path costs per call)
                        return fn(*args)
                    except RecursionError:
                        raise self._endless() from None
        given = len(args)
        if kwargs or self._defaults and len(args) < self._nparams:
            args = self._bind(args, kwargs)
        if isinstance(self.fun, _Vmapped) and _innermost_is_grad(self.fun):
            merged = _merged_call(self, args)
            if merged is not None:
                return merged
        in_axes, out_axes, axis_size = self.axes
        specs = in_axes if isinstance(in_axes, tuple) and len(in_axes) == len(args) else (in_axes,) * len(args)
        ranks = tuple(_per_example_rank(a, s) for a, s in zip(args, specs))
        fn = self._specialized.get(ranks)
        if fn is None:
            fn = self._specialized[ranks] = self._build(ranks)
        if not kwargs and len(args) == given and all(type(a) is np.ndarray for a in args):
            self._by_ndims[tuple(a.ndim for a in args)] = fn
        return self._run(fn, args, call)

    def _run(self, fn, args, _call=None):
        """Call the batched `fn`; a recursion that never ends batched becomes an S2SError."""
        try:
            return fn(*args) if _call is None else _call(fn, args)
        except RecursionError:
            raise self._endless() from None

    def _endless(self) -> S2SValueError:
        return S2SValueError(f"vmap of {getattr(self.fun, '__name__', 'f')}: a recursion whose depth depends on "
                             "a per-example value cannot be batched (every example would run every branch).")


def _innermost_is_grad(fun) -> bool:
    while isinstance(fun, _Vmapped):
        fun = fun.fun
    return getattr(fun, "grad_options", None) is not None


def _root_of(fun):
    while isinstance(fun, Transformed):
        fun = fun.fun
    return fun


def _axes_per_arg(spec, n):
    """One int-or-None axis per argument, or None when `spec` is a pytree prefix."""
    specs = tuple(spec) if isinstance(spec, (tuple, list)) else (spec,) * n
    ok = len(specs) == n and all(a is None or type(a) is int for a in specs)
    return specs if ok else None


def _merged_call(outer: _Vmapped, args):
    """vmap(vmap(g)) called on arrays with int/None axes, as one vmap(g) over both batch axes
    merged into one (B0 * B1 examples): batched gradient code (vmap(grad(f)) records per-example
    control flow) is then batched once, not twice. None where the axes or arguments do not fit
    (the nested source transform runs instead, with its error messages)."""
    inner = outer.fun
    (in0, out0, size0), (in1, out1, size1) = outer.axes, inner.axes
    n = len(args)
    s0, s1 = _axes_per_arg(in0, n), _axes_per_arg(in1, n)
    if s0 is None or s1 is None or type(out0) is not int or type(out1) is not int \
            or not all(isinstance(a, (np.ndarray, float, int)) for a in args):
        return None
    names = tuple(record.signature_of(_root_of(outer)).parameters)[:n]
    names += tuple(f"{i}" for i in range(len(names), n))
    runtime.vb_size(tuple(args), in0, size0, names)  # JAX's errors (sizes, axes out of range)
    runtime.vb_size(tuple(np.take(a, 0, axis=a0) if a0 is not None else a for a, a0 in zip(args, s0)), in1, size1, names)
    moved = [np.moveaxis(a, a0 % np.ndim(a), 0) if a0 is not None and np.ndim(a) else a for a, a0 in zip(args, s0)]
    b0 = {np.shape(a)[0] for a, a0 in zip(moved, s0) if a0 is not None and np.ndim(a)} | ({size0} if size0 else set())
    inner_rank = [np.ndim(a) - (a0 is not None) for a, a0 in zip(moved, s0)]
    if len(b0) != 1 or any(a1 is not None and not -r <= a1 < r for a1, r in zip(s1, inner_rank)):
        return None
    (n0,) = b0
    b1 = {np.shape(a)[(a0 is not None) + a1 % r] for a, a0, a1, r in zip(moved, s0, s1, inner_rank) if a1 is not None}
    b1 |= {size1} if size1 else set()
    if len(b1) != 1:
        return None
    (n1,) = b1
    merged, specs = [], []
    for a, a0, a1, r in zip(moved, s0, s1, inner_rank):
        if a0 is None and a1 is None:
            merged.append(a)
            specs.append(None)
            continue
        a = np.asarray(a)
        if a0 is None:
            a = np.broadcast_to(a[None], (n0,) + a.shape)
        a = np.moveaxis(a, 1 + a1 % r, 1) if a1 is not None else np.broadcast_to(a[:, None], (n0, n1) + a.shape[1:])
        merged.append(np.reshape(a, (n0 * n1,) + a.shape[2:]))
        specs.append(0)
    key = tuple(specs)
    flat = outer.__dict__.setdefault("_merged", {}).get(key)
    if flat is None:
        flat = outer._merged[key] = vmap(inner.fun, in_axes=key, out_axes=0)
    out = flat(*merged)

    def split(leaf):
        leaf = np.reshape(leaf, (n0, n1) + np.shape(leaf)[1:])
        leaf = np.moveaxis(leaf, 1, 1 + out1 % (leaf.ndim - 1))
        return np.moveaxis(leaf, 0, out0 % leaf.ndim)
    return tree_map(split, out)


def _batch_axis_first(jac, out):
    """A Jacobian of the examples' summed output (out.shape[1:] + (n,) + in shape, per
    differentiated argument) with the example axis moved first."""
    if isinstance(jac, tuple):
        return tuple(_batch_axis_first(j, out) for j in jac)
    return np.moveaxis(jac, np.ndim(out) - 1, 0)


def _jacrev_of_batched(fun, argnums, in_axes, out_axes, axis_size):
    """vmap(jacrev(fun)) as the Jacobian of the batched fun's output summed over the examples
    (each example's output depends on its own inputs only, so the rows of each example are its
    Jacobian), for an array output; the batched tape is not needed. See _grad_of_batched."""
    params = list(record.signature_of(fun).parameters)
    n = len(params)
    nums = D.argnums_tuple(argnums, n, "jacrev")
    specs = list(in_axes) if isinstance(in_axes, tuple) else [in_axes] * n
    moved = [i in nums or specs[i] is not None for i in range(n)]
    inner = D.vmap_function(fun, tuple(0 if m else None for m in moved), 0, axis_size)
    args = ", ".join(f"a{i}" for i in range(n))
    summed = _exec_function("summed", f"def summed({args}):\n    v = inner({args})\n"
                            "    return xp.sum(v, axis=0), v\n", {"inner": inner, "xp": np})
    jac = D.jacobian_function("jacrev", summed, argnums, True)
    name = f"vmap_jacrev_{getattr(fun, '__name__', 'f')}".replace("<lambda>", "lambda_")
    lines = [f"def {name}({args}):", f"    bn = rt.vb_size(({args},), in_axes, axis_size, names)"]
    lines += [f"    a{i} = rt.vb_in(a{i}, spec{i}, bn)" for i in range(n) if moved[i]]
    lines += [f"    j, v = jac({args})", "    j = batch_axis_first(j, v)", "    return rt.vb_out(j, out_axes, bn)"]
    glob = {"rt": runtime, "jac": jac, "in_axes": in_axes, "axis_size": axis_size, "names": tuple(params),
            "out_axes": out_axes, "batch_axis_first": _batch_axis_first, **{f"spec{i}": specs[i] for i in range(n)}}
    return _exec_function(name, "\n".join(lines) + "\n", glob)


def _grad_of_batched(fun, options, in_axes, out_axes, axis_size):
    """vmap(grad(fun)) as the gradient of the sum of vmap(fun) over the examples: the examples are
    independent, so each one's gradient is its slice (unmapped differentiated arguments are
    broadcast first, so each example gets its own). Reverse mode then records the batched code's
    masks and trip counts like any other values. A generated function (jit of a small wrapper)."""
    argnums, has_aux, with_value = options
    params = list(record.signature_of(fun).parameters)
    n = len(params)
    nums = D.argnums_tuple(argnums, n)
    specs = list(in_axes) if isinstance(in_axes, tuple) else [in_axes] * n
    moved = [i in nums or specs[i] is not None for i in range(n)]
    inner = D.vmap_function(fun, tuple(0 if m else None for m in moved), 0, axis_size)
    args = ", ".join(f"a{i}" for i in range(n))
    ret = {(False, False): "rt.vb_sum_scalars(v)", (True, False): "rt.vb_sum_scalars(v[0]), v[1]",
           (False, True): "rt.vb_sum_scalars(v), v", (True, True): "rt.vb_sum_scalars(v[0]), v"}[has_aux, with_value]
    summed = _exec_function("summed", f"def summed({args}):\n    v = inner({args})\n    return {ret}\n",
                            {"inner": inner, "rt": runtime})
    grad_summed = D.grad_function(summed, argnums, has_aux or with_value, False)
    name = f"vmap_grad_{getattr(fun, '__name__', 'f')}".replace("<lambda>", "lambda_")
    lines = [f"def {name}({args}):", f"    bn = rt.vb_size(({args},), in_axes, axis_size, names)"]
    lines += [f"    a{i} = rt.vb_in(a{i}, spec{i}, bn)" for i in range(n) if moved[i]]
    lines.append(f"    g = grad_summed({args})")
    if with_value:
        lines.append("    g = g[1], g[0]")
    lines.append("    return rt.vb_out(g, out_axes, bn)")
    glob = {"rt": runtime, "grad_summed": grad_summed, "in_axes": in_axes, "axis_size": axis_size,
            "names": tuple(params), "out_axes": out_axes, **{f"spec{i}": specs[i] for i in range(n)}}
    return D.jit_function(_exec_function(name, "\n".join(lines) + "\n", glob))
