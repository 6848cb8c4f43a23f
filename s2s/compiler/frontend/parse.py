"""Get a function's source and parse it with gast, keeping the user's file and line numbers."""
from __future__ import annotations

import dataclasses
import functools
import inspect
import linecache
import textwrap
import types

import gast

from ...errors import S2SError, S2STypeError, shown_path
from ..ir import build
from . import code_match, source_block

WHERE_SOURCES_ARE_KEPT = (
    "s2s reads a function's source. Put it in a .py file and import or run that, or define it in "
    "Jupyter, IPython or the Python 3.13+ REPL, which keep the source of what you type.")


def _unkept(filename: str) -> str:
    """Why Python kept no source for code compiled from `filename`, in the user's terms."""
    if filename == "<stdin>":
        return "it was typed into the interactive interpreter or piped to `python -`, which keep no source"
    if filename == "<string>":
        return "it was built by exec() or `python -c`, which keep no source"
    if filename.startswith("<"):
        return f"it was compiled from a string ({filename}), whose text Python did not keep"
    return f"its file {shown_path(filename)} cannot be read"


def not_python(obj) -> tuple[str, str, str] | None:
    """(what `obj` is, the attribute holding the Python function it wraps, what else to do) when
    `obj` wraps a Python function in a callable whose source s2s cannot read (a functools.lru_cache
    or cache wrapper, a numba dispatcher), else None."""
    if isinstance(obj, functools._lru_cache_wrapper) or type(obj).__name__ == "_lru_cache_wrapper":
        return ("it is wrapped by functools.lru_cache (or functools.cache), a cache with no Python "
                "source of its own", "__wrapped__", " (the function under the cache) instead, or drop the cache")
    declared = getattr(type(obj), "S2S_NOT_TRANSFORMED", None)  # (s2s's own callables that run, not transform)
    if declared is not None:
        return declared
    if (type(obj).__module__ or "").split(".")[0] == "numba" and isinstance(getattr(obj, "py_func", None),
                                                                           types.FunctionType):
        return (f"it is compiled by numba (a {type(obj).__name__}), which keeps no Python source s2s can read",
                "py_func", " (the Python function numba compiled) instead")
    return None


def refuse_not_python(obj, what: str) -> None:
    """An S2STypeError when `obj`, given to transform `what`, is one of `not_python`'s callables."""
    found = not_python(obj)
    if found is not None:
        name = getattr(obj, "__name__", None) or type(obj).__name__
        raise S2STypeError(f"{what} cannot transform `{name}`: {found[0]}.\n"
                           f"Transform `{name}.{found[1]}`{found[2]}.")


@dataclasses.dataclass
class Parsed:
    node: gast.FunctionDef
    filename: str
    line_offset: int  # add to a node's lineno to get the line in `filename`
    col_offset: int   # indentation removed by dedent


def parse_function(fn) -> Parsed:
    """Parse `fn` (a def or a lambda) into a gast FunctionDef with decorators stripped.

    The source is found from `fn.__code__`, never from `fn` itself: `inspect` follows
    `__wrapped__` (set by `functools.wraps`) to another function, whose source s2s would then
    transform in place of `fn`'s. The definition found is checked against the code object (its
    name, first line and parameters); a mismatch is an error, never another function's numbers."""
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType):
        raise S2SError(f"s2s cannot transform {fn!r}: it is not a Python function.")
    try:
        lines, first, untokenized = source_block.source_lines(code)
        filename = inspect.getsourcefile(code) or code.co_filename
    except (OSError, TypeError):
        raise S2SError(f"{code.co_filename}:{code.co_firstlineno}\ns2s cannot read the source of {code.co_name!r}: "
                       f"{_unkept(code.co_filename)}.\n{WHERE_SOURCES_ARE_KEPT}") from None
    tree = _parsed(textwrap.dedent("".join(lines))) if untokenized else None
    if untokenized and tree is None:  # (the block goes on: inspect's)
        lines, first, untokenized = source_block.source_lines(code, tokenized=True)
    if code.co_name == "<lambda>":
        found = _lambda_in_file(fn, filename, first)
        if found is not None:
            return found
    src = "".join(lines)
    dedented = textwrap.dedent(src)
    indent = len(lines[0]) - len(lines[0].lstrip())
    text = dedented
    try:
        tree = tree or gast.parse(text)
    except SyntaxError:
        # a lambda inside a larger expression: parse just its line, wrapped so it is an expression
        text = "(" + dedented.strip().rstrip(",").rstrip("\\") + ")"
        tree = gast.parse(text)
    if linecache.getline(filename, first) == "":
        linecache.updatecache(filename)
    node = _find(tree, code, first - 1)
    if node is None:
        raise S2SError(f"{filename}:{code.co_firstlineno}\ns2s could not find the definition of {code.co_name!r} "
                       "in its source, or the source there is not the code of the function it was given "
                       "(the file changed since it was imported?).\n"
                       "Reload the module, or define the function in a .py file s2s can read.")
    _check_code(code, text, node, filename)
    if isinstance(node, gast.Lambda):
        node = gast.FunctionDef(name=_lambda_name(code), args=node.args, body=[gast.Return(value=node.body)],
                                decorator_list=[], returns=None, type_comment=None, type_params=[])
        gast.copy_location(node.body[0], node.body[0].value)
        gast.copy_location(node, node.body[0])
    node.decorator_list = []
    return Parsed(node, filename, first - 1, indent)


