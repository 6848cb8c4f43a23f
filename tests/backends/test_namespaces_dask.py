"""s2s's JAX namespaces (s2s.scipy.special/stats/linalg, s2s.nn, s2s.lax, s2s.tree_util) on Dask
arrays chunked along the first axis: value_and_grad and a VJP (tests/support/backend_variants.py
`check_on_backend`), then jvp, jit, vmap and vmap(grad) (`check_transforms_on_backend`), each
against the same transform on NumPy (which tests/namespaces/ checks against finite differences
and loops). Skipped where Dask is not installed (CI's `test` extra); Dask is the `dask` extra.
"""
import numpy as np
import pytest
from backend_variants import check_on_backend, check_transforms_on_backend
from namespace_cases import CASES, Pair, Params, tree_nodes

import s2s
from s2s import arrays

da = pytest.importorskip("dask.array", reason="the Dask backend needs dask: pip install 's2s[dask]'")

# What still fails on Dask (a fixed one fails the run as XPASS: remove it here): case -> why.
GAPS = {
    "linalg_cholesky_solves": "a runtime linalg helper reaches Dask's own cholesky/solve through NumPy's dispatch, "
                              "which needs square chunks of one matrix (s2s's Dask namespace rechunks, "
                              "np.linalg.* called from rt helpers does not)",
    "erf_series": "computing the gradient's Dask graph (a chain of the 160-term series and its reverse) "
                  "exceeds Python's recursion limit inside Dask",
    "gelu_exact": "as erf_series (the exact gelu is lax.erf's series)",
    "linalg_lu": "lu_solve's row order (rt.lu_perm) uses take_along_axis/put_along_axis, which Dask lacks "
                 "(an S2SError naming take_along_axis)",
}
TRANSFORM_GAPS = {
    "stats_multivariate": GAPS["linalg_cholesky_solves"],
    "linalg_inverse": GAPS["linalg_cholesky_solves"],
    "linalg_expm": GAPS["linalg_cholesky_solves"],
    "linalg_eigh": "jit of eigh on Dask returns a NumPy array (a step computes on the host)",
}
# vmap(grad(...)) NumPy itself refuses for these (the sweep compares nothing there)
NUMPY_REFUSES: dict[str, set] = {}  # (lax_slicing: its batched helpers have derivatives now)
# the erf series builds a graph of thousands of tasks per transform: value_and_grad and vjp only
SLOW = ("erf_series", "gelu_exact")


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
    with pytest.raises(s2s.S2SError, match="linalg.solve of a batch"):
        xp.linalg.solve(ad, ad)


def _picked(x):
    return np.sum(x[np.array([0, 2, 2])] ** 2)


def test_vmap_of_grad_through_an_index_array_keeps_every_contribution_on_dask():
    xs = np.arange(8.0).reshape(2, 4) / 3.0 + 0.5  # x[2] read twice: its gradient doubles
    got = s2s.vmap(s2s.grad(_picked))(_put(xs))
    want = np.stack([2 * x * np.bincount([0, 2, 2], minlength=4) for x in xs])  # a loop, by hand
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
