"""Check that a function is in core form (see `s2s.compiler.frontend.normalize` for the definition).

Every transform reads core form, so every transform's output, normalized, must pass: the tests
check that over the control-flow corpus, and setting S2S_VALIDATE=1 checks every function s2s
normalizes.
"""
from __future__ import annotations

import gast

from . import build


class CoreFormError(AssertionError):
    pass


def _atom(node, where) -> None:
    if not build.is_atom(node):
        raise CoreFormError(f"{where}: expected a name or literal, got {gast.dump(node)[:120]}")


def _index(node, where) -> None:
    if isinstance(node, gast.Slice):
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                _atom(part, where)
    elif isinstance(node, gast.Tuple):
        for e in node.elts:
            _index(e, where)
    else:
        _atom(node, where)


def _dotted(node) -> bool:
    return isinstance(node, gast.Name) or isinstance(node, gast.Attribute) and _dotted(node.value)


def _value(v, where) -> None:
    if build.is_atom(v):
        return
    if isinstance(v, gast.BinOp):
        _atom(v.left, where), _atom(v.right, where)
    elif isinstance(v, gast.UnaryOp):
        _atom(v.operand, where)
    elif isinstance(v, gast.Compare):
        if len(v.ops) != 1:
            raise CoreFormError(f"{where}: chained comparison")
        _atom(v.left, where), _atom(v.comparators[0], where)
    elif isinstance(v, gast.Call):
        if not _dotted(v.func):
            raise CoreFormError(f"{where}: call of a computed function")
        for a in v.args:
            _atom(a, where)
        for k in v.keywords:
            _atom(k.value, where)
    elif isinstance(v, gast.Subscript):
        _atom(v.value, where), _index(v.slice, where)
    elif isinstance(v, (gast.Tuple, gast.List)):
        for e in v.elts:
            _atom(e, where)
    elif isinstance(v, gast.Dict):
        for e in list(v.keys) + list(v.values):
            _atom(e, where)
    elif isinstance(v, gast.Attribute):
        _atom(v.value, where)
    else:
        raise CoreFormError(f"{where}: not a core-form value: {type(v).__name__}")


def _block(stmts, where, top=False) -> None:
    for i, s in enumerate(stmts):
        here = f"{where}, statement {i + 1} ({type(s).__name__})"
        if isinstance(s, gast.Assign):
            if len(s.targets) != 1:
                raise CoreFormError(f"{here}: several targets")
            t = s.targets[0]
            if isinstance(t, gast.Subscript):
                _atom(t.value, here), _index(t.slice, here), _atom(s.value, here)
            elif isinstance(t, gast.Tuple):
                if not all(isinstance(e, gast.Name) for e in t.elts):
                    raise CoreFormError(f"{here}: nested unpacking")
                _atom(s.value, here)
            elif isinstance(t, gast.Name):
                _value(s.value, here)
            else:
                raise CoreFormError(f"{here}: target {type(t).__name__}")
        elif isinstance(s, gast.Expr):
            call = s.value
            if build.is_comment(s):
                continue
            if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
                    and call.func.attr == "append" and len(call.args) == 1):
                raise CoreFormError(f"{here}: an expression statement other than `list.append(atom)`")
            _atom(call.func.value, here), _atom(call.args[0], here)
        elif isinstance(s, gast.If):
            _atom(s.test, here)
            _block(s.body, here), _block(s.orelse, here)
        elif isinstance(s, gast.For):
            if not isinstance(s.target, gast.Name) or s.orelse:
                raise CoreFormError(f"{here}: for needs a name target and no else")
            it = s.iter
            if isinstance(it, gast.Call):
                if not (isinstance(it.func, gast.Name) and it.func.id == "range"):
                    raise CoreFormError(f"{here}: for over something other than range(...) or a name")
                for a in it.args:
                    _atom(a, here)
            else:
                _atom(it, here)
            _block(s.body, here)
        elif isinstance(s, gast.While):
            _atom(s.test, here)
            if s.orelse:
                raise CoreFormError(f"{here}: while with else")
            _block(s.body, here)
        elif isinstance(s, gast.Return):
            if not (top and i == len(stmts) - 1):
                raise CoreFormError(f"{here}: return is not the function's last statement")
            _atom(s.value, here)
        elif isinstance(s, gast.Assert):
            _atom(s.test, here)
        elif not isinstance(s, (gast.Break, gast.Continue, gast.Pass)):
            raise CoreFormError(f"{here}: not a core-form statement")


def validate(fn: gast.FunctionDef) -> None:
    """Raise CoreFormError naming the first statement of `fn` that is not in core form."""
    _block(fn.body, fn.name, top=True)
    if not fn.body or not isinstance(fn.body[-1], gast.Return):
        raise CoreFormError(f"{fn.name}: does not end with its one return")
