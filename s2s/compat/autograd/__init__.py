"""autograd's differential operators over s2s's transforms.

autograd numbers arguments with `argnum` (one int) and differentiates the function it is given
when the result is called; s2s compiles the derivative on the first call, so the two read the
same. `alias_autograd()` registers this package (and `autograd.numpy` -> `s2s.numpy`, its
`random` -> `numpy.random`, `autograd.scipy` -> `s2s.scipy` where s2s has it) in `sys.modules`.
"""
from __future__ import annotations

import functools
import inspect
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as _np

try:
    import scipy.stats as _scipy_stats
except ImportError:  # the optional SciPy extra: no autograd.scipy then
    _scipy_stats = None

import s2s
import s2s.numpy as _snp
from s2s.base import record as _record
from s2s.errors import S2STypeError as _S2STypeError

from .._modules import install, restore, scipy_names
from . import builtins, core, extend, integrate, misc, nary, numpy_extra, signal, test_util, tracer, util, wrap_util
from .builtins import dict, isinstance, list, tuple, type  # noqa: A004 - autograd's names
from .nary import (
    checkpoint,
    deriv,
    grad_and_aux,
    holomorphic_grad,
    make_ggnvp,
    make_hvp,
    make_jvp,
    make_vjp,
    tensor_jacobian_product,
    vector_jacobian_product,
)

__all__ = [
    "alias_autograd", "builtins", "checkpoint", "deriv", "dict", "elementwise_grad", "extend", "grad", "grad_and_aux",
    "grad_named", "hessian", "hessian_tensor_product", "hessian_vector_product", "holomorphic_grad", "integrate",
    "isinstance", "jacobian", "list", "make_ggnvp", "make_hvp", "make_jvp", "make_vjp", "misc", "nary", "restore",
    "signal", "tensor_jacobian_product", "test_util", "tuple", "type", "util", "value_and_grad", "vector_jacobian_product",
]


def _transform(fn: Callable) -> Callable:
    """Mark `fn` as a transform, as s2s's own: inside a transformed function `grad(loglike)(r, p)`
    then names a function s2s builds when it normalizes the outer one."""
    _record.attach(fn, transform=True)
    return fn


@_transform
def grad(fun: Callable, argnum: int = 0) -> Callable:
    """The gradient of scalar-valued `fun` with respect to positional argument `argnum` (as in
    autograd, an output of any shape with one element counts as a scalar)."""
    return _SizeOne(s2s.grad(_inner(fun), argnums=argnum), _inner(fun), argnum, with_value=False)


@_transform
def value_and_grad(fun: Callable, argnum: int = 0) -> Callable:
    """`fun`'s value and its gradient with respect to argument `argnum`, from one call (an output
    of one element counts as a scalar, as for `grad`)."""
    return _SizeOne(s2s.value_and_grad(_inner(fun), argnums=argnum), _inner(fun), argnum, with_value=True)


class _SizeOne:
    """s2s's grad/value_and_grad of `fun`, which also takes, as autograd's do, an output of shape
    (1,) (or any shape of one element): its gradient is the VJP of a cotangent of ones. s2s.grad
    refuses such an output as JAX does; this wrapper calls it, and after that refusal (checked
    to be a one-element output) computes by `s2s.vjp` from then on. Inside a transformed function
    it is the s2s transform it holds (its record), so `grad(f)(x)` there keeps JAX's rule."""

    def __init__(self, transformed: Callable, fun: Callable, argnum: Any, with_value: bool) -> None:
        self.inner, self.fun, self.argnum, self.with_value = transformed, fun, argnum, with_value
        self.__s2s__ = _record.of(transformed)
        self.by_vjp = False
        functools.update_wrapper(self, fun, updated=())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self.by_vjp:
            try:
                return self.inner(*args, **kwargs)
            except _S2STypeError as err:
                if "grad requires a scalar output, but the function returned shape" not in str(err) or kwargs:
                    raise
                out, grads = self._by_vjp(args)
                if out is None:
                    raise
                self.by_vjp = True
                return (out, grads) if self.with_value else grads
        out, grads = self._by_vjp(args)
        if out is None:
            return self.inner(*args)  # not one element this time: s2s.grad says why
        return (out, grads) if self.with_value else grads

    def _by_vjp(self, args: tuple) -> tuple[Any, Any]:
        """(fun(*args), the gradient) for a one-element output, (None, None) otherwise."""
        out, pullback = s2s.vjp(self.fun, *args)
        if _np.size(out) != 1 or isinstance(out, (tuple, list, dict)):
            return None, None
        cts = pullback(_np.ones_like(out))
        nums = self.argnum
        return out, (tuple(cts[i] for i in nums) if isinstance(nums, (tuple, list)) else cts[nums])


