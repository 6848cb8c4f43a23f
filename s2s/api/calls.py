"""The objects the transforms return (`grad(f)`, `vmap(f)`, `jacfwd(f)`, ...): each calls its
compiled code and carries it for further transforms.

A call checks the cache key's watch (cachekey.Watch: has a global, module attribute or closure
value the function reads been rebound?), picks the version for the arguments, and calls it on
their array backend. Once calls have shown one signature, the object's `__call__` becomes a fast
path generated for it (dispatch.py). jit's object, with one version per argument signature, is
in jitted.py.
"""
from __future__ import annotations

import functools
import inspect
import operator

import numpy as np

from ..backends import arrays
from ..base import cotangent_dtype, real_only, record, vspace
from ..base.tracebacks import hide_internal
from ..base.tree import node_children
from ..compiler import driver
from ..compiler.emit.loader import call
from ..compiler.frontend import idioms, reads
from ..compiler.frontend.parse import refuse_not_python
from ..errors import S2SError, S2STypeError, S2SValueError
from . import arg_structure, dispatch


def check_diff_args(args, nums, what):
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
    if bad is None and what not in ("grad", "value_and_grad") and _has_space_value(args[i]):
        raise S2STypeError(f"{what} differentiates with respect to arrays; argument {i} holds a vector-space value "
                           "(a class registered with autograd.extend.VSpace), whose derivatives s2s computes "
                           "only with grad, value_and_grad and vjp.")
    if bad is not None:
        raise S2STypeError(f"{what} requires real- or complex-valued inputs (input dtype that is a "
                           f"sub-dtype of np.inexact), but got {bad} for argument {i}. Pass floats "
                           "(e.g. 1.0 or x.astype(float)), or differentiate with respect to another argument.")


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
    if x is None or vspace.is_space_value(x):  # a value of a registered vector space: differentiable
        return None
    kids = node_children(x)  # a registered pytree node, a namedtuple
    if kids is not None:
        return next((b for b in map(_non_float_leaf, kids[0]) if b is not None), None)
    return type(x).__name__ if isinstance(x, (bool, int)) or not isinstance(x, complex) else None


def _has_space_value(x) -> bool:
    """Whether pytree `x` holds a value of a registered vector space (s2s/base/vspace.py)."""
    return vspace.is_space_value(x) or isinstance(x, (tuple, list, dict)) and any(
        map(_has_space_value, x.values() if isinstance(x, dict) else x))


def _space_gradients(kind: str, options: tuple, args: tuple, out) -> None:
    """grad's result `out` checked by refuse_wrong_cotangents (options: argnums, has_aux, with_value)."""
    argnums, has_aux, with_value = options
    grads = out[1] if with_value else out[0] if has_aux else out
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    grads = (grads,) if isinstance(argnums, int) else tuple(grads)
    refuse_wrong_cotangents(kind, tuple(args[i] for i in nums if i < len(args)), grads)


def refuse_wrong_cotangents(what: str, primals: tuple, cts: tuple) -> None:
    """A vector-space argument's derivative that is not a value of its space is an error, never
    returned (s2s/base/vspace.py: computed through operations on the value s2s cannot see)."""
    wrong = vspace.wrong_cotangent(tuple(primals), tuple(cts))
    if wrong is not None:
        raise S2SValueError(f"{what}: {wrong}.")


