"""autograd.util: `func` (a method's function, for `defvjp(func(Cls.method), ...)`) and
`subvals`/`subval` (a tuple with items replaced)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["func", "subval", "subvals"]


def func(f: Callable) -> Callable:
    """`f` itself: in Python 3 a method read from its class is its function."""
    return f


def subvals(x: tuple, ivs: Iterable[tuple[int, Any]]) -> tuple:
    """`x` with item i replaced by v for each (i, v) in `ivs`."""
    out = list(x)
    for i, v in ivs:
        out[i] = v
    return tuple(out)


def subval(x: tuple, i: int, v: Any) -> tuple:
    """`x` with item `i` replaced by `v`."""
    return subvals(x, [(i, v)])
