"""The Dask backend: transforms on Dask arrays chunked along the batch axis agree with NumPy.

Dask is a test extra of CI (`pip install -e '.[test,dask]'`); without it these tests are skipped
with that reason.
"""
import os
import subprocess
import sys

import numpy as np
import paths
import pytest

import s2s
from s2s.backends import arrays
from s2s.errors import S2SError

da = pytest.importorskip("dask.array", reason="the Dask backend needs dask: pip install 's2s[dask]'")
ROOT = str(paths.ROOT)


def loss(w, x, y):
    p = np.tanh(x @ w)
    return np.mean((p - y) ** 2)


def _data(n=120, d=4, chunk=30):
    rng = np.random.default_rng(0)
    w, x, y = rng.standard_normal(d), rng.standard_normal((n, d)), rng.standard_normal(n)
    return w, x, y, da.from_array(x, chunks=(chunk, d)), da.from_array(y, chunks=chunk)


def test_grad_on_dask_is_lazy_and_matches_numpy():
    w, x, y, xd, yd = _data()
    g = s2s.grad(loss)(w, xd, yd)  # NumPy weights join the Dask data
    assert isinstance(g, da.Array)
    np.testing.assert_allclose(g.compute(), s2s.grad(loss)(w, x, y), rtol=1e-12)
    gx = s2s.grad(loss, argnums=1)(w, xd, yd)
    assert isinstance(gx, da.Array) and gx.chunks == xd.chunks  # chunked along the batch axis
    np.testing.assert_allclose(gx.compute(), s2s.grad(loss, argnums=1)(w, x, y), rtol=1e-12)


def test_jit_vjp_jvp_and_hessian_on_dask():
    w, x, y, xd, yd = _data()
    out = s2s.jit(loss)(w, xd, yd)
    assert isinstance(out, da.Array)
    np.testing.assert_allclose(out.compute(), loss(w, x, y), rtol=1e-12)
    v, back = s2s.vjp(lambda x: np.tanh(x) * 2.0, xd)
    (ct,) = back(da.ones_like(xd))
    np.testing.assert_allclose(ct.compute(), 2.0 * (1 - np.tanh(x) ** 2), rtol=1e-12)
    _, t = s2s.jvp(lambda x: np.sum(np.sin(x), axis=1), (xd,), (da.ones_like(xd),))
    np.testing.assert_allclose(t.compute(), np.sum(np.cos(x), axis=1), rtol=1e-12)
    h = s2s.hessian(loss)(da.from_array(w), xd, yd)
    np.testing.assert_allclose(np.asarray(h), s2s.hessian(loss)(w, x, y), rtol=1e-10)


def test_data_dependent_branch_computes_the_condition():
    def f(x):
        s = np.sum(x)
        if s > 0:  # bool() of a lazy value: Dask computes `s` here
            return np.sum(x ** 2)
        return np.sum(np.sin(x))
    _, x, _, xd, _ = _data()
    np.testing.assert_allclose(np.asarray(s2s.grad(f)(xd)), s2s.grad(f)(x), rtol=1e-12)


def test_default_backend_dask_moves_numpy_inputs(monkeypatch):
    monkeypatch.setitem(arrays.SETTINGS, "backend", "dask")
    w, x, y, _, _ = _data()
    g = s2s.grad(loss, argnums=1)(w, x, y)
    assert isinstance(g, da.Array)
    monkeypatch.setitem(arrays.SETTINGS, "backend", "numpy")
    np.testing.assert_allclose(g.compute(), s2s.grad(loss, argnums=1)(w, x, y), rtol=1e-12)


def small_chain(x):
    s = np.sin(x)
    a = s * s - 3.0 * s + 1.0
    b = a * x / 7.0 + 2.5 * s   # a small-array kernel with numba; its numbers 0-d arrays
    return np.cos(a) * b + 0.5 * b