class Transformed:
    """A transformed function: calls the compiled code, and carries it for further transforms."""

    def __init__(self, kind, fun, compile_, nums, label):
        refuse_not_python(fun, f"s2s.{kind}")  # (an lru_cache or numba wrapper: say so, not inspect's error)
        self.kind, self.fun, self._compile, self.nums = kind, fun, compile_, nums
        self._fn = None
        self._fast = None  # the compiled function, once a call showed plain positional calls reach it
        functools.update_wrapper(self, fun, updated=())
        self.__name__ = f"{label}_{getattr(fun, '__name__', 'f')}"
        self.__s2s__ = record.Record(target=lambda: self.compiled)
        self._real = kind in real_only.DERIVATIVES  # its results are refused when complex (real_only.py)

    _unchanged = None  # the key's watch: True while nothing the key read was rebound
    _watch = None      # the places the key read (cachekey.Watch)
    _reads = None      # what the versions were built from, read from objects (frontend/reads.py)

    def _check_key(self) -> None:
        """Forget every compiled version when a global, module attribute or closure value that the
        function reads has changed since they were built, or a value their compilation read from an
        object, class, dict, list or module (`self.scale`, `ACT["f"]`, `np.tanh`) gives another one
        (checked on every call: identity tests of what the key and the compilation read, a few
        hundred ns; the key itself is recomputed, and the reads compared by value, only when one
        fails)."""
        unchanged = self._unchanged
        if unchanged is not None and unchanged():
            return
        key, self._watch = self._current_key()
        if key == self.__dict__.get("_key") and (self._reads is None or self._reads.holds()):
            self._unchanged = self._watch.compile(self._reads) if self._watch is not None else None
            return
        self._unchanged = self._watch.compile() if self._watch is not None else None
        self._key, self._fn, self._fast, self._reads = key, None, None, None
        self._uninstall()
        self.__dict__.pop("_compiled_by_arity", None)
        self.__dict__.pop("_signature", None)  # the defaults it binds may be new
        self._forget()

    def _note(self, fn):
        """`fn`, a version this object calls: what its compilation read joins the per-call check."""
        got = getattr(record.of(fn), "reads", None)
        if got:
            if self._reads is None:
                self._reads = reads.Reads()
            if self._reads.update(got) and self._watch is not None:
                self._unchanged = self._watch.compile(self._reads)
        return fn

    def _forget(self) -> None:
        """Drop versions a subclass keeps besides `_fn`."""

    @property
    def compiled(self):
        self._check_key()
        arity = idioms.current_arity(self._root)
        if arity is not None:  # a transform of a transform of a `*args` function: one per arity
            by_arity = self.__dict__.setdefault("_compiled_by_arity", {})
            if arity not in by_arity:
                by_arity[arity] = self._note(self._compile())
            return by_arity[arity]
        if self._fn is None:
            self._fn = self._note(self._compile())
        return self._fn

    # A call of the object calls `self._entry`: the general `_call` below or, once calls have
    # shown one signature, the fast path generated for it (dispatch.py). The property's getter
    # is C code, so a call pays no Python frame of s2s's own besides the fast path.
    __call__ = property(operator.attrgetter("_entry"))

    def _entry(self, *args, **kwargs):
        try:
            if kwargs or len(args) != self._nparams:
                self._check_arity(args, kwargs)
            return self._call(args, kwargs)
        except Exception as e:  # an entry point: the user's frames only; another error names their line
            hide_internal(e)
            raise

    def _general(self, args, kwargs):
        """The general call as the fast path falls back to it: the arguments checked first."""
        try:
            if kwargs or len(args) != self._nparams:
                self._check_arity(args, kwargs)
            return self._call(args, kwargs)
        except Exception as e:
            hide_internal(e)
            raise

    def _check_arity(self, args, kwargs) -> None:
        """Arguments that the user's function could not take are an S2STypeError naming it and its
        parameters, as a call of the function itself would be (not the generated code's error)."""
        try:
            sig = self._signature
        except (TypeError, ValueError):  # no signature to bind against: the call itself says
            return
        try:
            sig.bind(*args, **kwargs)
        except TypeError as e:
            name = getattr(self._root, "__name__", "f")
            raise S2STypeError(f"{self.kind}({name}) called with {len(args)} positional argument(s)"
                               f"{' and keywords ' + ', '.join(sorted(kwargs)) if kwargs else ''}: "
                               f"{name}{sig} {e}") from None

    _entry_watch = None  # the watch the fast path was generated with
    _entry_builds = 0

    def _install(self, args, ns: dict, calls: list[str] | None = None, ranks: bool = False,
                 fallback: tuple = (), shapes: bool = False, inline=None) -> None:
        """Generate the fast path for calls like `args` (dispatch.entry; `calls` default to
        `return version(a0, ...)`), once per watch of the key and at most 8 times per object (a
        watch that fails on every call, a global rebound to an equal value each time, never pays
        an exec per call); `inline`: the generated version the calls run, merged into the fast
        path where it fits (merged_entry.py)."""
        if self._entry_watch is self._unchanged or self._entry_builds >= 8:
            return
        self._entry_builds += 1
        self._entry_watch = self._unchanged
        calls = calls or [f"return version({', '.join(f'a{i}' for i in range(len(args)))})"]
        self._entry_spec = (ns, calls, ranks, fallback, shapes)  # (tools/bench/bench_callpath.py; not the arguments)
        fn = dispatch.entry(f"dispatch_{self.__name__}", args, self._unchanged, self._general, calls, ns, ranks, fallback,
                            shapes, inline)
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
                check_diff_args(args, self.nums, self.kind)
            if self._entry_watch is not self._unchanged:  # (tested here: this path may run per call)
                self._install(args, {"version": self._checked(fast)}, fallback=self._fallback)
            return self._checked(fast)(*args) if self._real else call(fast, args)
        if idioms.has_varargs(self._root):  # one compiled version per number of arguments
            fn = idioms.varargs_call(self._root, len(args), lambda: self.compiled)
            return self._checked(fn)(*args, **kwargs) if self._real or kwargs else call(fn, args)
        if kwargs or self._defaults and len(args) < self._nparams:
            args = self._bind(args, kwargs)
        elif not self._defaults:
            self._fast = self.compiled
        if self.nums is not None:
            check_diff_args(args, self.nums, self.kind)
        return self._checked(self.compiled)(*args) if self._real else call(self.compiled, args)

    def _checked(self, fn):
        """`fn` (called on the arguments' backend), its results refused when complex for a transform
        that returns derivatives: s2s's rules are for real arithmetic (real_only.py)."""
        if not self._real:
            return fn
        kind = self.kind
        options = getattr(self, "grad_options", None) if kind in ("grad", "value_and_grad") else None
        jac_options = getattr(self, "jac_options", None) if kind == "jacrev" else None

        route = getattr(self, "complex_route", None)  # (at complex inputs: JAX's contract, api/holomorphic.py)
        # (a holomorphic derivative's results are complex; so may jacfwd's be, of a complex output)
        refuse = real_only.refuse_complex_result if kind != "jacfwd" and not getattr(self, "holomorphic", False) \
            else (lambda kind, out: out)

        def checked(*args, **kwargs):
            if route is not None and not kwargs and route[0](args, self.nums):
                return route[1](args)
            out = refuse(kind, call(fn, args) if not kwargs else fn(*args, **kwargs))
            if options is not None and vspace.SPACES:  # a vector-space argument's gradient is of its space
                _space_gradients(kind, options, args, out)
            if options is not None and arg_structure.has_sequence(args, self.nums):  # a list argument's
                out = arg_structure.grad_result(out, args, options)  # gradient is a list
            if kwargs:
                return out
            if options is not None:  # a cotangent in its primal's dtype
                return cotangent_dtype.grad_result(options, args, out)
            return cotangent_dtype.jacobian_result(*jac_options, args, out) if jac_options is not None else out
        return checked

    _fallback: tuple = ()  # (errors after which a fast-path call runs the general one, errors it raises)

    def _current_key(self):
        """The cache key of the user's function now (the compiled code is reused while it holds),
        and the Watch of the places it read (None: recompute it on every call)."""
        try:
            return driver.key_and_watch(self._root)
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
        """The parameters the generated code takes (a NumPy function's as s2s adapts it: no `out=`)."""
        root = self._root
        return record.signature_of(idioms.adapt(root) if idioms.is_library_function(root) else self.fun)

    @property
    def _defaults(self) -> bool:
        """Whether a parameter has a default (the user's function's, through transforms and partials)."""
        try:
            return any(p.default is not p.empty for p in self._signature.parameters.values())
        except (TypeError, ValueError):  # no signature to bind against
            return False

    @property
    def _nparams(self):
        return len(self._signature.parameters)

    def _bind(self, args, kwargs):
        """Keyword and default arguments become positional, as the generated code takes them."""
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        varkw = [p.name for p in self._signature.parameters.values() if p.kind == p.VAR_KEYWORD]
        extra = bound.arguments.get(varkw[0], {}) if varkw else {}
        if extra:  # `**kwargs` of the transformed function itself: compiled with none
            name = getattr(self._root, "__name__", "f")
            raise S2STypeError(f"{self.kind} of {name}: s2s compiles a `**kwargs` function for the keywords it is "
                               f"called with inside a transformed function, not for keywords given to the transform "
                               f"({', '.join(sorted(extra))}). Bind them first: "
                               f"{self.kind}(functools.partial({name}, {', '.join(f'{k}=...' for k in sorted(extra))})).")
        return bound.args

    def __repr__(self):
        return f"<s2s.{self.kind} of {getattr(self.fun, '__name__', self.fun)!r}>"


