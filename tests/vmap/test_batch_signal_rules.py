"""vmap of np.convolve, np.correlate and np.interp with per-example signals, kernels and knots
(s2s/runtime/batch_reduce.py): each path of the rules (a product over strided windows for short
signals, NumPy's own routine per example above _ROW_WORK products or for interp on NumPy arrays,
the generic form on other backends) against a Python loop calling NumPy itself."""
import numpy as np
import pytest
from fake_backend import BACKEND, FakeArray, put
from helpers_vmap import assert_stacked, batch_args

import s2s
from s2s.backends import arrays
from s2s.runtime import batch_reduce

B = 5
RNG = np.random.default_rng(17)
SIZES = [(5, 3), (3, 5), (1, 1), (200, 9), (9, 200), (100, 100)]  # (100, 100): above _ROW_WORK
AXES = [(0, 0), (0, None), (None, 0)]


def _signals(la, lv, dtype):
    a, v = RNG.normal(size=(B, la)), RNG.normal(size=(B, lv))
    if dtype is complex:
        a, v = a + 1j * RNG.normal(size=(B, la)), v + 1j * RNG.normal(size=(B, lv))
    return [(a[k], v[k]) for k in range(B)]


def test_sizes_reach_both_numpy_paths():
    work = [la * lv for la, lv in SIZES]
    assert min(work) <= batch_reduce._ROW_WORK < max(work)


@pytest.mark.parametrize("dtype", [float, complex], ids=["float", "complex"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("la,lv", SIZES)
@pytest.mark.parametrize("op", [np.convolve, np.correlate], ids=["convolve", "correlate"])
def test_vmap_of_convolve_and_correlate_matches_loop(op, la, lv, mode, dtype):
    """Complex signals too: np.correlate conjugates its kernel (vmap's windows product did not)."""
    def f(a, v):
        return op(a, v, mode)
    for axes in AXES:
        in_axes, batched, per = batch_args(_signals(la, lv, dtype), axes)
        got = s2s.vmap(f, in_axes=in_axes)(*batched)
        want = [f(*args) for args in per]
        assert got.dtype == want[0].dtype
        assert_stacked(got, want, rtol=1e-10, atol=1e-10)


def interp(x, xk, fk):
    return np.interp(x, xk, fk)


def interp_bounded(x, xk, fk):
    return np.interp(x, xk, fk, left=-3.0, right=4.0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("xshape", [(), (7,), (3, 4)])
@pytest.mark.parametrize("fn", [interp, interp_bounded])
def test_vmap_of_interp_with_per_example_knots_matches_loop(fn, xshape, dtype):
    examples = []
    for _ in range(B):
        x = RNG.uniform(-0.2, 1.2, xshape).astype(dtype)
        xk = np.sort(RNG.uniform(0.0, 1.0, 30)).astype(dtype)
        examples.append((x, xk, RNG.normal(size=30).astype(dtype)))
    examples[0][0].flat[0] = examples[0][1][3]  # a value on a knot
    for axes in [(0, 0, 0), (None, 0, 0), (0, 0, None), (0, None, 0)]:
        in_axes, batched, per = batch_args(examples, axes)
        got = s2s.vmap(fn, in_axes=in_axes)(*batched)
        want = [fn(*args) for args in per]
        assert got.dtype == np.asarray(want[0]).dtype  # np.interp's float64, as NumPy gives
        assert_stacked(got, want, rtol=1e-6 if dtype == np.float32 else 1e-12)


@pytest.fixture
def fake():
    arrays.register(BACKEND)
    yield
    arrays.unregister("fake")


@pytest.mark.parametrize("fn, sizes", [(lambda a, v: np.convolve(a, v), (200, 9)),
                                       (lambda a, v: np.correlate(a, v, "same"), (100, 100)),
                                       (interp, None)], ids=["convolve", "correlate", "interp"])
def test_other_backends_take_the_generic_form(fn, sizes, fake):
    """Arrays of another backend (the fake CuPy stand-in): the vectorized form, on that backend."""
    if sizes is None:
        args = (RNG.uniform(0, 1, (B, 9)), np.sort(RNG.uniform(0, 1, (B, 6)), axis=1), RNG.normal(size=(B, 6)))
    else:
        args = (RNG.normal(size=(B, sizes[0])), RNG.normal(size=(B, sizes[1])))
    got = s2s.vmap(fn)(*[put(a) for a in args])
    assert isinstance(got, FakeArray)
    assert_stacked(np.asarray(got.view(np.ndarray)), [fn(*[a[k] for a in args]) for k in range(B)], rtol=1e-10)
