"""A direct printer of core form's usual statements, the text astor prints for them, character for
character.

`codegen` printed every generated function with astor, after retyping the whole gast tree as ast
nodes in place and back again: a fifth of a 1,600-statement gradient's codegen and compile time
was that walk and astor's own (a visitor call, a precedence attribute and a list item per node).
This printer writes the text from the gast tree in one recursion, with astor's precedence table
(`astor.op_util`), so its parentheses are astor's. It prints the usual nodes only; for anything
else (strings, decorators, defaults, `try`, lambdas, a line astor would wrap) it answers None, and
`codegen` prints with astor as before.
"""
from __future__ import annotations

import math

import gast
from astor.op_util import Precedence, precedence_data, symbol_data

from ..ir import build
from ..ir.core import is_catch

_MAX_LINE = 79  # astor wraps a longer line (`astor.source_repr.split_lines`)


class _Unusual(Exception):
    """A node this printer leaves to astor."""


def _table(data) -> dict:
    """astor's table keyed by ast class, keyed by the gast class of the same name."""
    return {getattr(gast, cls.__name__): v for cls, v in data.items()
            if cls is not None and hasattr(gast, cls.__name__)}


_PREC = _table(precedence_data)
_SYMBOL = _table(symbol_data)
_HIGHEST = Precedence.highest
_COMMA = Precedence.Comma
_ONE_ARG = Precedence.call_one_arg
_POW_LEFT = Precedence.Pow + 1
_POW_RIGHT = Precedence.PowRHS
_NUMBER = _PREC[gast.Constant]


_BODIED = (gast.If, gast.For, gast.While, gast.FunctionDef)


def fill_empty_blocks(n) -> None:
    """A `pass` in each block of statement `n` that would print empty (nothing, or only comments)."""
    if isinstance(n, _BODIED) and all(build.is_comment(s) for s in n.body):
        n.body.append(gast.Pass())
    orelse = getattr(n, "orelse", None)
    if isinstance(orelse, list) and orelse and all(build.is_comment(s) for s in orelse):
        orelse.append(gast.Pass())


def function_lines(fn: gast.FunctionDef) -> list | None:
    """The lines astor prints for `fn`, its empty blocks filled first (`fill_empty_blocks`): each
    a string, or (indentation, Comment) for a comment statement; None where astor must print it."""
    if fn.decorator_list or fn.returns is not None or getattr(fn.args, "posonlyargs", None):
        return None
    fill_empty_blocks(fn)
    out: list = []
    try:
        _line("", f"def {fn.name}({_arguments(fn.args)}):", out)
        _block(fn.body, "    ", out, fill_empty_blocks)
    except _Unusual:
        return None
    comments = 0
    for item in out:  # astor prints comment i as the string statement 's2s-comment-i'
        if type(item) is tuple:
            if len(item[0]) + len(repr(f"s2s-comment-{comments}")) > _MAX_LINE:
                return None
            comments += 1
    return out


