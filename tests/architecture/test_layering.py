"""The import graph of s2s reads in one direction.

Each module belongs to a layer; a module imports only modules of earlier layers, or of its own
package within its layer (frontend, transforms and passes never import each other). There is no
cycle, and no import inside a function except of an optional dependency.

An import written as a call counts as an import: `importlib.import_module("s2s.x")`,
`__import__("s2s.x")` and a lookup `sys.modules["s2s.x"]` (or `sys.modules.get(...)`; the names
`__package__` and `__name__` standing for the module's own package and itself) load or reach the
module just the same, at call time rather than import time. Counted, they closed two cycles that
the `import` statements alone did not show (issue 47): 25 modules through the frontend's import of
s2s.scipy (api, driver, cachekey, frontend, s2s.scipy), 13 through the runtime's batch modules'
lookup of their own package. Now the layer above registers with the one below: s2s's package
hands the frontend s2s.scipy's counterparts (resolve.register_counterparts), the rule tables hand
the runtime themselves and `rt` (s2s/runtime/_registered.py).
"""

import ast
import functools
from pathlib import Path

import paths
import pytest

# Earlier layers first. A name stands for the module and everything under it.
LAYERS = [
    ["s2s.api", "s2s.backends", "s2s.base", "s2s.compiler", "s2s.library"],  # the packages' docstrings
    ["s2s.errors", "s2s.base.tree", "s2s.base.record", "s2s.base.stats", "s2s.base.vspace",  # leaves
     "s2s.base.heap"],
    ["s2s.base.real_only", "s2s.base.cotangent_dtype"],        # complex values refused, cotangents in their primals'
                                                     # dtypes, where derivatives leave s2s
    ["s2s.config"],                                  # run-time settings
    ["s2s.backends.array_fill", "s2s.library.numpy_inside",           # NumPy functions an array library lacks, composed;
     "s2s.library.python_inside",                         # math, itertools, sorted stand-ins;
     "s2s.base.tracebacks"],                              # S2SErrors' tracebacks without s2s's frames
    ["s2s.backends.arrays"],                                  # array backends (NumPy, CuPy, Dask): which one a call uses
    ["s2s.backends.devices"],                                 # device_put/block_until_ready
    ["s2s.runtime"],                                 # helpers generated code calls (`rt`)
    ["s2s.compiler.ir"],                                      # core form, names, node building, validator
    ["s2s.compiler.primitives"],                              # the rule tables
    ["s2s.compiler.analysis"],                                # analyses of core form (consult the rule tables)
    ["s2s.compiler.frontend", "s2s.compiler.transforms", "s2s.compiler.passes"],  # independent of each other
    ["s2s.compiler.emit"],                                    # code emission: codegen, loader, kernels, dumps
    ["s2s.compiler.cachekey"],                                # the cache key of a user function, watched per call
    ["s2s.compiler.driver"],                                  # core_of, caches, the call graph
    ["s2s.api.custom"],                                  # user-defined rules
    ["s2s.api.checkpoints", "s2s.api.memory"],               # s2s.checkpoint and its policies; tape_record
    ["s2s.api.arg_structure", "s2s.api.merged_entry"],   # grad's and vjp's results in their arguments' structure;
                                                     # a jit fast path merged with its version's statements
    ["s2s.api.dispatch"],                                # generated fast paths for calls
    ["s2s.api.calls"],                                   # the objects transforms return: cache watch, versions
    ["s2s.api.jitted"],                                  # jit's object: a version per argument signature
    ["s2s.api.holomorphic"],                             # derivatives at complex inputs: JAX's contract
    ["s2s.api.grad_versions"],                           # grad's object: a version per complex arguments
    ["s2s.api.entry_points"],                                     # the transforms users call
    ["s2s.api.sources"],                                 # s2s.source and the dump's text
    ["s2s.api.ops_table"],                               # what `python -m s2s ops` lists
    ["s2s.numpy", "s2s.random", "s2s.library.lax_conv",      # jnp, the random module, lax's convolution primitives,
     "s2s.library.tree_inside"],                             # tree_util's stand-ins inside transformed code
    ["s2s.lax", "s2s.tree_util"],                    # JAX's namespaces written in plain Python
    ["s2s.nn", "s2s.scipy", "s2s.tree"],             # activations (over lax) and initializers (over random);
                                                     # jax.scipy's namespaces (over the special primitives);
                                                     # jax.tree's short names (over tree_util)
    ["s2s"],                                         # the package's namespace
    ["s2s.test_util", "s2s.api.cli"],                    # tools built on the public API
    ["s2s.compat"],                                  # JAX's and autograd's module names over s2s
    ["s2s.__main__"],                                # `python -m s2s`
]
OPTIONAL = {"pygments", "numba", "threadpoolctl"}  # optional extras, imported where they are used


MODULES = paths.s2s_modules()


def group_of(mod: str) -> tuple[int, str]:
    """(layer index, the layer entry `mod` falls under): the longest matching entry wins."""
    best = None
    for i, layer in enumerate(LAYERS):
        for entry in layer:
            under = mod == entry or entry != "s2s" and mod.startswith(entry + ".")
            if under and (best is None or len(entry) > len(best[1])):
                best = (i, entry)
    assert best is not None, f"{mod} is in no layer: add it to LAYERS in tests/test_layering.py"
    return best


def imports_of(mod: str) -> tuple[list[str], list[tuple[int, str]]]:
    """(s2s modules `mod` imports at module level, (line, name) of imports inside functions)."""
    path = MODULES[mod]
    package = mod if path.endswith("__init__.py") else mod.rpartition(".")[0]
    edges, local = _imports_of_file(path, package)
    return list(edges), list(local)


