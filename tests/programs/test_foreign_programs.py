"""JAX's eight example programs and autograd's examples, unmodified (tests/programs/foreign), run
on s2s with only their imports pointed at it (tests/support/foreign_harness.py), print the
numbers the real library prints: every number of the run's output (timings aside) against the
float64 reference recorded from JAX 0.10 / autograd 1.9 by tools/foreign_reference.py, and, when
the library is installed here (`pip install -e '.[peers]'`), against a live run of it too.

A program that stops at something s2s does not offer yet is an expected failure naming what is
missing (strict: the test fails once it runs, so the entry is removed when the feature lands).
"""
import importlib.metadata
import importlib.util
import sys

import foreign_harness as harness
import numpy as np
import pytest
from paths import TOOLS

# what each program that does not run yet stops at; "funcs" and "scipy" name the work under way
# on those branches (issue 28's "Functions as values" and s2s.scipy)
SCIPY = "s2s.scipy (issue 28, scipy branch): "
FUNCS = "functions as values (issue 28, funcs branch): "
GAPS = {
}


# programs whose real-library run is not recorded yet (several run for minutes on 2 cores):
# `python tools/foreign_reference.py autograd NAME` records one; until then the program's test
# cannot compare and is an expected failure that says so
UNRECORDED = "no reference recorded yet (python tools/foreign_reference.py {lib} {name})"


def _cases():
    for lib, names in harness.PROGRAMS.items():
        recorded = harness.reference(lib)
        for name in names:
            reason = GAPS.get((lib, name)) if name in recorded else UNRECORDED.format(lib=lib, name=name)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(lib, name, marks=marks, id=f"{lib}-{name}")


# how close a run's numbers are to the reference's: both are float64 runs of the same
# arithmetic in another order, through training loops that amplify rounding a little
RTOL, ATOL = 1e-6, 1e-9


# long stochastic optimizations where a rounding difference grows exponentially: the two runs
# agree to 1e-10 for the first 1000 numbers, 5e-9 by 2000, then part (neural_net_regression: 1.2e-6
# at two numbers near the end; rnn: 1e-16, 1e-13, 2e-9, 1e-5 at iterations 10, 20, 30, 40; lstm:
# 2e-12 by iteration 90, 2e-2 by 190). Their first numbers are compared at RTOL (a wrong derivative
# shows at the first iterations), the rest counted
CHAOTIC = {("autograd", "neural_net_regression"): 1900, ("autograd", "rnn"): 8, ("autograd", "lstm"): 20}


def _compare(got, want, what, first=None):
    assert len(got) == len(want), f"{what}: printed {len(got)} numbers, the reference {len(want)}"
    np.testing.assert_allclose(got[:first], want[:first], rtol=RTOL, atol=ATOL, err_msg=what)


@pytest.mark.parametrize("lib, name", _cases())
def test_program_prints_the_real_librarys_numbers(lib, name):
    ref = harness.reference(lib)[name]
    only = harness.ONLY.get((lib, name))
    if "error" in ref:  # the real library stops too: s2s must stop with the same kind of error
        with pytest.raises(Exception) as err:
            harness.run(lib, name, "s2s")
        assert type(err.value).__name__ == ref["error"].split(":")[0]
        return
    out = harness.run(lib, name, "s2s")
    got = harness.numbers(out, only)
    if not ref["numbers"]:  # a program that prints only text (bayesian_optimization): the same text
        assert out == ref["stdout"], f"{lib}/{name}: printed other text than the reference"
        return
    assert got, f"{lib}/{name} printed no numbers"
    first = CHAOTIC.get((lib, name))
    _compare(got, ref["numbers"], f"{lib}/{name} against the recorded reference", first)
    if _installed(lib):
        sys.path.insert(0, str(TOOLS))
        import foreign_reference
        live = foreign_reference.record(lib, name)
        _compare(got, live["numbers"], f"{lib}/{name} against {live['library']} run now", first)


def _installed(lib: str) -> bool:
    """Whether the real library is installed (its distribution, not a module of that name)."""
    try:
        importlib.metadata.version(lib)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def test_references_are_float64_runs_of_every_program():
    for lib, names in harness.PROGRAMS.items():
        ref = harness.reference(lib)
        assert set(ref) <= set(names), f"reference/{lib}.json holds programs tests/programs/foreign lacks"
        for name in ref:
            assert ref[name]["library"].startswith(lib + " ")
            assert "error" in ref[name] or np.array_equal(ref[name]["numbers"], harness.numbers(
                ref[name]["stdout"], harness.ONLY.get((lib, name))), equal_nan=True)


def test_numbers_leave_out_timings_and_dtypes():
    text = "Epoch 3 in 0.52 sec\nArray([[1.5e-3]], dtype=float64) nan\n (12.125 sec) -4"
    np.testing.assert_array_equal(harness.numbers(text), [3.0, 1.5e-3, np.nan, -4.0])
    assert harness.numbers("MSE: 2.5\nother 3", only=r"^MSE:") == [2.5]
