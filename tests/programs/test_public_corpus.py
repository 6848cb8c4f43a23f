"""Public NumPy code with hand-written backward passes (tests/corpus, issue 45): s2s's gradient of
each author's forward against the author's own backward (or central differences where the
author's is wrong), jit(grad) against grad, and the plain value unchanged. A case s2s refuses or
crashes on is a strict xfail with its message recorded in the case; a wrong number always fails.
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "corpus"))
import harness  # noqa: E402

CASES = harness.collect()

# The acceptance ratio this corpus reports (tests/corpus/README.md): the summary test keeps it a floor.
ACCEPTED_FLOOR = 0.0
CASES_FLOOR = 0


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case):
    if case.refused:
        with harness.expect_refusal(case):
            harness.check(case)
        pytest.xfail(case.refused)
    harness.check(case)


def test_cases_are_uniquely_named_and_float64():
    ids = [c.id for c in CASES]
    assert len(set(ids)) == len(ids), sorted(i for i in ids if ids.count(i) > 1)
    for c in CASES:
        nums = (c.argnums,) if isinstance(c.argnums, int) else c.argnums
        for k in nums:
            assert getattr(c.args[k], "dtype", None) == "float64", (c.id, k)


def test_acceptance_ratio_is_at_least_what_we_report():
    accepted = [c for c in CASES if not c.refused]
    assert len(CASES) >= CASES_FLOOR
    assert len(accepted) / max(len(CASES), 1) >= ACCEPTED_FLOOR, (len(accepted), len(CASES))
