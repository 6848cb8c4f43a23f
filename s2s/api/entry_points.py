"""The transforms users call (JAX's names and signatures). Each checks its arguments and returns
an object that compiles on first call and caches what it compiled (calls.py; jit's in
jitted.py); `vjp` and `jvp` compile and run at once. The generated source of any of them:
sources.py."""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence

import numpy as np

from ..backends import arrays
from ..base import cotangent_dtype, real_only, record
from ..base.tracebacks import ENTRY
from ..base.tree import hashable_axes, node_children, tree_flatten, tree_structure
from ..compiler import driver
from ..compiler.emit.loader import call, version
from ..compiler.frontend import idioms
from ..compiler.frontend.parse import refuse_not_python
from ..errors import S2SError, S2STypeError, S2SValueError
from ..runtime import real_cotangent, zeros_like_tree
from . import arg_structure, holomorphic
from .calls import Jacobian, Transformed, Vmapped, refuse_wrong_cotangents
from .grad_versions import Gradient
from .jitted import Jitted

Argnums = int | Sequence[int]  # JAX's argnums: the positions of the differentiated arguments


def _api(fn):
    """A transform users call, recognized as one inside transformed code. Each is an entry point:
    its body runs under `ENTRY`, so an S2SError leaving it shows the user's frames only
    (tracebacks.py; a wrapper would change the signature the frontend reads)."""
    record.attach(fn, transform=True)
    return fn


# ---------------------------------------------------------------- argument checks

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


# ---------------------------------------------------------------- reverse mode

Checkpoint = str | int | float | None  # grad's checkpoint=: None, "auto", or a memory budget in bytes


@_api
def grad(fun: Callable, argnums: Argnums = 0, has_aux: bool = False, checkpoint: Checkpoint = None, *,
         holomorphic: bool = False) -> Transformed:
    """Gradient of scalar-valued `fun` with respect to the arguments at `argnums` (reverse mode).
    `checkpoint="auto"` (or a budget in bytes) keeps only snapshots of what `fun`'s loops carry
    and runs their steps again in the backward sweep (docs/memory.md). `holomorphic=True`: f'(z) of
    a complex function of complex inputs, as JAX's (s2s/api/holomorphic.py)."""
    with ENTRY:
        if holomorphic:
            return _holomorphic("grad", fun, argnums, has_aux, checkpoint)
        return _grad_like(fun, argnums, has_aux, False, checkpoint)


@_api
def value_and_grad(fun: Callable, argnums: Argnums = 0, has_aux: bool = False,
                   checkpoint: Checkpoint = None, *, holomorphic: bool = False) -> Transformed:
    """Like grad, but returns `(value, gradient)` computed in one pass."""
    with ENTRY:
        if holomorphic:
            return _holomorphic("value_and_grad", fun, argnums, has_aux, checkpoint)
        return _grad_like(fun, argnums, has_aux, True, checkpoint)


def _holomorphic(kind, fun, argnums, has_aux, checkpoint=None):
    """A `holomorphic=True` derivative: the ordinary transform of the function with JAX's checks
    that s2s writes for `fun` (api/holomorphic.py), whose results may be complex."""
    refuse_not_python(fun, f"s2s.{kind}")
    argnums, checkpoint = _argnums(argnums, kind), _checkpoint(checkpoint, kind)
    target = functools.partial(holomorphic.holomorphic_function, kind, fun, argnums, has_aux)
    target()  # (its refusals, here: a `*args` function)
    if kind in ("jacfwd", "jacrev"):
        t = Jacobian(kind, fun, argnums, has_aux, target)
        t.looped.holomorphic = True
    else:  # (`fun` keys the cache: the function written for it is made again when `fun`'s key changes)
        with_value = kind == "value_and_grad"
        t = Transformed(kind, fun, lambda: driver.grad_function(target(), argnums, has_aux, with_value, checkpoint),
                        None, kind)
        t.nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    t.holomorphic = True
    return t


def _checkpoint(option, what):
    """grad's `checkpoint=`: None, "auto", or a positive number of bytes."""
    if option is None or option == "auto":
        return option
    if isinstance(option, (int, float)) and not isinstance(option, bool) and option > 0:
        return option
    raise S2STypeError(f"{what}: checkpoint must be None, \"auto\" or a memory budget in bytes (a positive "
                       f"number), got {option!r}")


