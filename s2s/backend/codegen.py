"""Print a core-form function as Python source and turn it into a function object."""
from __future__ import annotations

import ast
import linecache

import astor
import gast

from .. import runtime
from ..ir import build as A


def _fill_empty_blocks(node):
    for n in gast.walk(node):
        for field in ("body", "orelse"):
            block = getattr(n, field, None)
            if isinstance(block, list) and field == "body" and isinstance(n, (gast.If, gast.For, gast.While,
                                                                             gast.FunctionDef)):
                if all(A.is_comment(s) for s in block):
                    block.append(gast.Pass())
            if isinstance(block, list) and field == "orelse" and block and all(A.is_comment(s) for s in block):
                block.append(gast.Pass())


class _NegativeLiterals(ast.NodeTransformer):
    """`-1.5` as a literal prints as `-1.5` even where `(-1.5)` is needed (`(-1.5) ** 2`): print
    negative numbers as negations, which the printer parenthesizes by precedence."""

    def visit_Constant(self, node):
        v = node.value
        if isinstance(v, (int, float, complex)) and not isinstance(v, bool) and (v.real < 0 or str(v)[0] == "-"):
            return ast.copy_location(ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-v)), node)
        return node


def _comment_token(fn) -> str:
    """A prefix that occurs in no string of the function."""
    strings = [n.value for n in gast.walk(fn) if isinstance(n, gast.Constant) and isinstance(n.value, str)]
    token = "s2s-comment-"
    while any(token in s for s in strings):
        token += "_"
    return token


def _comment_slots(fn) -> list[tuple[list, int, gast.stmt]]:
    """(block, index, Comment) for every Comment statement of the function."""
    slots = []
    for n in gast.walk(fn):
        for field in n._fields:
            block = getattr(n, field, None)
            if isinstance(block, list):
                slots.extend((block, i, s) for i, s in enumerate(block) if A.is_comment(s))
    return slots


def to_source(fn: gast.FunctionDef, header: str = "") -> str:
    """Readable, deterministic source, with the Comment statements printed as comments.

    Each Comment becomes, for the printer only, a string statement `token<i>` (where `token`
    occurs in no string of the function): swapped into the tree in place while it is converted
    to `ast` (which copies it) and swapped back, so the tree is never deep-copied."""
    _fill_empty_blocks(fn)
    token = _comment_token(fn)
    slots = _comment_slots(fn)
    texts = [A.comment_text(c) for _, _, c in slots]
    for k, (block, i, _) in enumerate(slots):
        block[i] = gast.Expr(value=A.const(f"{token}{k}"))
    try:
        converted = gast.gast_to_ast(A.module([fn]))
    finally:
        for block, i, c in slots:
            block[i] = c
    tree = _NegativeLiterals().visit(converted)
    ast.fix_missing_locations(tree)
    text = astor.to_source(tree)
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped[:1] in "'\"" and token in stripped:
            value = ast.literal_eval(stripped)
            if isinstance(value, str) and value.startswith(token):
                indent = line[: len(line) - len(line.lstrip())]
                lines.append(indent + "# " + texts[int(value[len(token):])])
                continue
        lines.append(line)
    out = "\n".join(lines) + "\n"
    return (f"# {header}\n" if header else "") + out


def compile_source(name: str, source: str, ns: dict, xp) -> object:
    """Exec `source` with its names bound; register it in linecache for tracebacks and pdb."""
    filename = f"<s2s:{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    glob = dict(ns)
    glob.setdefault("xp", xp)
    glob.setdefault("rt", runtime)
    glob["__name__"] = "s2s.generated"
    code = compile(source, filename, "exec")
    exec(code, glob)
    return glob[name]
