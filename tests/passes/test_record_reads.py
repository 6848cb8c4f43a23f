"""Records read without a copy (passes/record_reads.py, issue 46 section 2): the backward loop
unpacks an inlined call's record itself, not `rt.copy_saved`'s copy of it, where none of the
record's items can be a list. Checked against grad without jit (bitwise), central differences
and the plain function; a record holding a list keeps its copy."""
import numpy as np
import pytest
from helpers_compare import assert_jit_grad_of_both

import s2s


def with_tuple(w, h):
    parts = (np.tanh(np.dot(w, h)), h * 2.0)
    return parts[0] * parts[1]


def with_list(w, h):
    parts = [np.tanh(np.dot(w, h)), h * 2.0]  # (a list in the record: the sweep may pop lists)
    return parts[0] * parts[1]


def _looped(step):
    def looped(w, h0):
        p = {"w": w}
        h = h0
        for t in range(5):
            h = step(p["w"], h)
        return np.sum(h)
    return looped


@pytest.mark.parametrize("step, copied", [(with_tuple, False), (with_list, True)])
def test_record_unpacked_without_its_copy(step, copied):
    fn = _looped(step)
    r = np.random.default_rng(0)
    w, h0 = r.normal(size=(4, 4)) * 0.5, r.normal(size=(4, 1))
    g = s2s.jit(s2s.grad(fn, argnums=(0, 1)))
    got = g(w, h0)
    code = s2s.source(g, w, h0)
    loop = code[code.index("for bwd_") if "for bwd_" in code else code.index("# ---- backward"):]
    assert ("rt.copy_saved(" in loop) is copied, code
    assert_jit_grad_of_both(fn, got, (w, h0))
    again = g(w, h0)  # (a second call: the records of the first are not read again)
    for a, b in zip(got, again):
        np.testing.assert_array_equal(a, b)