def _grad_like(fun, argnums, has_aux, with_value, checkpoint=None):
    argnums = _argnums(argnums, "value_and_grad" if with_value else "grad")
    kind = "value_and_grad" if with_value else "grad"
    checkpoint = _checkpoint(checkpoint, kind)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    t = Gradient(kind, fun, argnums, has_aux, with_value, checkpoint)  # (a version per complex arguments)
    t.nums = nums
    t.grad_options = (argnums, has_aux, with_value)  # vmap of it may run as grad of the batched fun
    t.transform_key = (kind, argnums, has_aux, checkpoint)  # (a new grad of `fun` reuses its code: cachekey.py)
    t.complex_route = (holomorphic.has_complex_arg,  # (any complex argument: the version for it)
                       functools.partial(holomorphic.complex_inputs, kind, fun, argnums, has_aux, checkpoint))
    return t


@_api
def vjp(fun: Callable, *primals, has_aux: bool = False, checkpoint: Checkpoint = None) -> tuple:
    """(fun(*primals), vjp_fn): vjp_fn(cotangent) returns one cotangent per primal, as a tuple.
    `checkpoint`: as grad's."""
    with ENTRY:
        return _vjp(fun, primals, has_aux, checkpoint)


def _vjp(fun, primals, has_aux, checkpoint):
    checkpoint = _checkpoint(checkpoint, "vjp")
    refuse_not_python(fun, "s2s.vjp")
    fun = idioms.transformable(fun, len(primals))
    args, mask = _with_defaults(fun, primals)
    fwd, bwd = driver.split_vjp(fun, mask, checkpoint)
    backend, move = arrays.select(args)
    if move:
        args = arrays.move(args, backend)
    fwd, bwd = version(fwd, backend), version(bwd, backend)
    out, saved = fwd(*args)
    aux = None
    if has_aux:
        out, aux = out
    narrow = cotangent_dtype.narrow(primals)  # a float32 primal: its cotangent is cast back to float32

    def vjp_fn(ct):
        with ENTRY:
            return pullback(ct)

    def pullback(ct):
        _check_shapes("vjp_fn: the cotangent", out, ct)
        if move:  # NumPy cotangents join the default backend the primals were moved to
            ct = arrays.move(ct, backend)
        seed = (ct, zeros_like_tree(aux)) if has_aux else ct
        cts = real_cotangent(tuple(bwd(saved, seed))[:len(primals)], tuple(primals))  # (own copy of the record;
        # a real primal's cotangent is the real part of a complex one, as JAX's)
        cts = arg_structure.restructure(cts, primals)  # a list primal's cotangent is a list
        refuse_wrong_cotangents("vjp", primals, cts)  # a vector-space value's is of its space
        return cotangent_dtype.like_primals(cts, tuple(primals)) if narrow else cts
    plain = checkpoint is None and not has_aux and not move and not narrow  # (the record pullback_function reads)
    vjp_fn.__s2s_vmap__ = functools.partial(_vmapped_pullback, fun, mask, saved, tuple(primals)) if plain else None
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


_NOT_VJP_FN = object()  # (vmap: a function that is not one vjp returned)


def _vmapped_pullback(fun, mask, saved, primals, in_axes, out_axes, axis_size):
    """vmap of the function vjp returned: the generated pullback (the one a transformed function
    calls, compose.pullback_fn) batched over the cotangent, on the forward sweep's record, which
    every example shares (so the forward sweep is not run again)."""
    pull = driver.pullback_function(fun, mask, tuple(i for i, m in enumerate(mask) if m))
    if isinstance(in_axes, tuple):
        if len(in_axes) != 1:
            raise S2SValueError(f"vmap: the function vjp returns takes one cotangent, but in_axes has {len(in_axes)} "
                                "entries")
        in_axes = in_axes[0]
    batched = vmap(pull, in_axes=(None, None, in_axes), out_axes=out_axes, axis_size=axis_size)

    def vmapped_vjp_fn(ct):
        return batched(saved, primals, ct)
    return vmapped_vjp_fn


@_api
def stop_gradient(x):
    """The value of `x`, through which no derivative flows."""
    return x


record.attach(stop_gradient, prim="stop_gradient")


# ---------------------------------------------------------------- forward mode

@_api
def jvp(fun: Callable, primals: Sequence, tangents: Sequence) -> tuple:
    """(fun(*primals), J @ tangents): forward-mode Jacobian-vector product, with JAX's conventions."""
    with ENTRY:
        return _jvp(fun, primals, tangents)