def _inner(fun: Callable) -> Callable:
    """The s2s transform a `_SizeOne` holds (so that grad(grad(f)) nests s2s's transforms)."""
    return fun.inner if isinstance(fun, _SizeOne) else fun


def grad_named(fun: Callable, argname: str) -> Callable:
    """The gradient with respect to the parameter called `argname`."""
    return grad(fun, list(inspect.signature(fun).parameters).index(argname))


@_transform
def jacobian(fun: Callable, argnum: int = 0) -> Callable:
    """The Jacobian, shaped `out.shape + x.shape` as autograd's (reverse mode)."""
    return s2s.jacrev(fun, argnums=argnum)


@_transform
def hessian(fun: Callable, argnum: int = 0) -> Callable:
    """The Hessian of scalar-valued `fun` with respect to argument `argnum`."""
    return s2s.hessian(fun, argnums=argnum)


@_transform
def elementwise_grad(fun: Callable, argnum: int = 0) -> Callable:
    """The gradient of the sum of `fun`'s outputs (a VJP with a cotangent of ones): the derivative
    of an elementwise function at each point. A transform itself, so it nests:
    `elementwise_grad(elementwise_grad(np.tanh))`."""
    summed = _SUMMED[_arity(fun)]
    return s2s.grad(functools.partial(summed, fun), argnums=argnum)


def _summed1(fun, a):
    return _np.sum(fun(a))


def _summed2(fun, a, b):
    return _np.sum(fun(a, b))


def _summed3(fun, a, b, c):
    return _np.sum(fun(a, b, c))


def _summed4(fun, a, b, c, d):
    return _np.sum(fun(a, b, c, d))


_SUMMED = {1: _summed1, 2: _summed2, 3: _summed3, 4: _summed4}


def _arity(fun: Callable) -> int:
    """How many positional arguments `fun` takes (a ufunc's `nin`; 1 to 4)."""
    if isinstance(fun, _np.ufunc) or isinstance(getattr(fun, "_np", None), _np.ufunc):
        n = getattr(fun, "nin", None) or fun._np.nin
    else:
        params = inspect.signature(fun).parameters.values()
        n = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    if n not in _SUMMED:
        raise s2s.S2SError(f"s2s.compat.autograd.elementwise_grad: {fun!r} takes {n} positional arguments; "
                           f"1 to {len(_SUMMED)} are supported")
    return n


def _one1(fun, a):
    return _np.reshape(fun(a), ())


def _one2(fun, a, b):
    return _np.reshape(fun(a, b), ())


def _one3(fun, a, b, c):
    return _np.reshape(fun(a, b, c), ())


_ONE = {1: _one1, 2: _one2, 3: _one3}


def _one_element(fun: Callable) -> Callable:
    """`fun` with its output of one element (autograd's scalar: shape (1,) as flatten_func's
    objective returns) as a scalar; any other size raises in the reshape, as autograd's grad
    refuses it. A function of `*args` or of more arguments is left as it is."""
    try:
        n = _arity(fun)
    except (s2s.S2SError, TypeError, ValueError):
        return fun
    return functools.partial(_ONE[n], fun) if n in _ONE else fun


