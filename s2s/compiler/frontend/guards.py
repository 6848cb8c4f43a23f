"""Guards that raise: `raise`, and `assert` with a computed message, lowered to core form.

`raise E(args)` becomes one `ext.s2s_raise(E, *args)` call at the place the plain function raises
(s2s/compiler/primitives/rules_guards.py): an effect that no pass removes or moves, so the derivative raises
what the plain function raises, where it raises it (reverse mode's forward sweep raises before any
backward work). jumps.py counts the call as the end of its path, as a `return` is, so code after a
guard runs only where the guard passed. The exception class must be known when transforming (a
builtin or a module-level class); its arguments are any values, f-strings included.
"""
from __future__ import annotations

import gast

from ...errors import S2SSyntaxError
from ..ir import build
from ..primitives.registry import EXT

RAISE = "ext.s2s_raise"
_CONVERSIONS = {115: "!s", 114: "!r", 97: "!a"}


def is_raise(s) -> bool:
    """Whether core-form statement `s` is a lowered `raise` (it ends its path, as a return does)."""
    v = getattr(s, "value", None)
    return isinstance(s, gast.Assign) and isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) \
        and isinstance(v.func.value, gast.Name) and f"{v.func.value.id}.{v.func.attr}" == RAISE


def message(norm, node) -> gast.expr:
    """An atom for a message or exception argument: an f-string becomes `ext.s2s_format(...)`."""
    if not isinstance(node, gast.JoinedStr):
        return norm.atom(node)
    fmt, values = [], []
    for part in node.values:
        if isinstance(part, gast.Constant):
            fmt.append(str(part.value).replace("{", "{{").replace("}", "}}"))
            continue
        spec = part.format_spec
        if spec is not None and not all(isinstance(p, gast.Constant) for p in spec.values):
            norm.fail(node, "s2s supports an f-string's format spec only as literal text (`{x:.3f}`).",
                      "Format the nested field first, on a line of its own.")
        spec_text = "" if spec is None else ":" + "".join(str(p.value) for p in spec.values)
        fmt.append("{" + _CONVERSIONS.get(part.conversion, "") + spec_text + "}")
        values.append(norm.atom(part.value))
    norm.ns["ext"] = EXT
    return norm.tmp(build.call("ext.s2s_format", [build.const("".join(fmt)), *values]))


def _exception(norm, node):
    """(exception class or instance as an atom, argument atoms) for `raise node`."""
    call = node if isinstance(node, gast.Call) else None
    target = call.func if call is not None else node
    if call is None and isinstance(target, gast.Name) and (norm.is_local(target) or getattr(target, "s2s_exception", False)):
        return build.name(target.id), []  # an exception a handler caught (`except E as e: raise e`, a bare `raise`)
    try:
        obj = None if norm.is_local(target) else norm.static(target)
    except Exception:  # noqa: BLE001 - reported below
        obj = None
    if not (isinstance(obj, type) and issubclass(obj, BaseException) or isinstance(obj, BaseException)):
        norm.fail(node, "s2s raises only an exception whose class it knows when transforming (a builtin "
                        "exception such as `ValueError`, or a class defined at module level).",
                  "Raise `ValueError(...)` (or your own module-level exception class) directly.", S2SSyntaxError)
    exc = build.name(norm.bind(getattr(obj, "__name__", type(obj).__name__), obj))
    if call is None:
        return exc, []
    if any(isinstance(a, gast.Starred) for a in call.args) or call.keywords:
        norm.fail(node, "s2s follows the positional arguments of the exception a `raise` builds, not `*args` "
                        "or keywords.", "Pass the exception's arguments one by one, by position.")
    return exc, [message(norm, a) for a in call.args]


def lower_raise(norm, s) -> None:
    """Emit `raise E(args) [from None | from e]` as one ext.s2s_raise call. A bare `raise` outside an
    `except` handler (handlers.py rewrites those inside one) is refused."""
    if s.exc is None:
        norm.fail(s, "s2s supports a bare `raise` only inside an `except` handler.",
                  "Raise the exception by name: `raise ValueError(...)`.")
    kws = {}
    if s.cause is not None:
        if not (isinstance(s.cause, gast.Constant) and s.cause.value is None or norm.is_local(s.cause)):
            norm.fail(s, "s2s supports `raise ... from None` and `from` an exception a handler caught "
                         "(`except E as e: raise F(...) from e`), not `from` another expression.",
                      "Drop the `from` clause, write `from None`, or name the caught exception.")
        kws["cause"] = build.const(None) if isinstance(s.cause, gast.Constant) else build.name(s.cause.id)
    exc, args = _exception(norm, s.exc)
    norm.ns["ext"] = EXT
    norm.tmp(build.call(RAISE, [exc, *args], kws), "raised")


def lower_assert(norm, s) -> None:
    """`assert test, msg` as `if test: pass / else: raise AssertionError(msg)`: the message is the
    plain function's (an f-string included), and under vmap a test that differs per example fails
    when any example's does, as a guard's raise."""
    test = norm.atom(s.test)
    fail = gast.Raise(exc=gast.Call(func=build.name("AssertionError"), args=[] if s.msg is None else [s.msg],
                                    keywords=[]), cause=None)
    gast.copy_location(fail, s)
    norm.emit(build.if_(test, [gast.Pass()], norm.block([fail])))