class Jacobian(Transformed):
    """jacfwd/jacrev: calls run the form batched over the basis; further transforms (hessian =
    jacfwd(jacrev), grad or vmap of a Jacobian) start from the looped form, since not every
    batched helper has derivative rules yet. A call whose batched run fails (a batching rule
    that cannot handle these arguments) runs the looped form, from then on."""

    def __init__(self, kind, fun, argnums, has_aux, target=None):
        """`target()`: the function compiled in `fun`'s place (a holomorphic derivative's, with its
        checks: api/holomorphic.py); `fun` keys the cache either way."""
        self._target = target = target or (lambda: fun)
        super().__init__(kind, fun, lambda: driver.jacobian_function(kind, target(), argnums, has_aux), None, kind)
        self.composable = lambda: driver.jacobian_function(kind, target(), argnums, has_aux, batched=False)
        self.looped = Transformed(kind, fun, self.composable, None, kind)
        self._use_loop = False
        self._options = (argnums, has_aux)
        self.jac_options = self.looped.jac_options = self._options  # (its rows in the argument's dtype: cotangent_dtype)
        self._ranked: dict = {}  # jacfwd: versions specialized on the ranks of float array arguments
        self.nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)  # JAX: floating inputs only

    def _forget(self) -> None:
        self._ranked.clear()

    def for_arguments(self, kinds: dict, dtypes: dict | None = None):
        """The version a call with these arguments runs (`kinds`: position -> ndim of a NumPy
        array; `dtypes`: position -> its dtype char), so that `jit(jacfwd(f))` starts from it."""
        dtypes = dtypes or {}
        self._check_key()  # (a jit of this transform starts from it: a rebound global is a new version)
        return self._version(tuple((i, nd) for i, nd in sorted(kinds.items())
                                   if type(nd) is int and np.dtype(dtypes.get(i, "O")).kind == "f"))

    def _version(self, ranks: tuple):
        """jacfwd's version for float NumPy arrays of these ranks at these positions (its diagonal's
        run-time tests decided when it is built; transforms/diagonal.py); the general one else."""
        if not ranks or self.kind != "jacfwd" or idioms.has_varargs(self._root):
            return self.compiled
        fn = self._ranked.get(ranks)
        if fn is None:
            fn = self._ranked[ranks] = self._note(driver.jacobian_function(self.kind, self._target(), *self._options,
                                                                           ranks=ranks))
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
        check_diff_args(args, self.nums, self.kind)
        unchanged = self._unchanged
        if unchanged is None or not unchanged():
            self._check_key()
        fn = self._version(ranks)
        if self._entry_watch is not self._unchanged:
            self._install(args, {"version": self._checked(fn)}, ranks=True, fallback=self._fallback)
        return self._checked(fn)

    # a batched run that fails runs the looped form (the general call decides); these are raised
    _fallback = ((Exception,), (S2STypeError, RecursionError))

    def _call(self, args, kwargs):
        if self._use_loop:
            if not kwargs:
                check_diff_args(args, self.nums, self.kind)
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


