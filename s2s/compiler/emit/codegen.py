"""Print a core-form function as Python source and turn it into a function object."""
from __future__ import annotations

import ast
import contextlib
import linecache

import astor
import gast

from ... import runtime
from ...base import tracebacks
from ..ir import build
from ..ir.core import SOURCE_FILE, is_catch
from .printer import fill_empty_blocks, function_lines


def _negative(node) -> bool:
    """`-1.5` as a literal prints as `-1.5` even where `(-1.5)` is needed (`(-1.5) ** 2`): such
    numbers print as negations, which the printer parenthesizes by precedence."""
    v = node.value
    return isinstance(v, (int, float, complex)) and not isinstance(v, bool) and (v.real < 0 or str(v)[0] == "-")


def _negation(node) -> gast.UnaryOp:
    new = gast.UnaryOp(op=gast.USub(), operand=gast.Constant(value=-node.value, kind=None))
    for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        if hasattr(node, a):
            setattr(new, a, getattr(node, a))
    return new


def _same_shape_classes() -> dict[type, type]:
    """gast node classes whose ast namesake has the same fields and children of the same kinds:
    for printing, such a node can become its ast namesake by changing its class (and back)."""
    out = {gast.Name: ast.Name}  # its extra fields (annotation, type_comment) are never printed
    for name in dir(gast):
        cls, target = getattr(gast, name), getattr(ast, name, None)
        if isinstance(cls, type) and issubclass(cls, gast.AST) and isinstance(target, type) \
                and issubclass(target, ast.AST) and cls._fields == target._fields \
                and name not in ("arguments", "ExceptHandler"):  # these hold Names where ast has strings/args
            out[cls] = target
    return out


_AS_AST = _same_shape_classes()
_CONTEXTS = frozenset((gast.Load, gast.Store, gast.Del))  # leaves, each with an ast namesake


class _Printable:
    """One walk of the function that fills empty blocks (for good) and finds what to swap, only
    while it is printed: each Comment statement for a string statement `token<i>` (where `token`
    occurs in no string of the function), each negative literal for a negation, and each node
    whose gast class has an ast namesake of the same shape for that namesake (its class changed
    in place); the rest (function arguments) for a converted copy. Swapping in place and back
    again costs no copy of the whole tree (`gast.gast_to_ast` would build one)."""

    def __init__(self, fn):
        self.comments: list[tuple[list, int, gast.stmt]] = []
        self.negatives: list[tuple[object, object, gast.Constant]] = []
        self.foreign: list[tuple[object, object, gast.AST]] = []
        self.catches: list[tuple[object, object, gast.If]] = []  # catch blocks, printed as `try`
        self.nodes: list[gast.AST] = [fn]
        nodes = self.nodes
        strings: list[str] = []
        stack = [(fn, True)]
        while stack:  # (one loop, no call per node: it sees every node of the function)
            n, retype = stack.pop()
            if type(n) is gast.Constant:
                if isinstance(n.value, str):
                    strings.append(n.value)
                continue
            if isinstance(n, gast.stmt):
                fill_empty_blocks(n)
            for field in n._fields:
                value = getattr(n, field, None)
                if value.__class__ is list:
                    holder, items = value, enumerate(value)
                elif isinstance(value, gast.AST):
                    holder, items = n, ((field, value),)
                else:
                    continue
                for key, node in items:
                    cls = type(node)
                    if node is None:  # a dict literal's `**` entry has no key
                        continue
                    if cls in _CONTEXTS:  # no fields: nothing to visit
                        if retype:
                            nodes.append(node)
                        continue
                    keep = retype
                    if cls is build.Comment:
                        self.comments.append((holder, key, node))
                    elif cls is gast.Constant and _negative(node):
                        self.negatives.append((holder, key, node))
                    elif cls is gast.If and is_catch(node.test):
                        self.catches.append((holder, key, node))
                    elif retype and cls in _AS_AST:
                        nodes.append(node)
                    elif retype:
                        self.foreign.append((holder, key, node))
                        keep = False
                    stack.append((node, keep))
        self.token = "s2s-comment-"
        while any(self.token in s for s in strings):
            self.token += "_"

    @contextlib.contextmanager
    def as_ast(self, fn):
        """The function as an ast Module while the block runs (the gast tree, retyped in place)."""
        swaps = [(h, k, old, gast.Expr(value=build.const(f"{self.token}{i}")))
                 for i, (h, k, old) in enumerate(self.comments)]
        swaps += [(h, k, old, _negation(old)) for h, k, old in self.negatives]
        swaps += [(h, k, old, _try(old)) for h, k, old in self.catches]
        for holder, key, _, new in swaps:
            _put(holder, key, new)
        swaps += [(h, k, old, gast.gast_to_ast(old)) for h, k, old in self.foreign]  # after the negations
        for holder, key, _, new in swaps[len(swaps) - len(self.foreign):]:
            _put(holder, key, new)
        module = build.module([fn])
        nodes = self.nodes + [module] + [m for _, _, _, new in swaps if isinstance(new, gast.AST)
                                         for m in (new, *gast.iter_child_nodes(new))]
        classes = [type(n) for n in nodes]
        try:
            for n, cls in zip(nodes, classes):
                if cls in _AS_AST:
                    n.__class__ = _AS_AST[cls]
            yield module
        finally:
            for n, cls in zip(nodes, classes):
                n.__class__ = cls
                # astor leaves each node's printing precedence on it (`_pp`, as its parent set
                # it); a node that a pass later moves under a parent that sets none (a subscript's
                # value) would print with the stale one: `(a + b)[i]` as `a + b[i]`
                n.__dict__.pop("_pp", None)
            for holder, key, old, _ in swaps:
                _put(holder, key, old)


