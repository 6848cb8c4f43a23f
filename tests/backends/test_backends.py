"""The backend dispatch (what CuPy uses) exercised without a GPU, on a fake array library.

tests/fake_backend.py registers "fake": a NumPy subclass that, like CuPy, refuses plain NumPy
arrays. These tests check the namespace selection from the arguments, the per-backend versions of
generated code (one code object, one globals dict per backend), the mixing error, device_put /
block_until_ready, s2s.numpy, and then sweep the corpus and the op table through the fake backend
against NumPy: value_and_grad and vjp of every entry, then jvp, jit, vmap and vmap(grad) (of half the
entries by default, the rest with --full). A runtime helper
that allocates with NumPy by name (instead of the arguments' module) fails here as it would on
CuPy.
"""
import contextlib
import os
import subprocess
import sys
import zlib

import numpy as np
import paths
import pytest
from backend_variants import check_on_backend, check_transforms_on_backend
from corpus import CORPUS
from fake_backend import BACKEND, WAITED, FakeArray, put
from fake_backend import host as _host
from fake_backend import is_fake as _is_fake
from op_specs import SPECS

import s2s
from s2s.backends import arrays
from s2s.base import record
from s2s.errors import S2SError

# Transforms NumPy itself refuses for these functions (tests/test_op_vmap.py's VMAP_GAPS and
# ragged results): the transform sweep has nothing to compare there; any other refusal fails.
NUMPY_REFUSES = {"listcomp_if": {"vmap"}, "extract": {"vmap"}}
# vmap(grad(loss)) with `loss` calling the function (a callee) fails on NumPy too, for these
# (found by this sweep; batching bugs, not backend ones): an IndexError in rt.num_examples when the
# callee's backward saves nothing (linear ops: negative, transpose, tile, triu...), a ValueError
# ("truth value of an array") in batched reductions with a run-time axis (sum, norm, det),
# TypeError in batched tile/kron, wrong broadcasting in batched cholesky/pinv/svd helpers, and
# batched helpers without derivative rules (batched_array, batched_transpose, map_examples).
VMAP_GRAD_FAILS_ON_NUMPY = {
    "append_then_array", "append_then_stack", "average", "average__weights", "conj", "conjugate", "deg2rad",
    "degrees", "extract", "fliplr", "flipud", "for_zip_rows_enumerate", "full", "getitem", "kron", "kron__vectors",
    "linalg_cholesky", "linalg_cond", "linalg_det__batched", "linalg_matrix_norm", "linalg_matrix_transpose",
    "linalg_norm", "linalg_norm__axis", "linalg_norm__matrix_ords", "linalg_norm__vector_ords", "linalg_pinv",
    "linalg_svd__batched_values", "linalg_vector_norm", "linspace", "listcomp_if", "listcomp_nested",
    "listcomp_simple", "matrix_transpose", "moveaxis", "negative", "rad2deg", "radians", "sum", "swapaxes", "tile",
    "tril", "triu",
}


# Strict gaps of the transform sweep on a non-NumPy backend (a fixed one fails the run: remove it
# here): name -> why. (append_then_array and listcomp_simple left: rt.batched_array, which the loop run as
# written off NumPy and grad of the summed vmap call, has derivative rules now.)
BACKEND_GAPS: dict[str, str] = {
}


# Functions CuPy lacks with no faithful composition in s2s/backends/array_fill.py (the fake backend lacks them
# too): op-table entry -> the NumPy function the S2SError names; their sweeps must stop at it.
BACKEND_LACKS = {"nanquantile": "nanquantile", "nanpercentile": "nanpercentile"}


def refused_for_lack(name, backend_label):
    """pytest.raises of the S2SError for an entry whose function the backend lacks, else a null context."""
    if name not in BACKEND_LACKS:
        return contextlib.nullcontext()
    return pytest.raises(S2SError, match=rf"numpy\.{BACKEND_LACKS[name]} has no {backend_label} version")


def _with_gaps(names):
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=BACKEND_GAPS[n])) if n in BACKEND_GAPS
            else n for n in names]


def check_refused(name, refused):
    """The transforms NumPy refused for `name` are the expected ones. vmap(grad) of a listed entry
    may also pass: whether it fails on NumPy depends on what was compiled earlier in the process
    (alone, linalg_vector_norm fails; after the whole suite it passed once), itself reported."""
    assert refused - {"vmap_grad"} == NUMPY_REFUSES.get(name, set())
    assert "vmap_grad" not in refused or name in VMAP_GRAD_FAILS_ON_NUMPY