def _replays_batched_range(fn) -> bool:
    """Whether batched code `fn` (or a generated function it calls) replays a loop whose range
    vmap read back from a batched record (rt.batched_reversed_range)."""
    return any("rt.batched_reversed_range" in (record.of(f).source or "") for f in record.generated_closure([fn]))


class Vmapped(Transformed):
    """A vmap'd function. Calls run a version specialized on each argument's per-example rank (so
    that operands whose ranks are known need no run-time alignment); composition uses the
    generic one. A recursion whose depth differs per example never ends when batched: an error."""

    def __init__(self, fun, in_axes, out_axes, axis_size):
        super().__init__("vmap", fun, lambda: self._build(None), None, "vmap")
        self.axes = (in_axes, out_axes, axis_size)
        self._specialized: dict = {}
        self._by_ndims: dict = {}  # the same versions for calls with NumPy arrays only, by their ndims
        self._merged: dict = {}  # vmap(vmap(grad(f))): the merged version per (arity, ranks)
        self._flat: dict = {}  # ... and the vmap(grad(f)) it calls, per merged in_axes

    def _build(self, ranks):
        """The batched function; vmap(grad(f)) whose gradient code cannot be batched (its tape
        under per-example control flow) runs as grad of the sum of the batched f instead, and
        vmap(jacrev(f)) likewise as jacrev of that sum (driver.grad_of_batched, jacrev_of_batched)."""
        options = getattr(self.fun, "grad_options", None)
        jac_options = getattr(self.fun, "jacrev_options", None)
        try:
            fn = self._note(driver.vmap_function(self.fun, *self.axes, ranks))
            # (a loop replayed from a batched record: its record's other counters come back batched
            # too, which the sum's gradient avoids; a hessian, with no such way round, runs it)
            if options is None and jac_options is None or not _replays_batched_range(fn):
                return fn
        except S2SError:
            if options is None and jac_options is None:
                raise
        fun = self.fun.fun
        names = tuple(record.signature_of(fun).parameters)
        if options is None:
            return self._note(driver.jacrev_of_batched(fun, names, jac_options, *self.axes))
        return self._note(driver.grad_of_batched(fun, names, *options, *self.axes))

    def _forget(self) -> None:
        self._specialized.clear()
        self._by_ndims.clear()
        self._merged.clear()
        self._flat.clear()
        self._uninstall()

    def version_for_ranks(self, ranks: tuple):
        """The version for arguments of these per-example ranks (None where unknown)."""
        fn = self._specialized.get(ranks)
        if fn is None:
            fn = self._specialized[ranks] = self._build(ranks)
        return fn

    def for_arguments(self, kinds: dict, dtypes: dict | None = None):
        """The version a call with these arguments runs (`kinds`: position -> ndim of a NumPy
        array, or "float"), so that `jit(vmap(f))` starts from the code specialized on ranks."""
        self._check_key()  # (a jit of this transform starts from it: a rebound global is a new version)
        in_axes = self.axes[0]
        n = self._nparams
        specs = in_axes if isinstance(in_axes, tuple) and len(in_axes) == n else (in_axes,) * n
        ranks = tuple(_rank_of_kind(kinds.get(i), s) for i, s in enumerate(specs))
        if all(r is None for r in ranks):
            return self.compiled
        return self.version_for_ranks(ranks)

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
            passed = _passed_axes(self.axes[0], given, self._positional, kwargs)
            args = self._bind(args, kwargs)
            if passed is not None:
                return self._for_axes(passed[:len(args)])(*args)
        merged = self.merged_version(args)
        if merged is not None:
            try:
                return call(merged, args)
            except RecursionError:
                raise _endless(self.fun.fun) from None
        in_axes = self.axes[0]
        specs = in_axes if isinstance(in_axes, tuple) and len(in_axes) == len(args) else (in_axes,) * len(args)
        fn = self.version_for_ranks(tuple(_per_example_rank(a, s) for a, s in zip(args, specs)))
        if not kwargs and len(args) == given and all(type(a) is np.ndarray for a in args):
            self._by_ndims[tuple(a.ndim for a in args)] = fn
        return self._run(fn, args, call)

    def for_call(self, given: int, keywords) -> Transformed:
        """The vmap a call with `given` positional arguments and these keywords runs (the
        normalizer asks, so a call inside a transformed function batches as a direct call does)."""
        passed = _passed_axes(self.axes[0], given, self._positional, keywords)
        return self if passed is None else self._for_axes(passed)

    @property
    def _positional(self) -> list:
        """The names of the parameters the generated code takes (a partial's bound keywords are not)."""
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        return [p.name for p in self._signature.parameters.values() if p.kind in kinds]

    def _for_axes(self, in_axes: tuple):
        """This vmap with `in_axes` given per parameter (a call that leaves defaults out)."""
        variants = self.__dict__.setdefault("_variants", {})
        if in_axes not in variants:
            variants[in_axes] = Vmapped(self.fun, in_axes, self.axes[1], self.axes[2])
        return variants[in_axes]

    def _run(self, fn, args, _call=None):
        """Call the batched `fn`; a recursion that never ends batched becomes an S2SError."""
        try:
            return fn(*args) if _call is None else _call(fn, args)
        except RecursionError:
            raise self._endless() from None

    def _endless(self) -> S2SValueError:
        return _endless(self.fun)

    def merged_version(self, args: tuple):
        """vmap(vmap(grad(f))) called on arrays with int/None axes runs as one vmap(grad(f)) over
        both batch axes merged into one (B0 * B1 examples; driver.merged_vmap_function): the
        gradient code (vmap(grad(f)) records per-example control flow) is then batched once, not
        twice. The version for a call with `args`, or None where the axes or arguments do not fit
        (the nested transform runs instead, with its error messages)."""
        inner = self.fun
        if not isinstance(inner, Vmapped) or not _innermost_is_grad(inner):
            return None
        n = len(args)
        (in0, out0, _), (in1, out1, _) = self.axes, inner.axes
        s0, s1 = _axes_per_arg(in0, n), _axes_per_arg(in1, n)
        if s0 is None or s1 is None or type(out0) is not int or type(out1) is not int \
                or not all(isinstance(a, (np.ndarray, float, int)) for a in args):
            return None
        ranks = tuple(_merged_rank(a, a0, a1) for a, a0, a1 in zip(args, s0, s1))
        fn = self._merged.get((n, ranks))
        if fn is None:
            names = tuple(record.signature_of(self._root).parameters)[:n]
            names += tuple(f"{i}" for i in range(len(names), n))
            specs = tuple(None if a0 is None and a1 is None else 0 for a0, a1 in zip(s0, s1))
            flat = self._flat.get(specs)
            if flat is None:
                flat = self._flat[specs] = Vmapped(inner.fun, specs, 0, None)
            # vmap(vmap(grad)) inside: its own call merges again; else the version for these ranks
            callee = flat if isinstance(inner.fun, Vmapped) else flat.version_for_ranks(ranks)
            self._note(callee)
            fn = self._merged[n, ranks] = self._note(driver.merged_vmap_function(
                self._root, _innermost(inner).kind, names, callee, self.axes, inner.axes, s0, s1))
        return fn


