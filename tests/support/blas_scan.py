"""Which `rt.<name>` helpers may call BLAS, found by reading s2s/runtime's source: a helper that
writes `@`, names a BLAS routine (`dot`, `matmul`, `einsum`, `linalg`, ...), calls a function it
was given or one it looks up by a computed name, or calls a runtime function that does, directly
or through others. Generous on purpose: it stands guard over `blas_calls.RT_BLAS`, which must
hold every helper it finds (a new helper that multiplies matrices cannot be missed)."""
from __future__ import annotations

import ast
import pathlib

from s2s import runtime

WORDS = {"dot", "vdot", "inner", "matmul", "tensordot", "einsum", "linalg", "vecdot", "matvec", "vecmat",
         "cov", "corrcoef", "lstsq", "solve", "inv", "pinv", "cholesky", "qr", "svd", "eig", "eigh", "eigvals",
         "eigvalsh", "det", "slogdet", "multi_dot", "matrix_power", "polyfit", "expm", "solve_triangular"}
ROOT = pathlib.Path(runtime.__file__).parent


def _modules() -> dict:
    """module name (without the package) -> its parsed source."""
    return {p.stem: ast.parse(p.read_text(), str(p)) for p in sorted(ROOT.glob("*.py"))}


def _imports(tree) -> dict:
    """A module's local name -> ("module", name) for `from . import name` / `from .m import f`."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for alias in node.names:
                if node.module is None:
                    out[alias.asname or alias.name] = ("module", alias.name)
                else:
                    out[alias.asname or alias.name] = (node.module, alias.name)
    return out


def _direct(fn) -> bool:
    """Whether `fn`'s own body may call BLAS: a product, a BLAS name, a call of a parameter or of
    a function looked up by a computed name."""
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    for node in ast.walk(fn):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            return True
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.MatMult):
            return True
        if isinstance(node, ast.Attribute) and node.attr in WORDS or isinstance(node, ast.Name) and node.id in WORDS:
            return True
        if isinstance(node, ast.Constant) and node.value in WORDS:  # (getattr(xp, "dot"), op_named("dot"))
            return True
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in params:
                return True
            if isinstance(f, ast.Name) and f.id == "getattr" and len(node.args) > 1 \
                    and not isinstance(node.args[1], ast.Constant):
                return True
            if isinstance(f, ast.Call) and not (isinstance(f.func, ast.Name) and f.func.id == "type"):
                return True  # (getattr(xp, name)(x), op_named(name)(...); type(x)(*parts) builds a container)
    return False


def _locals(fn) -> set:
    """The names `fn` binds itself (parameters, assignments): never a module's function."""
    own = {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)}
    own |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return own


def blas_helpers() -> set:
    """The exported helpers (names in `rt`) that may call BLAS."""
    trees = _modules()
    defs = {}  # (module, name) -> FunctionDef or ClassDef
    for mod, tree in trees.items():
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defs[mod, node.name] = node
    edges = {key: set() for key in defs}
    flagged = set()
    for (mod, name), fn in defs.items():
        imports = _imports(trees[mod])
        if _direct(fn) if isinstance(fn, ast.FunctionDef) else any(
                _direct(f) for f in ast.walk(fn) if isinstance(f, ast.FunctionDef)):
            flagged.add((mod, name))
        own = _locals(fn)
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and node.id not in own:
                if (mod, node.id) in defs:
                    edges[mod, name].add((mod, node.id))
                elif node.id in imports and imports[node.id][0] != "module":
                    edges[mod, name].add(imports[node.id])
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                target = imports.get(node.value.id)
                if target and target[0] == "module" and (target[1], node.attr) in defs:
                    edges[mod, name].add((target[1], node.attr))
                elif node.value.id == "rt":  # (the namespace handed down: rt.<name>)
                    edges[mod, name] |= {k for k in defs if k[1] == node.attr}
    changed = True
    while changed:
        changed = False
        for key, to in edges.items():
            if key not in flagged and to & flagged:
                flagged.add(key)
                changed = True
    exported = {n: m.__name__.rsplit(".", 1)[1] for m in runtime.MODULES for n in m.__all__}
    return {n for n, mod in exported.items() if (mod, n) in flagged or (mod, n) not in defs}
