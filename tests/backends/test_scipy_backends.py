"""s2s.scipy's special-function primitives on the other array backends: on Dask, SciPy's function
block by block (lazy, chunks kept); on CuPy, `cupyx.scipy.special`'s (run when CuPy and a GPU are
present, as tests/backends/test_backend_cupy.py); on a backend without SciPy's functions, a clear
error. Each against the same transform on NumPy."""
import numpy as np
import pytest
from fake_backend import BACKEND, FakeArray, put

import s2s
from s2s.backends import arrays
from s2s.scipy import special

X = np.linspace(0.3, 2.9, 24).reshape(4, 6)


def loss(x):
    return np.sum(special.gammaln(x) * special.erf(x - 1.0) + special.i0e(x) - special.log_ndtr(-x)
                  + special.polygamma(1, x) * special.erfc(x) + special.i1e(x) * special.digamma(x)
                  + special.ndtri(x / 3.0) + special.erfinv(x / 3.0))


def per_row(x):
    return special.logsumexp(special.gammaln(x)) * np.sum(special.expit(x))


def test_special_functions_on_dask_are_lazy_and_match_numpy():
    da = pytest.importorskip("dask.array", reason="the Dask backend needs dask: pip install 's2s[dask]'")
    xd = da.from_array(X, chunks=(2, 6))
    g = s2s.grad(loss)(xd)
    assert isinstance(g, da.Array) and g.chunks == xd.chunks
    np.testing.assert_allclose(g.compute(), s2s.grad(loss)(X), rtol=1e-13)
    _, t = s2s.jvp(loss, (xd,), (da.ones_like(xd),))
    np.testing.assert_allclose(np.asarray(t), s2s.jvp(loss, (X,), (np.ones_like(X),))[1], rtol=1e-13)
    np.testing.assert_allclose(np.asarray(s2s.vmap(per_row)(xd)), s2s.vmap(per_row)(X), rtol=1e-13)


def _gpu_missing():
    try:
        import cupy
    except ImportError:
        return "CuPy is not installed (pip install 's2s[cupy]', or run tools/bench/gpu_check.sh on a GPU machine)"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # no driver, no device
        return f"CuPy cannot reach a GPU: {type(exc).__name__}: {exc}"
    return None if count else "no GPU visible to CuPy"


@pytest.mark.skipif(_gpu_missing() is not None, reason=str(_gpu_missing()))
def test_special_functions_on_cupy_match_numpy():
    import cupy
    xc = cupy.asarray(X)
    g = s2s.grad(loss)(xc)
    assert isinstance(g, cupy.ndarray)
    np.testing.assert_allclose(g.get(), s2s.grad(loss)(X), rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(per_row))(xc).get(), s2s.vmap(s2s.grad(per_row))(X), rtol=1e-12)


def test_a_backend_without_scipys_functions_is_a_clear_error():
    arrays.register(arrays.Backend("fake", BACKEND._load, array_type=FakeArray, put=put))  # no special functions
    try:
        with pytest.raises(s2s.S2SError, match="scipy.special.gammaln has no fake version"):
            s2s.grad(loss)(put(X))
    finally:
        arrays.unregister("fake")