def _arguments(a) -> str:
    """A function's parameters as astor prints them (no annotations)."""
    def one(p, default=None):
        if type(p) is not gast.Name or p.annotation is not None:
            raise _Unusual
        return p.id if default is None else p.id + "=" + _expr(default, _COMMA)
    pad = len(a.args) - len(a.defaults)
    parts = [one(p, a.defaults[i - pad] if i >= pad else None) for i, p in enumerate(a.args)]
    if a.vararg is not None:
        parts.append("*" + one(a.vararg))
    if a.kwonlyargs:
        if a.vararg is None:
            parts.append("*")
        parts += [one(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg is not None:
        parts.append("**" + one(a.kwarg))
    return ", ".join(parts)


def _block(stmts, indent: str, out: list, fill) -> None:
    for s in stmts:
        cls = type(s)
        if cls is gast.Assign:
            text = " = ".join(_expr(t, _PREC[gast.Assign]) for t in s.targets) + " = " + \
                _expr(s.value, _PREC[gast.Assign])
        elif cls is build.Comment:
            out.append((indent, s))
            continue
        elif cls is gast.Expr:
            if type(s.value) is gast.Constant and isinstance(s.value.value, str):
                raise _Unusual  # (a string statement astor may print with triple quotes)
            text = _expr(s.value, _PREC[gast.Expr])
        elif cls is gast.Return:
            text = "return" if s.value is None else "return " + _expr(s.value, _PREC[gast.Return])
        elif cls is gast.If:
            if is_catch(s.test):
                raise _Unusual
            fill(s)
            _line(indent, "if " + _expr(s.test, _PREC[gast.If]) + ":", out)
            _block(s.body, indent + "    ", out, fill)
            orelse = s.orelse
            while len(orelse) == 1 and type(orelse[0]) is gast.If:  # astor's `elif`
                s = orelse[0]
                if is_catch(s.test):
                    raise _Unusual
                fill(s)
                _line(indent, "elif " + _expr(s.test, _PREC[gast.If]) + ":", out)
                _block(s.body, indent + "    ", out, fill)
                orelse = s.orelse
            if orelse:
                out.append(indent + "else:")
                _block(orelse, indent + "    ", out, fill)
            continue
        elif cls is gast.For or cls is gast.While:
            fill(s)
            if cls is gast.For:
                head = "for " + _expr(s.target, _PREC[gast.For]) + " in " + _expr(s.iter, _HIGHEST) + ":"
            else:
                head = "while " + _expr(s.test, _PREC[gast.While]) + ":"
            _line(indent, head, out)
            _block(s.body, indent + "    ", out, fill)
            if s.orelse:
                out.append(indent + "else:")
                _block(s.orelse, indent + "    ", out, fill)
            continue
        elif cls is gast.Pass:
            text = "pass"
        elif cls is gast.Break:
            text = "break"
        elif cls is gast.Continue:
            text = "continue"
        elif cls is gast.Delete:
            text = "del " + ", ".join(_expr(t, _COMMA) for t in s.targets)
        else:
            raise _Unusual
        _line(indent, text, out)


def _line(indent: str, text: str, out: list) -> None:
    if len(indent) + len(text) > _MAX_LINE:
        raise _Unusual
    out.append(indent + text)


def _expr(e, pp: int) -> str:
    """`e` as astor prints it where its parent asks for precedence `pp` (parenthesized when its
    own is lower)."""
    cls = type(e)
    if cls is gast.Name:
        return e.id
    if cls is gast.Constant:
        v = e.value
        if v is None:
            return "None"
        if v is True or v is False:
            return _number(v, pp)
        if type(v) is int or type(v) is float:
            if v < 0 or (v == 0 and math.copysign(1.0, v) < 0):  # a negation, as codegen prints it
                p = _PREC[gast.USub]
                text = "-" + _number(-v, p)
                return text if p >= pp else "(" + text + ")"
            return _number(v, pp)
        if type(v) is str and "\n" not in v and not e.kind:  # (in a line that has code before it)
            return repr(v)  # (astor's choice, `astor.string_repr.pretty_string`, of a string of one line)
        if type(v) is tuple:  # (jit's shape guards, `(None, (4,))`)
            return repr(v)  # (astor's `visit_Constant` writes any other value's repr, unparenthesized)
        raise _Unusual
    if cls is gast.BinOp:
        op = type(e.op)
        p = _PREC[op]
        if op is gast.Pow:
            text = _expr(e.left, _POW_LEFT) + " ** " + _expr(e.right, _POW_RIGHT)
        else:
            text = _expr(e.left, p) + " " + _SYMBOL[op] + " " + _expr(e.right, p + 1)
        return text if p >= pp else "(" + text + ")"
    if cls is gast.Call:
        args, keywords = e.args, e.keywords
        n = len(args) + len(keywords)
        p = _COMMA if n > 1 else _ONE_ARG
        parts = []
        for a in args:
            if type(a) is gast.Starred:
                raise _Unusual
            parts.append(_expr(a, p))
        for k in keywords:
            if k.arg is None:
                raise _Unusual
            parts.append(k.arg + "=" + _expr(k.value, _COMMA))
        return _expr(e.func, _HIGHEST) + "(" + ", ".join(parts) + ")"
    if cls is gast.Attribute:
        return _expr(e.value, _HIGHEST) + "." + e.attr
    if cls is gast.Subscript:
        return _expr(e.value, _HIGHEST) + "[" + _expr(e.slice, _PREC[gast.Subscript]) + "]"
    if cls is gast.Compare:
        p = _PREC[type(e.ops[0])]
        text = _expr(e.left, p + 1) + "".join(" " + _SYMBOL[type(op)] + " " + _expr(c, p + 1)
                                               for op, c in zip(e.ops, e.comparators))
        return text if p >= pp else "(" + text + ")"
    if cls is gast.BoolOp:
        p = _PREC[type(e.op)]
        text = (" " + _SYMBOL[type(e.op)] + " ").join(_expr(v, p + 1) for v in e.values)
        return text if p >= pp else "(" + text + ")"
    if cls is gast.UnaryOp:
        op = type(e.op)
        p = _PREC[op]
        sym = _SYMBOL[op]
        text = sym + (" " if sym.isalpha() else "") + _expr(e.operand, p)
        return text if p >= pp else "(" + text + ")"
    if cls is gast.Tuple:
        elts = e.elts
        text = ", ".join(_expr(x, _COMMA) for x in elts) + ("," if len(elts) == 1 else "")
        return text if elts and _PREC[gast.Tuple] >= pp else "(" + text + ")"
    if cls is gast.List:
        return "[" + ", ".join(_expr(x, _COMMA) for x in e.elts) + "]"
    if cls is gast.Slice:
        p = _PREC[gast.Slice]
        text = ("" if e.lower is None else _expr(e.lower, p)) + ":" + ("" if e.upper is None else _expr(e.upper, p))
        if e.step is not None:
            text += ":" + ("" if type(e.step) is gast.Name and e.step.id == "None" else _expr(e.step, p))
        return text
    raise _Unusual


def _number(v, pp: int) -> str:
    """A number that is not negative, as astor prints it (`repr`; infinities and NaN left to it)."""
    if type(v) is float and not math.isfinite(v):
        raise _Unusual
    text = repr(v)
    return text if _NUMBER >= pp else "(" + text + ")"

