"""The core form: a function in A-normal form with the namespace its code refers to.

Grammar (checked by `s2s.compiler.ir.validate`):
  statements  x = op            op: an atom, `a <binop> b`, `<unop> a`, `a <cmp> b`, a call
                                `xp.f(atoms, key=atom)` / `rt.f(...)` / `user_fn(...)` / builtin,
                                `a[index]`, `a.attr`, `(a, b)`, `[a, b]`, `{k: a}`, `L.pop()`
              a, b = x          (unpack one level)
              x[index] = a      index: atoms and slices of atoms, or a tuple of them
              L.append(a)       lists, used by user code and by the reverse-mode tape alike
              if a: ... else: ...      for i in range(a, b, c): ...      while a: ... (or while True)
              (an `if` is a catch block, `try`/`except` in disguise, when `a` is_catch)
              break, continue, assert a, pass, and one `return a` as the last statement
  atoms       names and literals.
"""
from __future__ import annotations

import dataclasses

import gast

from . import build


@dataclasses.dataclass
class CoreFn:
    """A function in core form with what it needs to run: the names its code refers to."""

    name: str
    node: gast.FunctionDef
    ns: dict
    filename: str
    inplace_params: dict = dataclasses.field(default_factory=dict)  # `p += ...` on a parameter: line
    settled: bool = False  # the node is the optimizer's fixed point (a transform's optimized output)

    @property
    def params(self) -> list[str]:
        return [a.id for a in self.node.args.args]


# statement attribute: the file of a statement inlined from another function (passes/inline.py),
# whose line numbers are that file's; errors at the statement name it (transforms/base.py)
SOURCE_FILE = "s2s_source_file"


# a core `if` whose test is a name starting with CATCH (bound to a tuple of exception classes) is a
# catch block: codegen prints `if s2s_catch: body else: handler` as `try: body except s2s_catch:
# handler` (frontend/handlers.py); every pass and transform sees an `if` whose test it cannot know
CATCH = "s2s_catch"
CATCH_FINALLY = "s2s_catch_finally"  # a catch block whose exception is raised again after a `finally` block


def is_catch(test) -> bool:
    """Whether `test`, an `if`'s test, makes that `if` a catch block."""
    return isinstance(test, gast.Name) and test.id.startswith(CATCH)


def source_file(stmt, default: str) -> str:
    """The file whose line numbers `stmt` carries: its function's (`default`) unless inlined."""
    return getattr(stmt, SOURCE_FILE, None) or default


def local_names(fn: gast.FunctionDef) -> set[str]:
    """Names Python treats as local to `fn`: parameters and every assigned name."""
    out = {a.id for a in fn.args.args}
    for node in build.walk(fn):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            out.add(node.id)
        elif isinstance(node, (gast.FunctionDef,)) and node is not fn:
            out.add(node.name)
    return out


def rewrite_blocks(stmts: list, statement) -> list:
    """`stmts` with the blocks nested in each statement rewritten first (not those of nested
    defs), then each statement replaced by the statements `statement(s)` returns: the one walk of
    a frontend rewrite that turns a statement into several."""
    out = []
    for s in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list) and not isinstance(s, gast.FunctionDef):
                setattr(s, field, rewrite_blocks(getattr(s, field), statement))
        if isinstance(s, gast.Try):
            for h in s.handlers:
                h.body = rewrite_blocks(h.body, statement)
        out += statement(s)
    return out


class SourceRewriter:
    """What a rewrite of a user's function before normalizing keeps: the function's locals, the
    environment's `lookup(name)` -> (found, object) for a global, and the names taken, from which
    `fresh` makes new ones; `block` rewrites statements by `self.statement(s)` (a list). `locals_`
    and `taken`, where the caller knows them already: `local_names(fn)` and `build.names_in(fn)`."""

    def __init__(self, fn: gast.FunctionDef, lookup, locals_: set[str] | None = None, taken: set[str] | None = None):
        self.fn = fn
        self.locals = set(locals_) if locals_ is not None else local_names(fn)
        self.lookup = lookup
        self.taken = set(taken) if taken is not None else build.names_in(fn)
        self.count = 0

    def fresh(self, base: str) -> str:
        while True:
            self.count += 1
            name = f"{base}{self.count}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def global_value(self, node) -> tuple[bool, object]:
        """(found, object) for a global name or attribute chain `node`; (False, None) for a local
        or any other expression."""
        parts = []
        while isinstance(node, gast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, gast.Name) or node.id in self.locals:
            return False, None
        found, value = self.lookup(node.id)
        for p in reversed(parts):
            value = getattr(value, p, None) if found else None
        return found, value

    def block(self, stmts) -> list:
        return rewrite_blocks(stmts, self.statement)  # (`statement`: the subclass's rewrite of one)
