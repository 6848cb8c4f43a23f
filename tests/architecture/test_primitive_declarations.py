"""Each primitive is declared once, in s2s/compiler/primitives/, and everything else asks that declaration.

- every `rt.<name>` a declaration uses (its rules, its batching helper, its diagonal form, the
  primitive itself) is exported by exactly one runtime module, through that module's `__all__`;
- each runtime module's `__all__` is its list of public definitions, and the module stays small;
- no module outside s2s/compiler/primitives/ names operations in a list, set, tuple or dict literal (the
  facts such a table would hold are fields of `Prim`, or tables of s2s/compiler/primitives/registry.py):
  there are none, and no exceptions;
- the declarations set their facts where they declare the primitive (no `PRIMS[x].attr = ...`).
"""

import ast
import builtins
import inspect
import math
import operator
import os
import re

import numpy as np
import paths
import pytest

import s2s  # noqa: F401  (fills the registry)
from s2s import runtime
from s2s.compiler.primitives import registry

ROOT = str(paths.ROOT / "s2s")
RT_NAME = re.compile(r"\brt\.([A-Za-z_][A-Za-z_0-9]*)")

def _module_files():
    for dirpath, _, files in os.walk(ROOT):
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                yield os.path.relpath(path, ROOT).replace(os.sep, "/"), path


def _exported() -> dict[str, str]:
    """name -> the runtime module that exports it."""
    out = {}
    for m in runtime.MODULES:
        for n in m.__all__:
            assert n not in out, f"rt.{n} is exported by {out[n]} and {m.__name__}"
            out[n] = m.__name__
    return out


def _rt_names_declared() -> dict[str, str]:
    """Every `rt.<name>` the declarations use -> where."""
    used = {}
    for table, rows in (("VJP", registry.VJP), ("JVP", registry.JVP)):
        for prim, rules in rows.items():
            for arg, rule in rules.items():
                for n in RT_NAME.findall(rule):
                    used.setdefault(n, f"{table} rule of {prim} ({arg})")
    for key, rule in registry.RANKED.items():
        for n in RT_NAME.findall(rule):
            used.setdefault(n, f"ranked rule of {key[0]}")
    for prim, rule in registry.BATCH.items():
        if rule.helper:
            used.setdefault(rule.helper.removeprefix("rt."), f"batching helper of {prim}")
    for name, p in registry.PRIMS.items():
        if name.startswith("rt."):
            used.setdefault(name[3:], "a primitive")
        if p.diag_form:
            used.setdefault(p.diag_form.removeprefix("rt."), f"diagonal form of {name}")
    for prim, (_, fn) in registry.VJP_IN_PLACE.items():
        used.setdefault(fn.removeprefix("rt."), f"in-place VJP of {prim}")
    return used


def test_every_rt_name_a_declaration_uses_is_exported_by_a_runtime_module():
    exported = _exported()
    missing = {n: where for n, where in _rt_names_declared().items() if n not in exported}
    assert not missing, f"rt names no runtime module exports (add them to its __all__): {missing}"
    for n in exported:
        assert getattr(runtime, n) is getattr(__import__(exported[n], fromlist=[n]), n)


def test_every_helper_a_rule_calls_is_a_declared_primitive():
    """Every helper a rule calls is itself differentiable to any order, or refused by name: a
    primitive with rules of its own (or `rt.no_derivative`'s refusal), or a composite
    differentiated from its source (rules_helpers.py). A rule output is differentiated again at
    order 2 and beyond, and an undeclared helper would be read as a user function unchecked."""
    undeclared = {n: where for n, where in _rt_names_declared().items() if "rt." + n not in registry.PRIMS}
    assert not undeclared, f"rt helpers rules call that are not declared primitives: {undeclared}"


def test_every_built_in_rule_uses_only_known_names():
    """The rule tables' expressions name only the rule vocabulary, the primitive's parameters (and
    their tangents `d<param>` in JVP rules): checked here, not parsed at every `import s2s`."""
    assert registry.check_rules() > 1000


def test_a_rule_declared_after_the_tables_is_checked_at_once():
    registry.prim("rt.s2s_test_probe2", "x")
    try:
        with pytest.raises(ValueError, match="unknown names"):
            registry.defvjp("rt.s2s_test_probe2", x="g * no_such_name")
    finally:
        registry.PRIMS.pop("rt.s2s_test_probe2")
        registry.VJP.pop("rt.s2s_test_probe2", None)


def test_a_misspelled_helper_is_caught():
    """The check above can fail: a rule naming a helper nobody exports is reported."""
    registry.prim("rt.s2s_test_probe", "x")
    try:
        registry.defvjp("rt.s2s_test_probe", x="rt.no_such_helper(g)")
        assert "no_such_helper" in _rt_names_declared() and "no_such_helper" not in _exported()
    finally:
        registry.PRIMS.pop("rt.s2s_test_probe")
        registry.VJP.pop("rt.s2s_test_probe")


