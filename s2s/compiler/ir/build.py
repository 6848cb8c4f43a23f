"""The one place that builds gast nodes, so a change in gast's node fields touches only this file."""
from __future__ import annotations

import collections
import copy
import functools

import gast

from ...base.stats import STATS

LOAD, STORE = gast.Load(), gast.Store()


def name(id_: str, store: bool = False, param: bool = False) -> gast.Name:
    ctx = gast.Param() if param else STORE if store else LOAD
    return gast.Name(id=id_, ctx=ctx, annotation=None, type_comment=None)


def names(ids) -> list[gast.Name]:
    """A Name (load) for each of `ids`."""
    return [name(i) for i in ids]


def const(value) -> gast.Constant:
    return gast.Constant(value=value, kind=None)


def attr(value: gast.expr | str, attr_: str) -> gast.Attribute:
    if isinstance(value, str):
        value = name(value)
    return gast.Attribute(value=value, attr=attr_, ctx=LOAD)


def call(func: gast.expr | str, args=(), keywords=None) -> gast.Call:
    """`func(*args, **keywords)`; a dotted string such as `xp.exp` becomes an attribute chain."""
    if isinstance(func, str):
        head, *rest = func.split(".")
        func = name(head)
        for part in rest:
            func = attr(func, part)
    kws = [gast.keyword(arg=k, value=v) for k, v in (keywords or {}).items()]
    return gast.Call(func=func, args=list(args), keywords=kws)


def assign(target: str | gast.expr, value: gast.expr) -> gast.Assign:
    if isinstance(target, str):
        target = name(target, store=True)
    return gast.Assign(targets=[store(target)], value=value, type_comment=None)


def aug_assign(target: str, op: gast.operator, value: gast.expr) -> gast.AugAssign:
    """`target op= value` (jit's in-place ufuncs: passes/reuse.py)."""
    return gast.AugAssign(target=name(target, store=True), op=op, value=value)


def store(node: gast.expr) -> gast.expr:
    """A copy of a target expression with Store context on its outer node and tuple elements."""
    return _with_ctx(node, STORE)


def load(node: gast.expr) -> gast.expr:
    """A copy of an expression with Load context on its outer node and tuple elements."""
    return _with_ctx(node, LOAD)


def _with_ctx(node, ctx):
    node = copy.copy(node)
    if isinstance(node, (gast.Tuple, gast.List)):
        node.elts = [_with_ctx(e, ctx) for e in node.elts]
    if hasattr(node, "ctx"):
        node.ctx = ctx
    return node


def expr_stmt(value: gast.expr) -> gast.Expr:
    return gast.Expr(value=value)


class Comment(gast.Expr):
    """A comment line of generated code (`# text`): a statement of its own kind that does
    nothing, so it travels with its neighbours through every transform; codegen prints it, and
    the normalizer keeps it (`copy_comment`) when a generated function is transformed again, so
    that code generated from generated code still names the user's line an error comes from."""


def comment(text: str) -> Comment:
    return Comment(value=const(text))


def copy_comment(stmt: Comment, keys: tuple[str, ...]) -> Comment:
    """A copy of comment `stmt` with its attributes `keys` (its place: the line it carries, the
    file of a statement inlined from another function), which errors raised below it name."""
    new = comment(comment_text(stmt))
    for key in keys:
        if hasattr(stmt, key):
            setattr(new, key, getattr(stmt, key))
    return new


def is_comment(stmt) -> bool:
    return isinstance(stmt, Comment)


def comment_text(stmt: Comment) -> str:
    return stmt.value.value


def tuple_(elts, store_: bool = False) -> gast.Tuple:
    return gast.Tuple(elts=list(elts), ctx=STORE if store_ else LOAD)


def list_(elts) -> gast.List:
    return gast.List(elts=list(elts), ctx=LOAD)


def subscript(value: gast.expr, index: gast.expr, store_: bool = False) -> gast.Subscript:
    return gast.Subscript(value=value, slice=index, ctx=STORE if store_ else LOAD)


def binop(left, op: gast.operator, right) -> gast.BinOp:
    return gast.BinOp(left=left, op=op, right=right)


def neg(operand) -> gast.UnaryOp:
    return gast.UnaryOp(op=gast.USub(), operand=operand)


def not_(operand) -> gast.UnaryOp:
    return gast.UnaryOp(op=gast.Not(), operand=operand)


def is_none(operand) -> gast.Compare:
    return gast.Compare(left=operand, ops=[gast.Is()], comparators=[const(None)])


def compare(left, op: gast.cmpop, right) -> gast.Compare:
    return gast.Compare(left=left, ops=[op], comparators=[right])


def if_(test, body, orelse=()) -> gast.If:
    return gast.If(test=test, body=list(body) or [gast.Pass()], orelse=list(orelse))


