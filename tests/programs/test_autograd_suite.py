"""autograd's own test suite (v1.9.1, vendored unmodified in programs/foreign/autograd/tests), run
on s2s: `import autograd` points at s2s (`s2s.compat.autograd.alias_autograd`, loaded by the pytest
plugin `support/autograd_suite_plugin.py`), so every `grad`, `check_grads` and `autograd.numpy`
call in it is s2s's. The suite runs once (once per part, below), in a pytest subprocess (not under xdist, no cache),
reporting to a JUnit XML file; then each of its test functions is one test here, which passes
when all of that function's cases passed (so the first test of a part to run takes the whole
part's time, about a minute of CPU for the default one, and the others none).

The sweeps of one check over many operations (SAMPLED: test_systematic, test_numpy, ...) run half
their test functions by default, chosen by a hash of the name (the same ones on every run; the
costliest, HEAVY, always in the other half), and the other half under the `full` marker (--full
or -m full; CI runs both), each half in its own run of the suite; every other module runs whole
by default.

A test in EXCLUDED is expected to fail (strict xfail, so a test that starts passing fails the run
until its entry is removed): each names why, either autograd's tracer internals, which s2s has no
counterpart of, or a feature s2s refuses with the S2SError named. Nothing is skipped."""
from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest

# one worker runs the suite once (.ci/run: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_autograd_suite")

SUITE = Path(__file__).resolve().parent / "foreign" / "autograd" / "tests"
ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "tests" / "support"

TRACER = "autograd's tracer internals, with no s2s counterpart"
COMPLEX = ("complex numbers: s2s.compat.autograd's check_grads refuses complex arguments (`complex arguments are "
           "not supported`), and the rules of norms and factorizations take no conjugates; the test's real cases, "
           "checked first, pass")
AG_ONLY = "autograd's own API, not NumPy's"
ORDER1 = ("grad of an output of shape (1,) or (1, 1) inside a transformed function: s2s keeps JAX's rule there "
          "(S2STypeError: grad requires a scalar output)")

