"""Primitives behind `try` statements with handlers (s2s/compiler/frontend/handlers.py).

`ext.s2s_caught()` is the exception the enclosing `except` clause of a catch block handles (an
S2SError that s2s itself raised inside the body is raised again: a user's `except ValueError`
must not swallow s2s's refusal); `ext.s2s_match(exc, groups)` is the index of the first handler
whose classes match it, or -1. `ext.s2s_catch_batched(where)` is what vmap runs instead of a
handler when a statement that reads values of the examples raised: which examples raised cannot
be told apart, so it refuses at the user's line. All are effects, never removed or moved, with no
derivative.
"""
from __future__ import annotations

import sys

from ...base import record
from ...errors import S2SError, S2SValueError
from .registry import EXT, SAME, nondiff


def s2s_caught():
    """The exception the enclosing `except` clause handles (an S2SError raised again)."""
    exc = sys.exc_info()[1]
    if isinstance(exc, S2SError):
        raise exc
    return exc


def s2s_match(exc, groups) -> int:
    """The index of the first group of exception classes `exc` is an instance of, or -1."""
    return next((i for i, g in enumerate(groups) if isinstance(exc, g)), -1)


def s2s_catch_batched(where):
    """vmap's handler of a statement that reads the examples' values and raised: refused."""
    exc = sys.exc_info()[1]
    raise S2SValueError(f"{where}: under vmap, this statement inside `try` raised {type(exc).__name__} ({exc}); "
                        "s2s cannot tell which examples raised, so it cannot run the handler for those alone. "
                        "Test the condition with `if` (np.where) before the operation, or call the function "
                        "once per example") from exc


nondiff("ext.s2s_caught", sig="", effect=True, batch=SAME)
nondiff("ext.s2s_match", sig="exc, groups", effect=True, batch=SAME)
nondiff("ext.s2s_catch_batched", sig="where", effect=True, batch=SAME)
for _f in (s2s_caught, s2s_match, s2s_catch_batched):
    record.attach(_f, prim="ext." + _f.__name__)
    setattr(EXT, _f.__name__, _f)  # (generated code calls it as ext.<name>)