@pytest.mark.parametrize("module", runtime.MODULES, ids=lambda m: m.__name__)
def test_each_runtime_module_has_one_export_list_of_its_public_definitions(module):
    path = inspect.getsourcefile(module)
    tree = ast.parse(open(path, encoding="utf-8").read())
    public = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            public.append(node.name)
        elif isinstance(node, ast.Assign):
            public += [t.id for t in node.targets if isinstance(t, ast.Name) and t.id != "__all__"]
    public = [n for n in public if not n.startswith("_")]
    assert list(module.__all__) == public, f"{module.__name__}.__all__ is not its public definitions, in order"
    lines = sum(1 for _ in open(path, encoding="utf-8"))
    assert lines <= 700, f"{module.__name__} has {lines} lines: split it by rule family"


def test_the_runtime_namespace_is_exactly_the_export_lists():
    names = {n for n in vars(runtime) if not n.startswith("_")}
    modules = {m.__name__.rpartition(".")[2] for m in runtime.MODULES}
    assert names - modules - {"MODULES"} == set(runtime.__all__)


# ---- no lists of operation names outside s2s/compiler/primitives/ ----

def _numpy_key(s: str) -> str:
    """`xp.<name>` for a NumPy function spelled as a string (`"np.sum"`, `"numpy.linalg.norm"`)."""
    head, _, rest = s.partition(".")
    return f"xp.{rest}" if head in ("np", "numpy", "jnp") and rest else ""


def _op_names(elts, values: bool = False) -> list[str]:
    """The operation names among a literal's elements: a declared primitive's key (`xp.sum`,
    `rt.unbroadcast`, the operators' `add`, `neg`, ...), a NumPy or `operator` function as an
    object (`np.sum`, `operator.add`)
    or a string (`"np.sum"`), or three or more bare names of primitives: NumPy's (`"exp", "log",
    "sin"`) or, among a sequence's elements or a dict's keys (`values`: a dict's values), Python
    builtins that are primitives (`"len", "range", "int"`)."""
    dotted = {n for n in registry.PRIMS if "." in n}
    operators = {n for n in registry.PRIMS if "." not in n and not hasattr(builtins, n)
                 and n not in ("attr", "stop_gradient")}
    bare = {n[3:] for n in registry.PRIMS if n.startswith("xp.")}
    builtin_named = {n for n in registry.PRIMS if "." not in n and hasattr(builtins, n)}
    strings = [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    found = [s for s in strings if s in dotted or s in operators or _numpy_key(s) in registry.PRIMS]
    found += [f"np.{e.attr}" for e in elts if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name)
              and e.value.id in ("np", "numpy") and callable(getattr(np, e.attr, None))
              and not isinstance(getattr(np, e.attr), type)]
    found += [f"operator.{e.attr}" for e in elts if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name)
              and e.value.id == "operator" and callable(getattr(operator, e.attr, None))]
    named = [s for s in strings if s in bare]
    builtins_named = [s for s in strings if s in builtin_named and not values]
    return found + (named if len(named) >= 3 else []) + (builtins_named if len(builtins_named) >= 3 else [])


def _literals(tree):
    """(the assignment or function a literal is in, its elements, line, whether they are a dict's
    values) for each list/set/tuple literal and each dict literal's keys and values, `__all__`
    export lists left out."""
    def visit(node, where, cls=None):
        if isinstance(node, ast.ClassDef):
            where, cls = node.name, node.name
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            where, cls = (f"{cls}.{node.name}" if cls else node.name), None
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and where is None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if names == ["__all__"]:
                return
            where = names[0] if names else None
        if isinstance(node, (ast.List, ast.Set, ast.Tuple)):
            yield where, node.elts, node.lineno, False
        elif isinstance(node, ast.Dict):
            yield where, [k for k in node.keys if k is not None], node.lineno, False
            yield where, node.values, node.lineno, True
        for child in ast.iter_child_nodes(node):
            yield from visit(child, where, cls)
    yield from visit(tree, None)


def _op_name_lists() -> list[tuple]:
    out = []
    for rel, path in _module_files():
        if rel.startswith("compiler/primitives/"):
            continue
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        for where, elts, line, values in _literals(tree):
            found = _op_names(elts, values)
            if found:
                out.append((rel, where, line, found))
    return out


def test_no_module_outside_primitives_lists_operation_names():
    """Transforms, passes, the frontend, the emitters, the array backends and the runtime ask the
    declarations (`registry.lookup(k)` and the fields of `Prim`) instead of keeping their own
    tables of operation names: there are none, with no exceptions."""
    found = _op_name_lists()
    assert len(found) == 0, "lists of operation names outside s2s/compiler/primitives/ " + \
        "(declare the fact on the primitive): " + \
        "; ".join(f"{rel}:{line} in {where}: {names}" for rel, where, line, names in found)


