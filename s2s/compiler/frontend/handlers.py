"""`try` with handlers that recover or translate, `else` and `finally`, lowered to core form.

Each statement of the `try` body that may raise becomes a *catch block*: a core `if` whose test
is a name bound to the caught exception classes (`ir.core.is_catch`), which codegen prints as
`try: <statement> except <classes>: ok = False; caught = ext.s2s_caught()`. Every later statement
of the body runs under `if ok:`, so the statements before the raising one have run and the rest
do not, as in Python; then `if ok: <else> else: <the handler that matches caught>`. A flag that
says which path ran is all the derivative needs: jvp's tangents and reverse mode's forward sweep
run inside the same catch blocks, and reverse mode records each catch block's outcome like an
`if`'s branch (transforms/reverse.py), so the backward sweep replays the path actually taken.

A `finally` block catches everything around the body and the handlers, runs, and raises again
what was pending. A nested `try`'s catch blocks catch the enclosing `try`'s classes too; its
dispatch raises an exception no handler of its own matched, where the enclosing `try` catches it.
Under vmap, an exception of a statement that reads values of the examples cannot be told apart
per example: a handler cannot run for the examples that raised alone, so it is refused at run time
at the user's line (transforms/batching.py), unless no handler catches it (a `finally` block runs,
then the exception goes on, as a loop over the examples raises the first one's).
"""
from __future__ import annotations

import copy

import gast

from .. import analysis
from ..ir import build
from ..ir.core import CATCH, CATCH_FINALLY, is_catch
from ..primitives.registry import EXT

CAUGHT = "ext.s2s_caught"
MATCH = "ext.s2s_match"
_JUMPS = (gast.Return, gast.Break, gast.Continue)
_GUARD = "s2s_try_guard"  # statement attribute: a catch block or an `if ok:` that skips what follows a raise


def _guard(node):
    setattr(node, _GUARD, True)
    return node


def _reraises(handler) -> bool:
    return len(handler.body) == 1 and isinstance(handler.body[0], gast.Raise) and handler.body[0].exc is None


def _classes(norm, handler) -> tuple:
    """The exception classes `handler` catches, known when transforming."""
    if handler.type is None:
        return (BaseException,)
    nodes = handler.type.elts if isinstance(handler.type, gast.Tuple) else [handler.type]
    out: list = []
    for node in nodes:
        try:
            obj = None if norm.is_local(node) else norm.static(node)
        except Exception:  # noqa: BLE001 - refused below
            obj = None
        objs = obj if isinstance(obj, tuple) else (obj,)
        if not all(isinstance(c, type) and issubclass(c, BaseException) for c in objs):
            norm.fail(node, "s2s catches only exception classes it knows when transforming (a builtin exception "
                            "such as `KeyError`, `np.linalg.LinAlgError`, or a class defined at module level).",
                      "Name the class (or a tuple of classes) in the `except` clause itself.")
        out += objs
    return tuple(out)


def _union(*groups) -> tuple:
    out: list = []
    for g in groups:
        out += [c for c in g if c not in out]
    return tuple(out)


def _may_raise(s) -> bool:
    """Whether core statement `s` (not a block) may raise: all but jumps, `pass` and copies of atoms."""
    if isinstance(s, (*_JUMPS, gast.Pass)) or build.is_comment(s):
        return False
    if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
        v = s.value
        return not (isinstance(v, (gast.Name, gast.Constant)) or isinstance(v, gast.Tuple)
                    and all(isinstance(e, (gast.Name, gast.Constant)) for e in v.elts))
    return True


class _Catcher:
    """Lowers core statements so that an exception of `classes` sets `ok` to False and `caught` to
    the exception, and the statements after the one that raised are skipped."""

    def __init__(self, norm, ok: str, caught: str, classes: tuple, label: str = CATCH):
        self.norm, self.ok, self.caught, self.classes, self.label = norm, ok, caught, tuple(classes), label

    def block(self, stmts) -> tuple[list, bool]:
        """(the lowered statements, whether one of them may fail)."""
        out, failed = [], False
        for s in stmts:
            new, fails = self.stmt(s)
            out.extend([_guard(build.if_(build.name(self.ok), new))] if failed and new and not build.is_comment(s) else new)
            failed = failed or fails
        return out, failed

    def stmt(self, s) -> tuple[list, bool]:
        if isinstance(s, gast.If) and is_catch(s.test):  # a nested `try`'s: it catches ours too
            both = s.test.id.startswith(CATCH_FINALLY) and self.label == CATCH_FINALLY
            s.test = build.name(self.norm.bind(CATCH_FINALLY if both else CATCH,
                                               _union(self.norm.ns[s.test.id], self.classes)))
            return [s], False
        if isinstance(s, gast.If):
            body, f1 = self.block(s.body)
            orelse, f2 = self.block(s.orelse)
            s.body, s.orelse = body or [gast.Pass()], orelse
            return [s], f1 or f2
        if isinstance(s, (gast.For, gast.While)):
            body, fails = self.block(s.body)
            if fails:
                body.append(build.if_(build.name(self.ok), [gast.Pass()], [gast.Break()]))
            s.body = body
            return [s], fails
        if not _may_raise(s):
            return [s], False
        handler = [build.assign(self.ok, build.const(False)), build.assign(self.caught, build.call(CAUGHT, []))]
        for h in handler:
            gast.copy_location(h, s)
        catch = build.if_(build.name(self.norm.bind(self.label, self.classes)), [s], handler)
        return [_guard(gast.copy_location(catch, s))], True


