"""`rt.scatter_add` (the `np.add.at` that the derivative of `x[index_array]` needs) on every
backend: Dask, whose arrays are immutable and which has no `add.at`, gets a weighted-bincount
form; each index form is checked against `np.add.at` on NumPy, and gradients through fancy
indexing on Dask against the same gradients on NumPy."""
import numpy as np
import pytest

import s2s
from s2s.runtime import core as rt

da = pytest.importorskip("dask.array", reason="the Dask backend needs dask: pip install 's2s[dask]'")

IDX = np.array([0, 2, 2, 5, 0, 2])
INDEXES = {
    "repeated": (lambda: (10,), lambda: IDX, (6,)),
    "rows": (lambda: (6, 3), lambda: IDX, (6, 3)),
    "pairs": (lambda: (6, 4), lambda: (IDX, np.array([1, 1, 3, 0, 1, 2])), (6,)),
    "slice_then_array": (lambda: (3, 6), lambda: (slice(None), IDX), (3, 6)),
    "mask": (lambda: (7,), lambda: np.array([True, False, True, True, False, False, True]), (4,)),
    "broadcast_value": (lambda: (6, 3), lambda: IDX, (3,)),
}


@pytest.mark.parametrize("name", sorted(INDEXES))
def test_dask_scatter_add_matches_numpy_add_at(name):
    shape, index, vshape = (f() if callable(f) else f for f in INDEXES[name])
    rng = np.random.default_rng(1)
    out = rng.standard_normal(shape)
    v = rng.standard_normal(vshape)
    want = out.copy()
    np.add.at(want, index, v)
    got = rt.scatter_add(da.from_array(out, chunks=2), index, da.from_array(v))
    assert isinstance(got, da.Array)
    np.testing.assert_allclose(got.compute(), want, rtol=1e-14)
    np.testing.assert_array_equal(rt.scatter_add(out.copy(), index, v), want)  # NumPy: in place, returned


def test_dask_scatter_add_computes_a_lazy_index():
    out = np.zeros(6)
    got = rt.scatter_add(da.from_array(out), da.from_array(IDX), da.ones(6))
    np.testing.assert_array_equal(got.compute(), np.bincount(IDX, minlength=6))


def gather_loss(x, idx):
    return np.sum(np.sin(x[idx]) * np.arange(1.0, 7.0))


def take_loss(x, idx):
    return np.sum(np.take(x, idx, axis=0) ** 2)


@pytest.mark.parametrize("loss", [gather_loss, take_loss])
def test_grad_through_fancy_indexing_on_dask(loss):
    x = np.linspace(0.1, 1.0, 8) if loss is gather_loss else np.linspace(0.1, 1.0, 24).reshape(8, 3)
    want = s2s.grad(loss)(x, IDX)
    got = s2s.grad(loss)(da.from_array(x, chunks=3), IDX)
    assert isinstance(got, da.Array)
    np.testing.assert_allclose(got.compute(), want, rtol=1e-13)
    ref = np.zeros_like(x)  # an independent reference: the chain rule written out
    if loss is gather_loss:
        np.add.at(ref, IDX, np.cos(x[IDX]) * np.arange(1.0, 7.0))
    else:
        np.add.at(ref, IDX, 2 * x[IDX])
    np.testing.assert_allclose(want, ref, rtol=1e-13)
