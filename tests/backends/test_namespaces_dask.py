"""s2s's JAX namespaces (s2s.scipy.special/stats/linalg, s2s.nn, s2s.lax, s2s.tree_util) on Dask
arrays chunked along the first axis: value_and_grad and a VJP (tests/support/backend_variants.py
`check_on_backend`), then jvp, jit, vmap and vmap(grad) (`check_transforms_on_backend`), each
against the same transform on NumPy (which tests/namespaces/ checks against finite differences
and loops). Skipped where Dask is not installed (CI's `test` extra); Dask is the `dask` extra.
"""
import importlib.util

import numpy as np
import pytest
from backend_variants import check_on_backend, check_transforms_on_backend
from namespace_cases import CASES, Pair, Params, tree_nodes

import s2s
from s2s.backends import arrays

da = pytest.importorskip("dask.array", reason="the Dask backend needs dask: pip install 's2s[dask]'")

# What still fails on Dask (a fixed one fails the run as XPASS: remove it here): case -> why.
GAPS: dict = {}
TRANSFORM_GAPS: dict = {}
# vmap(grad(...)) NumPy itself refuses for these (the sweep compares nothing there)
NUMPY_REFUSES: dict = {}  # (lax slicing under vmap(grad) works since its slices are basic slices)
# (lax.erf is SciPy's erf where SciPy is installed, block by block on Dask; its series, without SciPy,
# builds a graph of thousands of tasks per transform: value_and_grad and vjp only there)
SLOW = () if importlib.util.find_spec("scipy") is not None else ("erf_series", "gelu_exact")
if SLOW:
    GAPS.update(dict.fromkeys(SLOW, "without SciPy, lax.erf's series: computing its gradient's Dask graph exceeds "
                                    "Python's recursion limit inside Dask"))


def _put(a):
    a = np.asarray(a)
    return da.from_array(a, chunks=(2,) + a.shape[1:]) if a.ndim else da.from_array(a)


def _is_dask(a):
    return isinstance(a, da.Array)


def _marked(table, leave=()):
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=table[n])) if n in table else n
            for n in CASES if n not in leave]


@pytest.mark.parametrize("name", _marked(GAPS))
def test_value_grad_and_vjp_on_dask_match_numpy(name):
    fn, args = CASES[name]
    check_on_backend(fn, args, _put, np.asarray, _is_dask, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("name", _marked({**GAPS, **TRANSFORM_GAPS}, SLOW))
def test_jvp_jit_vmap_on_dask_match_numpy(name):
    fn, args = CASES[name]
    refused = check_transforms_on_backend(fn, args, _put, np.asarray, _is_dask, rtol=1e-9, atol=1e-11)
    assert refused == NUMPY_REFUSES.get(name, set())


def test_registered_nodes_holding_dask_arrays():
    rng = np.random.default_rng(3)
    pair, params = Pair(rng.standard_normal((4, 3)), rng.standard_normal((4, 3))), Params(rng.standard_normal(3), 0.7)
    x = rng.standard_normal((4, 3))
    dev = s2s.tree_util.tree_map(lambda v: _put(v) if isinstance(v, np.ndarray) else v, (x, pair, params))
    got = s2s.grad(tree_nodes)(*dev)
    assert _is_dask(got)
    np.testing.assert_allclose(np.asarray(got), s2s.grad(tree_nodes)(x, pair, params), rtol=1e-12)


def test_dask_linalg_runs_numpys_functions_on_whole_matrices():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((4, 3, 3))
    a = a @ np.swapaxes(a, -1, -2) + np.eye(3)
    ad = da.from_array(a, chunks=(2, 2, 3))  # matrices split across chunks: rechunked whole
    xp = arrays.by_name("dask").xp
    for name in ("inv", "cholesky", "det", "eigvalsh"):
        got = getattr(xp.linalg, name)(ad)
        assert _is_dask(got) and got.chunks[0] == (2, 2)  # the batch stays chunked
        np.testing.assert_allclose(got.compute(), getattr(np.linalg, name)(a), rtol=1e-12)
    np.testing.assert_allclose(xp.linalg.slogdet(ad)[1].compute(), np.linalg.slogdet(a)[1], rtol=1e-12)
    np.testing.assert_allclose(np.abs(xp.linalg.eigh(ad)[1].compute()), np.abs(np.linalg.eigh(a)[1]), rtol=1e-10)
    rhs = rng.standard_normal((4, 3, 2))
    for b, bd in ((rhs, da.from_array(rhs, chunks=(1, 3, 2))), (rhs[0, :, 0], da.from_array(rhs[0, :, 0]))):
        got = xp.linalg.solve(ad, bd)  # a batch of matrices, chunked otherwise than the right-hand sides
        assert _is_dask(got)
        np.testing.assert_allclose(got.compute(), np.linalg.solve(a, b), rtol=1e-12)
    np.testing.assert_allclose(xp.linalg.solve(ad[0], da.from_array(rhs[0])).compute(), np.linalg.solve(a[0], rhs[0]),
                               rtol=1e-12)  # one matrix, several right-hand sides (a 3 x 2 result)


def _picked(x):
    return np.sum(x[np.array([0, 2, 2])] ** 2)


def test_vmap_of_grad_through_an_index_array_keeps_every_contribution_on_dask():
    xs = np.arange(8.0).reshape(2, 4) / 3.0 + 0.5  # x[2] read twice: its gradient doubles
    got = s2s.vmap(s2s.grad(_picked))(_put(xs))
    want = np.stack([2 * x * np.bincount([0, 2, 2], minlength=4) for x in xs])  # a loop, by hand
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


def _rows(x, p):
    return x[p] * 2.0 + x[p, 1:3].sum()


def test_vmap_of_a_per_example_gather_on_dask():
    """Each example's rows picked by its own index array: two index arrays in the batched gather
    (the examples' and the rows'), which Dask's own indexing refuses (s2s uses `vindex`)."""
    rng = np.random.default_rng(5)
    xs, ps = rng.standard_normal((4, 3, 4)), np.array([[2, 0, 1], [1, 1, 0], [0, 2, 2], [2, 1, 0]])
    want = np.stack([x[p] * 2.0 + x[p, 1:3].sum() for x, p in zip(xs, ps)])  # a loop over examples
    for index in (ps, _put(ps)):  # a NumPy index, and a Dask one (computed at the gather)
        got = s2s.vmap(_rows)(_put(xs), index)
        assert _is_dask(got)
        np.testing.assert_allclose(got.compute(), want, rtol=1e-14)
