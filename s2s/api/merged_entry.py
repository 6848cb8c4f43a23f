"""A jit fast path merged with the version it calls: one function whose first statement is the
fast path's test of the call (dispatch.entry's guard) and whose other statements are the
version's own, so that a call pays one Python frame of s2s's where it paid two (and no
`shapes_tested=True` keyword, nor the version's test of it). For `f(x)` seen with a float vector::

    def jit_grad_f(x=MISSING, /, *fp_more, **fp_kw):
        try:
            fp_ok = not fp_more and not fp_kw and fp_type(x) is fp_t0 and x.dtype is fp_d0 and ...
        except Exception:
            fp_ok = False
        try:
            if not fp_ok:
                return fp_general(fp_given(x) + fp_more, fp_kw)
            ...  # the version's statements, on their own lines of its source
        except Exception as fp_e:
            fp_hide_internal(fp_e)
            raise

It is built from the version's printed source (`record.of(version).source`), compiled under
the version's file name with its line numbers and run in the version's own globals, so a
traceback and the user's line an error names (base/tracebacks.py) are the version's. The
guard's objects are closure variables of a maker function, whose prefix no name of the version
uses. A version that does not fit (not a plain function of its positional parameters) is not
merged: the caller keeps the two-frame fast path.
"""
from __future__ import annotations

import ast
import builtins
import types
import weakref

from ..base import record

_CODE: dict = {}  # (version source, guard, parameters, prefix) -> the maker's compiled code


def _is_shape_test(stmt) -> bool:
    """Whether `stmt` is a version's shape test, `if not (shapes_tested or rt.shapes_match(...)):
    return any_shape(...)` (driver._shape_guard)."""
    return isinstance(stmt, ast.If) and not stmt.orelse and isinstance(stmt.test, ast.UnaryOp) \
        and isinstance(stmt.test.operand, ast.BoolOp) and isinstance(stmt.test.operand.values[0], ast.Name) \
        and stmt.test.operand.values[0].id == "shapes_tested"


def _names(tree) -> set:
    """Every identifier `tree` binds or reads."""
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update(n.names)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
    return out


def _version_def(fn, nargs: int):
    """(the version's FunctionDef, its statements after the shape test), or None where it does
    not fit: a plain function without closure, defaults or other keywords than `shapes_tested`,
    of exactly `nargs` positional parameters."""
    rec = record.of(fn)
    if not isinstance(fn, types.FunctionType) or fn.__closure__ or fn.__defaults__ or rec is None \
            or not rec.source or not fn.__code__.co_filename.startswith("<s2s:"):
        return None
    try:
        tree = ast.parse(rec.source)
    except SyntaxError:
        return None
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(defs) != 1 or defs[0].name != fn.__name__ or defs[0].decorator_list:
        return None
    d, a = defs[0], defs[0].args
    if a.posonlyargs or a.vararg or a.kwarg or a.defaults or len(a.args) != nargs:
        return None
    body = d.body
    if a.kwonlyargs:
        if [k.arg for k in a.kwonlyargs] != ["shapes_tested"] or not _is_shape_test(body[0]):
            return None
        body = body[1:]
    if not body or "shapes_tested" in _names(ast.Module(body=body, type_ignores=[])) \
            or any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for b in body for n in ast.walk(b)):
        return None
    return d, body


class _Rename(ast.NodeTransformer):
    def __init__(self, table: dict):
        self.table = table

    def visit_Name(self, node):
        node.id = self.table.get(node.id, node.id)
        return node


