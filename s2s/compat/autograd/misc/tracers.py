"""autograd.misc.tracers.const_graph: autograd records `fun`'s graph on the first call and replays
it afterwards; s2s has no graph to record, so this is `fun` with `args`/`kwargs` bound in front,
which computes the same values (s2s's own caching is by function, in its transforms)."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

__all__ = ["const_graph"]


def const_graph(fun: Callable, *args: Any, **kwargs: Any) -> Callable:
    """`fun` with the leading positional `args` and the `kwargs` fixed."""
    return functools.partial(fun, *args, **kwargs)
