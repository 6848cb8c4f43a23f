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
import linecache
import os
import types
from collections.abc import Callable
from typing import TypeVar

from .. import config
from ..errors import S2SError, shown_path, where

__all__ = ["ENTRY", "ORIGINS", "PLACES", "boundary", "hide_internal", "internal", "locate"]

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # s2s/, this file is in s2s/base/
PLACES = "__s2s_places__"  # generated code's globals: its line -> the user's (file, line) (emit/codegen.py)
# the user's file behind each generated file name (the last compiled under it): the comments of
# generated code carry the line numbers of the user's statements, through every later transform
ORIGINS: dict[str, str] = {}


def origin(filename: str) -> str:
    """The user's file whose lines the comments of code generated from `filename` name ("" if none)."""
    seen = set()
    while filename in ORIGINS and filename not in seen:
        seen.add(filename)
        filename = ORIGINS[filename]
    return "" if not filename or filename.startswith("<") else filename
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


def locate(exc: BaseException) -> None:
    """Start the message of an S2SError raised while generated code ran (a rule's run-time check:
    a pseudo-inverse's cutoff, a condition that differs per example) at the user's statement the
    raising line of generated code derives from, as compile-time errors start: the innermost
    generated frame's line, looked up in the places its source was printed with (`PLACES`)."""
    if not isinstance(exc, S2SError) or getattr(exc, "_s2s_located", False):
        return
    exc._s2s_located = True
    place = _place(exc)
    message = str(exc.args[0]) if len(exc.args) == 1 else None
    if place is None or message is None:
        return
    if message.startswith((f"{shown_path(place[0])}:{place[1]}", place[0])):
        return
    text = linecache.getline(place[0], place[1])
    col = len(text) - len(text.lstrip()) if text.strip() else None  # (the statement starts there)
    exc.args = (f"{where(place[0], place[1], col)}\n{message}",)


def _place(exc: BaseException):
    """The user's (file, line) behind the innermost frame of generated code `exc` passed through."""
    place, tb = None, exc.__traceback__
    while tb is not None:
        places = tb.tb_frame.f_globals.get(PLACES)
        if places is not None and tb.tb_frame.f_code.co_filename.startswith("<s2s:"):
            place = places.get(tb.tb_lineno, place)
        tb = tb.tb_next
    return place


def note_place(exc: BaseException) -> None:
    """Add to an exception that is not s2s's own (the user's `ValueError`, NumPy's `LinAlgError`),
    raised while generated code ran, a note naming the user's statement it comes from: the
    derivative raises what the plain function raises, and says where the plain function would."""
    if isinstance(exc, S2SError) or getattr(exc, "_s2s_placed", False):
        return
    try:
        exc._s2s_placed = True
    except AttributeError:  # (an exception class with __slots__: no note)
        return
    place = _place(exc)
    if place is not None:
        exc.add_note(f"{shown_path(place[0])}:{place[1]}: raised by the code s2s generated from this line:\n"
                     f"    {linecache.getline(place[0], place[1]).strip()}")


def hide_internal(exc: BaseException) -> None:
    """Drop s2s's frames from the traceback of `exc` (an S2SError) and of the exceptions chained
    to it (`raise ... from`, or raised while handling another), unless the setting says "full".
    The first time frames are dropped, a note says so and how to see them. A run-time error's
    message starts at the user's statement first (`locate`), whatever the setting. Any other
    exception gets a note naming the user's statement (`note_place`) and keeps its traceback."""
    if not isinstance(exc, S2SError):
        note_place(exc)
        return
    locate(exc)
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
