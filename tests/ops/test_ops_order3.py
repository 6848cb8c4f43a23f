"""The op sweep (tests/support/op_specs.py) at order 3 (issue 27, family 7): every operation,
composed with elementwise maps before and after it (tests/support/order3.py says why), along
three paths: reverse three times, forward three times, and forward over reverse over reverse (a
Hessian's derivative). Each level is checked against central differences of the level below (the
sweep at order 2 checks s2s's second derivatives against NumPy's own function)."""
import zlib

import numpy as np
import pytest
from op_specs import SPECS
from order3 import check_path, compose

PATHS = ("rrr", "fff", "rrf")


def _case(sp):
    args = sp.args(np.random.default_rng(zlib.crc32(sp.id.encode())))
    return compose(sp.fn, len(args), isinstance(sp.fn(*args), tuple)), args


@pytest.mark.parametrize("sp", SPECS, ids=[s.id for s in SPECS])
def test_third_derivatives(sp):
    f, args = _case(sp)
    checked = set()
    for path in PATHS:
        check_path(f, args, path, checked=checked)
