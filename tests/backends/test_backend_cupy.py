"""The CuPy backend on a GPU: the op table and the corpus through CuPy against NumPy.

Runs when CuPy and a GPU are present (tools/bench/gpu_check.sh installs CuPy and runs this file);
otherwise every test here is skipped with the reason. The same dispatch is exercised without a
GPU by tests/test_backends.py's fake backend (value_and_grad and vjp, then jvp, jit, vmap and vmap(grad), as
here). jit's fused expressions run here as CuPy kernels (s2s/compiler/emit/cupy_kernels.py) on the
programs of tests/test_backends_kernels.py, which checks their C without a GPU.
"""
import numpy as np
import pytest
from backend_variants import check_on_backend, check_transforms_on_backend
from corpus import CORPUS
from op_specs import SPECS
from test_backends import _with_gaps, check_refused, refused_for_lack
from test_backends_kernels import CASES as KERNEL_CASES
from test_backends_kernels import INT_ONLY as KERNEL_INT_ONLY
from test_backends_kernels import _fused

import s2s


def _gpu_missing() -> str | None:
    try:
        import cupy
    except ImportError:
        return "CuPy is not installed (pip install 's2s[cupy]', or run tools/bench/gpu_check.sh on a GPU machine)"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # no driver, no device
        return f"CuPy cannot reach a GPU: {type(exc).__name__}: {exc}"
    return None if count else "no GPU visible to CuPy"


MISSING = _gpu_missing()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))


def _put(a):
    import cupy
    return cupy.asarray(a)


def _get(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _is_cupy(a):
    import cupy
    return isinstance(a, cupy.ndarray)


@pytest.mark.parametrize("name", _with_gaps([fn.__name__ for fn, _ in CORPUS]))
def test_corpus_on_cupy(name):
    fn, make = next((f, m) for f, m in CORPUS if f.__name__ == name)
    check_on_backend(fn, make(np.random.default_rng(0)), _put, _get, _is_cupy, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", [sp.id for sp in SPECS])
def test_op_table_on_cupy(name):
    sp = next(s for s in SPECS if s.id == name)
    with refused_for_lack(name, "CuPy"):
        check_on_backend(sp.fn, sp.args(np.random.default_rng(0)), _put, _get, _is_cupy, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", _with_gaps([fn.__name__ for fn, _ in CORPUS] + [sp.id for sp in SPECS]))
def test_jvp_jit_vmap_vmap_grad_on_cupy(name):
    fn, make = next(((f, m) for f, m in CORPUS if f.__name__ == name), (None, None))
    if fn is None:
        sp = next(s for s in SPECS if s.id == name)
        fn, make = sp.fn, sp.args
    with refused_for_lack(name, "CuPy"):
        check_refused(name, check_transforms_on_backend(fn, make(np.random.default_rng(0)), _put, _get, _is_cupy,
                                                        rtol=1e-6, atol=1e-8))


@pytest.mark.parametrize("name,dtype", [(c[0], d) for c in KERNEL_CASES for d in (np.float64, np.float32)
                                         if c[0] not in KERNEL_INT_ONLY or d == np.float64])
def test_jit_runs_fused_cupy_kernels(name, dtype):
    _, fn, args = next(c for c in KERNEL_CASES if c[0] == name)
    args = tuple(a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args)
    j = s2s.jit(fn)
    got = j(*[_put(a) if isinstance(a, np.ndarray) else a for a in args])
    assert _is_cupy(got)
    with np.errstate(all="ignore"):
        want = fn(*args)
    assert got.dtype == np.asarray(want).dtype
    tol = 1e-12 if dtype == np.float64 else 1e-5  # CUDA's math functions and FMAs: a few ulps off NumPy
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(_get(got), want)
    else:
        np.testing.assert_allclose(_get(got), want, rtol=tol, atol=tol)
    fused = _fused(j)
    assert fused and all(f.gpu_kernels for f in fused), "a fused expression ran unfused on the GPU"


def test_device_put_and_block_until_ready_on_gpu():
    import cupy
    s2s.config.update("backend", "cupy")
    try:
        x = s2s.device_put(np.arange(6.0, dtype=np.float32).reshape(2, 3))
        assert isinstance(x, cupy.ndarray) and x.dtype == np.float32
        y = s2s.block_until_ready(s2s.numpy.dot(x, x.T))
        assert isinstance(y, cupy.ndarray)
        np.testing.assert_allclose(y.get(), x.get() @ x.get().T)
    finally:
        s2s.config.update("backend", "numpy")


def test_mixing_cupy_and_numpy_is_an_error():
    with pytest.raises(s2s.S2SError, match="mixes"):
        s2s.grad(lambda a, b: np.sum(a * b))(_put(np.ones(3)), np.ones(3))