def kept_exception(norm, stmts) -> tuple[list, gast.stmt]:
    """(core statements `stmts` lowered so that an exception stops them and is kept, the statement
    that raises it again): what runs between them always runs (`with np.errstate` restoring the
    settings where its body raised inside a `try`, contexts.py)."""
    ok, caught = norm.namer.fresh("ok"), norm.namer.fresh("caught")
    body, _ = _Catcher(norm, ok, caught, [BaseException], CATCH_FINALLY).block(stmts)
    first = [build.assign(ok, build.const(True)), build.assign(caught, build.const(None))]
    return first + body, build.if_(build.name(ok), [gast.Pass()], [_reraise(norm, caught)])


def _bare_raises(stmts, caught: str) -> list:
    """A copy of a handler's statements with each bare `raise` (not one of a nested handler's)
    raising the caught exception `caught`."""
    stmts = copy.deepcopy(stmts)
    todo = list(stmts)
    while todo:
        s = todo.pop()
        if isinstance(s, gast.Raise) and s.exc is None:
            s.exc = build.name(caught)
            s.exc.s2s_exception = True  # (guards.py: a value, not a class to look up)
        elif isinstance(s, gast.Try):
            todo += s.body + s.orelse + s.finalbody
        elif not isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            for field in ("body", "orelse"):
                todo += getattr(s, field, None) or []
    return stmts


def _jump(stmts):
    for s in stmts:
        for n in gast.walk(s):
            if isinstance(n, _JUMPS):
                return n
    return None


def _dispatch(norm, s, caught: str, groups: list) -> list:
    """The handlers: the first whose classes match `caught` runs; none matching raises it again."""
    which = build.name(norm.namer.fresh("handler"))
    first = build.assign(which.id, build.call(MATCH, [build.name(caught),
                                                      build.name(norm.bind("s2s_handlers", tuple(groups)))]))
    out: list = [_reraise(norm, caught)]
    for i in reversed(range(len(s.handlers))):
        h = s.handlers[i]
        saved, norm.out = norm.out, []
        if h.name is not None:
            norm.emit(build.assign(h.name.id, build.name(caught)))
        for st in _bare_raises(h.body, caught):
            norm.stmt(st)
        body, norm.out = norm.out, saved
        saved, norm.out = norm.out, []
        test = norm.tmp(build.compare(which, gast.Eq(), build.const(i)), "is_handler")
        pre, norm.out = norm.out, saved
        out = pre + [build.if_(test, body, out)]
    return [first, *out]


def _reraise(norm, caught: str):
    return build.assign(norm.namer.fresh("raised"), build.call("ext.s2s_raise", [build.name(caught)]))


def lower_try(norm, s) -> None:
    """Lower a `try` statement (module docstring). Handlers that only re-raise (`except E: raise`)
    with no `finally` leave the body and `else` as they are."""
    if not s.finalbody and all(_reraises(h) for h in s.handlers):
        for st in [*s.body, *s.orelse]:
            norm.stmt(st)
        return
    if s.finalbody:
        jump = _jump([*s.body, *s.orelse, *s.finalbody, *(st for h in s.handlers for st in h.body)])
        if jump is not None:
            norm.fail(jump, "s2s does not support a `return`, `break` or `continue` inside a `try` that has a "
                            "`finally` block: the jump would have to run the `finally` block first.",
                      "Assign the value inside the `try` and return or jump after the `finally` block.")
    groups = [_classes(norm, h) for h in s.handlers]
    norm.ns["ext"] = EXT
    loc = norm.loc
    ok, caught = norm.namer.fresh("ok"), norm.namer.fresh("caught")
    norm.emit(build.assign(ok, build.const(True)))
    norm.emit(build.assign(caught, build.const(None)))
    norm.catching = getattr(norm, "catching", 0) + 1  # (contexts.py: an errstate body restores where it raised)
    try:
        body = norm.block(s.body)
    finally:
        norm.catching -= 1
    # (with no handler, what the body raises is raised again after the `finally` block)
    body, _ = _Catcher(norm, ok, caught, [BaseException] if s.finalbody else _union(*groups),
                       CATCH if s.handlers else CATCH_FINALLY).block(body)
    norm.out.extend(body)
    saved, norm.out = norm.out, []
    norm.loc = loc
    norm.aliases.begin_branch()
    orelse = norm.block(s.orelse)
    norm.aliases.else_branch()
    handlers = _dispatch(norm, s, caught, groups) if s.handlers else \
        [_reraise(norm, caught)]
    norm.aliases.end_branch()
    norm.loc = loc
    norm.out = saved
    rest = [norm.emit(build.if_(build.name(ok), orelse, handlers))]
    if not s.finalbody:
        return
    norm.out.pop()
    done, pending = norm.namer.fresh("ok"), norm.namer.fresh("pending")
    norm.emit(build.assign(done, build.const(True)))
    norm.emit(build.assign(pending, build.const(None)))
    rest, _ = _Catcher(norm, done, pending, [BaseException], CATCH_FINALLY).block(rest)
    norm.out.extend(rest)
    for st in s.finalbody:
        norm.stmt(st)
    norm.loc = loc
    norm.emit(build.if_(build.name(done), [gast.Pass()], [_reraise(norm, pending)]))


def bind_unset(body, params) -> list:
    """`body` (a whole function's core form) with `v = None` first for each name `v` (not a
    parameter) that a catch block or an `if ok:` assigns. Python binds nothing else at entry, so
    this changes no value the function reads; but the analyses, which do not know that `ok` is
    False exactly where a statement raised, then see every such name assigned on every path, and a
    derivative's zero for it (where its statement did not run) is shaped like the value it has."""
    names: set[str] = set()
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.If) and getattr(s, _GUARD, False):
            names.update(t for st in analysis.walk_stmts(s.body) for t in analysis.targets(st))
    names -= set(params)
    return [build.assign(v, build.const(None)) for v in sorted(names)] + body
