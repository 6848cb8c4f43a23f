"""Smoke test of tools/bench/bench_loops.py (issue 46, section 2): every loop program, at tiny
sizes, gives the author's gradient under s2s's grad and jit(grad) (no timing), and the table
renders. Catches a benchmark broken by a change to s2s, the corpus or the tool."""
import sys

import numpy as np
import pytest
from paths import BENCH

sys.path.insert(0, str(BENCH))
import bench_loops  # noqa: E402

PROGRAMS = bench_loops.programs(quick=True)


def test_programs_cover_the_issue():
    names = " ".join(p.name for p in PROGRAMS)
    for part in ("svm_loss_naive", "softmax_loss_naive", "rnn_forward", "RNN_1FC_ALL", "skipgram"):
        assert part in names
    assert {p.name for p in PROGRAMS} == {p.name for p in bench_loops.programs()}  # the same programs, full size


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_s2s_matches_the_authors_backward(program):
    prep = bench_loops.prepare(program)  # asserts grad and jit(grad) equal the author's gradient
    assert prep["first"] > 0


def test_check_rejects_a_wrong_gradient():
    with pytest.raises(AssertionError):
        bench_loops.check((np.ones(3), np.zeros(2)), (np.ones(3), np.full(2, 1e-3)), "wrong")


def test_table_and_paired_ratio():
    assert bench_loops.paired([2.0, 4.0, 9.0], [1.0, 2.0, 3.0]) == 2.0
    row = {"program": "p", "source": "s", "size": "n=1", "kind": "scalar loop", "ratio": 1.5, "s2s": 3e-6,
           "hand": 2e-6, "first": 0.25, "jax": "n/a (JAX not installed)", "jax_jit": "n/a (JAX not installed)"}
    text = bench_loops.table([row])
    assert "| p (s) | n=1 | scalar loop | 1.50x | 3.00 | 2.00 | 250 |" in text
