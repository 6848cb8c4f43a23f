"""S2SErrors as users see them: the traceback keeps the user's frames and drops s2s's own.

An S2SError raised while compiling a user's function unwinds through 5-25 frames of the driver,
the frontend and the passes before it reaches the user's call; they say nothing about the
user's code, which the message already names. As JAX does, each public entry point (the
transforms in api.py and vjp's vjp_fn, under `ENTRY`; the calls of the objects they return and
their generated fast paths, by an inline handler; `s2s.source`, through `boundary`) removes
the frames of s2s's own files and of its generated code (`<s2s:...>`) from an S2SError's
traceback, and from the tracebacks of the exceptions chained to it, when the error leaves it.
The error itself is raised unchanged; only which frames it lists differs. The setting
``traceback`` (``S2S_TRACEBACK=full``, or ``s2s.config.update("traceback", "full")``) keeps
every frame. Other exceptions (an internal error, the user's own) are left as they are.
"""
from __future__ import annotations

import functools
import os
import types
from collections.abc import Callable
from typing import TypeVar

from .. import config
from ..errors import S2SError

__all__ = ["ENTRY", "boundary", "hide_internal", "internal"]

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # s2s/, this file is in s2s/base/
NOTE = ("(s2s hid its own frames from this traceback; S2S_TRACEBACK=full or "
        "s2s.config.update(\"traceback\", \"full\") shows them)")
F = TypeVar("F", bound=Callable)


def internal(filename: str) -> bool:
    """Whether a frame of code from `filename` is s2s's own: a file of the package, or code it
    generated (fast paths and transformed functions are compiled under `<s2s:...>` names)."""
    if filename.startswith("<"):
        return filename.startswith("<s2s:")
    return os.path.abspath(filename).startswith(PACKAGE)


def _kept(tb: types.TracebackType | None) -> tuple[types.TracebackType | None, int]:
    """`tb` rebuilt without s2s's frames (a traceback's links are read-only), and how many it
    dropped."""
    frames, dropped = [], 0
    while tb is not None:
        if internal(tb.tb_frame.f_code.co_filename):
            dropped += 1
        else:
            frames.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(frames):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out, dropped


def hide_internal(exc: BaseException) -> None:
    """Drop s2s's frames from the traceback of `exc` (an S2SError) and of the exceptions chained
    to it (`raise ... from`, or raised while handling another), unless the setting says "full".
    The first time frames are dropped, a note says so and how to see them."""
    if not isinstance(exc, S2SError) or config.read("traceback") == "full":
        return
    seen, todo, dropped = set(), [exc], 0
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        e.__traceback__, n = _kept(e.__traceback__)
        dropped += n
        todo += [e.__cause__, e.__context__]
    if dropped and not getattr(exc, "_s2s_noted", False):
        exc._s2s_noted = True
        exc.add_note(NOTE)


class Entry:
    """`with ENTRY:` around the body of a public function: an S2SError leaving it has s2s's frames
    hidden (`hide_internal`) and goes on unchanged. Unlike a wrapper, it leaves the function's
    own signature, code and defaults, which the frontend reads of s2s's transforms. Its body is
    the function's computation, so transformed code runs the body alone (`s2s_transparent`: jit of
    vjp's vjp_fn reads that function's source)."""

    __slots__ = ()
    s2s_transparent = True  # frontend/contexts.py: `with ENTRY:` inside transformed code is its body

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, tb) -> bool:
        if exc is not None:
            hide_internal(exc)
        return False  # (the error goes on, with the traceback hide_internal left it)


ENTRY = Entry()


def boundary(fn: F) -> F:
    """`fn` as a public entry point: an S2SError leaving it has s2s's frames hidden (see
    `hide_internal`), and is raised on unchanged."""
    @functools.wraps(fn)
    def entry(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except S2SError as e:
            hide_internal(e)
            raise
    return entry  # type: ignore[return-value]
