"""The generated source of transformed functions: `s2s.source`, and what `python -m s2s dump`
prints (`transformed_source`, `dump_source`, `stacked_source`): a transformed function with every
generated function it calls."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..base import record
from ..compiler import driver
from ..compiler.emit.dump import module_source, program
from ..errors import S2STypeError, shown_path
from . import entry_points as api
from .calls import Vmapped
from .grad_versions import Gradient
from .jitted import Jitted


def source(fn: Callable, *args) -> str:
    """The generated Python source of a transformed function and of every generated function it
    calls (the functions of `python -m s2s dump`), the transformed function first, then its helpers
    in the order it reaches them. With example arguments: the version a call with them runs, where
    the transform specializes on them (`jit`; `vmap` on ranks; `jacfwd` and `hessian` of float
    NumPy arrays)."""
    special = getattr(fn, "for_arguments", None) if args else None
    merged = fn.merged_version(args) if args and isinstance(fn, Vmapped) else None
    if args and isinstance(fn, Jitted):
        fn = fn.version_for(args)
    elif merged is not None:  # vmap(vmap(grad(f))) on arrays: both batch axes merged into one
        fn = merged
    elif isinstance(fn, Gradient) and not args:  # (the version a call with real arguments runs)
        fn = fn.compiled
    elif special is not None:
        at = {i: a for i, a in enumerate(args) if type(a) is np.ndarray}
        kinds = {i: a.ndim for i, a in at.items()} | {i: "float" for i, a in enumerate(args) if type(a) is float}
        fn = special(kinds, {i: a.dtype.char for i, a in at.items()})
    gen = record.generated(fn)
    if gen is not None:
        return _program([gen])
    raise S2STypeError(f"{fn!r} is not a function produced by an s2s transform (grad, vjp, jvp, ...)")


def transformed_source(fun, transform: str, argnums=None) -> str:
    """The generated source for `transform` of `fun` (what `python -m s2s dump` prints).

    `vjp` shows the forward and the backward sweep, `jvp` the function of primals and tangents,
    `trace` the function that builds autograd's trace nodes; `argnums` picks the differentiated
    (traced) arguments (all of them for vjp, jvp and trace when omitted).
    """
    return _program(_roots(fun, transform, argnums))


def _program(roots: list) -> str:
    """The sources of `roots` and of every generated function they call, each once."""
    return "\n\n".join(record.of(f).source for f in program(roots))


def _roots(fun, transform: str, argnums, checkpoint=None) -> list:
    """The generated functions `transformed_source` starts from (`checkpoint`: grad's, vjp's)."""
    n = len(record.signature_of(fun).parameters)
    if transform in ("vjp", "jvp", "trace"):
        nums = range(n) if argnums is None else driver.argnums_tuple(argnums, n, transform)
        mask = tuple(i in nums for i in range(n))
        if transform == "trace":  # autograd's tracer (transforms/trace.py)
            return [driver.trace_function(fun, mask)]
        roots = [driver.jvp_function(fun, mask)] if transform == "jvp" else list(driver.split_vjp(fun, mask,
                                                                                                   checkpoint))
    else:
        kwargs = {} if argnums is None else {"argnums": argnums}
        if checkpoint is not None:
            kwargs["checkpoint"] = checkpoint
        roots = [getattr(api, transform)(fun, **kwargs).compiled]
    return roots


def dump_source(fun, transform: str, argnums=None, checkpoint=None) -> str:
    """`python -m s2s dump`'s text: `transformed_source` as a module that runs on its own (imports,
    the constants and globals the code reads, then the functions)."""
    roots = _roots(fun, transform, argnums, checkpoint)
    return module_source(program(roots), _title([transform], fun), len(roots))


def _title(transforms, fun) -> str:
    """A dump's first line: `s2s vmap of grad of f (path/to/file.py)`."""
    code = getattr(fun, "__code__", None)
    where = f" ({shown_path(code.co_filename)})" if code is not None else ""
    return f"s2s {' of '.join(reversed(transforms))} of {getattr(fun, '__name__', 'f')}{where}"


def stacked_source(fun, transforms, argnums=None, in_axes=0, out_axes=0) -> str:
    """`python -m s2s dump`'s text for `transforms` applied in order, each to the result of the one
    before (["grad", "vmap"] is vmap(grad(fun))); `in_axes`/`out_axes` are vmap's. A module that
    runs on its own, as `dump_source`'s."""
    title = _title(transforms, fun)
    if transforms[-1:] == ["trace"]:  # the trace of the stacked transforms' function
        for t in transforms[:-1]:
            fun = api.vmap(fun, in_axes=in_axes, out_axes=out_axes) if t == "vmap" else getattr(api, t)(fun)
        return module_source(program(_roots(fun, "trace", argnums)), title)
    for t in transforms:
        if t == "vmap":
            fun = api.vmap(fun, in_axes=in_axes, out_axes=out_axes)
        elif t == "jit" or argnums is None:
            fun = getattr(api, t)(fun)
        else:
            fun = getattr(api, t)(fun, argnums=argnums)
    return module_source(program([fun.compiled]), title)


