"""The one error type s2s raises for problems in the user's code, with the location it points at."""
from __future__ import annotations

import linecache
import os


class S2SError(Exception):
    """An error in a function s2s was asked to transform: names file, line, column and a fix."""


class S2STypeError(S2SError, TypeError):
    """An S2SError that is also a TypeError (wrong kind of argument, like JAX's)."""


class S2SValueError(S2SError, ValueError):
    """An S2SError that is also a ValueError."""


class S2SSyntaxError(S2SError, NotImplementedError):
    """A construct s2s does not support inside a transformed function."""


def shown_path(filename: str) -> str:
    """A source file as messages and headers print it: relative to the current directory, so
    no machine's directories appear in them."""
    if filename.startswith("<"):
        return filename
    try:
        return os.path.relpath(filename)
    except ValueError:
        return filename


def where(filename: str, lineno: int | None, col: int | None = None) -> str:
    """Format `file:line:col` followed by the source line and a caret under the column."""
    if lineno is None:
        return filename
    text = linecache.getline(filename, lineno).rstrip("\n")
    head = f"{shown_path(filename)}:{lineno}" + (f":{col + 1}" if col is not None else "")
    if not text:
        return head
    caret = " " * (col or 0) + "^"
    return f"{head}\n    {text}\n    {caret}"


def error_at(loc, message: str, hint: str = "", kind: type = S2SError) -> S2SError:
    """Build an error whose message starts at the user's code location `loc` = (file, line, col)."""
    filename, lineno, col = loc if loc else ("<unknown>", None, None)
    msg = f"{where(filename, lineno, col)}\n{message}"
    if hint:
        msg += f"\n{hint}"
    return kind(msg)
