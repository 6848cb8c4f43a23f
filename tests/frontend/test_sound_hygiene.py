"""Name hygiene (issue 27, family 3): renaming a user's variable to any name the code generator
uses changes nothing.

Generated code reaches NumPy as `xp`, the runtime as `rt`, builtins such as `len` and `range`, and
names its own temporaries, adjoints, tangents, tapes and callees (`t0`, `b_x`, `d_x`, `tape`,
`fwd_f`, ...). A parameter named `xp` used to crash every transform and a local `xp` gave
`UnboundLocalError` or a zero gradient. The names checked are collected from generated source
itself (every identifier s2s writes for a sample of programs), so a new generated name is covered
as soon as the generator writes it. Every function of the control-flow corpus is rewritten with
its parameters and locals renamed to those names and must give the same numbers: the plain
function, central finite differences, and the original's transforms are the references.
"""
import ast
import importlib.util
import inspect
import re
import sys
import textwrap

import numpy as np
import pytest
from corpus import CORPUS

import s2s
from s2s.compiler.ir.names import GLOBALS
from s2s.test_util import check_grads

_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


def _sample_a(x, ys):
    s = 0.0
    for y in ys:
        s = s + np.sum(np.sin(x * y))
    if s > 0:
        s = s * 2
    return s + np.sum(_sample_b(x, scale=3.0))


def _sample_b(a, scale=2.0):
    return np.tanh(a) * scale


def _sample_c(x):
    lst = []
    i = 0
    while i < 2:
        lst.append(x[i] * x)
        i = i + 1
    return np.sum(np.stack(lst) ** 2)


def _generated_names() -> list[str]:
    """Every identifier in generated source for a sample of programs and transforms, less the
    sample's own names and attributes (`xp.sin`'s `sin`)."""
    x, ys = np.array([0.5, 1.5]), [np.array([1.0, 2.0]), np.array([0.5, 0.1])]
    texts = [s2s.source(s2s.grad(_sample_a))]
    for f in (_sample_b, _sample_c):
        for t in (s2s.grad, s2s.jit, s2s.vmap, s2s.hessian, s2s.jacfwd):
            texts.append(s2s.source(t(f)))
    texts.append(s2s.source(s2s.grad(s2s.grad(_sample_c))))
    _sample_a(x, ys)
    user = set()
    for f in (_sample_a, _sample_b, _sample_c):
        user |= {n.id for n in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(f)))) if isinstance(n, ast.Name)}
        user |= set(f.__code__.co_varnames)
    code_lines = [ln.split("#", 1)[0] for t in texts for ln in t.splitlines()]
    words = {w for ln in code_lines for w in _WORD.findall(re.sub(r"'[^']*'", "", ln))}
    attrs = {a for ln in code_lines for a in re.findall(r"\.([A-Za-z_]\w*)", ln)}
    keywords = {"def", "return", "for", "in", "if", "else", "elif", "while", "del", "not", "and", "or", "is",
                "None", "True", "False", "pass", "break", "continue", "lambda"}
    names = words - attrs - keywords - user - {"np", "s2s"}
    return sorted(names | GLOBALS | {"len", "range", "float", "int", "tuple", "list", "slice", "isinstance"})


NAMES = _generated_names()


def test_the_generated_names_include_the_runtime_and_companions():
    assert {"xp", "rt", "tape", "len", "range"} <= set(NAMES)
    assert any(n.startswith("b_") for n in NAMES) and any(n.startswith("t") and n[1:].isdigit() for n in NAMES)
    assert len(NAMES) >= 30


