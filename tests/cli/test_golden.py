"""Golden files: the generated gradient source of a few examples, byte-identical from run to run.

Run with ``S2S_UPDATE_GOLDEN=1`` to rewrite the files in tests/golden/ from the current compiler.
The header line of generated source names the file the function came from; its absolute path is
replaced by ``<golden_funcs.py>`` so the files do not depend on where the checkout lives.
"""

import os
import subprocess
import sys

import golden_funcs
import numpy as np
import pytest
from paths import GOLDEN, ROOT, SUPPORT

import s2s
from s2s.api.sources import transformed_source

HERE = str(SUPPORT)
GOLDEN_DIR = str(GOLDEN)
PLACEHOLDER = "<golden_funcs.py>"
UPDATE = os.environ.get("S2S_UPDATE_GOLDEN") == "1"

# name -> (function name in golden_funcs, transform, argnums); the text is what `python -m s2s dump`
# prints: the transformed function and every generated function it calls.
EXAMPLES = {
    "linear_mse_grad": ("linear_mse", "grad", None),
    "logistic_sum_grad": ("logistic_sum", "grad", None),
    "clipped_newton_grad": ("clipped_newton", "grad", (0, 1)),
    "tanh_layer_jvp": ("tanh_layer", "jvp", None),
    "tanh_layer_vjp": ("tanh_layer", "vjp", None),
    "tanh_layer_jacrev": ("tanh_layer", "jacrev", 1),
    "tanh_layer_jit": ("tanh_layer", "jit", None),
    "poly_sum_loop_callee_grad": ("poly_sum", "grad", None),
}


def normalize(text: str, path: str) -> str:
    """The generated source with the absolute path of golden_funcs.py replaced by a placeholder."""
    return text.replace(path, PLACEHOLDER).replace(os.path.relpath(path), PLACEHOLDER)


def func_path(fn) -> str:
    return fn.__code__.co_filename


def generated(name: str) -> str:
    fname, transform, argnums = EXAMPLES[name]
    fn = getattr(golden_funcs, fname)
    return normalize(transformed_source(fn, transform, argnums), func_path(fn))


def golden_path(name: str) -> str:
    return os.path.join(GOLDEN_DIR, name + ".txt")


def read_golden(name: str) -> str:
    with open(golden_path(name), encoding="utf-8", newline="") as f:
        return f.read()


# A fresh interpreter prints the normalized source of every example, separated by a marker line.
_SUBPROCESS_SCRIPT = r"""
import os
import sys
sys.path.insert(0, {here!r})
import golden_funcs
from s2s.api.sources import transformed_source
for fname, transform, argnums in {examples!r}:
    fn = getattr(golden_funcs, fname)
    path = fn.__code__.co_filename
    text = transformed_source(fn, transform, argnums).replace(path, {placeholder!r})
    text = text.replace(os.path.relpath(path), {placeholder!r})
    sys.stdout.write(text)
    sys.stdout.write("\n=====8<=====\n")
"""


def fresh_process_sources(hash_seed: str) -> list[str]:
    script = _SUBPROCESS_SCRIPT.format(here=HERE, examples=list(EXAMPLES.values()), placeholder=PLACEHOLDER)
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    env.pop("S2S_UPDATE_GOLDEN", None)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                         cwd=str(ROOT), timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    parts = out.stdout.split("\n=====8<=====\n")
    assert parts[-1] == ""
    return parts[:-1]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_generated_source_matches_golden_file(name):
    text = generated(name)
    if UPDATE:
        os.makedirs(GOLDEN_DIR, exist_ok=True)
        with open(golden_path(name), "w", encoding="utf-8", newline="") as f:
            f.write(text)
    assert os.path.exists(golden_path(name)), f"missing {golden_path(name)}; run with S2S_UPDATE_GOLDEN=1"
    want = read_golden(name)
    assert text == want, f"generated source of {name} differs from {golden_path(name)}:\n{text}"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_golden_file_is_normalized(name):
    want = read_golden(name)
    assert PLACEHOLDER in want.splitlines()[0]
    assert HERE not in want
    first = {"vjp": "forward sweep"}.get(EXAMPLES[name][1], EXAMPLES[name][1])
    assert want.startswith(f"# s2s: {first} of ")
    assert want.endswith("\n")


def test_two_fresh_processes_generate_identical_text():
    first = fresh_process_sources("0")
    second = fresh_process_sources("12345")
    assert len(first) == len(EXAMPLES)
    assert first == second
    for name, text in zip(EXAMPLES, first):
        assert text == read_golden(name), f"fresh process output for {name} differs from the golden file"


def test_generating_twice_in_process_is_identical():
    for name in EXAMPLES:
        assert generated(name) == generated(name)


def _exec_golden(name: str) -> object:
    """Run the golden text itself as code: it must be valid Python computing the gradient."""
    ns = {"xp": np, "rt": __import__("s2s.runtime", fromlist=["runtime"])}
    exec(compile(read_golden(name), f"<golden:{name}>", "exec"), ns)  # noqa: S102
    fname = "grad_" + EXAMPLES[name][0]
    return ns[fname]


def test_golden_linear_mse_computes_gradient():
    rng = np.random.default_rng(0)
    x, w, b, y = rng.standard_normal((6, 3)), rng.standard_normal((3, 2)), rng.standard_normal(2), \
        rng.standard_normal((6, 2))
    r = 2.0 * (x @ w + b - y) / y.size
    for g in (s2s.grad(golden_funcs.linear_mse), _exec_golden("linear_mse_grad")):
        gw, gb = g((w, b), x, y)
        np.testing.assert_allclose(gw, x.T @ r, rtol=1e-12)
        np.testing.assert_allclose(gb, r.sum(axis=0), rtol=1e-12)


def test_golden_logistic_sum_computes_gradient():
    x = np.linspace(-3.0, 3.0, 7)
    s = 1.0 / (1.0 + np.exp(-x))
    for g in (s2s.grad(golden_funcs.logistic_sum), _exec_golden("logistic_sum_grad")):
        np.testing.assert_allclose(g(x), s * (1.0 - s), rtol=1e-12)


def test_golden_clipped_newton_computes_gradient():
    from s2s.test_util import check_grads

    for a, cap in ((2.0, 10.0), (9.0, 4.0)):  # the cap is inactive, then active in the first steps
        check_grads(golden_funcs.clipped_newton, (a, cap), order=1, modes=("rev",))
        want = s2s.grad(golden_funcs.clipped_newton, argnums=(0, 1))(a, cap)
        got = _exec_golden("clipped_newton_grad")(a, cap)
        np.testing.assert_allclose(got, want, rtol=1e-12)
