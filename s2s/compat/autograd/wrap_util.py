"""autograd.wrap_util.unary_to_nary: an operator on functions of one argument, `op(f, x)`,
made into one on functions of many, `op(fun, argnum)(*args, **kwargs)`; `f` is `fun` of the
argument `argnum` selects (of the tuple of them, for a tuple `argnum`), the others held fixed."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ._bind import at_argnum

__all__ = ["unary_to_nary"]


def unary_to_nary(unary_operator: Callable) -> Callable:
    """`unary_operator(f, x, *op_args, **op_kwargs)` as `op(fun, argnum=0, *op_args, **op_kwargs)(*args)`."""
    @functools.wraps(unary_operator)
    def nary_operator(fun: Callable, argnum: Any = 0, *op_args: Any, **op_kwargs: Any) -> Callable:
        def nary_f(*args: Any, **kwargs: Any) -> Any:
            packed = isinstance(argnum, (tuple, list))
            f, xs = at_argnum(fun, argnum, args, kwargs, packed=packed)
            return unary_operator(f, xs if packed else xs[0], *op_args, **op_kwargs)
        return nary_f
    return nary_operator