ROOT = str(paths.ROOT)


pytestmark = pytest.mark.usefixtures("fake_backend")  # (tests/backends/conftest.py)


def mlp(w1, w2, x):
    h = np.tanh(x @ w1)
    return np.mean((h @ w2) ** 2)


def _mlp_args(rng=None):
    rng = rng or np.random.default_rng(0)
    return rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal((5, 3))


def test_grad_runs_on_the_arguments_backend_and_matches_numpy():
    args = _mlp_args()
    g = s2s.grad(mlp, argnums=(0, 1))
    want = g(*args)
    got = g(*map(put, args))
    assert all(isinstance(a, FakeArray) for a in got)
    for a, b in zip(got, want):
        np.testing.assert_allclose(_host(a), b, rtol=1e-12)


def test_one_code_object_one_globals_per_backend():
    g = s2s.grad(mlp)
    args = _mlp_args()
    g(*args)
    g(*map(put, args))
    fn = g.compiled
    fake = record.of(fn).versions["fake"]
    assert fake.__code__ is fn.__code__
    assert fn.__globals__["xp"] is np and fake.__globals__["xp"] is BACKEND.xp
    callees = [k for k, v in fn.__globals__.items() if record.of(v) is not None and record.of(v).core is not None]
    for name in callees:  # callees of the fake version are fake versions too
        assert fake.__globals__[name] is record.of(fn.__globals__[name]).versions["fake"]
    g(*map(put, args))
    assert record.of(fn).versions["fake"] is fake  # built once
    assert isinstance(g(*args), np.ndarray) and not isinstance(g(*args), FakeArray)


def test_mixing_backends_is_an_error():
    w1, w2, x = _mlp_args()
    with pytest.raises(S2SError, match="mixes fake and numpy|mixes numpy and fake"):
        s2s.grad(mlp)(put(w1), w2, x)


def test_python_numbers_join_any_backend():
    def f(x, a):
        return np.sum(np.sin(x) * a)
    x = np.linspace(0, 1, 4)
    got = s2s.grad(f)(put(x), 2.5)
    assert isinstance(got, FakeArray)
    np.testing.assert_allclose(_host(got), 2.5 * np.cos(x))


def test_vjp_and_jvp_run_on_the_backend():
    args = _mlp_args()
    out, back = s2s.vjp(mlp, *map(put, args))
    cts = back(put(np.float64(1.0)))
    want_out, want_back = s2s.vjp(mlp, *args)
    for a, b in zip(cts, want_back(1.0)):
        assert isinstance(a, FakeArray)
        np.testing.assert_allclose(_host(a), b, rtol=1e-12)
    tangents = tuple(np.ones_like(a) for a in args)
    y, t = s2s.jvp(mlp, tuple(map(put, args)), tuple(map(put, tangents)))
    wy, wt = s2s.jvp(mlp, args, tangents)
    assert isinstance(t, FakeArray)
    np.testing.assert_allclose(_host(t), wt, rtol=1e-12)


def test_default_backend_moves_numpy_inputs(monkeypatch):
    monkeypatch.setitem(arrays.SETTINGS, "backend", "fake")
    args = _mlp_args()
    got = s2s.grad(mlp)(*args)
    assert isinstance(got, FakeArray)
    monkeypatch.setitem(arrays.SETTINGS, "backend", "numpy")
    np.testing.assert_allclose(_host(got), s2s.grad(mlp)(*args), rtol=1e-12)


def _sin(x):
    return np.sin(x)


def test_vjp_with_the_default_backend_moves_the_cotangent_too(monkeypatch):
    monkeypatch.setitem(arrays.SETTINGS, "backend", "fake")
    x = np.linspace(0.1, 1.0, 4)
    out, back = s2s.vjp(_sin, x)
    assert isinstance(out, FakeArray)
    (ct,) = back(np.ones(4))
    assert isinstance(ct, FakeArray)
    np.testing.assert_allclose(_host(ct), np.cos(x), rtol=1e-12)


def test_device_put_and_block_until_ready_use_the_default_backend(monkeypatch):
    monkeypatch.setitem(arrays.SETTINGS, "backend", "fake")
    tree = {"w": np.ones((2, 2)), "b": [1.5, np.arange(3.0)]}
    out = s2s.device_put(tree)
    assert isinstance(out["w"], FakeArray) and isinstance(out["b"][1], FakeArray)
    assert isinstance(out["b"][0], FakeArray) and out["b"][0].dtype == np.float64
    WAITED.clear()
    assert s2s.block_until_ready(out) is out
    assert len(WAITED) == 3