# "file.py" for a whole module, "file.py::test_name" for one test function (None: not excluded)
EXCLUDED: dict[str, str | None] = {
    "test_vspaces.py": f"{TRACER}: autograd.core.vspace (VSpace)",
    "test_logic.py": f"{TRACER}: imports autograd.core.primitive_vjps, autograd's table of VJP rules",
    "test_misc.py::test_const_graph": f"{TRACER}: counts how often const_graph replays its recorded graph",
    "test_misc.py::test_const_graph_args": f"{TRACER}: the order const_graph traces primitives in",
    "test_wrappers.py::test_deprecated_defgrad_wrapper": f"{TRACER}: autograd.core.primitive (deprecated API)",
    "test_wrappers.py::test_deprecated_defvjp_is_zero_wrapper": f"{TRACER}: autograd.core.primitive (deprecated API)",
    "test_wrappers.py::test_deprecated_defvjp_wrapper": f"{TRACER}: autograd.core.primitive (deprecated API)",
    "test_wrappers.py::test_deprecated_quick_grad_check_wrapper": f"{TRACER}: autograd.util (deprecated API)",
    "test_wrappers.py::test_wrapped_name_and_docs": "compares autograd's own docstrings",
    "test_numpy.py::test_scalar_array_box_attributes": ("autograd's ArrayBox shows a Python float as a 0-d array; s2s "
                                                        "passes floats as they are (AttributeError: .shape)"),
    "test_fft.py": ("np.fft's functions of the tests return complex arrays (or take them): s2s differentiates "
                   "real values through complex intermediates (docs/operations.md#npfft) and refuses complex "
                   "results and arguments (`a complex value reached the derivative`, `complex arguments are not "
                   "supported`)"),
    "test_fft.py::test_rfftn_odd_not_implemented": ("autograd refuses rfftn of an odd last length "
                                                    "(NotImplementedError); s2s computes it, and refuses its complex "
                                                    "result"),
    # (a real value between complex ones takes the real part of its cotangent, as JAX's: issue 45)
    **{f"test_fft.py::test_{n}": None for n in (
        "fftshift", "fftshift_even", "fftshift_axes", "ifftshift", "ifftshift_even", "ifftshift_axes", "fft",
        "fft_ortho", "fft_axis", "fft_n_smaller", "fft_n_bigger", "ifft_n_smaller", "ifft_n_bigger", "rfft_n_smaller",
        "rfft_n_bigger", "fft2_s", "ifft2_s", "fftn_s", "ifftn_s", "rfft2_s", "rfftn_s", "ifft", "fft2", "ifft2",
        "fftn", "ifftn", "rfft", "rfft_ortho", "rfft_axes", "rfft2", "rfftn", "rfftn_subset", "rfftn_axes")},
    "test_systematic.py::test_msort": "defined only for NumPy < 2 (np.msort is gone): not run here",
    "test_complex.py::test_angle_complex": COMPLEX,
    "test_complex.py::test_abs_complex": COMPLEX,
    "test_graphs.py::test_complex_separate_real_and_imaginary": COMPLEX,
    **{f"test_linalg.py::test_{n}": COMPLEX for n in (
        "eig_batched", "eig_complex", "eigvalh_lower_complex", "eigvalh_upper_complex", "frobenius_norm_axis_complex",
        "frobenius_norm_complex", "norm_axis_complex", "norm_nuclear_axis_complex", "norm_nuclear_complex",
        "svd_only_s_2d_complex", "svd_only_s_3d_complex", "svd_square_2d_complex", "svd_square_3d_complex",
        "svd_tall_2d_complex", "svd_tall_3d_complex", "svd_wide_2d_complex", "svd_wide_3d_complex",
        "vector_2norm_complex", "vector_norm_ord_complex")},
    **{f"test_scipy.py::test_{n}": COMPLEX for n in ("erf", "erfc")},
    **{f"test_systematic.py::test_{n}": COMPLEX for n in (
        "abs", "absolute", "add", "angle", "arccosh", "arcsinh", "arctanh", "conj", "conjugate", "cos", "cosh", "dot",
        "einsum_matmult", "exp", "exp2", "expm1", "imag", "kron", "log", "log10", "log1p", "log2", "matmul", "max",
        "mean", "min", "op_add", "op_mul", "op_sub", "outer", "prod", "real", "sin", "sinh", "sqrt", "std", "sum",
        "tan", "tanh", "tensordot_1", "var")},
    **{f"test_graphs.py::test_singleton_array_output{n}": ORDER1
       for n in ("", "_axis0", "_axis0_keepdims", "_axis1", "_axis1_keepdims")},
    "test_scipy.py::test_logsumexp6": ORDER1,
    "test_linalg.py::test_eig_real": "S2SSyntaxError: np.linalg.eig (complex eigenvectors) has no derivative rule",
    "test_linalg.py::test_pinv": f"{AG_ONLY}: autograd.numpy.linalg._dot and .T (private helpers); its pinv cases pass",
    "test_wrappers.py::test_custom_where": f"{AG_ONLY}: np.where(condition=..., x=..., y=...) by keyword",
    "test_wrappers.py::test_custom_where_dtypes": f"{AG_ONLY}: np.where's result dtypes for Python scalars",
    "test_systematic.py::test_real_ic": COMPLEX,
    "test_scipy.py::test_sqrtm": ("S2SError: scipy.linalg.sqrtm of the suite's random symmetric matrix, which has a "
                                  "negative eigenvalue: its root is complex, and s2s computes real values only"),
    "test_scipy.py::test_odeint": ("odeint called through check_grads now runs (its func bound in a global tuple); "
                                   "its check at order 2 differentiates the adjoint VJP, which s2s refuses (SciPy "
                                   "integrates it: S2SSyntaxError `_adjoint` ... first order only), and at order 1 the "
                                   "adjoint and central differences of SciPy's solution differ by ~1e-5 (its default "
                                   "rtol/atol), over the 1e-5 check"),
    **{f"test_ufunc_dispatch.py::test_grad_through_{n}": "xarray is not installed: skipped by autograd's own skipif "
       "(a skip is not a pass)" for n in (
           "box_times_dataarray_holding_box", "dataarray_array_valued_box", "dataarray_binary_ufunc",
           "dataarray_box_plus_plain_dataarray", "dataarray_box_times_plain_ndarray",
           "dataarray_box_times_python_scalar", "dataarray_division", "dataarray_exp", "dataarray_maximum",
           "dataarray_reversed_operand", "dataarray_transcendental_ufunc", "dataarray_unary_ufunc",
           "two_dataarrays_holding_boxes")},
}
def _functions(body: list) -> list[str]:
    """Names of the test functions defined at module level (also inside if/try/with blocks)."""
    names = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            names.append(node.name)
        for field in ("body", "orelse", "finalbody", "handlers"):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names += _functions(getattr(node, field, []))
    return names


def _test_ids() -> list[str]:
    """`file.py::test_name` for every test function of the suite, read from its source."""
    return [f"{path.name}::{name}" for path in sorted(SUITE.glob("test_*.py"))
            for name in dict.fromkeys(_functions(ast.parse(path.read_text()).body))]


