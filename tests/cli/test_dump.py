"""`python -m s2s dump` prints a complete module (issue 8, family 6): imports, the constants and
globals the generated code reads, the functions; it runs on its own and computes what the
transform computes."""
import ast
import os
import subprocess
import sys

import golden_funcs
import numpy as np
import pytest
from paths import ROOT, SUPPORT
from test_golden import EXAMPLES

import s2s
from s2s.api.sources import dump_source
from s2s.base import record
from s2s.base.tree import tree_leaves

HERE = str(SUPPORT)
RNG = np.random.default_rng(3)
INPUTS = {
    "linear_mse": ((RNG.standard_normal(3), 0.3), RNG.standard_normal((4, 3)), RNG.standard_normal(4)),
    "logistic_sum": (RNG.standard_normal(5),),
    "clipped_newton": (2.0, 10.0),
    "tanh_layer": (RNG.standard_normal((3, 3)), RNG.standard_normal(3)),
    "poly_sum": (RNG.standard_normal(3), RNG.standard_normal(4)),
}

W = np.array([[0.5, -1.0], [2.0, 0.25]])
SCALE = np.sqrt(2.0)
NEG_ZERO = -0.0
NAN = float("nan")


def reads_globals(x):
    h = np.tanh(W @ x) * SCALE + NEG_ZERO
    return np.sum(h * h) + np.where(np.isnan(NAN), 1.5, 2.0) * np.sum(x)


def exec_dump(text, tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    ns = {"__name__": name}
    exec(compile(text, str(path), "exec"), ns)
    return ns


def close(a, b):
    for u, v in zip(tree_leaves(a), tree_leaves(b), strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-14)


def reference(fn, transform, argnums, args):
    kwargs = {} if argnums is None else {"argnums": argnums}
    if transform == "vjp":
        out, vjp_fn = s2s.vjp(fn, *args)
        return out, vjp_fn(np.ones_like(out))
    if transform == "jvp":
        return s2s.jvp(fn, args, tuple(np.ones_like(a) for a in args))
    return getattr(s2s, transform)(fn, **kwargs)(*args)


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_dump_of_golden_example_runs_and_matches_the_transform(example, tmp_path):
    fname, transform, argnums = EXAMPLES[example]
    fn = getattr(golden_funcs, fname)
    args = INPUTS[fname]
    ns = exec_dump(dump_source(fn, transform, argnums), tmp_path, example)
    if transform == "vjp":
        out, saved = ns[f"fwd_{fname}"](*args)
        got = (out, tuple(c for c in ns[f"bwd_{fname}"](saved, np.ones_like(out)) if c is not None))
    elif transform == "jvp":
        got = ns[f"jvp_{fname}"](*args, *(np.ones_like(a) for a in args))
    else:
        got = ns[f"{transform}_{fname}"](*args)
    close(got, reference(fn, transform, argnums, args))


def test_dump_defines_the_globals_it_reads(tmp_path):
    x = np.array([0.3, -0.8])
    for transform in ("grad", "vjp", "jit"):
        text = dump_source(reads_globals, transform)
        assert "import numpy as xp" in text and "from s2s import runtime as rt" in text
        ns = exec_dump(text, tmp_path, f"globals_{transform}")
        if transform == "grad":
            close(ns["grad_reads_globals"](x), s2s.grad(reads_globals)(x))
        if transform == "jit":
            close(ns["jit_reads_globals"](x), reads_globals(x))


def test_dumped_file_runs_with_python(tmp_path):
    out = subprocess.run([sys.executable, "-m", "s2s", "dump", "golden_funcs.py:poly_sum"], cwd=HERE,
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith('"""s2s grad of poly_sum (golden_funcs.py)')
    assert HERE not in out.stdout  # no machine paths: the header is relative to the current directory
    path = tmp_path / "dumped.py"
    path.write_text(out.stdout)
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 0, run.stderr


def smooth(x, a):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = a * y[i - 1] + (1.0 - a) * x[i]
    return y


def test_dump_of_jit_with_a_loop_kernel_runs_the_loop(tmp_path):
    """A loop kernel (with numba) is written out as the Python loop it replaced."""
    x = RNG.standard_normal(600)
    ns = exec_dump(dump_source(smooth, "jit"), tmp_path, "smooth_jit")
    np.testing.assert_array_equal(ns["jit_smooth"](x, 0.9), smooth(x, 0.9))


def test_source_shows_every_generated_function_the_transformed_one_calls():
    """s2s.source(hessian(f)) is the whole generated program: the wrapper first, then each
    generated function it reaches (by any name it calls it by), defined once."""
    h = s2s.hessian(golden_funcs.poly_sum, argnums=1)
    text = s2s.source(h)
    tree = ast.parse(text)
    defined = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    root = record.generated(h)
    assert defined[0] == root.__name__ and len(defined) == len(set(defined)) > 1
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    for name in called:
        v = root.__globals__.get(name)
        rec = record.of(v)
        if rec is not None:  # a generated function, under its own name or another
            target = rec.target() if rec.lazy else v
            assert target.__name__ in defined, name
    c, x = INPUTS["poly_sum"]
    eps = 1e-6
    cd = np.stack([(s2s.grad(golden_funcs.poly_sum, argnums=1)(c, x + eps * e)
                    - s2s.grad(golden_funcs.poly_sum, argnums=1)(c, x - eps * e)) / (2 * eps) for e in np.eye(len(x))])
    np.testing.assert_allclose(h(c, x), cd, rtol=1e-6, atol=1e-8)
