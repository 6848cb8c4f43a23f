"""Print a core-form function as Python source and turn it into a function object."""
from __future__ import annotations

import ast
import copy
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


class _CommentSlots(gast.NodeTransformer):
    """Each Comment node becomes a string statement `token<i>` for the printer, where `token`
    occurs in no string of the function; `texts[i]` is its comment."""

    def __init__(self, fn):
        strings = [n.value for n in gast.walk(fn) if isinstance(n, gast.Constant) and isinstance(n.value, str)]
        self.token = "s2s-comment-"
        while any(self.token in s for s in strings):
            self.token += "_"
        self.texts: list[str] = []

    def visit_Comment(self, node):
        self.texts.append(A.comment_text(node))
        return gast.Expr(value=A.const(f"{self.token}{len(self.texts) - 1}"))


def to_source(fn: gast.FunctionDef, header: str = "") -> str:
    """Readable, deterministic source, with the Comment statements printed as comments."""
    _fill_empty_blocks(fn)
    slots = _CommentSlots(fn)
    printable = slots.visit(copy.deepcopy(fn))
    tree = _NegativeLiterals().visit(gast.gast_to_ast(A.module([printable])))
    ast.fix_missing_locations(tree)
    text = astor.to_source(tree)
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped[:1] in "'\"" and slots.token in stripped:
            value = ast.literal_eval(stripped)
            if isinstance(value, str) and value.startswith(slots.token):
                indent = line[: len(line) - len(line.lstrip())]
                lines.append(indent + "# " + slots.texts[int(value[len(slots.token):])])
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