def _bound_names(fn_node) -> list[str]:
    out = {a.arg for a in ast.walk(fn_node) if isinstance(a, ast.arg)}
    out |= {n.id for n in ast.walk(fn_node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    out |= {n.name for n in ast.walk(fn_node) if isinstance(n, ast.FunctionDef) and n is not fn_node}
    return sorted(out)


def _parsed(fn):
    node = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    node.decorator_list = []
    return node


def _mappings() -> list[dict]:
    """For each corpus function, its bound names -> generated names, drawn round-robin over NAMES
    (so every generated name is drawn) and never a name the function reads from outside."""
    out, k, undrawn = [], 0, list(NAMES)
    for fn, _ in CORPUS:
        node = _parsed(fn)
        bound = _bound_names(node)
        free = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - set(bound)
        mapping: dict = {}
        for b in bound:
            # a name not drawn yet first (`range` fits only a function that never calls range)
            for cand in undrawn + [NAMES[(k + j) % len(NAMES)] for j in range(len(NAMES))]:
                if cand not in free and cand not in bound and cand not in mapping.values():
                    mapping[b] = cand
                    if cand in undrawn:
                        undrawn.remove(cand)
                    else:
                        k = NAMES.index(cand) + 1
                    break
        out.append(mapping)
    return out


MAPPINGS = _mappings()


def _renamed_source(fn, mapping: dict) -> str:
    """`fn`'s source with every name it binds renamed as `mapping` says."""
    node = _parsed(fn)
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in mapping:
            n.id = mapping[n.id]
        elif isinstance(n, ast.arg) and n.arg in mapping:
            n.arg = mapping[n.arg]
        elif isinstance(n, ast.FunctionDef) and n is not node and n.name in mapping:
            n.name = mapping[n.name]
    return ast.unparse(node)


def _load(tmp_path, name: str, body: str):
    path = tmp_path / f"{name}.py"
    path.write_text("import numpy as np\nimport corpus as _corpus\n\n"
                    "globals().update({k: v for k, v in vars(_corpus).items() if not k.startswith('__')})\n\n\n"
                    + body + "\n")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _close(a, b, tol):
    for p, q in zip(s2s.base.tree.tree_flatten(a)[0], s2s.base.tree.tree_flatten(b)[0]):
        np.testing.assert_allclose(p, q, rtol=tol, atol=tol)


IDS = [fn.__name__ for fn, _ in CORPUS]


@pytest.mark.parametrize("k", range(len(CORPUS)), ids=IDS)
def test_corpus_renamed_to_generated_names(tmp_path, k):
    fn, make_args = CORPUS[k]
    src = _renamed_source(fn, MAPPINGS[k])
    mod = _load(tmp_path, f"s2s_hygiene_{k}", src)
    renamed = getattr(mod, fn.__name__)
    args = make_args(np.random.default_rng(0))
    want = fn(*[np.copy(a) for a in args])
    _close(renamed(*[np.copy(a) for a in args]), want, 1e-15)  # the renaming itself is sound
    _close(s2s.jit(renamed)(*args), want, 1e-12)
    _close(s2s.grad(renamed)(*args), s2s.grad(fn)(*args), 1e-10)
    tangents = tuple(np.ones_like(a) if isinstance(a, np.ndarray) else 1.0 for a in args)
    _close(s2s.jvp(renamed, args, tangents), s2s.jvp(fn, args, tangents), 1e-10)
    check_grads(renamed, args, order=1, modes=("fwd", "rev"))


def test_every_generated_name_was_drawn():
    drawn = {n for m in MAPPINGS for n in m.values()}
    assert set(NAMES) - drawn == set()


def _one_per_family() -> list:
    """NAMES, each a parameter of the test below: one name per family of numbered names (`t0`,
    `t1`, ... `t20`: the lowest number, the one a small function's generated code surely writes) by
    default, the other numbers of the family with --full (CI runs both); every other name by default."""
    lowest: dict[str, str] = {}
    for name in NAMES:
        family, number = re.fullmatch(r"(.*?)(\d*)", name).groups()
        if number and (family not in lowest or int(number) < int(re.search(r"\d*$", lowest[family]).group())):
            lowest[family] = name
    return [pytest.param(n, id=n, marks=[pytest.mark.full] if re.search(r"\d$", n) and n not in lowest.values()
                         else []) for n in NAMES]


@pytest.mark.parametrize("name", _one_per_family())
def test_parameter_and_local_named_like_generated_code(tmp_path, name):
    body = textwrap.dedent(f"""
        def helper(v, {name}=2.0):
            return v * {name} + np.sin(v)


        def f(x, {name}):
            acc = x * 1.0
            i = 0
            while i < 2:
                acc = acc + np.tanh(acc * {name}) + helper(acc, {name}=0.5)
                i = i + 1
            lst = [acc, x]
            out = np.sum(np.stack(lst) ** 2)
            if out > 0.0:
                out = out * np.exp(0.1 * {name})
            return out


        def g(x):
            {name} = x * 2.0
            {name} = np.exp(0.3 * {name}) + {name}
            return np.sum({name} ** 2)
        """)
    mod = _load(tmp_path, f"s2s_hygiene_name_{name}", body)
    x, s = np.array([0.3, -0.4, 0.8]), 0.7
    check_grads(mod.f, (x, s), order=1, modes=("fwd", "rev"))
    check_grads(mod.g, (x,), order=2, modes=("fwd", "rev"))
    np.testing.assert_allclose(s2s.jit(mod.f)(x, s), mod.f(x, s), rtol=1e-13)
    np.testing.assert_allclose(s2s.jit(mod.g)(x), mod.g(x), rtol=1e-13)
    np.testing.assert_allclose(s2s.vmap(mod.g)(np.stack([x, -x])), [mod.g(x), mod.g(-x)], rtol=1e-13)
    np.testing.assert_allclose(s2s.grad(mod.f, argnums=1)(x, s), s2s.grad(lambda t: mod.f(x, t))(s), rtol=1e-12)
