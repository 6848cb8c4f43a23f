"""Whether the source s2s read is the code of the function it was given.

s2s reads a function's definition from its file, as the file is now. When the file was edited
after the module was imported (`np.sin` changed to `np.exp` on the same line, the module not
reloaded), the text differs from the code that runs, and a transform of it would differentiate
the new text while the function computes the old one. The name, first line and parameters
(parse.py) cannot see an edit within the same lines, so the definition is compiled here and its
code compared with the function's `__code__`: bytecode, constants, names and flags, recursively
for the code objects nested in it (comprehensions, lambdas, inner defs). What differs between two
compilations of the same text is ignored (the file name, line numbers and columns, the qualified
name), and so is the docstring, whose edit changes no computation. The text is compiled where
the compiler saw it: inside a function that binds the function's free variables (so they load
from cells), inside a class of the same name for a method (names like `self.__x` are mangled by
the class's name, and `super()` reads the class's cell), with the module's `__future__` flags,
after imports binding the names the module imports (CPython compiles `np.sum(x)` differently
when `np` is a module the file imports). Each (code, text) pair is checked once.
"""
from __future__ import annotations
import __future__

import ast
import math
import symtable
import sys
import textwrap
import types

_FUTURE = 0
for _name in __future__.all_feature_names:
    _FUTURE |= getattr(__future__, _name).compiler_flag
CO_NESTED = 0x10  # set for a function defined inside another: our wrapper may add or drop it
_ATTRS = ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_argcount",
          "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals", "co_exceptiontable")
# A function's first constant is its docstring, or None without one (CPython before 3.13): an
# edited docstring changes no computation, so it is not compared.
_DOC_SLOT = sys.version_info < (3, 13)
_CHECKED: dict = {}  # (code object, definition text) -> whether it compiles to that code


def matches(code: types.CodeType, text: str, node, lambda_: bool, module_text: str) -> bool:
    """Whether the definition `node` (a def, or a lambda with `lambda_`), at its positions in
    `text`, compiles to `code`, in the module whose whole text is `module_text`. An unexpected
    failure to compile counts as a match: the other checks (name, line, parameters) still hold,
    and s2s would refuse nothing it used to accept."""
    segment = ast.get_source_segment(text, node, padded=not lambda_)
    if segment is None or _rewritten(code):
        return True
    key = (code, segment)
    hit = _CHECKED.get(key)
    if hit is None:
        hit = _CHECKED[key] = _compiles_to(code, segment, lambda_, _imported(module_text) & set(code_names(code)))
    return hit


def _rewritten(code: types.CodeType) -> bool:
    """Code an import hook rewrote from the text (pytest's assertion rewriting names its locals and
    globals `@py_assert1`, `@pytest_ar`, which no source can write): not compiled from
    the text alone, so not compared (the name, line and parameter checks still hold)."""
    return any(not name.isidentifier() and not name.startswith(".") for name in _all_names(code))  # (`.0`:
    # the compiler's own argument of a comprehension)


def _all_names(code: types.CodeType):
    yield from code.co_varnames
    yield from code_names(code)


def code_names(code: types.CodeType):
    """The global and attribute names `code` reads, and every name of the code nested in it."""
    yield from code.co_names
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _all_names(c)


_IMPORTED: dict = {}  # module text -> the module-level names its imports bind


def _imported(module_text: str) -> frozenset:
    """The names bound by imports in the module's own scope: CPython compiles `np.sum(x)` with
    other instructions when `np` is a module the file imports, so the check binds them too."""
    hit = _IMPORTED.get(module_text)
    if hit is None:
        try:
            table = symtable.symtable(module_text, "<s2s-check>", "exec")
            hit = frozenset(s.get_name() for s in table.get_symbols() if s.is_imported())
        except (SyntaxError, ValueError):
            hit = frozenset()
        if len(_IMPORTED) > 64:
            _IMPORTED.clear()
        _IMPORTED[module_text] = hit
    return hit


def _compiles_to(code: types.CodeType, segment: str, lambda_: bool, imported) -> bool:
    qual = code.co_qualname.split(".")
    owner = qual[-2] if len(qual) >= 2 and qual[-2] != "<locals>" else None  # a method's class
    free = [v for v in code.co_freevars if not (owner and v == "__class__")]
    body = f"return ({segment})\n" if lambda_ else textwrap.dedent(segment)
    if owner:
        body = f"class {owner}:\n" + textwrap.indent(body if not lambda_ else f"_ = ({segment})\n", "    ")
    if free or lambda_:  # free variables load from cells of an enclosing function
        binds = "".join(f"    {v} = None\n" for v in free)
        body = "def __s2s_enclosing__():\n" + binds + textwrap.indent(body, "    ")
    body = "".join(f"import _ as {name}\n" for name in sorted(imported)) + body  # (compiled, never run)
    try:
        module = compile(body, "<s2s-check>", "exec", flags=code.co_flags & _FUTURE, dont_inherit=True)
    except (SyntaxError, ValueError):
        return True
    found = _find(module, code.co_name)
    return found is None or _same(found, code)


def _find(module: types.CodeType, name: str) -> types.CodeType | None:
    """The shallowest code object named `name` under `module`."""
    level = [module]
    while level:
        nested = [c for code in level for c in code.co_consts if isinstance(c, types.CodeType)]
        for c in nested:
            if c.co_name == name:
                return c
        level = nested
    return None


def _same(a: types.CodeType, b: types.CodeType) -> bool:
    if any(getattr(a, attr) != getattr(b, attr) for attr in _ATTRS):
        return False
    if (a.co_flags ^ b.co_flags) & ~CO_NESTED:
        return False
    skip = _DOC_SLOT and not a.co_name.startswith("<") and all(isinstance(c[0], (str, type(None)))
                                                              for c in (a.co_consts, b.co_consts) if c)
    return len(a.co_consts) == len(b.co_consts) and all(
        _same_const(x, y) for x, y in list(zip(a.co_consts, b.co_consts))[1 if skip else 0:])


def _same_const(x, y) -> bool:
    if type(x) is not type(y):
        return False
    if isinstance(x, types.CodeType):
        return _same(x, y)
    if isinstance(x, tuple):
        return len(x) == len(y) and all(_same_const(p, q) for p, q in zip(x, y))
    if isinstance(x, float):
        return x == y and math.copysign(1.0, x) == math.copysign(1.0, y) or math.isnan(x) and math.isnan(y)
    if isinstance(x, complex):
        return _same_const(x.real, y.real) and _same_const(x.imag, y.imag)
    return x == y
