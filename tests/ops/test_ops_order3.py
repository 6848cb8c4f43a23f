"""The op sweep (tests/support/op_specs.py) at order 3 (issue 27, family 7): every operation,
composed with elementwise maps before and after it (tests/support/order3.py says why), along
three paths: reverse three times, forward three times, and forward over reverse over reverse (a
Hessian's derivative). Each level is checked against central differences of the level below (the
sweep at order 2 checks s2s's second derivatives against NumPy's own function).

Each operation has one path of its own, chosen by a hash of its id (so a third of the operations
take each path, the same ones on every run). By default half of the operations run along their
own path (another bit of the same hash; every operation of the small kinds, creation and
indexing, too), and --full adds the rest: the other half along their own path, and every
operation along its other two paths (`-m full` runs them alone; CI runs both). The slice keeps
the sweep's power: each kind of operation (elementwise, reduction, linear algebra, shape,
indexing, creation) takes every path on every run, with several operations per kind and path
(test_the_slice_takes_every_path_for_every_kind); the full run adds the repetition, which is
what the slice gives up (five sixths of the sweep's time)."""
import zlib

import numpy as np
import pytest
from op_specs import SPECS
from order3 import check_path, compose

PATHS = ("rrr", "fff", "rrf")


def _case(sp):
    args = sp.args(np.random.default_rng(zlib.crc32(sp.id.encode())))
    return compose(sp.fn, len(args), isinstance(sp.fn(*args), tuple)), args


def _path_of(sp) -> str:
    """The path of `sp`'s default slice: fixed by its id, so a run repeats the last one."""
    return PATHS[zlib.crc32(sp.id.encode()) % len(PATHS)]


# kinds with few operations: every one runs in the default slice
SMALL_KINDS = ("creation", "indexing")


def _in_slice(sp) -> bool:
    """Whether `sp`'s own path runs by default: half the operations (a bit of the hash above the
    path's), every one of the small kinds."""
    return (zlib.crc32(sp.id.encode()) // len(PATHS)) % 2 == 0 or sp.category in SMALL_KINDS


def _params():
    """(spec, its paths): its own path (in the default slice or marked `full`), then the other
    two, marked `full`."""
    out = []
    for sp in SPECS:
        mine = _path_of(sp)
        rest = tuple(p for p in PATHS if p != mine)
        out.append(pytest.param(sp, (mine,), id=f"{sp.id}-{mine}", marks=[] if _in_slice(sp) else pytest.mark.full))
        out.append(pytest.param(sp, rest, id=f"{sp.id}-{'-'.join(rest)}", marks=pytest.mark.full))
    return out


@pytest.mark.parametrize("sp, paths", _params())
def test_third_derivatives(sp, paths):
    f, args = _case(sp)
    checked = set()
    for path in paths:
        check_path(f, args, path, checked=checked)


def test_the_slice_takes_every_path_for_every_kind():
    taken = [(sp.category, _path_of(sp)) for sp in SPECS if _in_slice(sp)]
    assert set(taken) == {(sp.category, p) for sp in SPECS for p in PATHS}
    for kind, path in set(taken):  # several operations each, but for the one-operation kinds
        assert taken.count((kind, path)) >= min(3, sum(sp.category == kind for sp in SPECS) // len(PATHS))
    assert 0.4 * len(SPECS) <= len(taken) <= 0.6 * len(SPECS)