def _try(node: gast.If) -> ast.Try:
    """Catch block `if s2s_catch: body else: handler` as `try: body except s2s_catch: handler`."""
    handler = ast.ExceptHandler(type=ast.Name(id=node.test.id, ctx=ast.Load()), name=None,
                                body=node.orelse or [ast.Pass()])
    return ast.Try(body=node.body, handlers=[handler], orelse=[], finalbody=[])


def _put(holder, key, node) -> None:
    if isinstance(holder, list):
        holder[key] = node
    else:
        setattr(holder, key, node)


def to_source(fn: gast.FunctionDef, header: str = "") -> str:
    """Readable, deterministic source, with the Comment statements printed as comments."""
    return source_and_places(fn, header)[0]


def source_and_places(fn: gast.FunctionDef, header: str = "", filename: str = "") -> tuple[str, dict]:
    """`to_source`'s text, and for each of its lines after a comment that stands for a user's
    statement, that statement's place `(file, line)`: where an error raised by that line's code
    comes from in the user's code. `filename`: the user's file behind `fn` (a statement inlined
    from another function carries its own)."""
    printed = function_lines(fn)  # (core form's usual nodes, printed directly: astor's text)
    if printed is None:
        printed = _astor_lines(fn)
    lines, places, place = [], {}, None
    first = 2 if header else 1
    for line in printed:
        if type(line) is tuple:  # (indentation, Comment)
            lines.append(line[0] + "# " + build.comment_text(line[1]))
            # the user's line the comment stands for (the statement the code after it derives from)
            file, lineno = getattr(line[1], SOURCE_FILE, None), getattr(line[1], "lineno", None)
            file = tracebacks.origin(file) if file else filename
            if lineno is not None and file and not tracebacks.internal(file):  # (s2s's own composites: not the user's)
                place = (file, lineno)
            continue
        if place is not None:
            places[first + len(lines)] = place
        lines.append(line)
    out = "\n".join(lines) + "\n"
    return (f"# {header}\n" if header else "") + out, places


def _astor_lines(fn) -> list:
    """`printer.function_lines`'s answer, printed by astor: any function."""
    printable = _Printable(fn)
    with printable.as_ast(fn) as module:
        text = astor.to_source(module)
    token = printable.token
    out: list = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped[:1] in "'\"" and token in stripped:
            value = ast.literal_eval(stripped)
            if isinstance(value, str) and value.startswith(token):
                out.append((line[: len(line) - len(line.lstrip())], printable.comments[int(value[len(token):])][2]))
                continue
        out.append(line)
    return out


def compile_source(name: str, source: str, ns: dict, xp, places: dict | None = None) -> object:
    """Exec `source` with its names bound; register it in linecache for tracebacks and pdb.
    `places`: the user's statement behind each line (`source_and_places`), which errors raised
    while it runs name (base/tracebacks.py)."""
    filename = f"<s2s:{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    glob = dict(ns)
    if places:
        glob[tracebacks.PLACES] = places
    glob.setdefault("xp", xp)
    glob.setdefault("rt", runtime)
    glob["__name__"] = "s2s.generated"
    code = compile(source, filename, "exec")
    exec(code, glob)
    return glob[name]