def _parsed(text: str):
    """`text` parsed, or None where it does not parse alone."""
    try:
        return gast.parse(text)
    except SyntaxError:
        return None


def _check_code(code, text: str, node, filename: str) -> None:
    """Refuse a definition whose text does not compile to `code`: the file was edited after the
    function was defined (code_match.py)."""
    module_text = "".join(linecache.getlines(filename))
    if not code_match.matches(code, text, node, isinstance(node, gast.Lambda), module_text):
        raise S2SError(f"{shown_path(filename)}:{code.co_firstlineno}\nThe source file changed since "
                       f"{code.co_name!r} was defined: its text there is not the code of the function "
                       "s2s was given (that code is the file as it was when the module was imported).\n"
                       "Reload the module (importlib.reload, or restart the kernel) so the function is the "
                       "file's text again, then transform it.")


def _lambda_name(code) -> str:
    return "lambda_" if code.co_name == "<lambda>" else code.co_name


def _params(args) -> list[str]:
    names = [a.id for a in args.posonlyargs + args.args]
    names += [args.vararg.id] if args.vararg else []
    names += [a.id for a in args.kwonlyargs] + ([args.kwarg.id] if args.kwarg else [])
    return names


def code_params(code) -> list[str]:
    """The parameter names of a code object, in the order `_params` lists a definition's."""
    n = code.co_argcount + code.co_kwonlyargcount
    names = list(code.co_varnames[:n])
    star = code.co_flags & inspect.CO_VARARGS
    if star:
        names.insert(code.co_argcount, code.co_varnames[n])
    if code.co_flags & inspect.CO_VARKEYWORDS:
        names.append(code.co_varnames[n + (1 if star else 0)])
    return names


def _first_line(node) -> int:
    """The line Python records as a definition's first (its first decorator's, if any)."""
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


def _find(tree, code, offset: int):
    """The definition in `tree` whose code `code` is: its name, its first line in the file (the
    tree's lines plus `offset`), its parameters and the lines of its line table must all agree."""
    params = code_params(code)
    kind = gast.Lambda if code.co_name == "<lambda>" else (gast.FunctionDef, gast.AsyncFunctionDef)
    for node in gast.walk(tree):
        if not isinstance(node, kind) or kind is not gast.Lambda and node.name != code.co_name:
            continue
        if _first_line(node) + offset == code.co_firstlineno and _params(node.args) == params \
                and _spans(node, code, offset):
            return node
    return None


def _spans(node, code, offset: int) -> bool:
    """Every line the code object's line table names lies within the definition's lines."""
    end = getattr(node, "end_lineno", None)
    if end is None:
        return True
    lines = [ln for _, _, ln in code.co_lines() if ln is not None]
    return all(_first_line(node) + offset <= ln <= end + offset for ln in lines)


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
    cands = [n for n in build.walk(tree) if isinstance(n, gast.Lambda) and n.lineno == first
             and [a.id for a in n.args.args] == argnames]
    if len(cands) > 1:
        spots = [(ln, c) for ln, _, c, e in code.co_positions() if ln is not None and c is not None and e and e > c]
        cands = [n for n in cands if spots and all(
            (n.lineno, n.col_offset) <= p <= (n.end_lineno, n.end_col_offset) for p in spots)]
        cands = cands[-1:]  # a lambda nested in another's body: the innermost one holds the spots
    if len(cands) != 1:
        return None
    lam = cands[0]
    _check_code(code, text, lam, filename)
    node = gast.FunctionDef(name=_lambda_name(code), args=lam.args, body=[gast.Return(value=lam.body)],
                            decorator_list=[], returns=None, type_comment=None, type_params=[])
    gast.copy_location(node.body[0], lam.body)
    gast.copy_location(node, lam)
    return Parsed(node, filename, 0, 0)
