"""Coverage of NumPy: every operation s2s.numpy exports has rules (or is declared without
derivative), every differentiable one is in the sweep's spec table, `python -m s2s ops` reports
them, docs/operations.md's table is its output, and the no-derivative operations are recognized."""
import json
import math
import subprocess
import sys

import numpy as np
from op_specs import SPECS
from paths import ROOT

import s2s
import s2s.numpy as jnp
from s2s.api import ops_table
from s2s.compiler.frontend.resolve import prim_key
from s2s.compiler.primitives import registry
from s2s.test_util import check_grads


def test_every_exported_operation_has_rules_or_is_declared_without_derivative():
    missing = []
    for name in jnp.__all__:
        key = prim_key(getattr(jnp, name))
        if key is None:
            continue  # constants and dtypes
        p = registry.PRIMS[key]
        if not p.nondiff and not (ops_table._has(p, "vjp") and ops_table._has(p, "jvp")):
            missing.append(name)
    assert not missing, f"exported without VJP and JVP rules, and not declared nondiff: {missing}"


# finite differences cannot resolve a float32 cast; tested by hand below. NumPy 2's unique_counts,
# unique_inverse and unique_all refuse a derivative (tests/ops/test_set_operations.py)
NOT_SWEPT = {"float32", "unique_counts", "unique_inverse", "unique_all"}


def test_every_differentiable_function_is_in_the_sweep():
    swept = {sp.op for sp in SPECS} | NOT_SWEPT
    rows = ops_table.operations()
    unswept = [r["name"] for r in rows if r["kind"] == "function" and r["differentiable"]
               and r["name"][3:] not in swept]
    assert not unswept, f"differentiable operations with no spec in tests/support/op_specs.py: {unswept}"


def test_every_spec_names_an_operation():
    names = {r["name"][3:] for r in ops_table.operations() if r["kind"] == "function"}
    extra = {"add__operator", "div__operator", "getitem", "copy__method", "cumprod__method"}
    assert {sp.op for sp in SPECS} - names - {e.split("__")[0] for e in extra} == set()
    assert {sp.category for sp in SPECS} <= {"elementwise", "reduction", "linalg", "shape", "indexing", "creation"}


def test_ops_command_counts_and_lists():
    out = subprocess.run([sys.executable, "-m", "s2s", "ops", "--json"], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    rows = data["operations"]
    assert data["summary"]["operations"] == len(rows)
    assert data["summary"]["differentiable_with_vjp_and_jvp"] >= 200
    byname = {r["name"]: r for r in rows}
    assert byname["np.einsum"]["vjp"] and byname["np.einsum"]["jvp"] and byname["np.einsum"]["differentiable"]
    assert byname["np.argmax"]["differentiable"] is False
    assert byname["ndarray.diagonal"]["vjp"]
    assert all(r["batch"] for r in rows)  # every operation batches under vmap (some by a loop)
    assert not byname["np.exp"]["batch_loop"] and not byname["np.sum"]["batch_loop"]
    assert data["summary"]["batched_by_loop"] == sum(r["batch_loop"] for r in rows)
    text = subprocess.run([sys.executable, "-m", "s2s", "ops"], capture_output=True, text=True, check=True).stdout
    assert f"{len(rows)} operations" in text.splitlines()[-1]


def test_docs_table_is_the_ops_output():
    page = (ROOT / "docs" / "operations.md").read_text()
    assert ops_table.markdown(ops_table.operations()) in page, \
        "docs/operations.md's coverage table is stale: regenerate it with `python tools/docs_check.py --write`"


def uses_nondiff(x):
    k = np.argmax(x) + np.argmin(x) + np.sum(np.argsort(x)) + np.searchsorted(np.sort(x), 0.0)
    k = k + np.count_nonzero(x > 0) + np.unique(np.round(x)).size + np.sum(np.sign(x))
    k = k + np.sum(np.isnan(x)) + np.sum(np.isfinite(x)) + np.shape(x)[0] + np.size(x) + np.ndim(x)
    k = k + np.sum(np.floor(x)) + np.sum(np.ceil(x)) + np.sum(np.fix(x)) + np.sum(np.trunc(x))
    k = k + np.sum(np.logical_and(x > 0, x < 1)) + len(np.nonzero(x > 0)[0]) + np.sum(x.argsort())
    return np.sum(x * x) + k


def test_operations_without_derivative_are_recognized_and_contribute_zero():
    x = np.array([0.3, -1.2, 2.5, 0.7])
    np.testing.assert_allclose(s2s.grad(uses_nondiff)(x), 2 * x)
    _, tangent = s2s.jvp(uses_nondiff, (x,), (np.ones(4),))
    np.testing.assert_allclose(tangent, np.sum(2 * x))


def max_of(x):
    return np.max(x) + np.ptp(x)


def test_ties_split_evenly_as_in_jax():
    x = np.array([1.0, 3.0, 3.0, -2.0, -2.0, 0.0])
    # max: 3 is attained twice, each gets 1/2; ptp = max - min: min -2 attained twice
    np.testing.assert_allclose(s2s.grad(max_of)(x), [0, 1.0, 1.0, -0.5, -0.5, 0])


def inner_2d(a, b):
    return np.sum(np.inner(a, b) ** 2)


def test_inner_of_two_matrices_in_reverse_mode():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((2, 4))
    ga, gb = s2s.grad(inner_2d, argnums=(0, 1))(a, b)
    c = a @ b.T
    np.testing.assert_allclose(ga, 2 * c @ b)
    np.testing.assert_allclose(gb, 2 * c.T @ a)


def cast32(x):
    return np.sum(np.float32(x) * 3.0)


def test_float32_cast_passes_the_derivative_through():
    np.testing.assert_allclose(s2s.grad(cast32)(np.array([1.0, 2.0])), [3.0, 3.0])


def math_and_builtins(x, y):
    a = math.exp(x) + math.log(x) + math.sin(x) + math.cos(x) + math.tan(x) + math.tanh(x) + math.sqrt(x)
    a = a + math.fabs(y) + math.sinh(x) + math.cosh(x) + math.asin(x - 1.0) + math.acos(x - 1.0)
    a = a + math.atan(y) + math.log1p(x) + math.expm1(y) + math.log2(x) + math.log10(x) + math.atan2(y, x)
    b = abs(y) + float(x) + max(x, y) + min(x, y) + sum([x, y, x * y])
    return a * b + math.floor(x) + math.ceil(y) + len([x, y]) + int(x > 0)


def test_math_functions_and_builtins_at_order_2():
    check_grads(math_and_builtins, (1.3, -0.4), order=2, modes=("fwd", "rev"))


def pad_mean(x):
    return np.sum(np.pad(x, 1, mode="mean"))


def diff_prepend(x):
    return np.sum(np.diff(x, prepend=1.0) ** 2)


def test_diff_with_prepend_is_differentiated():
    """(It was refused until np.diff's prepend= became the diff of the joined array.)"""
    x = np.array([1.0, 2.0, 4.0])
    d = np.diff(x, prepend=1.0)
    np.testing.assert_allclose(s2s.grad(diff_prepend)(x), 2 * (d - np.append(d[1:], 0.0)))


def test_unsupported_arguments_are_errors_not_wrong_numbers():
    x = np.array([1.0, 2.0, 4.0])
    for fn in (pad_mean,):
        try:
            s2s.grad(fn)(x)
        except s2s.S2SError as e:
            assert "s2s differentiates np." in str(e)
        else:
            raise AssertionError(f"{fn.__name__}: expected an S2SError")
