"""Sweep the operation spec table (tests/op_specs.py) with vmap: every operation batched over
several `in_axes` (all arguments at axis 0, all at their last axis, and each argument alone with
the others shared) against a Python loop over the examples calling NumPy itself (float64)."""
import zlib

import numpy as np
import pytest
from helpers_vmap import assert_stacked, batch_args
from op_specs import SPECS

import s2s
from s2s.errors import S2SError

B = 3
# Batching gaps (strict: a fixed one must leave this list): spec id -> why.
VMAP_GAPS: dict = {}
# Cases whose per-example results differ in size (np.extract of a mask that differs per example): no
# stacked result exists, in JAX neither, and vmap refuses them. (A selection x[x > 0] that is reduced,
# as getitem's is, batches: issue 45 section 7.)
REFUSED = {"extract-all0", "extract-last"}


def _axes_cases(sp):
    n = len(sp.draws)
    cases = [("all0", (0,) * n), ("last", ("last",) * n)]
    if n > 1:
        cases += [(f"only{i}", tuple(0 if j == i else None for j in range(n))) for i in range(n)]
    return cases


CASES = [(sp, name, axes) for sp in SPECS for name, axes in _axes_cases(sp)]


def _marks(sp, name):
    why = VMAP_GAPS.get(sp.id) or VMAP_GAPS.get(f"{sp.id}-{name}")
    return [pytest.mark.xfail(reason=why, strict=True)] if why else []


@pytest.mark.parametrize(
    "sp,name,axes",
    [pytest.param(sp, name, axes, id=f"{sp.id}-{name}", marks=_marks(sp, name)) for sp, name, axes in CASES])
def test_vmap_matches_loop(sp, name, axes):
    rng = np.random.default_rng(zlib.crc32(sp.id.encode()))
    examples = [sp.args(rng) for _ in range(B)]
    in_axes, batched, per_example = batch_args(examples, axes)
    want = [sp.fn(*args) for args in per_example]
    if f"{sp.id}-{name}" in REFUSED:
        with pytest.raises(S2SError, match="differs per example|different shape"):
            s2s.vmap(sp.fn, in_axes=in_axes)(*batched)
        return
    assert_stacked(s2s.vmap(sp.fn, in_axes=in_axes)(*batched), want)
