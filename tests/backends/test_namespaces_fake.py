"""s2s's JAX namespaces (s2s.scipy.special/stats/linalg, s2s.nn, s2s.lax, s2s.tree_util) on the
fake GPU backend (tests/support/fake_backend.py, as strict as CuPy, with `cupyx.scipy.special`'s
functions): value_and_grad and a VJP, then jvp, jit, vmap and vmap(grad), each against the same
transform on NumPy. The same checks run on a GPU through tests/backends/test_backend_cupy.py's
machinery; this is what CI can run of them."""
import pytest
from backend_variants import check_on_backend, check_transforms_on_backend
from fake_backend import host as _host
from fake_backend import is_fake as _is_fake
from fake_backend import put
from namespace_cases import CASES

# What still fails on the CuPy-strict backend (a fixed one fails the run as XPASS): case -> why.
GAPS: dict = {}
TRANSFORM_GAPS: dict = {}
NUMPY_REFUSES: dict = {}  # (lax slicing under vmap(grad) works since its slices are basic slices)


pytestmark = pytest.mark.usefixtures("fake_backend")  # (tests/backends/conftest.py)


def _marked(table):
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=table[n])) if n in table else n
            for n in CASES]


@pytest.mark.parametrize("name", _marked(GAPS))
def test_value_grad_and_vjp_on_fake_gpu_match_numpy(name):
    fn, args = CASES[name]
    check_on_backend(fn, args, put, _host, _is_fake, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("name", _marked({**GAPS, **TRANSFORM_GAPS}))
def test_jvp_jit_vmap_on_fake_gpu_match_numpy(name):
    fn, args = CASES[name]
    refused = check_transforms_on_backend(fn, args, put, _host, _is_fake, rtol=1e-9, atol=1e-11)
    assert refused == NUMPY_REFUSES.get(name, set())