def for_range(var: str, args, body) -> gast.For:
    return gast.For(target=name(var, store=True), iter=call("range", args), body=list(body) or [gast.Pass()],
                    orelse=[], type_comment=None)


def while_(test, body) -> gast.While:
    return gast.While(test=test, body=list(body) or [gast.Pass()], orelse=[])


def ret(value) -> gast.Return:
    return gast.Return(value=value)


def function(fname: str, params, body) -> gast.FunctionDef:
    args = gast.arguments(args=[name(p, store=False) for p in params], posonlyargs=[], vararg=None,
                          kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    for a in args.args:
        a.ctx = gast.Param()
    return gast.FunctionDef(name=fname, args=args, body=list(body), decorator_list=[], returns=None,
                            type_comment=None, type_params=[])


def module(body) -> gast.Module:
    return gast.Module(body=list(body), type_ignores=[])


def located(node, where, only_missing: bool = False, kinds: tuple = (gast.stmt, gast.expr)):
    """`node` with every statement and expression in it (`kinds`) given `where`'s source position,
    or only those without one (`only_missing`), so errors name the user's line. Returns `node`."""
    for n in gast.walk(node):
        if isinstance(n, kinds) and not (only_missing and hasattr(n, "lineno")):
            gast.copy_location(n, where)
    return node


@functools.cache
def _template(src: str) -> gast.expr:
    """The parsed template (`template` copies it, never changes it): parsed once per text."""
    return gast.parse(src, mode="eval").body


def clone(node):
    """A deep copy of a tree of nodes (or a list of them), attributes included, like
    `copy.deepcopy` at a fraction of its cost; contexts (`Load`, `Store`), which hold nothing,
    are shared."""
    count = [0]
    new = _clone(node, count)
    STATS["clone"] += count[0]
    return new


def _clone(node, count):
    if isinstance(node, list):
        return [_clone(x, count) for x in node]
    if not isinstance(node, gast.AST) or isinstance(node, gast.expr_context):
        return node
    count[0] += 1
    cls = type(node)
    new = cls.__new__(cls)
    new.__dict__.update({k: _clone(v, count) if isinstance(v, (list, gast.AST)) else v
                         for k, v in node.__dict__.items()})
    return new


def template(_src: str, **subs) -> gast.expr:
    """Parse expression `_src` once and return a copy with each Name in `subs` replaced by its
    node (built in one recursive copy, without copying the whole template first)."""
    count = [0]
    tree = _fill(_template(_src), subs, count)
    STATS["clone"] += count[0]
    return tree


def _fill(node, subs: dict, count: list):
    """`template`'s copy of `node` (a module-level function, not a closure that calls itself:
    such a closure is a reference cycle per call, garbage only the cyclic collector frees)."""
    if isinstance(node, list):
        return [_fill(x, subs, count) for x in node]
    if not isinstance(node, gast.AST) or isinstance(node, gast.expr_context):
        return node
    if isinstance(node, gast.Name) and node.id in subs:
        new = subs[node.id]
        return _clone(new, count) if isinstance(new, gast.AST) else const(new)
    count[0] += 1
    cls = type(node)
    out = cls.__new__(cls)
    out.__dict__.update({k: _fill(v, subs, count) if isinstance(v, (list, gast.AST)) else v
                         for k, v in node.__dict__.items()})
    return out


def walk(node):
    """Every node under `node`, itself first, in `gast.walk`'s order (breadth first), without its
    generator per node: the frontend walks the user's whole function several times. Counts the
    nodes it yields in STATS (`build_walk`), so a walk per statement shows as growing work."""
    todo = collections.deque((node,))
    pop, push, extend, ast_ = todo.popleft, todo.append, todo.extend, gast.AST
    count = 0
    try:
        while todo:
            n = pop()
            for field in n._fields:
                value = getattr(n, field, None)
                if isinstance(value, ast_):
                    push(value)
                elif isinstance(value, list):
                    extend(v for v in value if isinstance(v, ast_))
            count += 1
            yield n
    finally:
        STATS["build_walk"] += count


def names_in(node) -> set[str]:
    """Every Name id read or written anywhere under `node` (a plain stack, not `gast.walk`'s
    generators: the transforms ask it of the whole function)."""
    out: set[str] = set()
    stack = [node]
    count = 0
    while stack:
        n = stack.pop()
        count += 1
        if type(n) is gast.Name:
            out.add(n.id)
        for field in n._fields:
            value = getattr(n, field, None)
            if value.__class__ is list:
                stack.extend(v for v in value if isinstance(v, gast.AST))
            elif isinstance(value, gast.AST):
                stack.append(value)
    STATS["build_walk"] += count
    return out


def is_atom(node) -> bool:
    return isinstance(node, (gast.Name, gast.Constant))
