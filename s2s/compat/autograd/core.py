"""autograd.core's unary `make_vjp(fun, x)` and `make_jvp(fun, x)` (the rest of autograd.core is
its tracer, which s2s has no counterpart of)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import s2s

__all__ = ["make_jvp", "make_vjp"]


def make_vjp(fun: Callable, x: Any) -> tuple[Callable, Any]:
    """(vjp, fun(x)), `vjp(g)` the cotangent of `x`."""
    out, pullback = s2s.vjp(fun, x)
    return (lambda g: pullback(g)[0]), out


def make_jvp(fun: Callable, x: Any) -> Callable:
    """`v -> (fun(x), J v)`."""
    return lambda v: s2s.jvp(fun, (x,), (v,))