def test_a_numpy_jit_version_run_on_dask_gets_dask_constants_and_statements(monkeypatch):
    """The version for small NumPy vectors, moved to Dask by the backend setting: its 0-d NumPy
    constants become Dask's and its small-array kernel NumPy's statements on Dask arrays
    (emit/loader.version), before and after the kernel compiles."""
    from s2s.base import record
    from s2s.compiler.emit import numba_kernels, numba_small
    monkeypatch.setattr(numba_small, "HOT", 2)
    x = np.linspace(-1.0, 1.0, 6)
    jf = s2s.jit(small_chain)
    want = small_chain(x)
    rec = record.of(jf.version_for((x,)))
    assert rec.constants and (bool(rec.small) == numba_kernels.available())
    for _ in range(3):  # past HOT: NumPy's version calls the compiled kernel
        np.testing.assert_array_equal(jf(x), want)
    monkeypatch.setitem(arrays.SETTINGS, "backend", "dask")
    for _ in range(3):
        got = jf(x)
        assert isinstance(got, da.Array)
        np.testing.assert_array_equal(got.compute(), want)


def test_config_update_backend(monkeypatch):
    monkeypatch.setitem(arrays.SETTINGS, "backend", "numpy")
    s2s.config.update("backend", "dask")
    try:
        assert arrays.default().name == "dask"
        x = s2s.device_put(np.ones((10, 3)))
        assert isinstance(x, da.Array) and x.chunks[1] == (3,)  # chunks only along the first axis
        y = s2s.block_until_ready(x * 2)
        assert isinstance(y, da.Array)  # persisted: computed, still a Dask array
        np.testing.assert_array_equal(y.compute(), 2 * np.ones((10, 3)))
        import s2s.numpy as jnp
        assert isinstance(jnp.zeros(3), da.Array)
    finally:
        s2s.config.update("backend", "numpy")


def _sorted_head(x):
    return np.sum(np.sort(x)[:2])


def _logdet(x):
    return np.sum(np.linalg.slogdet(x)[1])


def test_missing_dask_function_is_a_clear_error():
    with pytest.raises(S2SError, match="numpy.sort has no Dask version"):
        s2s.grad(_sorted_head)(da.from_array(np.array([3.0, 1.0, 2.0])))


def test_linalg_dask_lacks_runs_numpys_on_whole_matrices():
    x = np.eye(3) * 2.0 + 0.1
    g = s2s.grad(_logdet)(da.from_array(x, chunks=2))  # (Dask has no slogdet; its matrices are split)
    assert isinstance(g, da.Array)
    np.testing.assert_allclose(g.compute(), np.linalg.inv(x).T, rtol=1e-12)


def test_mixing_dask_with_another_backend_is_an_error():
    from fake_backend import BACKEND, put
    arrays.register(BACKEND)
    try:
        _, x, y, xd, _ = _data()
        with pytest.raises(S2SError, match="mixes"):
            s2s.grad(lambda a, b: np.sum(a * b))(xd, put(x))
    finally:
        arrays.unregister("fake")


def _local_tcp_listening_works() -> bool:
    """Whether this machine lets a process listen on a local TCP port and connect to it, which
    Dask's distributed scheduler needs (some sandboxes, such as gVisor without networking, do not)."""
    import socket

    from tornado.netutil import bind_sockets
    try:
        socks = bind_sockets(0, None) + bind_sockets(0, "127.0.0.1")
        if not socks:
            return False
        try:
            with socket.create_connection(("127.0.0.1", socks[-1].getsockname()[1]), timeout=5):
                return True
        finally:
            for s in socks:
                s.close()
    except OSError:
        return False


def test_dask_per_example_runs_on_a_local_cluster():
    pytest.importorskip("distributed", reason="a local Dask cluster needs distributed: pip install 's2s[dask]'")
    if not _local_tcp_listening_works():
        pytest.skip("this machine lets no process listen on a local TCP port, which a Dask cluster's scheduler needs")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "dask_per_example.py")],
                          capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok: per-example gradients on a 2-worker Dask cluster match NumPy" in proc.stdout
    assert "workers: 2" in proc.stdout