def test_the_scan_finds_a_table_of_operation_names():
    tree = ast.parse('_SMOOTH = {"xp.exp", "xp.tanh"}\n_NP = (np.sum, np.mean)\nUNARY = ("exp", "log", "sin")\n'
                     '_ATTRS = ("shape", "ndim")\n__all__ = ("sum", "mean", "max")\n'
                     'OPS = {ast.Add: "add", ast.Sub: "sub"}\nCALLS = {"len", "range", "int"}\n'
                     'NAMED = ("np.sin", "numpy.cos")\nC = {1: "float", 2: "int", 3: "bool"}\n'
                     'PY = {operator.add: 1}\n')
    hits = {where: _op_names(elts, values) for where, elts, _, values in _literals(tree) if _op_names(elts, values)}
    assert hits == {"_SMOOTH": ["xp.exp", "xp.tanh"], "_NP": ["np.sum", "np.mean"], "UNARY": ["exp", "log", "sin"],
                    "OPS": ["add", "sub"], "CALLS": ["len", "range", "int"], "NAMED": ["np.sin", "numpy.cos"],
                    "PY": ["operator.add"]}


# ---- the declarations themselves ----

def _params(p) -> int:
    return sum(1 for a in p.params if not a.startswith("*"))


@pytest.mark.parametrize("name", sorted(registry.PRIMS))
def test_facts_are_well_formed(name):
    p = registry.PRIMS[name]
    assert p.float_result in ("", "always", "keep") and p.fusable in ("", "unary", "binary")
    assert p.diag in ("", "same", "zero") and p.arith in ("", "+", "-", "*", "/")
    assert p.shape_query in ("", "shape", "ndim", "size")
    n = _params(p)
    for at in (p.result_like, p.shape_arg, p.cotangent_of, *p.tree_args):
        assert at is None or 0 <= at < max(n, 1), f"{name}: argument position {at} of {p.params}"
    assert not p.mutates or p.mutated < max(n, 1)
    assert set(p.zero_args) <= set(p.params) and set(p.linear_in) <= set(p.params)
    assert all(hasattr(np.ndarray, m) for m in p.methods), f"{name}: {p.methods} are not array methods"
    assert not p.math_name or callable(getattr(math, p.math_name, None))


def test_every_fused_kernel_function_is_spelled_for_each_emitter():
    """The fused kernels' emitters (s2s/emit) read each function's spelling from its declaration:
    CUDA C's (`cuda`) for every fusable function but `where` (a select in every emitter), and
    numba's prelude helper (`numba`) only where the prelude defines it."""
    from s2s.compiler.emit import numba_kernels
    for name, p in registry.PRIMS.items():
        if p.fusable and name != "xp.where":
            assert name.startswith("xp.") and p.cuda, f"{name} is fusable but has no CUDA C form (cuda=)"
        if p.numba:
            assert f"def {p.numba}(" in numba_kernels._PRELUDE, f"{name}: numba={p.numba!r} is not in the prelude"
        assert not (p.cuda or p.numba or p.numba_slow) or p.fusable, f"{name} has kernel spellings but is not fusable"


def test_a_second_batching_rule_for_one_primitive_is_refused():
    """A later `defbatch` (or `batch=`) would silently replace the first rule: the registry refuses it."""
    registry.prim("rt.s2s_test_probe", "x", batch=registry.SAME)
    try:
        with pytest.raises(ValueError, match="already has a batching rule"):
            registry.defbatch("rt.s2s_test_probe", registry.LOOP)
        with pytest.raises(ValueError, match="already has a batching rule"):
            registry.defbatch("rt.s2s_test_probe", registry.SAME)
        assert registry.BATCH["rt.s2s_test_probe"] is registry.SAME
    finally:
        registry.PRIMS.pop("rt.s2s_test_probe")
        registry.BATCH.pop("rt.s2s_test_probe")


def test_a_second_declaration_of_one_primitive_is_refused():
    """A later `prim(name, ...)` would silently replace the first declaration's facts (as `mod`'s
    were once, declared in two rule files): the registry refuses it and keeps the first."""
    first = registry.prim("rt.s2s_test_probe", "x", nondiff=True)
    try:
        with pytest.raises(ValueError, match="already declared"):
            registry.prim("rt.s2s_test_probe", "x, y", broadcasting=True)
        assert registry.PRIMS["rt.s2s_test_probe"] is first and first.params == ("x",)
    finally:
        registry.PRIMS.pop("rt.s2s_test_probe")


def test_facts_are_set_where_the_primitive_is_declared():
    """No after-the-fact patches in the declarations (`PRIMS[x].zero_args = ...`, `zero(x, ...)`)."""
    patches = []
    for rel, path in _module_files():
        if not rel.startswith("compiler/primitives/"):
            continue
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Subscript) \
                        and isinstance(t.value.value, ast.Name) and t.value.value.id == "PRIMS":
                    patches.append(f"{rel}:{node.lineno}")
    assert not patches, f"facts patched after the declaration: {patches}"
    assert not hasattr(registry, "zero") and not hasattr(registry, "HELPERS")
