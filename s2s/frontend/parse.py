"""Get a function's source and parse it with gast, keeping the user's file and line numbers."""
from __future__ import annotations

import dataclasses
import inspect
import linecache
import textwrap

import gast

from ..errors import S2SError


@dataclasses.dataclass
class Parsed:
    node: gast.FunctionDef
    filename: str
    line_offset: int  # add to a node's lineno to get the line in `filename`
    col_offset: int   # indentation removed by dedent


def parse_function(fn) -> Parsed:
    """Parse `fn` (a def or a lambda) into a gast FunctionDef with decorators stripped."""
    code = getattr(fn, "__code__", None)
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or code.co_filename
    except (OSError, TypeError) as e:
        where = f"{code.co_filename}:{code.co_firstlineno}" if code else repr(fn)
        raise S2SError(f"{where}\ns2s cannot read the source of {getattr(fn, '__name__', fn)!r} ({e}).\n"
                       "Define the function in a .py file (not typed into the REPL or built by exec) "
                       "so s2s can read and transform it.") from None
    if getattr(fn, "__name__", "") == "<lambda>":
        found = _lambda_in_file(fn, filename, first)
        if found is not None:
            return found
    src = "".join(lines)
    dedented = textwrap.dedent(src)
    indent = len(lines[0]) - len(lines[0].lstrip())
    try:
        tree = gast.parse(dedented)
    except SyntaxError:
        # a lambda inside a larger expression: parse just its line, wrapped so it is an expression
        tree = gast.parse("(" + dedented.strip().rstrip(",").rstrip("\\") + ")")
    if linecache.getline(filename, first) == "" and code is not None:
        linecache.updatecache(filename)
    node = _find(tree, fn)
    if node is None:
        raise S2SError(f"{filename}:{first}\ns2s could not find the definition of {fn.__name__!r} in its source.")
    if isinstance(node, gast.Lambda):
        node = gast.FunctionDef(name=_lambda_name(fn), args=node.args, body=[gast.Return(value=node.body)],
                                decorator_list=[], returns=None, type_comment=None, type_params=[])
        gast.copy_location(node.body[0], node.body[0].value)
        gast.copy_location(node, node.body[0])
    node.decorator_list = []
    return Parsed(node, filename, first - 1, indent)


def _lambda_name(fn) -> str:
    return "lambda_" if fn.__name__ == "<lambda>" else fn.__name__


def _find(tree, fn):
    name = fn.__name__
    argnames = list(fn.__code__.co_varnames[: fn.__code__.co_argcount])
    for node in gast.walk(tree):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) and node.name == name:
            return node
    for node in gast.walk(tree):
        if isinstance(node, gast.Lambda) and [a.id for a in node.args.args] == argnames:
            return node
    return None


def _lambda_in_file(fn, filename: str, first: int) -> Parsed | None:
    """A lambda found by parsing its whole file: the one starting on its line, with its parameters,
    whose span holds the code's own positions (several lambdas may share a line, and a lambda on
    a continuation line of a bracket cannot be parsed alone)."""
    text = "".join(linecache.getlines(filename))
    try:
        tree = gast.parse(text) if text else None
    except SyntaxError:
        return None
    if tree is None:
        return None
    code = fn.__code__
    argnames = list(code.co_varnames[: code.co_argcount])
    cands = [n for n in gast.walk(tree) if isinstance(n, gast.Lambda) and n.lineno == first
             and [a.id for a in n.args.args] == argnames]
    if len(cands) > 1:
        spots = [(ln, c) for ln, _, c, e in code.co_positions() if ln is not None and c is not None and e and e > c]
        cands = [n for n in cands if spots and all(
            (n.lineno, n.col_offset) <= p <= (n.end_lineno, n.end_col_offset) for p in spots)]
        cands = cands[-1:]  # a lambda nested in another's body: the innermost one holds the spots
    if len(cands) != 1:
        return None
    lam = cands[0]
    node = gast.FunctionDef(name=_lambda_name(fn), args=lam.args, body=[gast.Return(value=lam.body)],
                            decorator_list=[], returns=None, type_comment=None, type_params=[])
    gast.copy_location(node.body[0], lam.body)
    gast.copy_location(node, lam)
    return Parsed(node, filename, 0, 0)