def _endless(fun) -> S2SValueError:
    return S2SValueError(f"vmap of {getattr(fun, '__name__', 'f')}: a recursion whose depth depends on "
                         "a per-example value cannot be batched (every example would run every branch).")


def _merged_rank(a, outer, inner):
    """The per-example rank of argument `a` of vmap(vmap(g)) once its two batch axes are merged
    into one (None where not known, or where the size checks will refuse the call)."""
    if outer is None and inner is None:
        return _per_example_rank(a, None)
    if type(a) is np.ndarray and a.ndim >= (outer is not None) + (inner is not None):
        return a.ndim - (outer is not None) - (inner is not None)
    return None


def _innermost(fun):
    """What a chain of vmaps maps."""
    while isinstance(fun, Vmapped):
        fun = fun.fun
    return fun


def _passed_axes(in_axes, given: int, params: list, kwargs: dict):
    """JAX's rule for a call that passes keywords or leaves defaults out: `in_axes` matches the
    positional arguments passed, keyword arguments are mapped over axis 0 and defaults left out
    are not mapped. One axis per parameter, or None where `in_axes` already says that (or does
    not fit the call: binding reports it)."""
    if isinstance(in_axes, tuple):
        if len(in_axes) != given:
            return None
        axes = list(in_axes)
    else:
        axes = [in_axes] * given
    axes += [0 if p in kwargs else None for p in params[given:]]
    plain = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(params)
    return None if tuple(axes) == plain else tuple(axes)


def _innermost_is_grad(fun) -> bool:
    return getattr(_innermost(fun), "grad_options", None) is not None


def _axes_per_arg(spec, n):
    """One int-or-None axis per argument, or None when `spec` is a pytree prefix."""
    specs = tuple(spec) if isinstance(spec, (tuple, list)) else (spec,) * n
    ok = len(specs) == n and all(a is None or type(a) is int for a in specs)
    return specs if ok else None