def hessian_vector_product(fun: Callable, argnum: int = 0) -> Callable:
    """`(*args, v) -> H v`, the Hessian of `fun` at `args` times `v` (forward over reverse)."""
    g = s2s.grad(_one_element(fun), argnums=argnum)

    def hvp(*args_and_v: Any) -> Any:
        *args, v = args_and_v
        tangents = tuple(v if i == argnum else _np.zeros_like(a) for i, a in enumerate(args))
        return s2s.jvp(g, tuple(args), tangents)[1]
    return hvp


hessian_tensor_product = hessian_vector_product  # autograd's name for any shape of `v`


def alias_autograd() -> dict[str, Any]:
    """Point `import autograd`, `autograd.numpy` (and `.random`, `.linalg`), `autograd.misc` (and
    `.flatten`, `.optimizers`), `autograd.test_util`, `autograd.extend` and, where s2s has it, `autograd.scipy` at
    s2s. Returns what it replaced in `sys.modules` (None for a name that was absent): pass it to
    `restore` to undo."""
    anp = _module("autograd.numpy", _np)  # autograd.numpy offers all of NumPy's names,
    anp.__dict__.update(_module("autograd.numpy", _snp).__dict__)  # s2s.numpy's where it has them
    anp.make_diagonal = numpy_extra.make_diagonal  # (autograd's own, beyond NumPy)
    anp.__version__ = _np.__version__
    names = {
        "autograd.numpy": anp,
        "autograd.numpy.random": _np.random,
        "autograd.numpy.linalg": _snp.linalg,
        "autograd.misc": misc,
        "autograd.misc.flatten": sys.modules[misc.__name__ + ".flatten"],
        "autograd.misc.optimizers": sys.modules[misc.__name__ + ".optimizers"],
        "autograd.misc.fixed_points": sys.modules[misc.__name__ + ".fixed_points"],
        "autograd.misc.tracers": sys.modules[misc.__name__ + ".tracers"],
        "autograd.core": core,
        "autograd.tracer": tracer,
        "autograd.wrap_util": wrap_util,
        "autograd.util": util,
        "autograd.test_util": test_util,
        "autograd.extend": extend,
        "autograd.builtins": builtins,
        "autograd.scipy.integrate": integrate,
    }
    names.update(scipy_names("autograd"))
    names["autograd.scipy.signal"] = signal  # autograd's convolve(A, B, axes, dot_axes, mode)
    if "autograd.scipy.stats.dirichlet" in names and _scipy_stats is not None:  # autograd's has scipy's sampler too
        dirichlet = names["autograd.scipy.stats.dirichlet"]
        names["autograd.scipy.stats.dirichlet"] = _module(dirichlet.__name__, dirichlet, rvs=_scipy_stats.dirichlet.rvs)
        names["autograd.scipy.stats"] = _module("autograd.scipy.stats", names["autograd.scipy.stats"],
                                                dirichlet=names["autograd.scipy.stats.dirichlet"])
    if "autograd.scipy" in names:  # `import autograd.scipy.integrate as integrate` reads the attribute
        stats = {"stats": names["autograd.scipy.stats"]} if "autograd.scipy.stats" in names else {}
        names["autograd.scipy"] = _module("autograd.scipy", names["autograd.scipy"], integrate=integrate, signal=signal,
                                          **stats)
    names["autograd"] = _module("autograd", sys.modules[__name__], numpy=anp,
                                **({"scipy": names["autograd.scipy"]} if "autograd.scipy" in names else {}))
    return install(names)



def _module(name: str, source: types.ModuleType, **extra: Any) -> types.ModuleType:
    """A module called `name` holding `source`'s names (the same objects) and `extra`."""
    mod = types.ModuleType(name, source.__doc__)
    mod.__dict__.update({k: v for k, v in vars(source).items() if not k.startswith("__")})
    mod.__dict__.update(extra)
    return mod
