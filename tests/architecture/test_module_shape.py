"""The modules of s2s are split by job (issue #47).

- No module imports a private name (`_name`) from another module, or reads one as an attribute
  of another module (`core._shape`): a helper two modules share has a public name in the module
  whose job it is, so what a module offers the others is what it names without an underscore.
- No module is over 800 lines unless its docstring has a line starting with `One job:` saying
  why what it holds is one job and not two.
- The top level of s2s/ holds the public modules and the packages, exactly: a new top-level
  module is a decision, made here.
"""

import ast

import paths
import pytest

ROOT = paths.ROOT
PACKAGE = ROOT / "s2s"
MAX_LINES = 800
ONE_JOB = "One job:"

# A private module imported from outside its package by design: the runtime's hand-down point, which
# the registry (a layer above) calls; its name is private because `rt`'s namespace holds the export
# lists and nothing else (test_primitive_declarations), as every internal module of s2s/runtime/.
PRIVATE_ENTRY_POINTS = {("s2s.compiler.primitives.registry", "s2s.runtime._registered")}

TOP_MODULES = {"__init__", "__main__", "numpy", "lax", "random", "tree", "tree_util", "test_util", "config", "errors"}
TOP_PACKAGES = {"api", "backends", "base", "compat", "compiler", "library", "nn", "runtime", "scipy"}


MODULES = paths.s2s_modules()


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def imported_from(mod: str, path: str, node: ast.ImportFrom) -> str:
    """The dotted module a `from ... import` statement of `mod` reads from."""
    if node.level == 0:
        return node.module or ""
    package = mod if path.endswith("__init__.py") else mod.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return package + ("." + node.module if node.module else "")


def outside_private(mod: str, target: str) -> bool:
    """Whether `mod` reaches module `target` through a private module or package (`runtime._x`)
    from outside the package that holds it (its siblings may import it)."""
    if (mod, target) in PRIVATE_ENTRY_POINTS:
        return False
    parts = target.split(".")
    return any(is_private(p) and not mod.startswith(".".join(parts[:i]) + ".") for i, p in enumerate(parts))


def private_crossings(mod: str, path: str) -> list[str]:
    """Each place `mod` reaches a private name of another s2s module, as `line: what`."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found, aliases = [], {}  # aliases: a local name bound to an s2s module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = imported_from(mod, path, node)
            if source != "s2s" and not source.startswith("s2s."):
                continue
            for a in node.names:
                full = f"{source}.{a.name}"
                if full in MODULES:  # a module: private only to its own package
                    aliases[a.asname or a.name] = full
                    if outside_private(mod, full):
                        found.append(f"{node.lineno}: from {source} import {a.name}")
                elif is_private(a.name) and source != mod or outside_private(mod, source):
                    found.append(f"{node.lineno}: from {source} import {a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "s2s" or a.name.startswith("s2s."):
                    aliases[a.asname or "s2s"] = a.name if a.asname else "s2s"
                    if outside_private(mod, a.name):
                        found.append(f"{node.lineno}: import {a.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            parts, base = [], node.value
            while isinstance(base, ast.Attribute):
                parts.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name) and base.id in aliases:
                target = ".".join([aliases[base.id]] + parts[::-1])
                if target in MODULES and target != mod:
                    found.append(f"{node.lineno}: {target}.{node.attr}")
    return sorted(set(found), key=lambda f: int(f.split(":")[0]))


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_no_private_name_crosses_a_module(mod):
    found = private_crossings(mod, MODULES[mod])
    assert not found, (f"{mod} reaches private names of other modules; give each a public name in the module "
                       "whose job it is:\n" + "\n".join(found))


def test_the_check_sees_each_form_of_crossing(tmp_path):
    """The scan above finds a private import, a private attribute of an imported module (also
    under an alias and a relative import), a private module reached from outside its package, and
    lets dunder names and a sibling's import of a private module pass."""
    path = tmp_path / "user.py"
    path.write_text("from s2s.runtime.core import _shape, namespace\n"
                    "from . import core as _c\n"
                    "from ..base import tree\n"
                    "import s2s.base.vspace as vs\n"
                    "_c._size(1)\n"
                    "tree._NODES\n"
                    "vs.__name__\n"
                    "from .batch import __all__\n"
                    "from ._checks import one\n"
                    "from s2s.compiler import _inner\n"
                    "from s2s.compiler._inner import name\n")
    found = private_crossings("s2s.runtime.user", str(path))
    assert [f.split(": ")[1] for f in found] == ["from s2s.runtime.core import _shape", "s2s.runtime.core._size",
                                                 "s2s.base.tree._NODES", "from s2s.compiler import _inner",
                                                 "from s2s.compiler._inner import name"]


def docstring_says_one_job(path: str) -> bool:
    with open(path, encoding="utf-8") as f:
        doc = ast.get_docstring(ast.parse(f.read())) or ""
    return any(line.strip().startswith(ONE_JOB) for line in doc.splitlines())


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_no_module_over_800_lines_without_saying_why(mod):
    with open(MODULES[mod], encoding="utf-8") as f:
        n = sum(1 for _ in f)
    assert n <= MAX_LINES or docstring_says_one_job(MODULES[mod]), (
        f"{mod} has {n} lines (more than {MAX_LINES}): split it by job, or say in its docstring, on a line "
        f"starting with {ONE_JOB!r}, why what it holds is one job")


def test_top_level_holds_the_public_modules_and_packages():
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert modules == TOP_MODULES, f"s2s/ top-level modules changed: added {modules - TOP_MODULES}, " \
                                   f"gone {TOP_MODULES - modules}; a machinery module belongs in a package"
    assert packages == TOP_PACKAGES, f"s2s/ packages changed: added {packages - TOP_PACKAGES}, " \
                                     f"gone {TOP_PACKAGES - packages}"