def test_s2s_numpy_follows_arguments_then_default(monkeypatch):
    import s2s.numpy as jnp
    x = put(np.arange(3.0))
    assert isinstance(jnp.sin(x), FakeArray)
    assert type(jnp.zeros(3)) is np.ndarray
    monkeypatch.setitem(arrays.SETTINGS, "backend", "fake")
    assert isinstance(jnp.zeros(3), FakeArray)
    assert isinstance(jnp.linalg.norm(x), FakeArray)
    np.testing.assert_allclose(_host(jnp.dot(x, x)), 5.0)


def test_jit_and_hessian_on_the_backend():
    args = _mlp_args()
    np.testing.assert_allclose(_host(s2s.jit(mlp)(*map(put, args))), mlp(*args), rtol=1e-12)
    h = s2s.hessian(mlp, argnums=1)(*map(put, args))
    assert isinstance(h, FakeArray)
    np.testing.assert_allclose(_host(h), s2s.hessian(mlp, argnums=1)(*args), rtol=1e-10)


def per_example_loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2) + np.sum(x[np.array([0, 2, 2])] * w[0])


def test_vmap_of_grad_on_the_backend():
    rng = np.random.default_rng(2)
    w, xs = rng.standard_normal(3), rng.standard_normal((4, 5, 3))
    for argnums in (0, 1):
        f = s2s.vmap(s2s.grad(per_example_loss, argnums=argnums), in_axes=(None, 0))
        got = f(put(w), put(xs))
        assert isinstance(got, FakeArray)
        want = np.stack([s2s.grad(per_example_loss, argnums=argnums)(w, x) for x in xs])  # a loop over examples
        np.testing.assert_allclose(_host(got), want, rtol=1e-12)


@pytest.mark.parametrize("name", _with_gaps([fn.__name__ for fn, _ in CORPUS]))
def test_corpus_on_fake_backend(name):
    fn, make = next((f, m) for f, m in CORPUS if f.__name__ == name)
    check_on_backend(fn, make(np.random.default_rng(0)), put, _host, _is_fake)


@pytest.mark.parametrize("name", [sp.id for sp in SPECS])
def test_op_table_on_fake_backend(name):
    sp = next(s for s in SPECS if s.id == name)
    with refused_for_lack(name, "Fake"):
        check_on_backend(sp.fn, sp.args(np.random.default_rng(0)), put, _host, _is_fake)


def _half_by_default(params):
    """Every entry, half of them (by a hash of the name, the same ones on every run) marked `full`:
    the two tests above run every entry on the backend by default; this one's four transforms run
    half of them by default and the rest with --full (CI runs both)."""
    out = []
    for p in params:
        name = p if isinstance(p, str) else p.values[0]
        if zlib.crc32(name.encode()) % 2 == 0:
            out.append(p)
        else:
            marks = [] if isinstance(p, str) else list(p.marks)
            out.append(pytest.param(name, marks=[*marks, pytest.mark.full], id=name))
    return out


@pytest.mark.parametrize("name", _half_by_default(_with_gaps([fn.__name__ for fn, _ in CORPUS]
                                                             + [sp.id for sp in SPECS])))
def test_jvp_jit_vmap_vmap_grad_on_fake_backend(name):
    fn, make = next(((f, m) for f, m in CORPUS if f.__name__ == name), (None, None))
    if fn is None:
        sp = next(s for s in SPECS if s.id == name)
        fn, make = sp.fn, sp.args
    with refused_for_lack(name, "Fake"):
        check_refused(name, check_transforms_on_backend(fn, make(np.random.default_rng(0)), put, _host, _is_fake))


def test_import_s2s_imports_neither_dask_nor_cupy():
    code = "import s2s, sys; assert 'dask' not in sys.modules and 'cupy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})


def norm_loss(x):
    return np.linalg.norm(x) + np.max(x)


def test_float32_gradient_stays_float32_on_the_backend():
    x = np.linspace(0.5, 2.0, 6).astype(np.float32)
    got = s2s.grad(norm_loss)(put(x))
    want = s2s.grad(norm_loss)(x)
    assert isinstance(got, FakeArray) and got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(_host(got), x / np.linalg.norm(x) + (x == x.max()), rtol=1e-6)