def merged(guard: str, env: dict, fn, nargs: int):
    """The fast path over `guard` (an expression over parameters `a0`, `a1`, ... and the names
    of `env`, dispatch.entry's) that runs version `fn`'s statements itself when it holds and
    calls `env["general"]` otherwise; None where `fn` does not fit. The code is made once per
    version and guard: a dispatcher that installs its fast path again at each call its guard
    refuses (an object argument other than the one it was built for) re-parsed a long version's
    source each time (the Elman RNN's gradient: 2.5x the author's loops where 1.0x unmerged)."""
    key = (guard, tuple(sorted(env)), nargs)
    mine = _MADE.get(fn)
    if mine is None:
        mine = _MADE[fn] = {}
    made = mine.get(key, _UNSEEN)
    if made is _UNSEEN:
        made = mine[key] = _make(guard, env, fn, nargs)
    if made is None:
        return None
    code, free = made
    env = dict(env, **{n: getattr(builtins, n) for n in free})
    maker = types.FunctionType(code, fn.__globals__, code.co_name)
    return maker(*[env[n] for n in sorted(env)])


# version -> {(guard, env's names, nargs): (maker's code, builtins the guard reads), or None}
_MADE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_UNSEEN = object()


def _make(guard: str, env: dict, fn, nargs: int):
    """`merged`'s maker code for `fn` and `guard`, with the builtins the guard reads; or None."""
    found = _version_def(fn, nargs)
    if found is None:
        return None
    d, body = found
    params = [p.arg for p in d.args.args]
    taken = _names(d)
    prefix = "fp_"
    while any(n.startswith(prefix) for n in taken):
        prefix = "f" + prefix
    test = ast.parse(guard, mode="eval").body
    local = {f"a{i}" for i in range(nargs)} | {"more", "kw"}  # (the fast path's own parameters)
    free = sorted(n for n in {n.id for n in ast.walk(test) if isinstance(n, ast.Name)} - set(env) - local
                  if hasattr(builtins, n))
    env = dict(env, **{n: getattr(builtins, n) for n in free})
    table = {f"a{i}": p for i, p in enumerate(params)} | {n: prefix + n for n in [*env, "more", "kw"]}
    test = _Rename(table).visit(test)
    names = sorted(env)
    key = (fn.__code__.co_filename, fn.__qualname__, ast.dump(d), ast.dump(test), tuple(names), prefix)
    code = _CODE.get(key)
    if code is None:
        code = _CODE[key] = _compile(d, body, test, params, [prefix + n for n in names], prefix, fn)
    return code, free


def _compile(d, body, test, params, closure: list, prefix: str, fn):
    """The maker's code: `def make(<closure>): def <version's name>(...): ...; return it`."""
    p = prefix
    signature = [f"{q}={p}MISSING" for q in params] + (["/"] if params else []) + [f"*{p}more", f"**{p}kw"]
    shell = ast.parse(
        f"def {p}make({', '.join(closure)}):\n"
        f"    def {d.name}({', '.join(signature)}):\n"
        f"        try:\n"
        f"            {p}ok = ({p}GUARD)\n"
        f"        except Exception:\n"
        f"            {p}ok = False\n"
        f"        try:\n"
        f"            if not {p}ok:\n"
        f"                return {p}general({p}given({', '.join(params)}) + {p}more, {p}kw)\n"
        f"        except Exception as {p}e:\n"
        f"            {p}hide_internal({p}e)\n"
        f"            raise\n"
        f"    return {d.name}\n")
    make = shell.body[0]
    inner = make.body[0]
    inner.body[0].body[0].value = test  # (the guard)
    inner.body[1].body += body  # (the version's statements, after the test)
    line, kept = d.lineno, _inside(body)
    for n in ast.walk(shell):  # (the shell on the version's `def` line; its statements keep theirs)
        if hasattr(n, "lineno") and n not in kept:
            n.lineno = n.end_lineno = line
            n.col_offset = n.end_col_offset = 0
    ast.fix_missing_locations(shell)
    module = compile(shell, fn.__code__.co_filename, "exec")
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


def _inside(body) -> set:
    """The nodes of `body`'s statements (their line numbers stay)."""
    out: set = set()
    for b in body:
        out.update(ast.walk(b))
    return out