@functools.cache
def _imports_of_file(path: str, package: str) -> tuple[tuple[str, ...], tuple[tuple[int, str], ...]]:
    """imports_of for one file, read once (collection and two tests per module ask for it)."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    in_functions = _imports_inside_functions(tree)
    edges, local = [], []
    for node in ast.walk(tree):
        dynamic = _dynamic_target(node, package, path)
        if dynamic is not None:
            edges.append(dynamic)
            continue
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        names = _targets(node, package)
        if id(node) in in_functions:
            local.extend((node.lineno, n) for n in names if n.split(".")[0] not in OPTIONAL)
        edges.extend(n for n in names if n == "s2s" or n.startswith("s2s."))
    return tuple(edges), tuple(local)


def _dynamic_target(node, package: str, path: str) -> str | None:
    """The module an import written as a call or a `sys.modules` lookup reaches, when its name is a
    literal (or `__package__`/`__name__`), else None."""
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in ("import_module", "__import__"):
            return _module_named(node.args[0], package, path)
        if name == "get" and _is_sys_modules(func.value):
            return _module_named(node.args[0], package, path)
    if isinstance(node, ast.Subscript) and _is_sys_modules(node.value):
        return _module_named(node.slice, package, path)
    return None


def _is_sys_modules(node) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "modules" and getattr(node.value, "id", None) == "sys"


def _module_named(node, package: str, path: str) -> str | None:
    """The s2s module an argument names: a string literal, or `__package__`/`__name__`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        name = node.value
    elif isinstance(node, ast.Name) and node.id == "__package__":
        name = package
    elif isinstance(node, ast.Name) and node.id == "__name__":
        name = package if path.endswith("__init__.py") else f"{package}.{Path(path).stem}"
    else:
        return None
    return name if name == "s2s" or name.startswith("s2s.") else None


def _imports_inside_functions(tree) -> set[int]:
    """The ids of the import statements inside a function or lambda body, found in one walk of each
    function (asking per import whether some function holds it walked the module once per import)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            found.update(id(n) for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return found


def _targets(node, package: str) -> list[str]:
    """The modules an import statement loads (a submodule named in `from pkg import sub` counts)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = package
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    if node.level:
        base = f"{base}.{node.module}" if node.module else base
    else:
        base = node.module
    out = []
    for a in node.names:
        sub = f"{base}.{a.name}"
        out.append(sub if sub in MODULES else base)
    return out


GRAPH = {mod: sorted(set(imports_of(mod)[0]) - {mod}) for mod in MODULES}


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_imports_point_down(mod):
    layer, entry = group_of(mod)
    for dep in GRAPH[mod]:
        if dep not in MODULES:
            continue
        dlayer, dentry = group_of(dep)
        assert dlayer < layer or dentry == entry, (
            f"{mod} (layer {layer}: {entry}) imports {dep} (layer {dlayer}: {dentry}): an upward or sideways edge")


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_no_function_local_imports(mod):
    _, local = imports_of(mod)
    assert not local, f"{mod} imports inside a function: {local}; import at module level"


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """A cycle of `graph` (module -> the modules it imports), as the path that closes it, else None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m):
        state[m] = 1
        path.append(m)
        for d in graph.get(m, ()):
            if state.get(d) == 1:
                return path[path.index(d):] + [d]
            if d in graph and d not in state:
                found = visit(d)
                if found:
                    return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_no_import_cycle():
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_checker_sees_upward_and_local_imports(tmp_path, monkeypatch):
    """The test itself can fail: a planted upward import and a function-local one are reported."""
    fake = tmp_path / "s2s" / "ir"
    fake.mkdir(parents=True)
    (fake / "bad.py").write_text("from .. import driver\n\ndef f():\n    import gast\n")
    monkeypatch.setitem(MODULES, "s2s.compiler.ir.bad", str(fake / "bad.py"))
    edges, local = imports_of("s2s.compiler.ir.bad")
    assert edges == ["s2s.compiler.driver"]
    assert local == [(4, "gast")]
    assert group_of("s2s.compiler.driver")[0] > group_of("s2s.compiler.ir.bad")[0]


def test_the_checker_counts_imports_written_as_calls(tmp_path, monkeypatch):
    """`importlib.import_module`, `__import__` and `sys.modules[...]` with a literal name (or the
    module's own `__package__`) are edges, so a cycle they close is reported; they are not
    `import` statements inside a function."""
    fake = tmp_path / "s2s" / "compiler" / "frontend"
    fake.mkdir(parents=True)
    (fake / "hidden.py").write_text(
        "import importlib\nimport sys\n\n\n"
        "def f(name):\n"
        "    importlib.import_module('s2s.scipy')\n"
        "    __import__('s2s.api.calls')\n"
        "    sys.modules['s2s.compiler.driver'].core_of\n"
        "    sys.modules.get('s2s.lax')\n"
        "    sys.modules[__package__]\n"
        "    importlib.import_module(name)\n"      # not a literal: not counted
        "    sys.modules['numpy']\n")              # not s2s
    monkeypatch.setitem(MODULES, "s2s.compiler.frontend.hidden", str(fake / "hidden.py"))
    edges, local = imports_of("s2s.compiler.frontend.hidden")
    assert sorted(edges) == ["s2s.api.calls", "s2s.compiler.driver", "s2s.compiler.frontend", "s2s.lax",
                             "s2s.scipy"]
    assert local == []
    graph = {"s2s.compiler.frontend.hidden": edges, "s2s.scipy": ["s2s.compiler.frontend.hidden"]}
    assert find_cycle(graph) == ["s2s.compiler.frontend.hidden", "s2s.scipy", "s2s.compiler.frontend.hidden"]