# modules that apply one check (check_grads, combo_check) to many operations: half of each by default
SAMPLED = {"test_systematic.py", "test_numpy.py", "test_scipy.py", "test_linalg.py", "test_scalar_ops.py",
           "test_binary_ops.py", "test_fft.py"}


# test functions of a sampled module that go to the full part whatever their hash: test_cross checks
# one operation, np.cross, with 108 combinations of its axis keywords (each a compilation: a sixth
# of the slice's time); s2s's own sweeps (op_specs, rule helpers) check cross's rule by default
HEAVY = {"test_systematic.py::test_cross"}


def _part(test_id: str) -> str:
    """"slice" (run by default) or "full" (the rest, under the `full` marker): fixed by the name."""
    sampled = test_id.split("::")[0] in SAMPLED and (zlib.crc32(test_id.encode()) % 2 == 1 or test_id in HEAVY)
    return "full" if sampled else "slice"


def _reason(test_id: str) -> str | None:
    """Why `test_id` is excluded (its own entry first, None there for one its module's entry
    does not cover), or None."""
    return EXCLUDED[test_id] if test_id in EXCLUDED else EXCLUDED.get(test_id.split("::")[0])


@functools.cache
def _outcomes(part: str) -> tuple[dict[str, list[tuple[str, str]]], str]:
    """Each test function's cases as (outcome, message), and each module's collection error, from
    one run of the suite's `part` (its test functions only); with the run's last lines, for a run
    that reported nothing."""
    with tempfile.TemporaryDirectory() as tmp:
        ini, report, only = Path(tmp) / "pytest.ini", Path(tmp) / "report.xml", Path(tmp) / "only.txt"
        ini.write_text("[pytest]\n")
        ids = [t for t in _test_ids() if _part(t) == part]
        only.write_text("\n".join(ids))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(SUPPORT), os.environ.get("PYTHONPATH", "")]),
                   AUTOGRAD_SUITE_ONLY=str(only))
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "autograd_suite_plugin", "-p", "no:cacheprovider",
               "-p", "no:xdist", "-c", str(ini), "--rootdir", str(SUITE), "--confcutdir", str(SUITE),
               "--continue-on-collection-errors", "--junitxml", str(report), "-W", "ignore",
               *dict.fromkeys(t.split("::")[0] for t in ids)]
        run = subprocess.run(cmd, cwd=SUITE, env=env, capture_output=True, text=True, timeout=1200)
        cases: dict[str, list[tuple[str, str]]] = {}
        if report.exists():
            for case in ET.parse(report).iter("testcase"):
                module, name = case.get("classname", ""), case.get("name", "")
                key = f"{module}.py::{name.split('[')[0]}" if module else f"{name}.py"
                outcome, message = "passed", ""
                for child in case:
                    if child.tag in ("failure", "error", "skipped"):
                        outcome, message = child.tag, (child.get("message") or "") + "\n" + (child.text or "")
                cases.setdefault(key, []).append((outcome, message))
    return cases, (run.stdout + run.stderr)[-3000:]


def _marks(test_id: str) -> list:
    return ([pytest.mark.xfail(strict=True, reason=_reason(test_id))] if _reason(test_id) else []) \
        + ([pytest.mark.full] if _part(test_id) == "full" else [])


@pytest.mark.parametrize("test_id", [pytest.param(t, marks=_marks(t)) for t in _test_ids()])
def test_autograd_suite(test_id):
    cases, tail = _outcomes(_part(test_id))
    module = test_id.split("::")[0]
    for outcome, message in cases.get(module, []):  # the module failed to import
        pytest.fail(f"{module} could not be collected: {message[:2000]}")
    mine = cases.get(test_id)
    assert mine, f"{test_id} did not run; the suite's last output:\n{tail}"
    bad = [(o, m) for o, m in mine if o != "passed"]
    assert not bad, f"{len(bad)} of {len(mine)} cases of {test_id}: {bad[0][0]}: {bad[0][1][:3000]}"


def test_the_slice_runs_every_module_and_half_of_each_sampled_one():
    """The default slice keeps a test of every module (every sampled one too), and about half of
    each sampled module's test functions."""
    ids = _test_ids()
    assert {t.split("::")[0] for t in ids if _part(t) == "slice"} == {t.split("::")[0] for t in ids}
    for module in SAMPLED:
        mine = [t for t in ids if t.startswith(module + "::")]
        assert 0.3 * len(mine) <= sum(_part(t) == "slice" for t in mine) <= 0.7 * len(mine), module