def _jvp(fun, primals, tangents):
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise S2STypeError("jvp expects primals and tangents as tuples or lists, e.g. jvp(f, (x,), (v,))")
    if len(primals) != len(tangents):
        raise S2SValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    for k, (p, t) in enumerate(zip(primals, tangents)):
        if tree_structure(p) != tree_structure(t):
            raise S2SValueError("jvp: primal and tangent arguments must have the same tree structure")
        _check_shapes(f"jvp: the tangent of argument {k}", p, t)
    refuse_not_python(fun, "s2s.jvp")
    fun = idioms.transformable(fun, len(primals))
    args, mask = _with_defaults(fun, primals)
    out, t_out = call(driver.jvp_function(fun, mask), (*args, *tangents))
    return out, real_only.refuse_complex("jvp", out, t_out)


def trace(fun: Callable, make: Callable, primals: Sequence, nodes: Sequence) -> tuple:
    """(fun(*primals), the node of its result) from `fun`'s traced version (transforms/trace.py),
    which calls `make(value, fun, args, kwargs, parent_argnums, parents)` after each op with an
    argument that has a node, as autograd's tracer does. `nodes`: each primal's node, or None for
    a primal not traced (a node is never a tuple, list or dict: those hold the nodes of the items
    of a container). The result's node is None where it does not depend on the traced primals.
    (s2s.compat.autograd.tracer is built on it.)"""
    fun = idioms.transformable(fun, len(primals))
    args, given = _with_defaults(fun, primals)
    nparams = len(driver.core_of(fun).params)  # (a ufunc's signature has `out=None`, its code no such parameter)
    if len(args) > nparams and not any(given[nparams:]):
        args, given = args[:nparams], given[:nparams]
    mask = tuple(node is not None for node in nodes) + (False,) * (len(given) - len(nodes))
    traced = driver.trace_function(fun, mask)
    backend, move = arrays.select(args)
    if move:
        args = arrays.move(args, backend)
    return version(traced, backend)(make, *args, *[n for n in nodes if n is not None])


def _inside_split(fun, nlead: int, n: int):
    """`fun` ready to transform for a call inside a transformed function with `nlead` leading
    arguments not differentiated (the free locals of a lifted function) and `n` primals: the
    function, the values of the parameters left to their defaults, and the mask."""
    fun = idioms.transformable(fun, nlead + n)
    full, _ = _with_defaults(fun, (None,) * (nlead + n))
    defaults = full[nlead + n:]
    return fun, defaults, (False,) * nlead + (True,) * n + (False,) * len(defaults)


def _jvp_inside(fun, nlead: int, n: int):
    """`s2s.jvp(fun, primals, tangents)` inside a transformed function: (the generated jvp, which
    takes the arguments then the tangents and returns (out, tangent out), the defaults' values)."""
    fun, defaults, mask = _inside_split(fun, nlead, n)
    return driver.jvp_function(fun, mask), defaults


def _vjp_inside(fun, nlead: int, n: int):
    """`y, pullback = s2s.vjp(fun, *primals)` inside a transformed function: (the generated forward
    sweep, returning (out, record), a generated pullback(record, ct) returning one cotangent per
    primal, the defaults' values). Both transform further: a VJP of a VJP."""
    fun, defaults, mask = _inside_split(fun, nlead, n)
    fwd, _ = driver.split_vjp(fun, mask)
    return fwd, driver.pullback_function(fun, mask, tuple(range(nlead, nlead + n))), defaults


record.attach(jvp, inside=_jvp_inside)
record.attach(vjp, inside=_vjp_inside)


def _with_defaults(fun, primals):
    """All positional arguments of `fun` (defaults filled in) and which of them were given."""
    try:
        params = [p for p in record.signature_of(fun).parameters.values()  # (a partial's bound keywords are
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)   # not; nor a ufunc's `out=None`,
                  and not (p.name == "out" and p.default is None)]            # which is no input)
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
def jacfwd(fun: Callable, argnums: Argnums = 0, has_aux: bool = False, *,
           holomorphic: bool = False) -> Jacobian:
    """Jacobian by forward mode: the jvp batched over every input basis vector at once (the
    diagonal from one jvp along ones when the function is elementwise): out.shape + in.shape.
    `holomorphic=True`: the complex Jacobian of a holomorphic function, as JAX's."""
    with ENTRY:
        if holomorphic:
            return _holomorphic("jacfwd", fun, argnums, has_aux)
        return _jacobian("jacfwd", fun, argnums, has_aux)


@_api
def jacrev(fun: Callable, argnums: Argnums = 0, has_aux: bool = False, *,
           holomorphic: bool = False) -> Jacobian:
    """Jacobian by reverse mode: one forward sweep, its backward sweep batched over every output
    basis vector at once (the gradient for a certainly scalar output): out.shape + in.shape.
    `holomorphic=True`: the complex Jacobian of a holomorphic function, as JAX's."""
    with ENTRY:
        if holomorphic:
            return _holomorphic("jacrev", fun, argnums, has_aux)
        return _jacobian("jacrev", fun, argnums, has_aux)


jacobian = jacrev  # JAX's alias (jax.jacobian is jax.jacrev)


def _jacobian(kind, fun, argnums, has_aux):
    argnums = _argnums(argnums, kind)
    t = Jacobian(kind, fun, argnums, has_aux)
    t.transform_key = (kind, argnums, has_aux)  # (a new one of `fun`, as hessian makes, reuses its code: cachekey.py)
    t.complex_route = t.looped.complex_route = (holomorphic.has_complex_input, functools.partial(
        holomorphic.complex_inputs, kind, fun, argnums, has_aux, None))
    if kind == "jacrev" and not has_aux:
        t.jacrev_options = argnums  # vmap of it may run as jacrev of the summed batched fun
    return t


@_api
def hessian(fun: Callable, argnums: Argnums = 0, has_aux: bool = False, *, holomorphic: bool = False) -> Jacobian:
    """Hessian as forward-over-reverse, jacfwd(jacrev(fun)), one batched pass over the basis:
    shape out.shape + in.shape + in.shape. `holomorphic=True`: the complex second derivative of
    a holomorphic function, as JAX's."""
    with ENTRY:
        return jacfwd(jacrev(fun, argnums, has_aux, holomorphic=holomorphic), argnums, has_aux,
                      holomorphic=holomorphic)


# ---------------------------------------------------------------- vmap

def _check_axes_spec(spec, what):
    """JAX's checks made when vmap is called: axes are ints or None, in containers."""
    if spec is None or isinstance(spec, int) and not isinstance(spec, bool):
        return
    parts = node_children(spec)  # a registered pytree node or namedtuple of axes (JAX's prefix trees)
    if parts is not None or isinstance(spec, (tuple, list, dict)):
        for s in (parts[0] if parts is not None else spec.values() if isinstance(spec, dict) else spec):
            _check_axes_spec(s, what)
        return
    raise S2SValueError(f"vmap {what} must be an int, None, or (nested) container with those types as leaves, "
                        f"but got {spec!r}.")


@_api
def vmap(fun: Callable | None = None, in_axes=0, out_axes=0, axis_size: int | None = None):
    """Vectorizing map, as JAX's: `fun` mapped over axis `in_axes` of its arguments, results stacked
    along `out_axes`. The generated function is batched code (no loop over examples); `if` and
    `while` on per-example values run masked. Usable as a decorator."""
    if fun is None:
        return lambda f: vmap(f, in_axes, out_axes, axis_size)
    with ENTRY:
        if isinstance(in_axes, list):
            in_axes = tuple(in_axes)
        _check_axes_spec(in_axes, "in_axes")
        in_axes = hashable_axes(in_axes)
        _check_axes_spec(out_axes, "out_axes")
        if not callable(fun):
            raise S2STypeError(f"vmap expects a function, got {type(fun).__name__}")
        pullback = getattr(fun, "__s2s_vmap__", _NOT_VJP_FN)
        if pullback is None:
            raise S2SError("s2s batches the function vjp returns for NumPy arrays of float64, without has_aux or "
                           "checkpoint=; call it in a loop over the cotangents, or batch a function that calls "
                           "s2s.vjp inside it.")
        if pullback is not _NOT_VJP_FN:
            return pullback(in_axes, out_axes, axis_size)
        return Vmapped(fun, in_axes, out_axes, axis_size)


# ---------------------------------------------------------------- jit

def jit(fun: Callable | None = None, *, static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = ()):
    """Compile `fun` through the s2s pipeline into optimized, cached Python that composes with
    every transform: one version per argument signature (static arguments by value), optimized
    by the passes of `s2s.compiler.passes` (see the README's jit section). Usable as `@jit` or
    `@jit(static_argnums=...)`."""
    with ENTRY:
        if fun is None:
            return lambda f: Jitted(f, static_argnums, static_argnames)
        return Jitted(fun, static_argnums, static_argnames)


_api(jit)


def linear_map(kind: str, fun: Callable, nargs: int, direction):
    """A generated function of the primals: `a -> jvp(fun, a, direction)[1]` (kind "jvp") or
    `a -> vjp(fun, *a)[1](direction)` (kind "vjp"); it composes with further transforms."""
    fun = idioms.transformable(fun, nargs)
    full, _ = _with_defaults(fun, (None,) * nargs)  # parameters left to their defaults
    return driver.linear_map(kind, fun, nargs, direction, full[nargs:])
